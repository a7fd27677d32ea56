//! Running the binary as a hostile user would: with a time limit (a hang is a failure,
//! not a stuck test run), its stderr captured, and its peak resident memory measured by
//! `wait4` on that one child (so concurrent tests do not blur the number).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a child ended.
#[derive(Debug)]
pub struct Finished {
    /// Exit code, or None when killed by a signal.
    pub code: Option<i32>,
    /// The signal that ended it, if any.
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Peak resident set size (VmHWM), bytes.
    pub peak_rss: u64,
    pub elapsed: Duration,
}

impl Finished {
    /// Asserts exit code 2 with exactly one line on stderr that contains `needle`.
    pub fn refused_with(&self, needle: &str) {
        assert_eq!(self.code, Some(2), "{self:#?}");
        assert!(self.stderr.contains(needle), "want {needle:?}: {self:#?}");
        assert_eq!(self.stderr.trim().lines().count(), 1, "one line: {self:#?}");
        assert!(!self.stderr.contains("panicked"), "{self:#?}");
    }
}

pub fn cudalens() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cudalens"));
    c.stdin(Stdio::null());
    c
}

/// Runs `cmd` (stdin as set by the caller) for at most `limit`; kills it and panics on a
/// hang. `scratch` holds the captured output files.
pub fn run_limited(cmd: &mut Command, scratch: &Path, limit: Duration) -> Finished {
    let out_path = scratch.join(format!("stdout-{}", std::process::id()));
    let err_path = scratch.join(format!("stderr-{}", std::process::id()));
    let child = cmd
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("spawn");
    let finished = wait_limited(child, limit);
    Finished {
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
        ..finished
    }
}

/// Waits for `child` with `wait4` (its own rusage); kills it past `limit` and panics.
pub fn wait_limited(mut child: std::process::Child, limit: Duration) -> Finished {
    let pid = child.id() as libc::pid_t;
    let start = Instant::now();
    loop {
        let mut status = 0;
        // SAFETY: zeroed rusage is a valid out-parameter.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is our unreaped child; the pointers are valid for the call.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            let (code, signal) = if libc::WIFEXITED(status) {
                (Some(libc::WEXITSTATUS(status)), None)
            } else {
                (None, Some(libc::WTERMSIG(status)))
            };
            return Finished {
                code,
                signal,
                stdout: String::new(),
                stderr: String::new(),
                peak_rss: usage.ru_maxrss as u64 * 1024,
                elapsed: start.elapsed(),
            };
        }
        assert!(r == 0, "wait4 failed: {}", std::io::Error::last_os_error());
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hung: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The names in `dir` that look like leftover temporary files.
pub fn leftover_parts(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("ls")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".cudalens-") || n.ends_with(".part"))
        .collect()
}
