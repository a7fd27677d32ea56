//! `cudalens-bench`'s command line: every mode documented, the app's bench options taken,
//! the GPU-only modes refused on the CPU backend with one clear line (exit code 2).

use assert_cmd::Command;

fn bench() -> Command {
    Command::cargo_bin("cudalens-bench").expect("binary built")
}

/// Runs and expects exit code 2 with one line on stderr naming `needle`.
fn refuses(args: &[&str], needle: &str) {
    let out = bench().args(args).output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
}

#[test]
fn help_documents_every_mode() {
    let out = bench().arg("--help").output().expect("runs");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--peers",
        "--mandelbrot",
        "--ms-sweep",
        "--ms-sweep-sizes",
        "--deep",
        "--handover-probe",
        "--size",
        "--runs",
        "--backend",
        "--interop",
        "--json",
        "--filter",
    ] {
        assert!(help.contains(flag), "--help lacks {flag}");
    }
}

#[test]
fn gpu_modes_refuse_the_cpu_backend() {
    // The GL–CUDA hand-over, so the CUDA backend only.
    refuses(
        &["--backend", "cpu", "--handover-probe"],
        "needs the CUDA backend",
    );
    for flag in ["--peers", "--ms-sweep", "--deep"] {
        refuses(&["--backend", "cpu", flag], "need the CUDA backend");
    }
    refuses(&["--size", "0x10"], "0x10");
}

#[test]
fn the_cpu_table_is_the_apps() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("cpu.json");
    let out = bench()
        .args([
            "--backend",
            "cpu",
            "--size",
            "64x32",
            "--runs",
            "1",
            "--json",
        ])
        .arg(&json)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("backend: CPU"), "{stdout}");
    assert!(json.exists());
}
