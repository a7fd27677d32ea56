//! A video in the window (CPU backend, Xvfb, `CUDALENS_FRAME_LOG`'s last field is the video
//! frame shown): it opens paused on frame 0 and then uses no CPU; space plays it at its
//! frame rate, looping; space pauses; → and ← step one frame.
//! Skipped (with a message) where Xvfb, xdotool or ffmpeg is missing; CI installs them.

mod common;

use common::installed;
use common::process::{cpu_seconds, wait_until_quiet};
use common::xvfb::{app_on, press, start_xvfb, xdotool, Killed};
use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// How long a step may take (a debug build on a loaded machine).
const STEP_LIMIT: Duration = Duration::from_secs(60);
/// The clip's frames and rate (`scripts/fidelity/make_video_clips.sh`).
const FRAMES: u64 = 24;
const FPS: f64 = 24.0;

/// (seconds, video frame) of each logged frame.
fn logged(log: &Path) -> Vec<(f64, Option<u64>)> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let seconds = words.first()?.parse().ok()?;
            Some((seconds, words.get(10).and_then(|w| w.parse().ok())))
        })
        .collect()
}

struct Window {
    display: String,
    id: String,
    log: std::path::PathBuf,
}

impl Window {
    fn xdotool(&self, args: &[&str]) -> String {
        xdotool(&self.display, args)
    }

    fn key(&self, key: &str) {
        press(&self.display, &self.id, key);
    }

    /// The video frame of the last logged frame, once `want` holds for it.
    fn wait_for(&self, step: &str, want: impl Fn(u64) -> bool) -> u64 {
        let start = Instant::now();
        loop {
            if let Some((_, Some(f))) = logged(&self.log).last() {
                if want(*f) {
                    return *f;
                }
            }
            assert!(
                start.elapsed() < STEP_LIMIT,
                "{step}: not within {STEP_LIMIT:?}; last {:?}",
                logged(&self.log).last()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Whether every one of `programs` runs here; if not, says the test is skipped.
fn all_installed(programs: &[&str]) -> bool {
    let present = programs
        .iter()
        .all(|p| installed(p, if *p == "Xvfb" { "-help" } else { "-version" }));
    if !present {
        let _ = writeln!(
            std::io::stderr(),
            "skipped: one of {} is not installed",
            programs.join(", ")
        );
    }
    present
}

#[test]
fn a_video_plays_pauses_and_steps_in_the_window() {
    if !all_installed(&["Xvfb", "xdotool", "ffmpeg"]) {
        return;
    }
    let display = 130 + std::process::id() % 9;
    let Some(_xvfb) = start_xvfb(display) else {
        panic!("Xvfb did not start")
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("frames.log");
    let clip = common::data("video/counter_h264.mp4");
    let child = app_on(display, dir.path())
        .env("CUDALENS_FRAME_LOG", &log)
        .args([
            "--backend",
            "cpu",
            "--size",
            "1000x700",
            "--filter",
            "sobel",
        ])
        .arg(&clip)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("app starts");
    let pid = child.id();
    let _app = Killed(child);
    let mut window = Window {
        display: format!(":{display}"),
        id: String::new(),
        log,
    };
    let start = Instant::now();
    while window.id.is_empty() {
        assert!(start.elapsed() < STEP_LIMIT, "the window did not open");
        std::thread::sleep(Duration::from_millis(200));
        window.id = window.xdotool(&["search", "--pid", &pid.to_string(), "--name", "cudalens"]);
        window.id = window.id.lines().next().unwrap_or("").to_string();
    }
    assert_eq!(window.wait_for("opened on frame 0", |f| f == 0), 0);

    // Paused: quiet once the first frames are drawn.
    wait_until_quiet(pid, STEP_LIMIT);
    let before = cpu_seconds(pid);
    std::thread::sleep(Duration::from_secs(3));
    let used = cpu_seconds(pid) - before;
    assert!(used < 0.1, "a paused video used {used:.2} s of CPU in 3 s");

    // Playing: the frames follow the clock and come round again (the clip loops).
    window.key("space");
    window.wait_for("playing", |f| f > 0);
    let t0 = logged(&window.log).last().map_or(0.0, |l| l.0);
    window.wait_for("near the end", |f| f >= FRAMES - 4);
    window.wait_for("looped", |f| f < 5);
    let lines = logged(&window.log);
    let played: Vec<&(f64, Option<u64>)> = lines.iter().filter(|l| l.0 >= t0).collect();
    let distinct: std::collections::BTreeSet<u64> = played.iter().filter_map(|l| l.1).collect();
    assert!(
        distinct.len() as u64 >= FRAMES / 2,
        "most frames of the loop were shown: {distinct:?}"
    );
    let span = played.last().map_or(0.0, |l| l.0) - t0;
    assert!(
        span >= (FRAMES as f64 / FPS) * 0.5,
        "a loop of {FRAMES} frames at {FPS} fps took {span:.2} s"
    );

    // Paused again: → and ← step exactly one frame.
    window.key("space");
    std::thread::sleep(Duration::from_millis(500));
    let paused = window.wait_for("paused", |_| true);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(window.wait_for("still paused", |_| true), paused);
    let next = if paused + 1 < FRAMES {
        paused + 1
    } else {
        paused
    };
    if paused + 1 < FRAMES {
        window.key("Right");
        assert_eq!(window.wait_for("stepped forward", |f| f != paused), next);
    }
    window.key("Left");
    let back = window.wait_for("stepped back", |f| f != next);
    assert_eq!(back + 1, next);
}

#[test]
fn a_file_named_like_a_video_that_is_none_is_one_line() {
    if !all_installed(&["Xvfb", "ffmpeg"]) {
        return;
    }
    let display = 140 + std::process::id() % 9;
    let Some(_xvfb) = start_xvfb(display) else {
        panic!("Xvfb did not start")
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = dir.path().join("notes.mp4");
    std::fs::write(&fake, "not a video\n").expect("write");
    let out = app_on(display, dir.path())
        .args(["--backend", "cpu", "--size", "800x600"])
        .arg(&fake)
        .stdin(Stdio::null())
        .output()
        .expect("app runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("cudalens:"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("notes.mp4"), "{stderr}");
    assert_eq!(std::fs::read(&fake).expect("kept"), b"not a video\n");
}
