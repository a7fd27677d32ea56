//! What one Mandelbrot render did, and the CPU render of a dwell source in the settings'
//! mode (the reference path is `cpu_mandelbrot.rs`).

use crate::mandelbrot::{
    render_mariani_silver_from, render_per_pixel_from, DwellSource, Dwells, MandelbrotSettings,
    Mode, MsRecord, MsStats, Precision,
};
use crate::pipeline::report::StageTime;
use crate::pipeline::BackendKind;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// A source that stops computing once `cancelled` is set (every later pixel reads 0): a
/// frame nobody will show ends quickly (the app's background frames).
pub(super) struct Cancellable<'a, S> {
    pub inner: &'a S,
    pub cancelled: &'a AtomicBool,
}

impl<S: DwellSource> DwellSource for Cancellable<'_, S> {
    fn size(&self) -> (u32, u32) {
        self.inner.size()
    }
    fn max_dwell(&self) -> u32 {
        self.inner.max_dwell()
    }
    fn has_smooth(&self) -> bool {
        self.inner.has_smooth()
    }
    fn pixel(&self, x: u32, y: u32, smooth: bool) -> (u32, f32) {
        if self.cancelled.load(Ordering::Relaxed) {
            return (0, 0.0);
        }
        self.inner.pixel(x, y, smooth)
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
    let (dwells, records) = match s.mode {
        Mode::PerPixel => (render_per_pixel_from(source, smooth), Vec::new()),
        Mode::MarianiSilver => render_mariani_silver_from(source, &tuning, smooth),
    };
    let stats = (s.overlay && s.mode == Mode::MarianiSilver)
        .then(|| MsStats::from_records(&records, &s.view, &tuning));
    let records = if s.overlay { records } else { Vec::new() };
    (dwells, records, stats)
}
