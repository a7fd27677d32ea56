//! `kernel:` stages on the command line: one-line errors (missing file, bad parameters,
//! the CPU backend, a compile error at the user's line), and on the GPU the invert example
//! equal to its definition and stacks mixing built-in filters and kernels equal to the
//! built-in chain. The GPU tests print "skipped: no CUDA device" without one.

mod common;

use assert_cmd::Command;
use common::{data, photo};
use cudalens::filters::{apply_cpu, gpu_tolerance, Filter};
use image::RgbaImage;
use std::path::{Path, PathBuf};

fn cudalens() -> Command {
    Command::cargo_bin("cudalens").expect("binary built")
}

fn cuda_present() -> bool {
    cudalens::cuda::CudaDevice::count().is_ok_and(|n| n > 0)
}

fn kernel(file: &str) -> PathBuf {
    common::repo_root().join("assets/kernels").join(file)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Runs `apply` on coffee.png with `filters` and extra `args`; exit code and stderr.
fn apply(out: &Path, filters: &[String], args: &[&str]) -> (Option<i32>, String) {
    let mut c = cudalens();
    c.args(["apply", s(&data("coffee.png")), "-o", s(out)]);
    for f in filters {
        c.args(["--filter", f]);
    }
    let o = c.args(args).output().expect("runs");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Exit 2, one error line naming `needle` (beside the input's `note:` lines, such as its
/// conversion to RGBA8), no panic, nothing written.
fn refused(out: &Path, filters: &[String], args: &[&str], needle: &str) {
    let (code, stderr) = apply(out, filters, args);
    assert_eq!(code, Some(2), "{filters:?}: {stderr}");
    assert!(stderr.contains(needle), "{filters:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let errors: Vec<&str> = stderr
        .trim()
        .lines()
        .filter(|l| !l.starts_with("note: "))
        .collect();
    assert_eq!(errors.len(), 1, "one line: {stderr}");
    assert!(
        errors[0].contains(needle),
        "the error line names it: {stderr}"
    );
    assert!(!out.exists(), "nothing written");
}

#[test]
fn missing_files_and_bad_parameters_are_one_line_usage_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.png");
    let missing = dir.path().join("nope.cu");
    refused(&out, &[format!("kernel:{}", s(&missing))], &[], "nope.cu");
    let vignette = kernel("vignette.cu");
    refused(
        &out,
        &[format!("kernel:{},frobnicate=1", s(&vignette))],
        &[],
        "unknown kernel parameter `frobnicate`",
    );
    refused(
        &out,
        &[format!("kernel:{},strength=99", s(&vignette))],
        &[],
        "outside",
    );
    refused(&out, &["kernel:".to_string()], &[], "no file given");
    let bad = dir.path().join("bad.cu");
    std::fs::write(
        &bad,
        "// @frobnicate\nuchar4 pixel(int x, int y, Image s, Params p) { return read(s, x, y); }\n",
    )
    .expect("write");
    refused(&out, &[format!("kernel:{}", s(&bad))], &[], "line 1");
}

#[test]
fn the_cpu_backend_refuses_kernels_in_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.png");
    let filters = [
        "gaussian:sigma=2".to_string(),
        format!("kernel:{}", s(&kernel("invert.cu"))),
    ];
    refused(
        &out,
        &filters,
        &["--backend", "cpu"],
        "needs CUDA and NVRTC",
    );
    // A batch too, before any image.
    let folder = dir.path().join("outs");
    let o = cudalens()
        .args(["apply", s(&data("coffee.png")), s(&data("astronaut.png"))])
        .args([
            "-o",
            s(&folder),
            "--backend",
            "cpu",
            "--filter",
            &filters[1],
        ])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("needs CUDA and NVRTC"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

#[test]
fn help_lists_the_kernel_syntax() {
    let o = cudalens().args(["apply", "--help"]).output().expect("runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("kernel:PATH.cu"), "{text}");
}

#[test]
fn doctor_reports_nvrtc() {
    let o = cudalens().arg("doctor").output().expect("runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("NVRTC:"), "{text}");
}

fn gpu_or_skip() -> bool {
    let ok = cuda_present() && cudalens::user_kernel::nvrtc_available();
    if !ok {
        common::skip_gpu_test("no CUDA device");
    }
    ok
}

/// `apply --backend cuda` with `filters` on coffee.png: the result.
fn apply_on_gpu(dir: &Path, filters: &[String]) -> RgbaImage {
    let out = dir.join("gpu.png");
    let (code, stderr) = apply(&out, filters, &["--backend", "cuda", "--force"]);
    assert_eq!(code, Some(0), "{filters:?}: {stderr}");
    image::open(&out).expect("written").into_rgba8()
}

#[test]
fn gpu_invert_kernel_equals_the_cpu_invert() {
    if !gpu_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("gpu.png");
    let filters = [format!("kernel:{}", s(&kernel("invert.cu")))];
    let (code, stderr) = apply(&out, &filters, &["--backend", "cuda", "--force"]);
    assert_eq!(code, Some(0), "{stderr}");
    // The kernel's time is its own, timed in the kernel host; the hand-over to the host is
    // a stage of its own beside it.
    assert!(stderr.contains("kernel host hand-over"), "{stderr}");
    let got = image::open(&out).expect("written").into_rgba8();
    let mut want = photo("coffee.png");
    for p in want.pixels_mut() {
        p.0 = [255 - p.0[0], 255 - p.0[1], 255 - p.0[2], p.0[3]];
    }
    assert_eq!(got, want);
}

#[test]
fn gpu_stacks_mixing_filters_and_kernels_equal_the_builtin_chain() {
    if !gpu_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let sobel_tiles = format!("kernel:{}", s(&kernel("sobel_tiles.cu")));
    // sobel_tiles.cu is the built-in Sobel bit for bit (scale 1).
    for (mixed, builtin) in [
        (
            vec!["box:radius=3".to_string(), sobel_tiles.clone()],
            vec!["box:radius=3", "sobel"],
        ),
        (
            vec![
                sobel_tiles.clone(),
                "transpose".to_string(),
                sobel_tiles.clone(),
            ],
            vec!["sobel", "transpose", "sobel"],
        ),
        (
            vec![
                "gaussian:sigma=1.5".to_string(),
                sobel_tiles.clone(),
                "median:radius=1".to_string(),
            ],
            vec!["gaussian:sigma=1.5", "sobel", "median:radius=1"],
        ),
    ] {
        let got = apply_on_gpu(dir.path(), &mixed);
        let filters: Vec<Filter> = builtin.iter().map(|f| f.parse().expect("spec")).collect();
        let want = apply_cpu(&photo("coffee.png"), &filters);
        let (diff, _) = common::max_difference(&got, &want);
        // A difference of 1 may grow through a non-linear stage after it: bounded loosely.
        let tolerance = if gpu_tolerance(&filters) == 0 { 0 } else { 8 };
        assert!(diff <= tolerance, "{mixed:?}: differs by {diff}");
    }
}

/// A kernel that faults or never ends runs in the kernel host: `apply` exits 2 with one
/// line saying what happened, soon after the deadline, and writes nothing; the next run of
/// a good kernel is exact.
#[test]
fn gpu_kernels_that_fault_or_hang_are_one_line_errors_faults_on_purpose() {
    if !gpu_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        (
            "fault.cu",
            "uchar4 pixel(int x, int y, Image src, Params p)\n{\n    if (x == 3) *(volatile int*)0 = y;\n    return read(src, x, y);\n}\n",
            "outside memory",
        ),
        (
            "hang.cu",
            "uchar4 pixel(int x, int y, Image src, Params p)\n{\n    volatile int s = 0;\n    while (true) s = s + 1;\n    return read(src, x, y);\n}\n",
            "ran past",
        ),
        (
            "trap.cu",
            "uchar4 pixel(int x, int y, Image src, Params p)\n{\n    if (x == 7 && y == 7) __trap();\n    return read(src, x, y);\n}\n",
            "trapped",
        ),
    ];
    for (name, text, needle) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        let out = dir.path().join(format!("{name}.png"));
        let start = std::time::Instant::now();
        refused(
            &out,
            &[format!("kernel:{}", s(&path))],
            &["--backend", "cuda"],
            needle,
        );
        let took = start.elapsed();
        assert!(took < std::time::Duration::from_secs(5), "{name}: {took:?}");
        println!("{name}: refused in {took:?}");
        let image = apply_on_gpu(dir.path(), &[format!("kernel:{}", s(&kernel("invert.cu")))]);
        let cpu = photo("coffee.png");
        let inverted: Vec<u8> = cpu
            .pixels()
            .flat_map(|p| [255 - p[0], 255 - p[1], 255 - p[2], p[3]])
            .collect();
        assert_eq!(image.as_raw(), &inverted, "invert after {name}");
    }
}

#[test]
fn gpu_compile_errors_are_one_line_at_the_users_line() {
    if !gpu_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("typo.cu");
    std::fs::write(
        &bad,
        "uchar4 pixel(int x, int y, Image src, Params p)\n{\n    const uchar4 c = read(src, x, y)\n    return c;\n}\n",
    )
    .expect("write");
    let out = dir.path().join("out.png");
    refused(
        &out,
        &[format!("kernel:{}", s(&bad))],
        &["--backend", "cuda"],
        &format!("{}:4", s(&bad)),
    );
}

#[test]
fn bench_kernels_runs_on_the_gpu_or_says_why_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("k.json");
    let o = cudalens()
        .args(["bench", "--kernels", "--runs", "3", "--json", s(&json)])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&o.stderr);
    if !(cuda_present() && cudalens::user_kernel::nvrtc_available()) {
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        common::skip_gpu_test("no CUDA device");
        return;
    }
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("json written")).expect("json");
    assert!(doc["edit_to_first_frame_ms"]
        .as_f64()
        .is_some_and(|ms| ms > 0.0));
    assert!(doc["sobel_4k"]["ratio"].as_f64().is_some_and(|r| r > 0.0));
    assert_eq!(doc["copy"].as_array().map(Vec::len), Some(2));
}
