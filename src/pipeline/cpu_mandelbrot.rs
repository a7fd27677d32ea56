//! The CPU reference path of the Mandelbrot renderer: deep views by perturbation
//! (`deep_zoom.rs`), every other view in f64 (`mandelbrot_frame.rs`).

use super::deep_zoom::cpu_deep_dwells;
use super::mandelbrot_frame::{cpu_render, MandelbrotFrame};
use super::report::StageTime;
use super::BackendKind;
use crate::mandelbrot::{Dwells, MandelbrotSettings, Precision};
use std::time::Instant;

/// The CPU reference: dwells (and continuous values, records) on the host.
pub fn cpu_dwells(s: &MandelbrotSettings) -> (Dwells, MandelbrotFrame) {
    // Deep views by perturbation (`deep_zoom.rs`); a location the perturbation path cannot
    // take falls through to f64.
    if let Some(result) = s.deep_precision().and_then(|p| cpu_deep_dwells(s, p).ok()) {
        return result;
    }
    let start = Instant::now();
    let (dwells, records, stats) = cpu_render(&s.view, s);
    let frame = MandelbrotFrame {
        backend: BackendKind::Cpu,
        precision: Precision::F64,
        stages: vec![StageTime {
            name: "dwell".into(),
            ms: start.elapsed().as_secs_f64() * 1e3,
        }],
        records,
        stats,
    };
    (dwells, frame)
}
