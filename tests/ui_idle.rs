//! An idle window uses no CPU: the real app under Xvfb (Mesa), after its first frames,
//! may use at most 2 % of one core over 10 s (all threads: the GL driver's too). Also:
//! a folder or a pipe given to the window is refused like on the command line.
//! Skipped (with a message) where Xvfb is not installed; CI installs it.

mod common;

use common::process::{cpu_seconds, wait_until_quiet};
use common::xvfb::{app_on, start_xvfb, Killed};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

fn app(display: u32, dir: &std::path::Path, args: &[&str]) -> Command {
    let mut c = app_on(display, dir);
    c.args(args);
    c
}

#[test]
fn an_idle_window_uses_no_cpu() {
    let display = 110 + std::process::id() % 9;
    let Some(_xvfb) = start_xvfb(display) else {
        let _ = writeln!(std::io::stderr(), "skipped: no Xvfb on this machine");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let child = app(
        display,
        dir.path(),
        &["--backend", "cpu", "--size", "1000x700"],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .expect("app starts");
    let pid = child.id();
    let _app = Killed(child);
    // The first frames (loading, processing the image) take a while in a debug build.
    wait_until_quiet(pid, Duration::from_secs(60));
    let before = cpu_seconds(pid);
    std::thread::sleep(Duration::from_secs(10));
    let used = cpu_seconds(pid) - before;
    let percent = used / 10.0 * 100.0;
    let _ = writeln!(
        std::io::stderr(),
        "idle window: {percent:.2} % of one core over 10 s"
    );
    assert!(
        percent <= 2.0,
        "idle window used {percent:.1} % of one core"
    );
}

#[test]
fn a_folder_or_a_pipe_is_refused_before_the_window_opens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("pipe.png");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo")
        .success());
    // No display is needed: the check comes first.
    for (path, want) in [
        (dir.path().to_path_buf(), "is a directory"),
        (fifo, "not a regular file"),
    ] {
        let out = app(
            0,
            dir.path(),
            &[path.to_str().expect("utf-8"), "--frames", "2"],
        )
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{path:?}: {stderr}");
        assert!(stderr.contains(want), "{path:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
}
