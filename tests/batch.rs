//! Batch `apply`: several inputs or a folder into an output folder, one broken file among
//! good ones reported while the rest are written, names kept, inputs and existing files
//! never overwritten, quiet (no progress bar) when stderr is not a terminal.

mod common;

use assert_cmd::Command;
use common::{data, photo};
use cudalens::filters::Filter;
use std::path::{Path, PathBuf};

fn f(spec: &str) -> Filter {
    spec.parse().expect("spec")
}

fn cudalens() -> Command {
    Command::cargo_bin("cudalens").expect("binary built")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A folder with three good images and one broken one.
fn photos(dir: &Path) -> PathBuf {
    let photos = dir.join("photos");
    std::fs::create_dir_all(&photos).expect("mkdir");
    for name in ["astronaut.png", "coffee.png", "logo.png"] {
        std::fs::copy(data(name), photos.join(name)).expect("copy");
    }
    std::fs::write(photos.join("broken.png"), b"\x89PNG\r\n\x1a\nnot really").expect("write");
    std::fs::write(photos.join("notes.txt"), b"not an image, not picked up").expect("write");
    photos
}

fn expected(name: &str, filters: &[Filter]) -> image::RgbaImage {
    cudalens::filters::apply_cpu(&photo(name), filters)
}

#[test]
fn a_folder_with_one_broken_file_writes_the_others_and_exits_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let photos = photos(dir.path());
    let out = dir.path().join("out");
    let result = cudalens()
        .args([
            "apply",
            s(&photos),
            "-o",
            s(&out),
            "--backend",
            "cpu",
            "--jobs",
            "2",
        ])
        .args(["--filter", "box:radius=2", "--filter", "sobel"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("broken.png"), "{stderr}");
    assert!(stderr.contains("3 of 4 images written"), "{stderr}");
    assert!(stderr.contains("images/s"), "{stderr}");
    // Quiet without a terminal: the failure, the summary and the exit reason only.
    assert_eq!(stderr.trim().lines().count(), 3, "{stderr}");
    let filters = [f("box:radius=2"), f("sobel:scale=1")];
    for name in ["astronaut.png", "coffee.png", "logo.png"] {
        let got = image::open(out.join(name)).expect("written").into_rgba8();
        assert_eq!(got, expected(name, &filters), "{name}");
    }
    assert!(!out.join("broken.png").exists());
    assert!(!out.join("notes.txt").exists());
}

#[test]
fn several_inputs_with_a_format_keep_their_stems() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("converted/");
    let (a, b) = (data("camera.png"), data("coffee.png"));
    cudalens()
        .args(["apply", s(&a), s(&b), "-o", s(&out), "--format", "bmp"])
        .args(["--filter", "transpose", "--backend", "cpu"])
        .assert()
        .success();
    for name in ["camera", "coffee"] {
        let got = image::open(out.join(format!("{name}.bmp"))).expect("written");
        let want = expected(&format!("{name}.png"), &[f("transpose")]);
        assert_eq!(got.into_rgba8(), want, "{name}");
    }
}

#[test]
fn inputs_and_existing_outputs_are_never_overwritten() {
    let dir = tempfile::tempdir().expect("tempdir");
    let photos = photos(dir.path());
    std::fs::remove_file(photos.join("broken.png")).expect("rm");
    let before = std::fs::read(photos.join("coffee.png")).expect("read");
    // Output folder = input folder, same names: every output would be its input.
    let result = cudalens()
        .args([
            "apply",
            s(&photos),
            "-o",
            s(&photos),
            "--force",
            "--backend",
            "cpu",
        ])
        .args(["--filter", "box:radius=1"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("refusing to overwrite the input"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(photos.join("coffee.png")).expect("read"),
        before
    );
    // An existing output is kept without --force; the other images are still written.
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).expect("mkdir");
    std::fs::write(out.join("coffee.png"), b"keep me").expect("write");
    let result = cudalens()
        .args(["apply", s(&photos), "-o", s(&out), "--backend", "cpu"])
        .args(["--filter", "box:radius=1"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("already exists"), "{stderr}");
    assert_eq!(
        std::fs::read(out.join("coffee.png")).expect("read"),
        b"keep me"
    );
    assert!(out.join("astronaut.png").exists() && out.join("logo.png").exists());
}

#[test]
fn two_inputs_with_one_output_name_are_refused_not_overwritten() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (x, y) = (dir.path().join("x"), dir.path().join("y"));
    for d in [&x, &y] {
        std::fs::create_dir_all(d).expect("mkdir");
        std::fs::copy(data("logo.png"), d.join("logo.png")).expect("copy");
    }
    let out = dir.path().join("out");
    let result = cudalens()
        .args(["apply", s(&x), s(&y), "-o", s(&out), "--backend", "cpu"])
        .args(["--filter", "sobel"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("already the output of"), "{stderr}");
    assert!(out.join("logo.png").exists());
}

#[test]
fn an_empty_folder_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let result = cudalens()
        .args(["apply", s(dir.path()), "-o", s(&dir.path().join("out"))])
        .args(["--filter", "sobel", "--backend", "cpu"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no image files"), "{stderr}");
}
