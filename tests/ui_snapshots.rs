//! Snapshots of the main panels: the real app under Xvfb (Mesa) on the CPU backend draws
//! a state for a few frames and saves the window (`--screenshot`), which must match the
//! committed reference in `tests/data/ui/` (the status bar, whose timings and pointer
//! readout change from run to run, left out). A moved or resized widget, a missing glyph or
//! a panel that grew fails here with the picture saved beside the reference's name under
//! `target/ui-snapshots/`. `CUDALENS_BLESS=1` writes new references after a deliberate
//! change of layout. Skipped (with a message) where Xvfb is not installed; CI installs it.

mod common;

use common::xvfb::start_xvfb;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Rows at the bottom of the window left out: the status bar.
const STATUS_BAR: u32 = 26;
/// A pixel differs when a channel differs by more than this.
const CHANNEL_SLACK: u8 = 16;
/// Differing pixels allowed, in parts per thousand of those compared.
const ALLOWED_PER_MILLE: u64 = 2;

/// The states shot: a name and the app's arguments (relative paths: the panel shows them).
const STATES: &[(&str, &[&str])] = &[
    (
        "image-stack",
        &[
            "assets/chelsea.png",
            "--filter",
            "gaussian:sigma=2",
            "--filter",
            "sobel",
        ],
    ),
    ("explorer", &["--mandelbrot"]),
];

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Shoots `args` on `display` into `out`.
fn shoot(display: u32, args: &[&str], out: &Path, config: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_cudalens"))
        .current_dir(manifest())
        .env("DISPLAY", format!(":{display}"))
        .env("XDG_CONFIG_HOME", config)
        .env_remove("CUDALENS_CONFIG_DIR")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .args(args)
        .args(["--backend", "cpu", "--size", "1000x700", "--frames", "30"])
        .arg("--screenshot")
        .arg(out)
        .stdin(Stdio::null())
        .status()
        .expect("the app runs");
    assert!(status.success(), "the app failed: {status}");
}

/// Pixels (above the status bar) whose channels differ by more than the slack, and how
/// many were compared.
fn differing(a: &image::RgbImage, b: &image::RgbImage) -> (u64, u64) {
    let rows = a.height().saturating_sub(STATUS_BAR);
    let mut differ = 0;
    for y in 0..rows {
        for x in 0..a.width() {
            let (p, q) = (a.get_pixel(x, y).0, b.get_pixel(x, y).0);
            if p.iter().zip(q).any(|(&u, v)| u.abs_diff(v) > CHANNEL_SLACK) {
                differ += 1;
            }
        }
    }
    (differ, u64::from(rows) * u64::from(a.width()))
}

#[test]
fn the_main_panels_look_as_committed() {
    if Command::new("Xvfb")
        .arg("-help")
        .stderr(Stdio::null())
        .status()
        .is_err()
    {
        eprintln!("skipped: Xvfb is not installed");
        return;
    }
    let display = 140 + std::process::id() % 9;
    let Some(_xvfb) = start_xvfb(display) else {
        panic!("Xvfb did not start")
    };
    let bless = std::env::var("CUDALENS_BLESS").is_ok_and(|v| v == "1");
    let dir = tempfile::tempdir().expect("tempdir");
    let failed_dir = manifest().join("target/ui-snapshots");
    let mut failures = Vec::new();
    for (name, args) in STATES {
        let shot = dir.path().join(format!("{name}.png"));
        shoot(
            display,
            args,
            &shot,
            &dir.path().join(format!("config-{name}")),
        );
        let reference: PathBuf = manifest().join(format!("tests/data/ui/{name}.png"));
        if bless {
            std::fs::copy(&shot, &reference).expect("bless the reference");
            continue;
        }
        let got = image::open(&shot).expect("the screenshot").into_rgb8();
        let want = image::open(&reference)
            .unwrap_or_else(|e| panic!("{}: {e} (CUDALENS_BLESS=1 writes it)", reference.display()))
            .into_rgb8();
        if got.dimensions() != want.dimensions() {
            failures.push(format!(
                "{name}: {:?}, the reference {:?}",
                got.dimensions(),
                want.dimensions()
            ));
            continue;
        }
        let (differ, compared) = differing(&got, &want);
        println!("{name}: {differ} of {compared} pixels differ");
        if differ * 1000 > compared * ALLOWED_PER_MILLE {
            std::fs::create_dir_all(&failed_dir).expect("target dir");
            let kept = failed_dir.join(format!("{name}.png"));
            std::fs::copy(&shot, &kept).expect("keep the shot");
            failures.push(format!(
                "{name}: {differ} of {compared} pixels differ from {} (this run's: {})",
                reference.display(),
                kept.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
