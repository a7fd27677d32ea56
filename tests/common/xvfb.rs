//! An X server for the window tests: Xvfb (Mesa) on a display of the test's own.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A child process, killed and reaped when dropped.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Xvfb on `:display` (1280×800×24, GLX), or None where Xvfb is not installed.
pub fn start_xvfb(display: u32) -> Option<Killed> {
    let child = Command::new("Xvfb")
        .args([
            format!(":{display}").as_str(),
            "-screen",
            "0",
            "1280x800x24",
            "-nolisten",
            "tcp",
            "+extension",
            "GLX",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    std::thread::sleep(Duration::from_millis(1500));
    Some(Killed(child))
}

/// `xdotool ARGS` on `display` (":N"): what it printed, trimmed.
pub fn xdotool(display: &str, args: &[&str]) -> String {
    let out = Command::new("xdotool")
        .env("DISPLAY", display)
        .args(args)
        .output()
        .expect("xdotool runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Focuses `window` on `display` and types `keys` (xdotool's names: "space", "ctrl+z").
pub fn press(display: &str, window: &str, keys: &str) {
    xdotool(display, &["windowfocus", "--sync", window]);
    xdotool(display, &["key", "--clearmodifiers", keys]);
}

/// The app on `:display` with its settings in `config` (none of the user's), no input.
pub fn app_on(display: u32, config: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cudalens"));
    c.env("DISPLAY", format!(":{display}"))
        .env("XDG_CONFIG_HOME", config)
        .env_remove("CUDALENS_CONFIG_DIR")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .stdin(Stdio::null());
    c
}
