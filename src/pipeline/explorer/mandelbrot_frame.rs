//! What one Mandelbrot render did, and the CPU render of a dwell source in the settings'
//! mode (the reference path is `cpu_mandelbrot.rs`).

use crate::mandelbrot::{
    distances_from, render_mariani_silver_from, render_per_pixel_from, DwellSource, Dwells,
    MandelbrotSettings, Mode, MsRecord, MsStats, Precision,
};
use crate::pipeline::report::StageTime;
use crate::pipeline::BackendKind;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// What one render did.
#[derive(Debug, Clone)]
pub struct MandelbrotFrame {
    pub backend: BackendKind,
    pub precision: Precision,
    pub stages: Vec<StageTime>,
    /// The Mariani–Silver rectangles (with `overlay`; the device keeps at most 65 536).
    pub records: Vec<MsRecord>,
    /// Mariani–Silver statistics (with `overlay`).
    pub stats: Option<MsStats>,
}

impl MandelbrotFrame {
    /// Time of the dwell computation (the number compared between modes).
    pub fn dwell_ms(&self) -> f64 {
        self.stages
            .iter()
            .filter(|s| s.name == "dwell")
            .map(|s| s.ms)
            .sum()
    }

    /// Sum of the stage times.
    pub fn total_ms(&self) -> f64 {
        crate::pipeline::report::total_of(&self.stages)
    }
}

/// A background render's link to its job: the flag that cancels it, and where it reports
/// the share of the picture's pixels computed so far (0..1).
#[derive(Clone, Copy)]
pub struct RenderControl<'a> {
    pub cancelled: &'a AtomicBool,
    pub progress: &'a (dyn Fn(f32) + Sync),
}

fn no_progress(_: f32) {}

impl<'a> RenderControl<'a> {
    /// Cancelled by `cancelled`, reporting no progress.
    pub fn cancel_only(cancelled: &'a AtomicBool) -> Self {
        Self {
            cancelled,
            progress: &no_progress,
        }
    }
}

/// Pixels between two progress reports.
const PROGRESS_EVERY: u64 = 4096;

/// A source that stops computing once cancelled (every later pixel reads 0: a frame nobody
/// will show ends quickly) and reports the share of pixels computed. Mariani–Silver fills
/// whole cells without computing them, so its share stays below 1 until the frame is done.
pub(super) struct Cancellable<'a, S> {
    inner: &'a S,
    control: RenderControl<'a>,
    done: AtomicU64,
    total: u64,
}

impl<'a, S: DwellSource> Cancellable<'a, S> {
    pub fn new(inner: &'a S, control: RenderControl<'a>) -> Self {
        let (w, h) = inner.size();
        Self {
            inner,
            control,
            done: AtomicU64::new(0),
            total: (u64::from(w) * u64::from(h)).max(1),
        }
    }
}

impl<S: DwellSource> DwellSource for Cancellable<'_, S> {
    fn size(&self) -> (u32, u32) {
        self.inner.size()
    }
    fn max_dwell(&self) -> u32 {
        self.inner.max_dwell()
    }
    fn pixel(&self, x: u32, y: u32, smooth: bool) -> (u32, f32) {
        if self.control.cancelled.load(Ordering::Relaxed) {
            return (0, 0.0);
        }
        let out = self.inner.pixel(x, y, smooth);
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(PROGRESS_EVERY) {
            (self.control.progress)(n as f32 / self.total as f32);
        }
        out
    }
    fn distance(&self, x: u32, y: u32) -> f32 {
        if self.control.cancelled.load(Ordering::Relaxed) {
            return 0.0;
        }
        self.inner.distance(x, y)
    }
}

/// The pixels of `source` in `s`'s mode: per pixel, or refined with `s`'s tuning (the
/// records and statistics with `overlay`).
pub(super) fn cpu_render(
    source: &impl DwellSource,
    s: &MandelbrotSettings,
) -> (Dwells, Vec<MsRecord>, Option<MsStats>) {
    let smooth = s.coloring.smooth;
    let tuning = s.tuning();
    let (mut dwells, records) = match s.mode {
        Mode::PerPixel => (render_per_pixel_from(source, smooth), Vec::new()),
        Mode::MarianiSilver => render_mariani_silver_from(source, &tuning, smooth),
    };
    if s.coloring.distance.is_some() {
        dwells.distance = Some(distances_from(source, &dwells));
    }
    let stats = (s.overlay && s.mode == Mode::MarianiSilver)
        .then(|| MsStats::from_records(&records, &s.view, &tuning));
    let records = if s.overlay { records } else { Vec::new() };
    (dwells, records, stats)
}
