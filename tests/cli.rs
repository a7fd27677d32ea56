//! The command line: the contract, exit codes (2: bad input or usage, 1: internal), one
//! clear line per error, no panic, never overwriting an input.

mod common;

use assert_cmd::Command;
use common::{data, photo};
use cudalens::filters::{apply_cpu, Filter};
use cudalens::ops::cpu;
use cudalens::ops::histogram::{ranged_histogram, HistogramOptions};
use cudalens::pixels::PixelImage;
use predicates::prelude::*;

fn cudalens() -> Command {
    Command::cargo_bin("cudalens").expect("binary built")
}

fn cuda_present() -> bool {
    cudalens::cuda::CudaDevice::count().is_ok_and(|n| n > 0)
}

/// Runs and expects exit code 2 with one line on stderr naming `needle`.
fn refuses(args: &[&str], needle: &str) {
    let out = cudalens().args(args).output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "{args:?}: {stderr}"
    );
    assert_eq!(
        stderr.trim().lines().count(),
        1,
        "{args:?}: one line expected: {stderr}"
    );
}

#[test]
fn apply_matches_the_library_and_writes_atomically() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.png");
    let input = data("astronaut.png");
    cudalens()
        .args([
            "apply",
            input.to_str().expect("utf-8"),
            "-o",
            out.to_str().expect("utf-8"),
        ])
        .args([
            "--filter",
            "gaussian:sigma=1.5",
            "--filter",
            "sobel:scale=2",
            "--filter",
            "transpose",
            "--backend",
            "cpu",
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains("CPU backend"));
    let filters: Vec<Filter> = ["gaussian:sigma=1.5", "sobel:scale=2", "transpose"]
        .iter()
        .map(|s| s.parse().expect("spec"))
        .collect();
    let want = apply_cpu(&photo("astronaut.png"), &filters);
    assert_eq!(image::open(&out).expect("output").into_rgba8(), want);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("ls")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names.len(), 1, "temporary files left: {names:?}");
}

/// `--selection`: the filters' result inside the rectangle, the input's pixels outside it
/// (what the app saves with "Filters on Selection Only", and what its "Copy as command
/// line" writes); a rectangle past the image, a size-changing stack or a batch: usage errors.
#[test]
fn apply_filters_a_selection_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.png");
    let input = data("astronaut.png");
    let (input, out_s) = (input.to_str().expect("utf-8"), out.to_str().expect("utf-8"));
    cudalens()
        .args(["apply", input, "-o", out_s, "--filter", "gaussian:sigma=2"])
        .args([
            "--filter",
            "sobel",
            "--selection",
            "40,30,100,60",
            "--backend",
            "cpu",
        ])
        .assert()
        .success();
    let source = photo("astronaut.png");
    let filters: Vec<Filter> = ["gaussian:sigma=2", "sobel"]
        .iter()
        .map(|s| s.parse().expect("spec"))
        .collect();
    let filtered = apply_cpu(&source, &filters);
    let got = image::open(&out).expect("output").into_rgba8();
    assert_eq!(got.dimensions(), source.dimensions());
    let mut inside = 0;
    for (x, y, p) in got.enumerate_pixels() {
        let within = (40..140).contains(&x) && (30..90).contains(&y);
        let want = if within {
            filtered.get_pixel(x, y)
        } else {
            source.get_pixel(x, y)
        };
        assert_eq!(p, want, "({x}, {y}), inside {within}");
        inside += usize::from(within && filtered.get_pixel(x, y) != source.get_pixel(x, y));
    }
    assert!(
        inside > 1000,
        "the filters changed the selection: {inside} pixels"
    );
    let past = format!("{},0,10,10", source.width() - 5);
    refuses(
        &[
            "apply",
            input,
            "-o",
            out_s,
            "--force",
            "--filter",
            "sobel",
            "--selection",
            &past,
        ],
        "reaches past",
    );
    let wide = data("coffee.png"); // 600×400: transposed, another size
    let wide = wide.to_str().expect("utf-8");
    refuses(
        &[
            "apply",
            wide,
            "-o",
            out_s,
            "--force",
            "--filter",
            "transpose",
            "--selection",
            "0,0,5,5",
        ],
        "keep the image's size",
    );
    refuses(
        &[
            "apply",
            input,
            input,
            "-o",
            dir.path().to_str().expect("utf-8"),
            "--filter",
            "sobel",
            "--selection",
            "0,0,5,5",
        ],
        "batch",
    );
    refuses(
        &["apply", input, "-o", out_s, "--selection", "1,2,0,4"],
        "above 0",
    );
}

#[test]
fn apply_never_overwrites_the_input_or_an_existing_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("in.png");
    std::fs::copy(data("coffee.png"), &input).expect("copy");
    let before = std::fs::read(&input).expect("read");
    let i = input.to_str().expect("utf-8");
    refuses(
        &["apply", i, "-o", i, "--filter", "sobel", "--force"],
        "refusing to overwrite the input",
    );
    let existing = dir.path().join("existing.png");
    std::fs::write(&existing, b"keep me").expect("write");
    let e = existing.to_str().expect("utf-8");
    refuses(
        &["apply", i, "-o", e, "--filter", "sobel"],
        "already exists",
    );
    assert_eq!(std::fs::read(&existing).expect("read"), b"keep me");
    cudalens()
        .args([
            "apply",
            i,
            "-o",
            e,
            "--filter",
            "sobel",
            "--force",
            "--backend",
            "cpu",
        ])
        .assert()
        .success();
    assert_eq!(
        std::fs::read(&input).expect("read"),
        before,
        "input changed"
    );
}

#[test]
fn bad_inputs_get_one_clear_line_and_exit_code_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = std::fs::read(data("coffee.png")).expect("read");
    let cases: Vec<(String, &[u8], &str)> = vec![
        ("zero.png".into(), b"", "not a supported image format"),
        (
            "text.png".into(),
            b"this is text, not a PNG",
            "not a supported image format",
        ),
        ("truncated.png".into(), &good[..good.len() / 3], "truncated"),
        (
            "huge.png".into(),
            Box::leak(common::png_declaring(100_000, 100_000).into_boxed_slice()),
            "larger than",
        ),
    ];
    let out = dir.path().join("o.png");
    let o = out.to_str().expect("utf-8");
    for (name, bytes, needle) in cases {
        let p = dir.path().join(&name);
        std::fs::write(&p, bytes).expect("write");
        let p = p.to_str().expect("utf-8");
        refuses(&["apply", p, "-o", o, "--filter", "sobel"], needle);
        refuses(&["histogram", p], needle);
    }
    let d = dir.path().to_str().expect("utf-8");
    refuses(&["histogram", d], "is a directory");
    refuses(&["histogram", &format!("{d}/missing.png")], "no such file");
    assert!(!out.exists());
}

#[test]
fn bad_usage_exits_2() {
    let input = data("coffee.png");
    let i = input.to_str().expect("utf-8");
    for (spec, needle) in [
        ("blur", "unknown filter"),
        ("box:radius=0", "outside"),
        ("gaussian:sigma=40", "outside"),
    ] {
        let out = cudalens()
            .args(["apply", i, "-o", "/tmp/never-written.png", "--filter", spec])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{spec}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(needle),
            "{spec}"
        );
    }
    refuses(
        &["apply", i, "-o", "/tmp/x.unknown", "--filter", "sobel"],
        "cannot write this format",
    );
    // bench --filter: specifications checked like apply's; a stack for the GPU only.
    refuses(&["bench", "--filter", "box:radius=0"], "outside");
    refuses(
        &[
            "bench",
            "--backend",
            "cpu",
            "--size",
            "8x8",
            "--filter",
            "sobel",
        ],
        "--filter times a stack on the GPU",
    );
    // bench --kernel: only with --kernels, and a file that cannot be read is named before
    // anything runs (NVRTC or a device missing here is said instead).
    refuses(&["bench", "--kernel", "k.cu"], "--kernels");
    let out = cudalens()
        .args(["bench", "--kernels", "--kernel", "/nonexistent/k.cu"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("/nonexistent/k.cu") || err.contains("NVRTC") || err.contains("CUDA"),
        "{err}"
    );
    // The research modes live in cudalens-bench (tools/bench), not in the app.
    for flag in ["--peers", "--ms-sweep", "--deep", "--handover-probe"] {
        refuses(&["bench", "--backend", "cpu", flag], flag);
    }
}

#[test]
fn cuda_backend_without_cuda_is_a_clear_usage_error() {
    if cuda_present() {
        eprintln!("skipped: a CUDA device is present");
        return;
    }
    let input = data("coffee.png");
    refuses(
        &[
            "histogram",
            input.to_str().expect("utf-8"),
            "--backend",
            "cuda",
        ],
        "CUDA backend is not available",
    );
}

#[test]
fn histogram_json_equals_the_reference() {
    let input = data("logo.png");
    let out = cudalens()
        .args([
            "histogram",
            input.to_str().expect("utf-8"),
            "--json",
            "--backend",
            "cpu",
        ])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let want = cpu::histogram(&photo("logo.png"));
    assert_eq!(v["width"], 500);
    assert_eq!(v["height"], 500);
    for (i, key) in ["r", "g", "b", "luma"].iter().enumerate() {
        let got: Vec<u32> = serde_json::from_value(v[*key].clone()).expect("256 counts");
        assert_eq!(got, want.bins[i].to_vec(), "{key}");
    }
    cudalens()
        .args(["histogram", input.to_str().expect("utf-8")])
        .assert()
        .success()
        .stdout(predicate::str::contains("median"));
}

#[test]
fn histogram_bins_and_range_follow_the_options() {
    let input = data("logo.png");
    let path = input.to_str().expect("utf-8");
    let out = cudalens()
        .args(["histogram", path, "--json", "--backend", "cpu"])
        .args(["--bins", "16", "--range=-10.5,100"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let want = ranged_histogram(
        &PixelImage::from_rgba8(photo("logo.png")),
        &HistogramOptions {
            bins: Some(16),
            range: Some((-10.5, 100.0)),
        },
    )
    .expect("valid");
    assert_eq!(v["bins"], 16);
    assert_eq!(v["range"], serde_json::json!([-10.5, 100.0]));
    assert_eq!(v["edges"].as_array().map(Vec::len), Some(17));
    for c in &want.channels {
        let got: Vec<u64> = serde_json::from_value(v[c.name].clone()).expect("16 counts");
        assert_eq!(got, c.counts, "{}", c.name);
        assert_eq!(v["outside"][c.name]["above"], c.above, "{}", c.name);
        let total: u64 = got.iter().sum::<u64>() + c.above + c.below;
        assert_eq!(total, 500 * 500, "{}", c.name);
    }
    for bad in [
        ["--bins", "0"],
        ["--bins", "65537"],
        ["--range", "5,1"],
        ["--range", "x"],
    ] {
        let mut args = vec!["histogram", path];
        args.extend(bad);
        refuses(&args, bad[0]);
    }
}

#[test]
fn mandelbrot_dwell_png_is_the_contract_exactly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("d.png");
    cudalens()
        .args([
            "mandelbrot",
            "-o",
            out.to_str().expect("utf-8"),
            "--width",
            "97",
            "--height",
            "61",
            "--center=-0.75,0.1",
        ])
        .args([
            "--span",
            "2.5",
            "--max-dwell",
            "300",
            "--mode",
            "per-pixel",
            "--dwell",
            "--backend",
            "cpu",
        ])
        .assert()
        .success();
    let png = image::open(&out).expect("png");
    let gray = png.as_luma16().expect("16-bit greyscale");
    let view = cudalens::mandelbrot::View {
        center: (-0.75, 0.1),
        span: 2.5,
        width: 97,
        height: 61,
        max_dwell: 300,
        fractal: cudalens::mandelbrot::Fractal::Mandelbrot,
    };
    let want = cudalens::mandelbrot::render_per_pixel(&view, false);
    let got: Vec<u32> = gray.pixels().map(|p| u32::from(p.0[0])).collect();
    assert_eq!(got, want.values);
    let coloured = dir.path().join("c.png");
    cudalens()
        .args([
            "mandelbrot",
            "-o",
            coloured.to_str().expect("utf-8"),
            "--width",
            "64",
            "--height",
            "48",
            "--backend",
            "cpu",
        ])
        .assert()
        .success();
    let c = image::open(&coloured).expect("png");
    assert_eq!((c.width(), c.height()), (64, 48));
    refuses(
        &["mandelbrot", "-o", "/tmp/m.png", "--max-dwell", "2000000"],
        "max dwell",
    );
    refuses(
        &[
            "mandelbrot",
            "-o",
            "/tmp/m.png",
            "--max-dwell",
            "65536",
            "--dwell",
        ],
        "16-bit",
    );
    refuses(&["mandelbrot", "-o", "/tmp/m.png", "--span", "-1"], "span");
}

/// `-o view.exr`: the raw data, channel `dwell` equal to the 16-bit dwell PNG of the same
/// view and `nu` the CPU reference's continuous values (the dwell where a point did not
/// escape), the view text in an attribute; a zoom sequence numbers `.exr` files; posters
/// and overlays refuse EXR; dwells past 16 bits are fine.
#[test]
fn mandelbrot_exr_holds_the_raw_dwells_continuous_values_and_distances() {
    use cudalens::mandelbrot::{read_dwells_exr, render_per_pixel, Fractal, View};
    let dir = tempfile::tempdir().expect("tempdir");
    let view_args = [
        "--width",
        "33",
        "--height",
        "21",
        "--center=0.250000002,0",
        "--span",
        "2e-9",
        "--max-dwell",
        "200000",
        "--mode",
        "per-pixel",
        "--backend",
        "cpu",
    ];
    let exr = dir.path().join("v.exr");
    cudalens()
        .args(["mandelbrot", "-o", exr.to_str().expect("utf-8")])
        .args(view_args)
        .assert()
        .success();
    let file = std::io::BufReader::new(std::fs::File::open(&exr).expect("exr"));
    let (got, texts) = read_dwells_exr(file).expect("a dwell EXR");
    // Beside the cusp at 0.25, where dwells pass 65535 before escaping.
    let view = View {
        center: (0.250000002, 0.0),
        span: 2e-9,
        width: 33,
        height: 21,
        max_dwell: 200_000,
        fractal: Fractal::Mandelbrot,
    };
    let want = render_per_pixel(&view, true);
    assert_eq!(got.values, want.values);
    assert_eq!(got.smooth, want.smooth);
    // The distance estimates: the CPU reference's, in pixels.
    let distance = cudalens::mandelbrot::distances_from(&view, &want);
    assert_eq!(got.distance.as_ref(), Some(&distance));
    assert!(distance.iter().any(|&d| d > 0.0));
    assert!(
        want.values.iter().any(|&d| d > 65535 && d < 200_000),
        "escaped dwells past 16 bits"
    );
    let (_, text) = texts
        .iter()
        .find(|(k, _)| k == cudalens::image_io::VIEW_KEYWORD)
        .expect("the view attribute");
    assert!(
        text.contains("span=2e-9") && text.contains("dwell=200000"),
        "{text}"
    );
    // A sequence: numbered EXR files.
    let seq = dir.path().join("z.exr");
    cudalens()
        .args(["mandelbrot", "-o", seq.to_str().expect("utf-8")])
        .args([
            "--width",
            "16",
            "--height",
            "9",
            "--frames",
            "2",
            "--zoom-to",
            "-0.75,0.1,0.5",
        ])
        .args(["--backend", "cpu"])
        .assert()
        .success();
    for k in 0..2 {
        let path = dir.path().join(format!("z-000{k}.exr"));
        let file = std::io::BufReader::new(std::fs::File::open(&path).expect("frame"));
        assert_eq!(read_dwells_exr(file).expect("dwells").0.width, 16);
    }
    let m = ["mandelbrot", "-o", "/tmp/m.exr"];
    let with = |extra: &[&'static str]| [&m[..], extra].concat();
    refuses(&with(&["--width", "40000"]), "EXR output is for views");
    refuses(&with(&["--overlay"]), "EXR holds the raw dwells");
    refuses(&["mandelbrot", "-o", "/tmp/m.tif"], "EXR (.exr)");
}

#[test]
fn mandelbrot_exports_deep_views_from_decimal_strings() {
    use cudalens::mandelbrot::deep::{
        direct_dwell, render_perturbation, DeepLocation, DeepView, ReferenceOrbit,
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("deep.png");
    // The period-71 minibrot by c = i (a deep bookmark), with its 66-digit imaginary part.
    let center = "-5.7960226633851473342940605164561481986e-27,1.0000000000000000000000000028921460006467534922652732365309804002".to_string();
    cudalens()
        .args(["mandelbrot", "-o", out.to_str().expect("utf-8")])
        .args(["--width", "16", "--height", "12", "--max-dwell", "400"])
        .args(["--center", &center, "--span", "1e-50", "--dwell"])
        .args(["--mode", "per-pixel", "--backend", "cpu"])
        .assert()
        .success()
        .stderr(predicate::str::contains("Perturbation"));
    let png = image::open(&out).expect("png");
    let got: Vec<u32> = png
        .as_luma16()
        .expect("16-bit greyscale")
        .pixels()
        .map(|p| u32::from(p.0[0]))
        .collect();
    let view = DeepView {
        location: DeepLocation::parse(&center, "1e-50").expect("location"),
        width: 16,
        height: 12,
        max_dwell: 400,
        fractal: cudalens::mandelbrot::Fractal::Mandelbrot,
    };
    let orbit = ReferenceOrbit::compute(&view);
    let want = render_perturbation(&view, &orbit, cudalens::mandelbrot::Precision::Perturbation);
    assert_eq!(got, want.values);
    let direct = (0..12u32)
        .flat_map(|y| (0..16u32).map(move |x| (x, y)))
        .filter(|&(x, y)| direct_dwell(&view, x, y, 64) != got[(y * 16 + x) as usize])
        .count();
    assert!(
        direct <= 1,
        "{direct} of 192 pixels differ from direct iteration"
    );
    assert!(got.iter().any(|&d| d != got[0]), "a view with detail");
    refuses(
        &["mandelbrot", "-o", "/tmp/m.png", "--span", "1e-1001"],
        "deeper than",
    );
    refuses(
        &["mandelbrot", "-o", "/tmp/m.png", "--span", "1e-9x"],
        "decimal",
    );
    refuses(
        &["mandelbrot", "-o", "/tmp/m.png", "--center", "1;2"],
        "RE,IM",
    );
}

/// `--julia RE,IM`: a Julia set, by default the whole of it (centre 0, span 4), equal to
/// the CPU reference; deep, equal to mpmath's dwells; a bad c is refused.
#[test]
fn mandelbrot_renders_julia_sets() {
    use cudalens::mandelbrot::{render_per_pixel, Fractal, JuliaC, View};
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("julia.png");
    let dwells = |args: &[&str]| -> Vec<u32> {
        cudalens()
            .args(["mandelbrot", "-o", out.to_str().expect("utf-8"), "--force"])
            .args(["--dwell", "--mode", "per-pixel", "--backend", "cpu"])
            .args(args)
            .assert()
            .success();
        image::open(&out)
            .expect("png")
            .as_luma16()
            .expect("16-bit greyscale")
            .pixels()
            .map(|p| u32::from(p.0[0]))
            .collect()
    };
    let got = dwells(&["--julia=-0.123,0.745", "--width", "64", "--height", "48"]);
    let view = View {
        center: (0.0, 0.0),
        span: 4.0,
        width: 64,
        height: 48,
        max_dwell: 1024,
        fractal: Fractal::Julia {
            c: JuliaC::parse("-0.123,0.745").expect("c"),
        },
    };
    assert_eq!(got, render_per_pixel(&view, false).values);
    let text = std::fs::read_to_string(common::data_dir().join("julia_deep_dwells.json"))
        .expect("the committed JSON");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let v = &json["views"][0];
    let field = |k: &str| v[k].as_str().expect("a string field").to_string();
    let (w, h) = (v["width"].to_string(), v["height"].to_string());
    let got = dwells(&[
        &format!("--julia={}", field("c")),
        &format!("--center={}", field("center")),
        &format!("--span={}", field("span")),
        "--width",
        &w,
        "--height",
        &h,
        "--max-dwell",
        &v["max_dwell"].to_string(),
    ]);
    let width = v["width"].as_u64().expect("width") as usize;
    for p in v["pixels"].as_array().expect("pixels") {
        let at = |i: usize| p[i].as_u64().expect("x, y, dwell") as usize;
        assert_eq!(got[at(1) * width + at(0)] as usize, at(2), "pixel {p}");
    }
    for (bad, why) in [
        ("1", "expected RE,IM"),
        ("x,1", "not a decimal"),
        ("1,2,3", "not a decimal"),
    ] {
        // A fresh path: the bad c, not an existing output, must be what is refused.
        let fresh = dir.path().join("refused.png");
        let fresh = fresh.to_str().expect("utf-8");
        refuses(&["mandelbrot", "-o", fresh, &format!("--julia={bad}")], why);
        assert!(!dir.path().join("refused.png").exists(), "nothing written");
    }
}

#[test]
fn mandelbrot_zoom_sequence_smooth_and_overlay() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("z.png");
    let out_arg = out.to_str().expect("utf-8");
    let size = ["--width", "48", "--height", "32", "--backend", "cpu"];
    cudalens()
        .args(["mandelbrot", "-o", out_arg, "--smooth", "--frames", "3"])
        .args(["--zoom-to=-0.745,0.113,0.01", "--max-dwell", "200"])
        .args(size)
        .assert()
        .success();
    let frames: Vec<_> = (0..3)
        .map(|i| image::open(dir.path().join(format!("z-000{i}.png"))).expect("frame"))
        .collect();
    assert!(frames.iter().all(|f| (f.width(), f.height()) == (48, 32)));
    assert_ne!(frames[0].as_bytes(), frames[2].as_bytes(), "the zoom moves");
    assert!(!out.exists(), "a sequence writes numbered files only");
    // Existing frames are not overwritten without --force.
    cudalens()
        .args([
            "mandelbrot",
            "-o",
            out_arg,
            "--frames",
            "3",
            "--zoom-to=-0.745,0.113,0.01",
        ])
        .args(size)
        .assert()
        .code(2);
    let overlay = dir.path().join("o.png");
    cudalens()
        .args([
            "mandelbrot",
            "-o",
            overlay.to_str().expect("utf-8"),
            "--overlay",
        ])
        .args(size)
        .assert()
        .success()
        .stderr(predicate::str::contains("per-pixel"));
    for (args, what) in [
        (&["--frames", "3"][..], "zoom-to"),
        (&["--zoom-to=0,0,1"][..], "frames"),
        (&["--overlay", "--dwell"][..], "overlay"),
        (&["--overlay", "--mode", "per-pixel"][..], "overlay"),
        (
            &["--refinement", "nested", "--mode", "per-pixel"][..],
            "refinement",
        ),
        (&["--density", "0"][..], "density"),
        (&["--offset", "2"][..], "offset"),
    ] {
        let mut all = vec!["mandelbrot", "-o", "/tmp/never-written.png"];
        all.extend_from_slice(args);
        refuses(&all, what);
    }
}

#[test]
fn mandelbrot_refinement_presets_nest_where_the_measured_one_does_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("r.png");
    let depth = |refinement: &str| {
        let run = cudalens()
            .args(["mandelbrot", "-o", out.to_str().expect("utf-8"), "--force"])
            .args(["--width", "320", "--height", "200", "--backend", "cpu"])
            .args(["--overlay", "--refinement", refinement])
            .output()
            .expect("runs");
        assert!(run.status.success(), "{refinement}");
        let text = String::from_utf8_lossy(&run.stderr).into_owned();
        let at = text.find("depth ").expect("statistics") + "depth ".len();
        text[at..].split(',').next().expect("a depth").to_string()
    };
    assert_eq!(depth("measured"), "1");
    assert_eq!(depth("nested"), "3");
    assert_eq!(depth("child-grids"), "3");
}

#[test]
fn doctor_reports_the_backend_and_why() {
    let out = cudalens().arg("doctor").output().expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("backend (auto):"), "{text}");
    assert!(text.contains("kernels:"), "{text}");
    if !cuda_present() {
        assert!(text.contains("CPU — CUDA unavailable"), "{text}");
    }
}

#[test]
fn the_default_asset_exists() {
    assert!(common::repo_root().join("assets/chelsea.png").exists());
}

/// `apply` with no filter and no edit converts the format: the pixels as loaded, in the
/// output's format; `--quality` sets JPEG's; no note without `--verbose`.
#[test]
fn apply_without_a_filter_converts_the_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = data("astronaut.png");
    let i = input.to_str().expect("utf-8");
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_string();
    for name in ["out.tif", "out.bmp", "out.jpg"] {
        let out = cudalens()
            .args(["apply", i, "-o", &path(name)])
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {stderr}");
        assert!(stderr.contains("converted"), "{stderr}");
        assert!(!stderr.contains("note:"), "{stderr}");
    }
    let want = photo("astronaut.png");
    for lossless in ["out.tif", "out.bmp"] {
        let got = image::open(path(lossless)).expect("decodes").to_rgba8();
        assert!(got == want, "{lossless} differs from the input");
    }
    let jpeg = image::open(path("out.jpg")).expect("decodes").to_rgba8();
    assert_eq!(jpeg.dimensions(), want.dimensions());
    let (max, _) = common::max_difference(&jpeg, &want);
    assert!(
        max > 0 && max < 128,
        "a JPEG of the image, max difference {max}"
    );
    cudalens()
        .args(["apply", i, "-o", &path("low.jpg"), "--quality", "20"])
        .assert()
        .success();
    let size = |name: &str| std::fs::metadata(path(name)).expect("written").len();
    assert!(
        size("low.jpg") * 2 < size("out.jpg"),
        "quality 20: {} bytes, default: {} bytes",
        size("low.jpg"),
        size("out.jpg")
    );
    refuses(
        &["apply", i, "-o", &path("q.jpg"), "--quality", "0"],
        "quality",
    );
    refuses(
        &["apply", i, "-o", &path("q.jpg"), "--quality", "101"],
        "quality",
    );
}

/// Saving transparency to JPEG says so (the file is still written).
#[test]
fn jpeg_output_warns_that_it_drops_transparency() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("alpha.png");
    image::RgbaImage::from_fn(8, 8, |x, y| image::Rgba([40, 80, 120, (x * 30 + y) as u8]))
        .save(&input)
        .expect("write");
    let out = dir.path().join("alpha.jpg");
    let run = cudalens()
        .args(["apply", input.to_str().expect("utf-8"), "-o"])
        .arg(&out)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning") && stderr.contains("transparency"),
        "{stderr}"
    );
    assert!(out.exists());
    // An opaque image says nothing of it.
    let opaque = cudalens()
        .args(["apply", data("coffee.png").to_str().expect("utf-8"), "-o"])
        .arg(dir.path().join("coffee.jpg"))
        .output()
        .expect("runs");
    assert!(!String::from_utf8_lossy(&opaque.stderr).contains("warning"));
}

/// A folder of images into an image file's name is refused, and nothing is made.
#[test]
fn a_folder_into_an_image_file_name_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let photos = dir.path().join("photos");
    std::fs::create_dir(&photos).expect("mkdir");
    std::fs::copy(data("coffee.png"), photos.join("coffee.png")).expect("copy");
    for name in ["y.png", "y.mp4"] {
        let target = dir.path().join(name);
        refuses(
            &[
                "apply",
                photos.to_str().expect("utf-8"),
                "-o",
                target.to_str().expect("utf-8"),
            ],
            "names a file",
        );
        assert!(!target.exists(), "a folder named {name} was made");
    }
    // --format takes jpg and jpeg, tif and tiff.
    for (word, ext) in [
        ("jpg", "jpg"),
        ("jpeg", "jpg"),
        ("tif", "tiff"),
        ("tiff", "tiff"),
    ] {
        let out = dir.path().join(format!("out-{word}"));
        cudalens()
            .args(["apply", photos.to_str().expect("utf-8"), "-o"])
            .arg(format!("{}/", out.display()))
            .args(["--format", word])
            .assert()
            .success();
        assert!(
            out.join(format!("coffee.{ext}")).exists(),
            "--format {word}"
        );
    }
}

/// Notes (here: the CPU backend taken under auto) only with --verbose.
#[test]
fn notes_only_with_verbose() {
    if cuda_present() {
        return; // the note is about falling back to the CPU
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |verbose: bool| {
        let mut c = cudalens();
        c.args(["apply", data("coffee.png").to_str().expect("utf-8"), "-o"])
            .arg(dir.path().join("out.png"))
            .args(["--filter", "sobel", "--force"]);
        if verbose {
            c.arg("-v");
        }
        let out = c.output().expect("runs");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(!run(false).contains("note:"));
    assert!(run(true).contains("note: CPU backend"));
}

/// `mandelbrot --view` takes the explorer's "Copy view" text: the same dwells as the same
/// view through --center, --span and --max-dwell; its dwell, unless --max-dwell is given.
#[test]
fn mandelbrot_view_text_is_the_view_of_center_and_span() {
    use cudalens::mandelbrot::deep::DeepLocation;
    let dir = tempfile::tempdir().expect("tempdir");
    let (center, span) = ("-0.743643887037151,0.13182590420533", "1e-9");
    let location = DeepLocation::parse(center, span).expect("location");
    let text =
        cudalens::app::view_to_text(&location, 700, &cudalens::mandelbrot::Fractal::Mandelbrot);
    let render = |name: &str, args: &[&str]| {
        let out = dir.path().join(name);
        cudalens()
            .args(["mandelbrot", "-o", out.to_str().expect("utf-8")])
            .args([
                "--width",
                "40",
                "--height",
                "30",
                "--dwell",
                "--backend",
                "cpu",
            ])
            .args(args)
            .assert()
            .success();
        std::fs::read(out).expect("written")
    };
    let by_text = render("text.png", &["--view", &text]);
    let by_args = render(
        "args.png",
        &["--center", center, "--span", span, "--max-dwell", "700"],
    );
    assert!(by_text == by_args, "--view {text} differs");
    let deeper = render("deeper.png", &["--view", &text, "--max-dwell", "900"]);
    assert!(
        deeper != by_text,
        "--max-dwell is taken over the view's dwell"
    );
    refuses(
        &["mandelbrot", "-o", "/tmp/m.png", "--view", "re=1"],
        "--view",
    );
    refuses(
        &[
            "mandelbrot",
            "-o",
            "/tmp/m.png",
            "--view",
            &text,
            "--span",
            "1",
        ],
        "cannot be used with",
    );
}

/// A coloured picture carries its exact view (`cudalens-view`, what "Copy view" gives);
/// `--view FILE.png` renders that view again.
#[test]
fn mandelbrot_png_carries_its_view_and_view_reads_it_back() {
    use cudalens::image_io::{read_png_text, VIEW_KEYWORD};
    use cudalens::mandelbrot::deep::DeepLocation;
    use cudalens::mandelbrot::{Fractal, JuliaC};
    let dir = tempfile::tempdir().expect("tempdir");
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_string();
    let small = ["--width", "48", "--height", "32", "--backend", "cpu"];
    let (center, span) = ("-0.743643887037151,0.13182590420533", "1e-7");
    cudalens()
        .args(["mandelbrot", "-o", &path("first.png"), "--center", center])
        .args(["--span", span, "--max-dwell", "600", "--palette", "fire"])
        .args(small)
        .assert()
        .success();
    let location = DeepLocation::parse(center, span).expect("location");
    let want = cudalens::app::view_to_text(&location, 600, &Fractal::Mandelbrot);
    let text = read_png_text(dir.path().join("first.png").as_path(), VIEW_KEYWORD)
        .expect("reads")
        .expect("a view chunk");
    assert_eq!(text, want);
    let software = read_png_text(dir.path().join("first.png").as_path(), "Software")
        .expect("reads")
        .expect("a Software chunk");
    assert!(software.starts_with("cudalens"), "{software}");
    cudalens()
        .args([
            "mandelbrot",
            "-o",
            &path("again.png"),
            "--view",
            &path("first.png"),
        ])
        .args(["--palette", "fire"])
        .args(small)
        .assert()
        .success();
    let pixels = |name: &str| {
        image::open(dir.path().join(name))
            .expect("decodes")
            .into_rgba8()
    };
    assert!(
        pixels("first.png") == pixels("again.png"),
        "same view, same picture"
    );
    // A Julia set's c travels too.
    let c = JuliaC::parse("-0.8,0.156").expect("c");
    cudalens()
        .args([
            "mandelbrot",
            "-o",
            &path("julia.png"),
            "--julia",
            "-0.8,0.156",
        ])
        .args(small)
        .assert()
        .success();
    let julia = read_png_text(dir.path().join("julia.png").as_path(), VIEW_KEYWORD)
        .expect("reads")
        .expect("a view chunk");
    let back = cudalens::app::view_from_text(&julia).expect("parses");
    assert_eq!(back.fractal, Fractal::Julia { c });
    // PNGs without a view, or with one that does not parse, are one-line usage errors.
    std::fs::write(dir.path().join("plain.png"), png_without_text()).expect("write");
    refuses(
        &[
            "mandelbrot",
            "-o",
            &path("x.png"),
            "--view",
            &path("plain.png"),
        ],
        "carries no cudalens view",
    );
    cudalens::image_io::save_png_with_text(
        &image::DynamicImage::ImageRgba8(image::RgbaImage::new(2, 2)),
        dir.path().join("bad.png").as_path(),
        &cudalens::image_io::SaveOptions::default(),
        &[(VIEW_KEYWORD, "re=oops")],
    )
    .expect("saves");
    refuses(
        &[
            "mandelbrot",
            "-o",
            &path("x.png"),
            "--view",
            &path("bad.png"),
        ],
        "--view",
    );
}

fn png_without_text() -> Vec<u8> {
    let mut bytes = Vec::new();
    image::RgbaImage::new(3, 3)
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .expect("encodes");
    bytes
}

/// `--palette-file` colours with a Fractint map; a bad map is one clear line.
#[test]
fn mandelbrot_palette_file_colours_with_the_map() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_string();
    // Red to blue and back: no green anywhere but in the interior's black.
    let map: String = (0..256)
        .map(|i: u32| {
            let r = if i < 128 { 255 - 2 * i } else { 2 * (i - 128) };
            format!("{r} 0 {} ramp\r\n", 255 - r)
        })
        .collect();
    std::fs::write(dir.path().join("ramp.map"), map).expect("write");
    cudalens()
        .args([
            "mandelbrot",
            "-o",
            &path("m.png"),
            "--palette-file",
            &path("ramp.map"),
        ])
        .args([
            "--width",
            "64",
            "--height",
            "48",
            "--backend",
            "cpu",
            "--max-dwell",
            "200",
        ])
        .assert()
        .success();
    let img = image::open(dir.path().join("m.png"))
        .expect("decodes")
        .into_rgba8();
    assert!(img.pixels().all(|p| p.0[1] == 0), "only the map's colours");
    assert!(img.pixels().any(|p| p.0[0] > 200) && img.pixels().any(|p| p.0[2] > 200));
    std::fs::write(dir.path().join("bad.map"), "0 0 0\n1 2 300\n").expect("write");
    refuses(
        &[
            "mandelbrot",
            "-o",
            &path("b.png"),
            "--palette-file",
            &path("bad.map"),
        ],
        "line 2: 300 is not within 0–255",
    );
    refuses(
        &[
            "mandelbrot",
            "-o",
            &path("b.png"),
            "--palette-file",
            &path("none.map"),
        ],
        "--palette-file",
    );
}

/// `--distance PX` shades the picture by the distance estimates: the CPU reference's colours
/// with its estimates, exactly; a width out of range is refused.
#[test]
fn mandelbrot_distance_shading_is_the_references() {
    use cudalens::mandelbrot::{distances_from, render_per_pixel, Coloring, View};
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("d.png");
    let args = [
        "--width",
        "64",
        "--height",
        "48",
        "--backend",
        "cpu",
        "--max-dwell",
        "300",
        "--mode",
        "per-pixel",
    ];
    cudalens()
        .args([
            "mandelbrot",
            "-o",
            out.to_str().expect("utf-8"),
            "--distance",
            "3",
        ])
        .args(args)
        .assert()
        .success();
    let got = image::open(&out).expect("decodes").into_rgba8();
    let view = View {
        width: 64,
        height: 48,
        max_dwell: 300,
        ..View::default()
    };
    let mut dwells = render_per_pixel(&view, false);
    dwells.distance = Some(distances_from(&view, &dwells));
    let coloring = Coloring {
        distance: Some(3.0),
        ..Coloring::default()
    };
    let want = coloring.colorize(&dwells, 300);
    assert_eq!(got, want);
    let plain = Coloring::default().colorize(&dwells, 300);
    assert_ne!(want, plain, "shading changes pixels near the set");
    for bad in ["0", "-1", "100", "nan"] {
        let flag = format!("--distance={bad}");
        refuses(
            &["mandelbrot", "-o", out.to_str().expect("utf-8"), &flag],
            "distance",
        );
    }
}

/// A poster past the texture limit on the CPU: streamed in bands of tiles into a PNG that
/// decodes to the one-piece render (but at the rare pixels whose dwell hangs on f64's last
/// bits), with its view in the file.
#[test]
fn mandelbrot_posters_stream_past_the_texture_limit() {
    use cudalens::mandelbrot::{deep::DeepLocation, MandelbrotSettings, Mode};
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("poster.png");
    let (w, h) = (33_000u32, 40u32);
    cudalens()
        .args(["mandelbrot", "-o", out.to_str().expect("utf-8")])
        .args(["--width", &w.to_string(), "--height", &h.to_string()])
        .args([
            "--center=-0.7436,0.1318",
            "--span",
            "0.05",
            "--max-dwell",
            "200",
        ])
        .args(["--mode", "per-pixel", "--backend", "cpu"])
        .assert()
        .success()
        .stderr(predicate::str::contains("poster"));
    let got = image::open(&out).expect("png").into_rgb8();
    assert_eq!(got.dimensions(), (w, h));
    let mut s = MandelbrotSettings::default();
    (s.view.width, s.view.height, s.view.max_dwell, s.mode) = (w, h, 200, Mode::PerPixel);
    s.set_location(DeepLocation::parse("-0.7436,0.1318", "0.05").expect("location"));
    let never = std::sync::atomic::AtomicBool::new(false);
    let (want, _) =
        cudalens::pipeline::cpu_picture(&s, cudalens::pipeline::RenderControl::cancel_only(&never));
    let differ = got
        .pixels()
        .zip(want.pixels())
        .filter(|(a, b)| a.0[..] != b.0[..3])
        .count();
    let n = (w * h) as usize;
    assert!(differ * 1000 <= n, "{differ} of {n} pixels differ");
    let text = cudalens::image_io::read_png_text(&out, cudalens::image_io::VIEW_KEYWORD)
        .expect("read")
        .expect("the view is in the poster");
    assert!(text.contains("span=5e-2"), "{text}");
}

#[test]
fn mandelbrot_posters_and_device_lists_refuse_what_they_cannot_do() {
    let m = ["mandelbrot", "-o", "/tmp/m.png"];
    let with = |extra: &[&'static str]| [&m[..], extra].concat();
    refuses(&with(&["--width", "2000000"]), "1..=1048576");
    refuses(
        &with(&["--width", "40000", "--overlay", "--mode", "mariani-silver"]),
        "poster",
    );
    refuses(
        &with(&["--width", "40000", "--frames", "3", "--zoom-to", "0,0,1"]),
        "at most 32768",
    );
    refuses(&with(&["--frame-range", "0..2"]), "needs --frames");
    let seq = ["--frames", "3", "--zoom-to", "0,0,1", "--frame-range"];
    for (range, needle) in [("1..4", "frames 0..3"), ("2..2", "empty")] {
        refuses(&[&with(&seq)[..], &[range]].concat(), needle);
    }
    refuses(&with(&["--devices", "0,0"]), "twice");
    refuses(&with(&["--devices", "gpu1"]), "device numbers");
    if !cuda_present() {
        refuses(
            &with(&["--devices", "0", "--backend", "cuda"]),
            "CUDA backend",
        );
    }
}

/// `--frame-range A..B` renders frames A..B of the sequence and no other, each the same
/// file the whole sequence makes; spread over the workers (`--devices`) too.
#[test]
fn mandelbrot_frame_ranges_make_the_same_files_as_the_whole_sequence() {
    let dir = tempfile::tempdir().expect("tempdir");
    let seq = ["--width", "48", "--height", "32", "--frames", "6"];
    let zoom = [
        "--zoom-to=-0.745,0.113,0.001",
        "--backend",
        "cpu",
        "--mode",
        "per-pixel",
    ];
    let whole = dir.path().join("whole.png");
    cudalens()
        .args(["mandelbrot", "-o", whole.to_str().expect("utf-8")])
        .args(seq)
        .args(zoom)
        .assert()
        .success();
    for spread in [false, true] {
        let part = dir.path().join(format!("part{spread}.png"));
        let mut cmd = cudalens();
        cmd.args(["mandelbrot", "-o", part.to_str().expect("utf-8")])
            .args(seq)
            .args(zoom)
            .args(["--frame-range", "2..5"]);
        if spread {
            cmd.args(["--devices", "all"]);
        }
        cmd.assert().success();
        for k in 0..6 {
            let made = dir.path().join(format!("part{spread}-{k:04}.png"));
            assert_eq!(made.exists(), (2..5).contains(&k), "frame {k}");
            if made.exists() {
                let a = image::open(&made).expect("png").into_rgb8();
                let b = image::open(dir.path().join(format!("whole-{k:04}.png")))
                    .expect("png")
                    .into_rgb8();
                assert!(a == b, "frame {k} differs from the whole sequence's");
            }
        }
    }
}

/// `--shard K/N`: N jobs over one folder write every file once between them.
#[test]
fn shards_split_a_batch_between_jobs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let photos = dir.path().join("photos");
    std::fs::create_dir(&photos).expect("mkdir");
    for (i, name) in ["astronaut.png", "camera.png", "coffee.png", "logo.png"]
        .iter()
        .enumerate()
    {
        std::fs::copy(data(name), photos.join(format!("{i}.png"))).expect("copy");
    }
    let out = dir.path().join("out");
    let mut made = Vec::new();
    for k in 0..3 {
        cudalens()
            .args(["apply", photos.to_str().expect("utf-8"), "-o"])
            .arg(&out)
            .args(["--filter", "transpose", "--backend", "cpu"])
            .args(["--shard", &format!("{k}/3")])
            .assert()
            .success();
        let mut now: Vec<String> = std::fs::read_dir(&out)
            .expect("ls")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        now.sort();
        made.push(now);
    }
    // Files 0 and 3 fall to shard 0, 1 to shard 1, 2 to shard 2.
    assert_eq!(made[0], ["0.png", "3.png"]);
    assert_eq!(made[1], ["0.png", "1.png", "3.png"]);
    assert_eq!(made[2], ["0.png", "1.png", "2.png", "3.png"]);
    let photos = photos.to_str().expect("utf-8");
    for bad in ["3/3", "1/0", "x/2", "1"] {
        refuses(
            &["apply", photos, "-o", "/tmp/o/", "--shard", bad],
            "--shard",
        );
    }
    refuses(
        &[
            "apply",
            &data("coffee.png").to_string_lossy(),
            "-o",
            "/tmp/x.png",
            "--shard",
            "0/2",
        ],
        "splits a batch",
    );
}
