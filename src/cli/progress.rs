//! A progress bar on stderr, drawn only when stderr is a terminal.

use std::io::{IsTerminal, Write};
use std::time::Instant;

pub struct Progress {
    total: usize,
    what: &'static str,
    start: Instant,
    enabled: bool,
}

impl Progress {
    pub fn new(total: usize, what: &'static str) -> Self {
        Self {
            total,
            what,
            start: Instant::now(),
            enabled: std::io::stderr().is_terminal(),
        }
    }

    /// The bar after `done` of `total`, e.g. "[=======>     ] 12/40 frames, 1.3 s".
    pub fn line(&self, done: usize) -> String {
        const WIDTH: usize = 30;
        let filled = (WIDTH * done) / self.total.max(1);
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
            if done == self.total {
                let _ = writeln!(err);
            }
            let _ = err.flush();
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
    }
}
