//! Mariani–Silver refinement on the CPU: the same rectangles, decisions and constants as
//! the CUDA kernel (`kernels/mandelbrot.cu`), as a parallel recursion.

use super::cpu::dwell_at;
use super::{Dwells, View};
use crate::cuda::tiles::MsTuning;
use rayon::prelude::*;

/// What the refinement did with a rectangle (drawn by the overlay).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RectKind {
    /// Border had one dwell: filled with it.
    Fill,
    /// Subdivided further.
    Split,
    /// Evaluated pixel by pixel.
    Leaf,
}

/// One decision of the refinement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsRecord {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
    pub kind: RectKind,
}

enum Pixels {
    Fill(u32),
    Each(Vec<u32>),
    None,
}

/// The parts of parent rectangle `p` cut `subdiv × subdiv` ways (empty parts skipped).
fn parts(p: (u32, u32, u32, u32), subdiv: u32) -> Vec<(u32, u32, u32, u32)> {
    let (px, py, pw, ph) = p;
    let (sw, sh) = (pw.div_ceil(subdiv), ph.div_ceil(subdiv));
    let mut out = Vec::new();
    for by in 0..subdiv {
        for bx in 0..subdiv {
            let (x0, y0) = (px + bx * sw, py + by * sh);
            if x0 < px + pw && y0 < py + ph {
                out.push((x0, y0, sw.min(px + pw - x0), sh.min(py + ph - y0)));
            }
        }
    }
    out
}

/// The common dwell of the rectangle's border, if there is one.
fn border_dwell(view: &View, (x0, y0, w, h): (u32, u32, u32, u32)) -> Option<u32> {
    let dwell = |x, y| {
        let (cr, ci) = view.point(x, y);
        dwell_at(cr, ci, view.max_dwell)
    };
    let first = dwell(x0, y0);
    let top_bottom = (x0..x0 + w).flat_map(|x| [(x, y0), (x, y0 + h - 1)]);
    let sides = (y0..y0 + h).flat_map(|y| [(x0, y), (x0 + w - 1, y)]);
    top_bottom
        .chain(sides)
        .all(|(x, y)| dwell(x, y) == first)
        .then_some(first)
}

fn refine(
    view: &View,
    t: &MsTuning,
    rect: (u32, u32, u32, u32),
    depth: u32,
) -> Vec<(MsRecord, Pixels)> {
    let (x, y, w, h) = rect;
    let record = |kind| MsRecord { x, y, w, h, kind };
    if let Some(d) = border_dwell(view, rect) {
        return vec![(record(RectKind::Fill), Pixels::Fill(d))];
    }
    if depth + 1 < t.max_depth && w / t.subdiv >= t.min_size && h / t.subdiv >= t.min_size {
        let mut out: Vec<_> = parts(rect, t.subdiv)
            .into_par_iter()
            .flat_map_iter(|part| refine(view, t, part, depth + 1))
            .collect();
        out.push((record(RectKind::Split), Pixels::None));
        return out;
    }
    let values = (y..y + h)
        .flat_map(|py| (x..x + w).map(move |px| (px, py)))
        .map(|(px, py)| {
            let (cr, ci) = view.point(px, py);
            dwell_at(cr, ci, view.max_dwell)
        })
        .collect();
    vec![(record(RectKind::Leaf), Pixels::Each(values))]
}

/// Dwells by Mariani–Silver refinement (the tuned parameters), with the record of every
/// decision.
pub fn render_mariani_silver(view: &View) -> (Dwells, Vec<MsRecord>) {
    let t = MsTuning::default();
    let (w, h) = (view.width, view.height);
    let results: Vec<_> = parts((0, 0, w, h), t.init_subdiv)
        .into_par_iter()
        .flat_map_iter(|part| refine(view, &t, part, 0))
        .collect();
    let mut values = vec![0u32; w as usize * h as usize];
    let mut records = Vec::with_capacity(results.len());
    for (r, pixels) in results {
        let rows = (r.y..r.y + r.h).map(|y| (y * w + r.x) as usize);
        match pixels {
            Pixels::Fill(d) => rows.for_each(|i| values[i..i + r.w as usize].fill(d)),
            Pixels::Each(v) => rows
                .zip(v.chunks_exact(r.w as usize))
                .for_each(|(i, src)| values[i..i + r.w as usize].copy_from_slice(src)),
            Pixels::None => {}
        }
        records.push(r);
    }
    (
        Dwells {
            width: w,
            height: h,
            values,
        },
        records,
    )
}

#[cfg(test)]
mod tests {
    use super::super::{render_per_pixel, BOOKMARKS};
    use super::*;

    #[test]
    fn parts_tile_the_parent_exactly() {
        for (pw, ph, s) in [(1, 1, 16), (7, 3, 4), (100, 37, 16), (4096, 4096, 16)] {
            let ps = parts((5, 9, pw, ph), s);
            let area: u32 = ps.iter().map(|p| p.2 * p.3).sum();
            assert_eq!(area, pw * ph, "{pw}x{ph}/{s}");
        }
    }

    #[test]
    fn agrees_with_per_pixel_on_the_built_in_views() {
        for (name, center, span, max_dwell) in BOOKMARKS {
            for (w, h) in [(1, 1), (7, 3), (317, 211), (640, 480)] {
                let view = View {
                    center,
                    span,
                    width: w,
                    height: h,
                    max_dwell,
                };
                let (ms, records) = render_mariani_silver(&view);
                let pp = render_per_pixel(&view);
                let bad = ms.mismatches(&pp);
                println!(
                    "{name} {w}x{h}: Mariani–Silver differs from per-pixel on {bad} of {} pixels",
                    pp.values.len()
                );
                assert!(
                    bad as f64 <= 0.001 * pp.values.len() as f64,
                    "{name} {w}x{h}: {bad} of {} pixels differ",
                    pp.values.len()
                );
                assert!(!records.is_empty());
            }
        }
    }
}
