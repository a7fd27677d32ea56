//! The CPU reference path of the Mandelbrot renderer: deep views by perturbation
//! (`deep_zoom.rs`), every other view in f64 (`mandelbrot_frame.rs`).

use super::deep_zoom::cpu_deep_dwells_cancellable;
use super::mandelbrot_frame::{cpu_render, Cancellable, MandelbrotFrame};
use crate::mandelbrot::{Dwells, MandelbrotSettings, Precision};
use crate::pipeline::report::StageTime;
use crate::pipeline::BackendKind;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The CPU reference: dwells (and continuous values, records) on the host.
pub fn cpu_dwells(s: &MandelbrotSettings) -> (Dwells, MandelbrotFrame) {
    cpu_dwells_cancellable(s, &AtomicBool::new(false))
}

/// [`cpu_dwells`] that stops early once `cancelled` is set (the result is then garbage,
/// to be dropped).
pub fn cpu_dwells_cancellable(
    s: &MandelbrotSettings,
    cancelled: &AtomicBool,
) -> (Dwells, MandelbrotFrame) {
    // Deep views by perturbation (`deep_zoom.rs`); a location the perturbation path cannot
    // take falls through to f64.
    if let Some(result) = s
        .deep_precision()
        .and_then(|p| cpu_deep_dwells_cancellable(s, p, cancelled).ok())
    {
        return result;
    }
    let start = Instant::now();
    let source = Cancellable {
        inner: &s.view,
        cancelled,
    };
    let (dwells, records, stats) = cpu_render(&source, s);
    let frame = MandelbrotFrame {
        backend: BackendKind::Cpu,
        precision: Precision::F64,
        stages: vec![StageTime::since("dwell", start)],
        records,
        stats,
    };
    (dwells, frame)
}
