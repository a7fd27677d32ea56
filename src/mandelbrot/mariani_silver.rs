//! Mariani–Silver refinement on the CPU: the reference for `kernels/mandelbrot.cu`, which
//! makes the same decisions on the same rectangles with the same tuning, whatever it runs
//! in a child grid or inside a block.
//!
//! 1. Evaluate the image's border and the lines of spacing S₀ (level 0 cells).
//! 2. For a cell whose border is known: one dwell on the whole border → fill the interior
//!    with it; else at the last level → evaluate the interior pixel by pixel; else evaluate
//!    the lines of spacing S_{k+1} inside it and refine each of its cells (level k+1).
//!
//! Every pixel is written once. With smooth values, a filled interior takes the Coons
//! patch of its border's continuous values (the integer dwell is the border's).
//!
//! The pixels come from a [`DwellSource`]: f64 iteration of a [`View`], or perturbation
//! for a deep view (`deep::Perturbation`), whose refinement makes the same decisions.

use super::{coons, DwellSource, Dwells, MsTuning, Rect, View};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// What the refinement did with a rectangle (drawn by the overlay).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RectKind {
    /// Border had one dwell: interior filled with it.
    Fill,
    /// Split into the cells of the next level.
    Split,
    /// Last level, evaluated pixel by pixel.
    Leaf,
}

/// One decision of the refinement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MsRecord {
    pub rect: Rect,
    pub kind: RectKind,
    /// 0 for the first grid's cells.
    pub level: u32,
}

/// Dwells and continuous values shared by the parallel recursion: each pixel is written
/// once, and read only after the write (rayon's joins order them).
struct Canvas<'a, S> {
    source: &'a S,
    width: u32,
    max_dwell: u32,
    tuning: &'a MsTuning,
    levels: u32,
    dwell: Vec<AtomicU32>,
    /// f32 bits; empty without smooth values.
    value: Vec<AtomicU32>,
}

impl<S: DwellSource> Canvas<'_, S> {
    fn index(&self, x: u32, y: u32) -> usize {
        y as usize * self.width as usize + x as usize
    }

    fn eval(&self, (x, y): (u32, u32)) {
        let (d, v) = self.source.pixel(x, y, !self.value.is_empty());
        let i = self.index(x, y);
        self.dwell[i].store(d, Relaxed);
        if let Some(slot) = self.value.get(i) {
            slot.store(v.to_bits(), Relaxed);
        }
    }

    fn dwell(&self, x: u32, y: u32) -> u32 {
        self.dwell[self.index(x, y)].load(Relaxed)
    }

    fn value(&self, x: u32, y: u32) -> f32 {
        f32::from_bits(self.value[self.index(x, y)].load(Relaxed))
    }

    fn border_is_uniform(&self, r: &Rect) -> Option<u32> {
        let first = self.dwell(r.x0, r.y0);
        r.border()
            .all(|(x, y)| self.dwell(x, y) == first)
            .then_some(first)
    }

    fn fill(&self, r: &Rect, d: u32) {
        let smooth = !self.value.is_empty() && d < self.max_dwell;
        (0..r.interior_pixels()).into_par_iter().for_each(|i| {
            let (x, y) = r.interior_pixel(i);
            let idx = self.index(x, y);
            self.dwell[idx].store(d, Relaxed);
            if let Some(slot) = self.value.get(idx) {
                let v = if smooth {
                    coons(r, (x, y), |x, y| self.value(x, y))
                } else {
                    d as f32
                };
                slot.store(v.to_bits(), Relaxed);
            }
        });
    }

    fn refine(&self, r: Rect, level: u32) -> Vec<MsRecord> {
        if r.interior_pixels() == 0 {
            return Vec::new();
        }
        let record = |kind| MsRecord {
            rect: r,
            kind,
            level,
        };
        if let Some(d) = self.border_is_uniform(&r) {
            self.fill(&r, d);
            return vec![record(RectKind::Fill)];
        }
        if level + 1 == self.levels {
            (0..r.interior_pixels())
                .into_par_iter()
                .for_each(|i| self.eval(r.interior_pixel(i)));
            return vec![record(RectKind::Leaf)];
        }
        let s = self.tuning.size(level as usize + 1);
        (0..r.line_pixel_count(s))
            .into_par_iter()
            .for_each(|i| self.eval(r.line_pixel(s, i)));
        let cells: Vec<Rect> = r.cells(s).collect();
        let mut out: Vec<MsRecord> = cells
            .into_par_iter()
            .flat_map_iter(|c| self.refine(c, level + 1))
            .collect();
        out.push(record(RectKind::Split));
        out
    }
}

/// Dwells by Mariani–Silver refinement with `tuning` (continuous values too with
/// `smooth`), and the record of every decision. An invalid tuning (never one of ours) is
/// replaced by the default.
pub fn render_mariani_silver(
    view: &View,
    tuning: &MsTuning,
    smooth: bool,
) -> (Dwells, Vec<MsRecord>) {
    render_mariani_silver_from(view, tuning, smooth)
}

/// The same refinement over any dwell source (continuous values only where the source
/// has them).
pub fn render_mariani_silver_from(
    source: &impl DwellSource,
    tuning: &MsTuning,
    smooth: bool,
) -> (Dwells, Vec<MsRecord>) {
    let tuning = if tuning.validate().is_ok() {
        tuning
    } else {
        &MsTuning::default()
    };
    let (width, height) = source.size();
    let n = width as usize * height as usize;
    let canvas = Canvas {
        source,
        width,
        max_dwell: source.max_dwell(),
        tuning,
        levels: tuning.levels() as u32,
        dwell: (0..n).map(|_| AtomicU32::new(0)).collect(),
        value: (0..if smooth { n } else { 0 })
            .map(|_| AtomicU32::new(0))
            .collect(),
    };
    let lines = super::GridLines {
        width,
        height,
        s: tuning.init_size,
    };
    (0..lines.pixel_count())
        .into_par_iter()
        .for_each(|i| canvas.eval(lines.pixel(i)));
    let cells: Vec<Rect> = Rect::image(width, height).cells(tuning.init_size).collect();
    let records = cells
        .into_par_iter()
        .flat_map_iter(|c| canvas.refine(c, 0))
        .collect();
    let dwells = Dwells {
        width,
        height,
        values: canvas
            .dwell
            .into_iter()
            .map(AtomicU32::into_inner)
            .collect(),
        smooth: smooth.then(|| {
            canvas
                .value
                .into_iter()
                .map(|v| f32::from_bits(v.into_inner()))
                .collect()
        }),
        distance: None,
    };
    (dwells, records)
}

#[cfg(test)]
mod tests {
    use super::super::{render_per_pixel, BOOKMARKS};
    use super::*;

    fn tunings() -> Vec<MsTuning> {
        let t = |init_size, subdiv, leaf_size| MsTuning {
            init_size,
            subdiv,
            leaf_size,
            launch_min_pixels: 1 << 20,
            lookahead: 1,
        };
        vec![MsTuning::default(), t(64, 4, 4), t(32, 2, 4), t(16, 2, 4)]
    }

    /// Every built-in bookmark as a `w`×`h` view, with its name.
    fn bookmark_views(w: u32, h: u32) -> impl Iterator<Item = (&'static str, View)> {
        BOOKMARKS
            .into_iter()
            .map(move |(name, center, span, max_dwell)| {
                let view = View {
                    center,
                    span,
                    width: w,
                    height: h,
                    max_dwell,
                    fractal: crate::mandelbrot::Fractal::Mandelbrot,
                };
                (name, view)
            })
    }

    #[test]
    fn agrees_with_per_pixel_on_the_built_in_views() {
        for tuning in tunings() {
            for (w, h) in [(1, 1), (7, 3), (317, 211), (640, 480)] {
                for (name, view) in bookmark_views(w, h) {
                    let (ms, records) = render_mariani_silver(&view, &tuning, false);
                    let pp = render_per_pixel(&view, false);
                    let bad = ms.mismatches(&pp);
                    assert!(
                        bad as f64 <= 1e-4 * pp.values.len() as f64,
                        "{name} {w}x{h} {tuning:?}: {bad} of {} pixels differ",
                        pp.values.len()
                    );
                    assert_eq!(records.is_empty(), w < 3 || h < 3, "{name} {w}x{h}");
                }
            }
        }
    }

    /// Mariani–Silver's border test is exact where the filled Julia set is connected (c in
    /// the Mandelbrot set: the rabbit, whole and zoomed), and a good heuristic just outside
    /// (c = −0.8 + 0.156i, whose critical orbit escapes after 251 steps).
    #[test]
    fn agrees_with_per_pixel_on_julia_sets() {
        use crate::mandelbrot::{Fractal, JuliaC};
        for (c, center, span, max_dwell) in [
            ("-0.123,0.745", (0.0, 0.0), 3.2, 500),
            ("-0.123,0.745", (-0.05, 0.43), 0.02, 1500),
            ("-0.8,0.156", (0.0, 0.0), 4.0, 400),
            ("-0.8,0.156", (0.27, 0.05), 0.05, 1500),
        ] {
            let c = JuliaC::parse(c).expect("c");
            for tuning in tunings() {
                for (w, h) in [(7, 3), (317, 211), (640, 480)] {
                    let view = View {
                        center,
                        span,
                        width: w,
                        height: h,
                        max_dwell,
                        fractal: Fractal::Julia { c },
                    };
                    let (ms, _) = render_mariani_silver(&view, &tuning, false);
                    let pp = render_per_pixel(&view, false);
                    let bad = ms.mismatches(&pp);
                    assert!(
                        bad as f64 <= 1e-4 * pp.values.len() as f64,
                        "{c:?} {center:?} {w}x{h} {tuning:?}: {bad} of {} pixels differ",
                        pp.values.len()
                    );
                }
            }
        }
    }

    #[test]
    fn records_stay_within_the_bound_the_gpu_buffer_is_sized_by() {
        for (w, h) in [(7, 3), (317, 211), (640, 480)] {
            let mut all = tunings();
            all.push(MsTuning::for_size(w, h));
            for tuning in all {
                for (name, view) in bookmark_views(w, h) {
                    let (_, records) = render_mariani_silver(&view, &tuning, true);
                    assert!(
                        records.len() <= tuning.record_bound(w, h),
                        "{name} {w}x{h} {tuning:?}: {} records",
                        records.len()
                    );
                }
            }
        }
    }

    #[test]
    fn evaluated_pixels_equal_per_pixel_and_fills_are_uniform() {
        let view = View {
            width: 300,
            height: 200,
            ..View::default()
        };
        let tuning = MsTuning {
            init_size: 32,
            subdiv: 2,
            leaf_size: 4,
            launch_min_pixels: 1,
            lookahead: 1,
        };
        let (ms, records) = render_mariani_silver(&view, &tuning, true);
        let pp = render_per_pixel(&view, true);
        let (ms_v, pp_v) = (ms.smooth.expect("smooth"), pp.smooth.expect("smooth"));
        let mut filled = vec![false; pp.values.len()];
        for r in records.iter().filter(|r| r.kind == RectKind::Fill) {
            for i in 0..r.rect.interior_pixels() {
                let (x, y) = r.rect.interior_pixel(i);
                filled[(y * 300 + x) as usize] = true;
            }
        }
        for i in 0..pp.values.len() {
            if !filled[i] {
                assert_eq!(ms.values[i], pp.values[i], "pixel {i}");
                assert_eq!(ms_v[i].to_bits(), pp_v[i].to_bits(), "pixel {i}");
            }
        }
        assert!(filled.iter().any(|&f| f) && filled.iter().any(|&f| !f));
        let levels: std::collections::HashSet<_> = records.iter().map(|r| r.level).collect();
        assert_eq!(levels.len(), tuning.levels(), "records on every level");
    }
}
