//! A progress bar on stderr, drawn only when stderr is a terminal.

use std::io::{IsTerminal, Write};
use std::time::Instant;

pub struct Progress {
    total: usize,
    what: &'static str,
    start: Instant,
    enabled: bool,
    /// A bar is drawn and its line not yet ended.
    open: std::sync::atomic::AtomicBool,
}

impl Progress {
    pub fn new(total: usize, what: &'static str) -> Self {
        Self {
            total,
            what,
            start: Instant::now(),
            enabled: std::io::stderr().is_terminal(),
            open: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The bar after `done` of `total`, e.g. "[=======>     ] 12/40 frames, 1.3 s"; a count
    /// alone where the total is not known (0), and a full bar past it.
    pub fn line(&self, done: usize) -> String {
        const WIDTH: usize = 30;
        if self.total == 0 {
            return format!(
                "{done} {}, {:.1} s",
                self.what,
                self.start.elapsed().as_secs_f64()
            );
        }
        let filled = ((WIDTH * done) / self.total).min(WIDTH);
        let head = if filled < WIDTH { ">" } else { "" };
        format!(
            "[{}{head}{}] {done}/{} {}, {:.1} s",
            "=".repeat(filled),
            " ".repeat(WIDTH - filled - head.len()),
            self.total,
            self.what,
            self.start.elapsed().as_secs_f64()
        )
    }

    pub fn update(&self, done: usize) {
        if self.enabled {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{}", self.line(done));
            self.open
                .store(done != self.total, std::sync::atomic::Ordering::Relaxed);
            if done == self.total {
                let _ = writeln!(err);
            }
            let _ = err.flush();
        }
    }
}

/// Ends the bar's line where `update` did not (a total not known or not reached, or an
/// error), so that the next message starts a line of its own.
impl Drop for Progress {
    fn drop(&mut self) {
        if *self.open.get_mut() {
            let _ = writeln!(std::io::stderr());
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_bar_fills_with_the_count() {
        let p = super::Progress::new(4, "frames");
        assert!(p.line(0).starts_with("[>"));
        assert!(p.line(2).starts_with("[===============>"));
        assert!(p
            .line(4)
            .starts_with(&format!("[{}] 4/4 frames", "=".repeat(30))));
        // A video that holds more frames than it declared, and one that declares none.
        assert!(p.line(9).starts_with(&format!("[{}] 9/4", "=".repeat(30))));
        assert!(super::Progress::new(0, "frames")
            .line(7)
            .starts_with("7 frames, "));
    }
}
