//! GUI smoke test: the real app in a real X window (Xvfb, Mesa) renders frames and writes
//! a screenshot that must show the image, the panels and the histogram, not a blank window.
//! Skipped (with a message) where Xvfb is not installed; CI installs it.

mod common;

use common::xvfb::start_xvfb;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Runs the app with `args` on `display`, at most a minute (a hang fails the test).
fn app(display: u32, dir: &Path, args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cudalens"))
        .env("DISPLAY", format!(":{display}"))
        .env("XDG_CONFIG_HOME", dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("app starts");
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("app hung: {args:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// Runs the app for a few frames and returns the screenshot.
fn screenshot(display: u32, dir: &Path, name: &str, extra: &[&str]) -> image::RgbaImage {
    let shot = dir.join(name);
    let mut args = vec!["--frames", "6", "--size", "1200x760", "--screenshot"];
    args.push(shot.to_str().expect("utf-8"));
    args.extend_from_slice(extra);
    let out = app(display, dir, &args);
    assert!(
        out.status.success(),
        "app failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    image::open(&shot).expect("screenshot written").into_rgba8()
}

/// Distinct colours in a region (a blank or uniform window has very few).
fn distinct_colours(img: &image::RgbaImage, x0: u32, y0: u32, w: u32, h: u32) -> usize {
    let mut seen = std::collections::HashSet::new();
    for y in y0..(y0 + h).min(img.height()) {
        for x in x0..(x0 + w).min(img.width()) {
            seen.insert(img.get_pixel(x, y).0);
        }
    }
    seen.len()
}

#[test]
fn app_renders_the_default_image_and_the_mandelbrot_view() {
    if Command::new("Xvfb")
        .arg("-help")
        .stderr(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .is_err()
    {
        let _ = writeln!(std::io::stderr(), "skipped: no Xvfb on this machine");
        return;
    }
    let display = 90 + std::process::id() % 9;
    let Some(_xvfb) = start_xvfb(display) else {
        panic!("Xvfb did not start")
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let img = screenshot(
        display,
        dir.path(),
        "image.png",
        &["--filter", "gaussian:sigma=1"],
    );
    assert_eq!(img.dimensions(), (1200, 760));
    // The photograph fills the centre of the view: many colours there.
    let centre = distinct_colours(&img, 500, 250, 300, 200);
    assert!(centre > 2000, "image view looks blank: {centre} colours");
    // The histogram panel (bottom) is drawn.
    assert!(
        distinct_colours(&img, 320, 600, 500, 120) > 4,
        "histogram panel looks blank"
    );
    let m = screenshot(
        display,
        dir.path(),
        "mandel.png",
        &["--mandelbrot", "--overlay"],
    );
    let centre = distinct_colours(&m, 400, 200, 500, 300);
    assert!(centre > 50, "Mandelbrot view looks blank: {centre} colours");
    // A Julia set from the command line, saved with the session as such.
    let j = screenshot(
        display,
        dir.path(),
        "julia.png",
        &["--mandelbrot", "--julia=-0.123,0.745"],
    );
    let centre = distinct_colours(&j, 400, 200, 500, 300);
    assert!(centre > 50, "Julia view looks blank: {centre} colours");
    assert_ne!(j, m, "the Julia set differs from the Mandelbrot set");
    let saved = std::fs::read(dir.path().join("cudalens/settings.json")).expect("saved");
    let saved: serde_json::Value = serde_json::from_slice(&saved).expect("JSON");
    assert_eq!(
        saved["explorer"]["fractal"], "julia -0.123,0.745",
        "{saved}"
    );
    // A restart restores the session: a run with a stack and the split saves them on exit;
    // the next run, given nothing, starts from them (and saves what it restored).
    screenshot(
        display,
        dir.path(),
        "first.png",
        &["--filter", "sobel:scale=2", "--split"],
    );
    screenshot(display, dir.path(), "second.png", &[]);
    let saved = std::fs::read(dir.path().join("cudalens/settings.json")).expect("saved");
    let saved: serde_json::Value = serde_json::from_slice(&saved).expect("JSON");
    assert_eq!(saved["filters"][0]["spec"], "sobel:scale=2", "{saved}");
    assert_eq!(saved["filters"][0]["enabled"], true, "{saved}");
    assert_eq!(saved["split"], 0.5, "{saved}");
    hostile_window_cases(display, dir.path());
}

/// Hostile input in a real window: --force replaces an existing screenshot (atomically: a
/// valid PNG, no temporary file left), a window larger than the display is refused before
/// it opens, and a FIFO is refused as not an image file (it does not hang the app).
fn hostile_window_cases(display: u32, dir: &Path) {
    std::fs::write(dir.join("old.png"), b"old").expect("write");
    let img = screenshot(display, dir, "old.png", &["--force"]);
    assert_eq!(img.dimensions(), (1200, 760));
    let names: Vec<String> = std::fs::read_dir(dir)
        .expect("ls")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".part")), "{names:?}");
    let out = app(display, dir, &["--frames", "2", "--size", "4000x3000"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("larger than the display"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    let fifo = dir.join("fifo.png");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo")
        .success());
    // A pipe is not an image file: refused at once (exit 2, one line), never a hang.
    let out = app(
        display,
        dir,
        &[fifo.to_str().expect("utf-8"), "--frames", "3"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}
