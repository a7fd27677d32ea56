//! User kernels: the shipped examples parse and compile, and hostile sources give a clean
//! one-line error at the right line (at parse time, or from NVRTC) and never a panic.
//!
//! The NVRTC tests need libnvrtc (no GPU): without it they print "skipped: no NVRTC".
//! `pip install nvidia-cuda-nvrtc==13.0.*` and its `nvidia/cu13/lib` in LD_LIBRARY_PATH
//! are enough. The GPU tests (examples run on the device, `sobel_tiles.cu` equal to the
//! built-in Sobel's CPU reference bit for bit) print "skipped: no CUDA device" without one.

mod common;

use common::{max_difference, photo};
use cudalens::cuda::CudaDevice;
use cudalens::filters::Filter;
use cudalens::ops::random_image;
use cudalens::user_kernel::device::{arch_for, run_on_image, LoadedKernel, POISON};
use cudalens::user_kernel::diagnostics::{Origin, Severity};
use cudalens::user_kernel::examples::EXAMPLES;
use cudalens::user_kernel::source::{MAX_SOURCE_BYTES, PIXEL_FUNCTION};
use cudalens::user_kernel::{
    compile, nvrtc_available, translation_unit, CompileError, CompileOptions, Form, KernelSource,
    ParamValues, ENTRY_NAME,
};
use image::RgbaImage;
use std::time::Duration;

fn nvrtc_or_skip() -> bool {
    let ok = nvrtc_available();
    if !ok {
        common::skip_gpu_test("no NVRTC");
    }
    ok
}

const GOOD_PIXEL: &str =
    "uchar4 pixel(int x, int y, Image src, Params p)\n{\n    return read(src, x, y);\n}\n";

/// Where a hostile source must fail.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// Refused by the source checks, at this line (None: the whole file).
    Parse(Option<usize>),
    /// Parsed, refused by NVRTC (or the PTX checks) at this user line (None: no line).
    Compile(Option<usize>),
}

fn hostile() -> Vec<(&'static str, String, Expect)> {
    use Expect::*;
    let p = GOOD_PIXEL;
    let k = "__global__ void k(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, Params p) {}\n";
    let params17: String = (0..17)
        .map(|i| format!("// @param int a{i} 0..9\n"))
        .collect();
    let mut big = String::from(p);
    while big.len() <= MAX_SOURCE_BYTES {
        big.push_str("// padding padding padding padding padding padding padding padding\n");
    }
    vec![
        ("empty", String::new(), Parse(None)),
        ("blank", " \n\t\n".into(), Parse(None)),
        ("only a comment", "// nothing here\n".into(), Parse(None)),
        ("no entry", "__device__ int f() { return 1; }\n".into(), Parse(None)),
        ("include stdio", format!("#include <stdio.h>\n{p}"), Parse(Some(1))),
        ("include passwd", format!("\n#include \"/etc/passwd\"\n{p}"), Parse(Some(2))),
        ("include by digraph", format!("%:include \"/etc/passwd\"\n{p}"), Parse(Some(1))),
        ("include split by a splice", format!("{p}#\\\ninclude \"/etc/passwd\"\n"), Parse(Some(5))),
        ("include behind a comment", format!("{p}  # /* x */ include </etc/passwd>\n"), Parse(Some(5))),
        ("include_next", format!("#include_next <x>\n{p}"), Parse(Some(1))),
        ("has_include probe", format!("#if __has_include(\"/etc/shadow\")\n#endif\n{p}"), Parse(Some(1))),
        ("line directive", format!("#line 100 \"x.cu\"\n{p}"), Parse(Some(1))),
        ("line marker", format!("{p}# 7 \"x.cu\"\n"), Parse(Some(5))),
        ("reserved name", format!("{p}int cudalens_user_kernel;\n"), Parse(Some(5))),
        ("launch bounds", "// @block 8x8\n__global__ void __launch_bounds__(64) k() {}\n".into(), Parse(Some(2))),
        ("unknown directive", format!("// @blok 16x16\n{p}"), Parse(Some(1))),
        ("param type double", format!("// @param double a 0..1\n{p}"), Parse(Some(1))),
        ("param named int", format!("// @param int int 0..1\n{p}"), Parse(Some(1))),
        ("param name not C", format!("\n// @param float 2x 0..1\n{p}"), Parse(Some(2))),
        ("param name reserved", format!("// @param float __x 0..1\n{p}"), Parse(Some(1))),
        ("param empty range", format!("// @param float a 2..2\n{p}"), Parse(Some(1))),
        ("param no range", format!("// @param float a = 1\n{p}"), Parse(Some(1))),
        ("param default outside", format!("// @param int a 0..5 = 6\n{p}"), Parse(Some(1))),
        ("param default nan", format!("// @param float a 0..1 = nan\n{p}"), Parse(Some(1))),
        ("param int not int", format!("// @param int a 0..1.5\n{p}"), Parse(Some(1))),
        ("bool with range", format!("// @param bool a 0..1\n{p}"), Parse(Some(1))),
        ("param twice", format!("// @param int a 0..1\n// @param float a 0..1\n{p}"), Parse(Some(2))),
        ("17 params", format!("{params17}{p}"), Parse(Some(17))),
        ("block too big", format!("// @block 64x64\n{k}"), Parse(Some(1))),
        ("block zero", format!("// @block 0x16\n{k}"), Parse(Some(1))),
        ("block words", format!("// @block big\n{k}"), Parse(Some(1))),
        ("block overflow", format!("// @block 4294967295x4294967295\n{k}"), Parse(Some(1))),
        ("block twice", format!("// @block 8x8\n// @block 8x8\n{k}"), Parse(Some(2))),
        ("shared too big", format!("// @block 8x8\n// @shared 65536\n{k}"), Parse(Some(2))),
        ("shared negative", format!("// @block 8x8\n// @shared -1\n{k}"), Parse(Some(2))),
        ("shared in pixel form", format!("// @shared 16\n{p}"), Parse(Some(1))),
        ("form bogus", format!("// @form vertex\n{p}"), Parse(Some(1))),
        ("kernel without block", k.to_string(), Parse(Some(1))),
        ("two kernels", format!("// @block 8x8\n{k}{k}"), Parse(Some(3))),
        ("pixel and kernel", format!("{p}{k}"), Parse(Some(5))),
        ("pixel form with kernel", format!("// @form pixel\n{p}{k}"), Parse(Some(6))),
        ("unterminated comment", format!("{p}/* never closed\n"), Parse(Some(5))),
        ("unterminated string", format!("{p}const char* s = \"open;\n"), Parse(Some(5))),
        ("NUL byte", format!("{p}\n\0"), Parse(Some(6))),
        ("huge source", big, Parse(None)),
        // Compiled: NVRTC's errors, at the user's lines.
        ("missing semicolon", "uchar4 pixel(int x, int y, Image src, Params p)\n{\n    return read(src, x, y)\n}\n".into(), Compile(Some(4))),
        ("undefined name", "uchar4 pixel(int x, int y, Image src, Params p)\n{\n    return read(src, x, y) + nothing;\n}\n".into(), Compile(Some(3))),
        ("pixel returns float", "float pixel(int x, int y, Image src, Params p) { return 0.0f; }\n".into(), Compile(Some(1))),
        ("pixel takes two ints", "\nuchar4 pixel(int x, int y) { return make_uchar4(0, 0, 0, 0); }\n".into(), Compile(Some(2))),
        ("pixel overloaded", format!("{p}uchar4 pixel(int x, int y) {{ return make_uchar4(0, 0, 0, 0); }}\n"), Compile(Some(1))),
        ("pixel never defined", "uchar4 pixel(int x, int y, Image src, Params p);\n".into(), Compile(None)),
        ("kernel wrong signature", "// @block 8x8\n__global__ void k(float* out) { out[0] = 1.0f; }\n".into(), Compile(Some(2))),
        ("unknown param field", "// @param float a 0..1\nuchar4 pixel(int x, int y, Image src, Params p) { return grey(p.b, 255); }\n".into(), Compile(Some(2))),
        ("error directive", format!("#error boom\n{p}"), Compile(Some(1))),
        ("deep template recursion", format!("template <int N> struct R {{ static const int v = R<N + 1>::v + 1; }};\n__device__ int deep() {{ return R<0>::v; }}\n{p}"), Compile(Some(1))),
        ("endless constexpr", format!("constexpr long f() {{ long s = 0; for (long i = 0; i < (1L << 40); ++i) s += i; return s; }}\nconstexpr long v = f();\n{p}"), Compile(Some(2))),
        ("shared arrays too big", "// @block 8x8\n// @shared 40000\n__global__ void k(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, Params p)\n{\n    __shared__ float t[4096];\n    t[threadIdx.x] = width;\n    __syncthreads();\n    write(dst, 0, 0, grey(t[width % 64], 255));\n}\n".into(), Compile(None)),
        ("standard library", format!("std::vector<int> v;\n{p}"), Compile(Some(1))),
        ("garbage", format!("{p}@@@ ``` $$$\n"), Compile(Some(5))),
    ]
}

#[test]
fn at_least_thirty_hostile_sources() {
    assert!(hostile().len() >= 30);
}

#[test]
fn hostile_sources_are_refused_at_their_line_by_the_source_checks() {
    for (name, text, expect) in hostile() {
        let parsed = KernelSource::parse(&text);
        match expect {
            Expect::Parse(line) => {
                let e = parsed.expect_err(name);
                assert_eq!(e.line, line, "{name}: {e}");
                assert!(!e.to_string().contains('\n'), "{name}: {e}");
                assert!(!e.message.is_empty(), "{name}");
            }
            Expect::Compile(_) => {
                let source = parsed.unwrap_or_else(|e| panic!("{name}: refused early: {e}"));
                // The generated unit is viewable and keeps the user's text intact.
                assert!(translation_unit(&source).contains(&source.text), "{name}");
            }
        }
    }
}

#[test]
fn hostile_sources_fail_to_compile_cleanly() {
    if !nvrtc_or_skip() {
        return;
    }
    for (name, text, expect) in hostile() {
        let Expect::Compile(line) = expect else {
            continue;
        };
        let source = KernelSource::parse(&text).unwrap();
        let e = compile(&source, &CompileOptions::default()).expect_err(name);
        let CompileError::Failed {
            summary,
            diagnostics,
            ..
        } = &e
        else {
            panic!("{name}: {e}");
        };
        assert!(!summary.contains('\n'), "{name}: {summary}");
        let first = diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error)
            .unwrap_or_else(|| panic!("{name}: no error in {diagnostics:?}"));
        assert_eq!(first.origin, Origin::User, "{name}: {summary}");
        assert_eq!(first.line, line, "{name}: {summary}");
        // The generated name never shows: the user's names do.
        assert!(!summary.contains(ENTRY_NAME), "{name}: {summary}");
        println!("{name}: {summary}");
    }
}

#[test]
fn generated_units_include_nothing() {
    // NVRTC opens any path in `#include "..."`: the source checks refuse every spelling,
    // and the generated code around the user's must not add one.
    for e in EXAMPLES {
        let source = KernelSource::parse(e.source).unwrap();
        assert!(!translation_unit(&source).contains("include"), "{}", e.file);
    }
}

#[test]
fn examples_parse_with_their_header_and_params() {
    assert_eq!(EXAMPLES.len(), 7);
    for e in EXAMPLES {
        let source =
            KernelSource::parse(e.source).unwrap_or_else(|err| panic!("{}: {err}", e.file));
        assert!(
            e.source.starts_with(&format!("// {}:", e.file)),
            "{}: header",
            e.file
        );
        let values = ParamValues::defaults(&source.params);
        assert_eq!(values.values.len(), source.params.len());
        let _ = values.pack(&source.params);
        match e.file {
            "sobel_tiles.cu" | "canny_nms.cu" => {
                assert_eq!(source.form, Form::Kernel, "{}", e.file)
            }
            _ => {
                assert_eq!(source.form, Form::Pixel, "{}", e.file);
                assert_eq!(source.entry.name, PIXEL_FUNCTION);
            }
        }
    }
    let sobel = KernelSource::parse(
        cudalens::user_kernel::examples::example("sobel_tiles.cu")
            .unwrap()
            .source,
    )
    .unwrap();
    assert_eq!(
        (sobel.block.x, sobel.block.y, sobel.rows, sobel.shared_bytes),
        (32, 8, 4, 4624)
    );
    assert_eq!(sobel.entry.name, "sobel_tiles");
}

#[test]
fn examples_compile_without_warnings() {
    if !nvrtc_or_skip() {
        return;
    }
    for arch in ["compute_75", "compute_90"] {
        for e in EXAMPLES {
            let source = KernelSource::parse(e.source).unwrap();
            let k = compile(&source, &CompileOptions::for_arch(arch))
                .unwrap_or_else(|err| panic!("{} ({arch}): {err}", e.file));
            assert!(
                k.ptx.contains(&format!(".entry {ENTRY_NAME}(")),
                "{}",
                e.file
            );
            assert!(
                k.ptx
                    .contains(&format!(".maxntid {}, 1, 1", source.block.threads())),
                "{}: launch bounds",
                e.file
            );
            let warnings: Vec<String> = k.warnings().map(|d| d.to_string()).collect();
            assert!(warnings.is_empty(), "{}: {warnings:?}", e.file);
        }
    }
}

#[test]
fn a_bad_arch_and_a_tiny_deadline_are_clean_errors() {
    let source = KernelSource::parse(GOOD_PIXEL).unwrap();
    let bad = CompileOptions::for_arch("sm_90 --include-path=/etc");
    assert!(matches!(
        compile(&source, &bad),
        Err(CompileError::BadArch(_))
    ));
    if !nvrtc_or_skip() {
        return;
    }
    let hurried = CompileOptions {
        deadline: Duration::from_nanos(1),
        ..CompileOptions::default()
    };
    match compile(&source, &hurried) {
        Err(CompileError::Timeout(_)) | Ok(_) => {}
        Err(e) => panic!("{e}"),
    }
}

/// The NVRTC time of a 20-line kernel (median of 7), printed for the design notes:
/// `cargo test --test user_kernel compile_time -- --nocapture`.
#[test]
fn compile_time_of_a_small_kernel() {
    if !nvrtc_or_skip() {
        return;
    }
    let source = KernelSource::parse(
        cudalens::user_kernel::examples::example("vignette.cu")
            .unwrap()
            .source,
    )
    .unwrap();
    assert!(source.text.lines().count() <= 25);
    let mut times: Vec<Duration> = (0..7)
        .map(|_| {
            compile(&source, &CompileOptions::for_arch("compute_90"))
                .unwrap()
                .elapsed
        })
        .collect();
    times.sort();
    println!(
        "NVRTC {:?}: {}-line kernel compiles in {:?} (median of 7; min {:?}, max {:?})",
        cudalens::user_kernel::nvrtc_version(),
        source.text.lines().count(),
        times[3],
        times[0],
        times[6]
    );
}

/// Device 0 and NVRTC, or None with the skip message.
fn device_or_skip() -> Option<CudaDevice> {
    if !nvrtc_or_skip() {
        return None;
    }
    let reason = match CudaDevice::count() {
        Ok(0) => "no device".to_string(),
        Ok(_) => return Some(CudaDevice::new(0).expect("device 0 opens")),
        Err(e) => e.to_string(),
    };
    common::skip_gpu_test(&format!("no CUDA device ({reason})"));
    None
}

/// Compiles and loads example `file` for `device`.
fn load_example(device: &CudaDevice, file: &str) -> (KernelSource, LoadedKernel) {
    let source = KernelSource::parse(
        cudalens::user_kernel::examples::example(file)
            .unwrap()
            .source,
    )
    .unwrap();
    let arch = arch_for(device.info.compute_capability);
    let compiled = compile(&source, &CompileOptions::for_arch(&arch))
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    let loaded =
        LoadedKernel::load(device, &source, &compiled).unwrap_or_else(|e| panic!("{file}: {e}"));
    (source, loaded)
}

fn test_images() -> Vec<RgbaImage> {
    let mut images: Vec<RgbaImage> = [(1, 1), (17, 5), (16, 16), (333, 211)]
        .iter()
        .enumerate()
        .map(|(i, &(w, h))| random_image(w, h, 40 + i as u64))
        .collect();
    images.push(photo("astronaut.png"));
    images
}

fn count_poison(image: &RgbaImage) -> usize {
    image.pixels().filter(|p| p.0 == POISON).count()
}

#[test]
fn gpu_examples_write_every_pixel() {
    let Some(device) = device_or_skip() else {
        return;
    };
    for e in EXAMPLES {
        let (source, kernel) = load_example(&device, e.file);
        let params = ParamValues::defaults(&source.params).pack(&source.params);
        println!("{}: {:?}", e.file, kernel.attributes);
        for image in test_images() {
            let out = run_on_image(&device, &kernel, &image, &params)
                .unwrap_or_else(|err| panic!("{}: {err}", e.file));
            assert_eq!(
                count_poison(&out),
                0,
                "{} on {:?}",
                e.file,
                image.dimensions()
            );
        }
    }
}

#[test]
fn gpu_invert_matches_its_definition() {
    let Some(device) = device_or_skip() else {
        return;
    };
    let (source, kernel) = load_example(&device, "invert.cu");
    let params = ParamValues::defaults(&source.params).pack(&source.params);
    for image in test_images() {
        let out = run_on_image(&device, &kernel, &image, &params).unwrap();
        let mut expected = image.clone();
        for p in expected.pixels_mut() {
            p.0 = [255 - p.0[0], 255 - p.0[1], 255 - p.0[2], p.0[3]];
        }
        assert_eq!(
            max_difference(&out, &expected),
            (0, 0),
            "{:?}",
            image.dimensions()
        );
    }
}

#[test]
fn gpu_sobel_tiles_equals_the_builtin_sobel_bit_for_bit() {
    let Some(device) = device_or_skip() else {
        return;
    };
    let (source, kernel) = load_example(&device, "sobel_tiles.cu");
    for scale in ["1", "0.05", "64"] {
        let values =
            ParamValues::from_assignments(&source.params, &format!("scale={scale}")).unwrap();
        let params = values.pack(&source.params);
        for image in test_images() {
            let out = run_on_image(&device, &kernel, &image, &params).unwrap();
            let builtin: Filter = format!("sobel:scale={scale}").parse().unwrap();
            let expected = builtin.apply_cpu(&image);
            assert_eq!(
                max_difference(&out, &expected),
                (0, 0),
                "scale {scale} on {:?}",
                image.dimensions()
            );
        }
    }
}

/// The complete kernels in the tutorial (its ```cuda blocks with a body) parse and compile.
#[test]
fn tutorial_kernels_compile() {
    let tutorial = include_str!("../docs/tutorial-first-kernel.md");
    let blocks: Vec<&str> = tutorial
        .split("```cuda\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .filter(|b| b.contains('{'))
        .collect();
    assert_eq!(blocks.len(), 3);
    let nvrtc = nvrtc_or_skip();
    for block in blocks {
        let source = KernelSource::parse(block).unwrap_or_else(|e| panic!("{e}\n{block}"));
        if nvrtc {
            compile(&source, &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}\n{block}"));
        }
    }
}

/// Random edits of the examples (the characters that open and close comments, literals,
/// directives and splices) never panic the source checks, and every refusal is one line.
#[test]
fn mutated_examples_never_panic_the_source_checks() {
    use rand::{Rng, SeedableRng};
    const PIECES: &[&str] = &[
        "#",
        "\"",
        "'",
        "/",
        "*",
        "\\",
        "\n",
        "\r",
        "@",
        "(",
        ")",
        "{",
        "}",
        "R\"(",
        "%:",
        "//",
        "/*",
        "*/",
        "// @param float a 0..1\n",
        "// @block 8x8\n",
        "__global__",
        "pixel(",
        "\0",
        "é",
        "\u{feff}",
    ];
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let (mut accepted, mut refused) = (0, 0);
    // Some accepted mutants go through NVRTC too: a clean result either way.
    let mut compile_budget = if nvrtc_or_skip() { 40 } else { 0 };
    for round in 0..3000 {
        let mut text = EXAMPLES[round % EXAMPLES.len()].source.to_string();
        for _ in 0..rng.random_range(1..6) {
            let mut at = rng.random_range(0..=text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            if rng.random_bool(0.3) {
                let mut end = (at + rng.random_range(1..40)).min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.replace_range(at..end, "");
            } else {
                text.insert_str(at, PIECES[rng.random_range(0..PIECES.len())]);
            }
        }
        match KernelSource::parse(&text) {
            Ok(source) => {
                accepted += 1;
                assert!(translation_unit(&source).contains(&source.text));
                if compile_budget > 0 && rng.random_bool(0.1) {
                    compile_budget -= 1;
                    match compile(&source, &CompileOptions::default()) {
                        Ok(k) => assert!(k.ptx.contains(ENTRY_NAME)),
                        Err(CompileError::Failed {
                            summary,
                            diagnostics,
                            ..
                        }) => {
                            assert!(!summary.contains('\n'), "{summary}");
                            assert!(!diagnostics.is_empty(), "{summary}");
                        }
                        Err(e) => panic!("{e}"),
                    }
                }
            }
            Err(e) => {
                refused += 1;
                assert!(!e.to_string().contains('\n'), "{e}");
                if let Some(line) = e.line {
                    assert!(
                        line >= 1 && line <= text.lines().count() + 1,
                        "{e} in {} lines",
                        text.lines().count()
                    );
                }
            }
        }
    }
    println!("mutated sources: {accepted} accepted, {refused} refused");
    assert!(accepted > 0 && refused > 0);
}
