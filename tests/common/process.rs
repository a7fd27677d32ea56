//! Running the binary as a hostile user would: with a time limit (a hang is a failure,
//! not a stuck test run), its stderr captured, and its peak resident memory measured.
//!
//! The peak is the child's own `VmHWM` (/proc/PID/status), read every millisecond while
//! it runs. `wait4`'s `ru_maxrss` cannot serve: Linux records the high-water mark of the
//! memory the process had before `exec`, and a child spawned with `vfork` (what
//! `Command::spawn` uses) had this test process's memory, so it reports the test binary's
//! peak, with every concurrent test's allocations in it. Polling misses at most what the
//! child touches in its last millisecond (a few MiB at page-fault speed).

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
    /// Peak resident set size (the child's VmHWM, sampled), bytes.
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
    let mut c = Command::new(super::cudalens_bin());
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

/// `VmHWM` of a running process, bytes (None once it has exited).
fn high_water_mark(pid: libc::pid_t) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Waits for `child`, sampling its peak memory; kills it past `limit` and panics.
pub fn wait_limited(mut child: std::process::Child, limit: Duration) -> Finished {
    let pid = child.id() as libc::pid_t;
    let start = Instant::now();
    let mut peak_rss = 0;
    loop {
        // Read before reaping: a zombie has no memory to report.
        if let Some(now) = high_water_mark(pid) {
            peak_rss = peak_rss.max(now);
        }
        let mut status = 0;
        // SAFETY: `pid` is our unreaped child; the pointer is valid for the call.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
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
                peak_rss,
                elapsed: start.elapsed(),
            };
        }
        assert!(
            r == 0,
            "waitpid failed: {}",
            std::io::Error::last_os_error()
        );
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hung: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(1));
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

/// CPU time (user + system, every thread) of process `pid`, in seconds.
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/<pid>/stat");
    // Fields after the command name (which may hold spaces) start at state (field 3);
    // utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')').expect("comm") + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 =
        fields[11].parse::<f64>().expect("utime") + fields[12].parse::<f64>().expect("stime");
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    ticks / hz
}

/// Waits until process `pid` used under 0.05 s of CPU in a second (its first frames are
/// done), at most `limit`.
#[allow(dead_code)]
pub fn wait_until_quiet(pid: u32, limit: std::time::Duration) {
    let start = std::time::Instant::now();
    let mut last = cpu_seconds(pid);
    loop {
        std::thread::sleep(std::time::Duration::from_secs(1));
        let now = cpu_seconds(pid);
        let busy = now - last;
        last = now;
        if busy < 0.05 || start.elapsed() > limit {
            return;
        }
    }
}
