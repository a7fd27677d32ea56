//! Where a render gets a pixel's dwell: f64 iteration of a [`View`] (the contract's
//! formula), or perturbation around a reference orbit for a deep view
//! (`deep::Perturbation`). The per-pixel render and the Mariani–Silver refinement take any
//! source, so the refinement works on perturbation dwells as on plain ones.

use super::{
    cpu::{distance, evaluate},
    Dwells, View,
};
use rayon::prelude::*;

/// A picture whose pixels can be evaluated one at a time, from any thread.
pub trait DwellSource: Sync {
    /// Width and height in pixels.
    fn size(&self) -> (u32, u32);
    /// The largest dwell a pixel can have.
    fn max_dwell(&self) -> u32;
    /// Pixel (x, y)'s dwell and, with `smooth`, its continuous escape value (the dwell
    /// itself for points that did not escape).
    fn pixel(&self, x: u32, y: u32, smooth: bool) -> (u32, f32);
    /// Pixel (x, y)'s distance estimate to the set in pixels (`distance_after_escape`), 0
    /// for points that did not escape.
    fn distance(&self, x: u32, y: u32) -> f32;
}

impl DwellSource for View {
    fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    fn max_dwell(&self) -> u32 {
        self.max_dwell
    }

    fn pixel(&self, x: u32, y: u32, smooth: bool) -> (u32, f32) {
        evaluate(self, x, y, smooth)
    }

    fn distance(&self, x: u32, y: u32) -> f32 {
        distance(self, x, y)
    }
}

/// Every pixel's dwell (and continuous value with `smooth`).
pub fn render_per_pixel(view: &View, smooth: bool) -> Dwells {
    render_per_pixel_from(view, smooth)
}

/// Every pixel's dwell (and continuous value with `smooth`), rows in parallel.
pub fn render_per_pixel_from(source: &impl DwellSource, smooth: bool) -> Dwells {
    let (width, height) = source.size();
    let w = width as usize;
    let n = w * height as usize;
    let mut values = vec![0u32; n];
    let mut smooth_values = vec![0f32; if smooth { n } else { 0 }];
    let rows = values.par_chunks_mut(w.max(1)).enumerate();
    if smooth {
        rows.zip(smooth_values.par_chunks_mut(w.max(1)))
            .for_each(|((y, row), srow)| {
                for (x, (d, s)) in row.iter_mut().zip(srow.iter_mut()).enumerate() {
                    (*d, *s) = source.pixel(x as u32, y as u32, true);
                }
            });
    } else {
        rows.for_each(|(y, row)| {
            for (x, d) in row.iter_mut().enumerate() {
                *d = source.pixel(x as u32, y as u32, false).0;
            }
        });
    }
    Dwells {
        width,
        height,
        values,
        smooth: smooth.then_some(smooth_values),
        distance: None,
    }
}

/// The distance estimates of `dwells`' escaped pixels (0 elsewhere), rows in parallel: a
/// pass of its own after any render, per pixel or refined (a filled cell has no derivative).
pub fn distances_from(source: &impl DwellSource, dwells: &Dwells) -> Vec<f32> {
    let w = dwells.width as usize;
    let max_dwell = source.max_dwell();
    let mut out = vec![0f32; dwells.values.len()];
    out.par_chunks_mut(w.max(1))
        .zip(dwells.values.par_chunks(w.max(1)))
        .enumerate()
        .for_each(|(y, (row, dwell_row))| {
            for (x, (d, &n)) in row.iter_mut().zip(dwell_row).enumerate() {
                if n < max_dwell {
                    *d = source.distance(x as u32, y as u32);
                }
            }
        });
    out
}
