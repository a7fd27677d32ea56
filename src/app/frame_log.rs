//! `CUDALENS_FRAME_LOG=PATH`: one line appended to `PATH` per painted frame, for scripted
//! sessions that measure the UI's frame rate and follow its state without reading pixels:
//! `SECONDS TAB BUSY FILTERS WxH FRACTAL SELECTION`: seconds since the app started (3
//! decimals), `image` or `mandelbrot`, 1 while the tab's work runs (the explorer's render,
//! the CPU filter stack), the number of enabled filters, the image's size, the explorer's
//! fractal (`mandelbrot` or `julia`), and the selection (`WxH+X+Y`, or `none`).

use std::fs::File;
use std::io::Write;
use std::time::Instant;

/// The environment variable naming the log.
pub const FRAME_LOG_VAR: &str = "CUDALENS_FRAME_LOG";

/// What one frame showed.
pub struct FrameLine<'a> {
    pub tab: &'a str,
    pub busy: bool,
    pub filters: usize,
    pub image: (u32, u32),
    pub fractal: &'a str,
    /// The selection: x, y, width, height.
    pub selection: Option<(u32, u32, u32, u32)>,
}

/// The open log; writes that fail are reported once and end the log, never the app.
pub struct FrameLog {
    file: Option<File>,
    start: Instant,
}

impl FrameLog {
    /// The log named by [`FRAME_LOG_VAR`], appended to; inert when it is unset or cannot
    /// be opened (logged).
    pub fn from_env() -> Self {
        let file = std::env::var_os(FRAME_LOG_VAR).and_then(|path| {
            File::options()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| log::warn!("{FRAME_LOG_VAR}={}: {e}", path.to_string_lossy()))
                .ok()
        });
        Self {
            file,
            start: Instant::now(),
        }
    }

    /// Appends the line of a painted frame.
    pub fn frame(&mut self, line: FrameLine<'_>) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        let selection = line
            .selection
            .map_or_else(|| "none".into(), |(x, y, w, h)| format!("{w}x{h}+{x}+{y}"));
        let text = format!(
            "{:.3} {} {} {} {}x{} {} {selection}\n",
            self.start.elapsed().as_secs_f64(),
            line.tab,
            u8::from(line.busy),
            line.filters,
            line.image.0,
            line.image.1,
            line.fractal
        );
        if let Err(e) = file.write_all(text.as_bytes()) {
            log::warn!("{FRAME_LOG_VAR}: {e}; no more frames logged");
            self.file = None;
        }
    }
}
