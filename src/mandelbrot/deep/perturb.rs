//! Perturbation on the CPU: each pixel iterates δ_{k+1} = (2·Z_k + δ_k)·δ_k + δc along the
//! reference orbit, in f64 or in [`ComplexExp`]. Written operation for operation like
//! `kernels/perturbation.cuh` (no fused multiply-add there), so CPU and GPU dwells are equal.
//!
//! The pixel's z is Z_k + δ_k. The loop follows the contract (z = c, count z ← z² + c while
//! |z|² < 4 and n < max dwell). Before each step it rebases, δ ← Z_k + δ_k and k ← 0 (Z_0 = 0),
//! when |Z_k + δ_k| < |δ_k| (Zhuoran's glitch avoidance) or when k is the orbit's last index
//! (the reference escaped, or ended, before the pixel).

use super::{ComplexExp, DeepView, FloatExp, ReferenceOrbit};
use crate::mandelbrot::{Dwells, Precision};
use rayon::prelude::*;

/// δc of pixel (x, y) in f64: (((x + 0.5) − W·0.5)·step, −(((y + 0.5) − H·0.5)·step)).
pub fn offset_f64(x: u32, y: u32, width: u32, height: u32, step: f64) -> (f64, f64) {
    (
        ((f64::from(x) + 0.5) - f64::from(width) * 0.5) * step,
        -(((f64::from(y) + 0.5) - f64::from(height) * 0.5) * step),
    )
}

/// δc of pixel (x, y) with the step's exponent kept apart.
pub fn offset_ext(x: u32, y: u32, width: u32, height: u32, step: FloatExp) -> ComplexExp {
    let (re, im) = offset_f64(x, y, width, height, step.m);
    ComplexExp::new(re, im, step.e)
}

/// The dwell of the pixel at offset `dc` from the reference `orbit` (f64 points).
pub fn dwell_f64(orbit: &[[f64; 2]], dc: (f64, f64), max_dwell: u32) -> u32 {
    let last = orbit.len() - 1;
    let (mut dr, mut di) = dc;
    let mut k = 1;
    let mut n = 0;
    loop {
        let (zr, zi) = (orbit[k][0] + dr, orbit[k][1] + di);
        let norm = zr * zr + zi * zi;
        if n >= max_dwell || norm >= 4.0 {
            return n;
        }
        if k == last || norm < dr * dr + di * di {
            (dr, di, k) = (zr, zi, 0);
        }
        let ar = 2.0 * orbit[k][0] + dr;
        let ai = 2.0 * orbit[k][1] + di;
        let nr = (ar * dr - ai * di) + dc.0;
        let ni = (ar * di + ai * dr) + dc.1;
        (dr, di) = (nr, ni);
        k += 1;
        n += 1;
    }
}

/// The dwell of the pixel at offset `dc` from the reference `orbit`, extended exponents.
pub fn dwell_ext(orbit: &[ComplexExp], dc: ComplexExp, max_dwell: u32) -> u32 {
    let last = orbit.len() - 1;
    let mut d = dc;
    let mut k = 1;
    let mut n = 0;
    loop {
        let z = orbit[k] + d;
        if n >= max_dwell || z.escaped() {
            return n;
        }
        if k == last || z.norm_less(d) {
            (d, k) = (z, 0);
        }
        d = (orbit[k].double() + d) * d + dc;
        k += 1;
        n += 1;
    }
}

/// Every pixel's dwell by perturbation (`precision` is `Perturbation` or `Extended`), rows
/// in parallel, around `orbit` (the reference at the view's centre).
pub fn render_perturbation(
    view: &DeepView,
    orbit: &ReferenceOrbit,
    precision: Precision,
) -> Dwells {
    let (w, h) = (view.width, view.height);
    let step = view.location.pixel_size(w);
    let mut values = vec![0u32; w as usize * h as usize];
    let rows = values.par_chunks_mut(w.max(1) as usize).enumerate();
    if precision == Precision::Extended {
        rows.for_each(|(y, row)| {
            for (x, out) in row.iter_mut().enumerate() {
                let dc = offset_ext(x as u32, y as u32, w, h, step);
                *out = dwell_ext(&orbit.points, dc, view.max_dwell);
            }
        });
    } else {
        let points = orbit.f64_points();
        let step = step.to_f64();
        rows.for_each(|(y, row)| {
            for (x, out) in row.iter_mut().enumerate() {
                let dc = offset_f64(x as u32, y as u32, w, h, step);
                *out = dwell_f64(&points, dc, view.max_dwell);
            }
        });
    }
    Dwells {
        width: w,
        height: h,
        values,
        smooth: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::deep::{direct_dwell, DeepLocation};
    use crate::mandelbrot::{render_per_pixel, View};

    #[test]
    fn equals_f64_iteration_on_a_shallow_view() {
        let view = View {
            center: (-0.75, 0.1),
            span: 0.5,
            width: 61,
            height: 37,
            max_dwell: 300,
        };
        let deep = DeepView::from_view(&view).expect("finite");
        let orbit = ReferenceOrbit::compute(&deep);
        let plain = render_per_pixel(&view, false);
        for p in [Precision::Perturbation, Precision::Extended] {
            let got = render_perturbation(&deep, &orbit, p);
            let bad = got.mismatches(&plain);
            assert!(bad <= 2, "{p:?}: {bad} of {} differ", plain.values.len());
        }
    }

    #[test]
    fn both_paths_equal_direct_iteration_deep() {
        // 1e-40 wide around a point of seahorse valley, whose centre escapes early: the
        // reference ends long before most pixels (rebasing at its end).
        let location = DeepLocation::parse(
            "-0.743643887037158704752191506114774,0.131825904205311970493132056385139",
            "4e-33",
        )
        .expect("location");
        let view = DeepView {
            location,
            width: 24,
            height: 16,
            max_dwell: 2000,
        };
        let orbit = ReferenceOrbit::compute(&view);
        let f64s = render_perturbation(&view, &orbit, Precision::Perturbation);
        let ext = render_perturbation(&view, &orbit, Precision::Extended);
        let mut bad = (0, 0);
        for y in 0..view.height {
            for x in 0..view.width {
                let want = direct_dwell(&view, x, y, 64);
                let i = (y * view.width + x) as usize;
                bad.0 += usize::from(f64s.values[i] != want);
                bad.1 += usize::from(ext.values[i] != want);
            }
        }
        assert!(bad.0 <= 1 && bad.1 <= 1, "{bad:?} of {}", f64s.values.len());
        assert!(f64s.values.iter().any(|&d| d > 500), "a view with detail");
    }

    /// Every deep bookmark, CPU perturbation vs direct iteration on sampled pixels.
    /// Heavy: `cargo test --release -- --ignored bookmarks` (DEEP_SAMPLES, DEEP_DWELL_CAP).
    #[test]
    #[ignore]
    fn bookmarks_match_direct_iteration() {
        use crate::mandelbrot::deep::{sample_pixels, DEEP_BOOKMARKS};
        let env = |k: &str, d: usize| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        let (samples, cap) = (env("DEEP_SAMPLES", 60), env("DEEP_DWELL_CAP", 3000) as u32);
        let (guard, skip) = (env("DEEP_GUARD", 64), env("DEEP_SKIP", 0));
        for b in DEEP_BOOKMARKS.iter().skip(skip) {
            let view = DeepView {
                location: b.location().expect("bookmark"),
                width: 640,
                height: 360,
                max_dwell: b.max_dwell.min(cap),
            };
            let precision = crate::mandelbrot::deep::choose_precision(
                Precision::Auto,
                &view.location,
                view.width,
            );
            let orbit = ReferenceOrbit::compute(&view);
            let points = orbit.f64_points();
            let step = view.location.pixel_size(view.width);
            let pixels = sample_pixels(view.width, view.height, samples, 13);
            let results: Vec<(u32, u32)> = pixels
                .par_iter()
                .map(|&(x, y)| {
                    let d = if precision == Precision::Extended {
                        dwell_ext(&orbit.points, offset_ext(x, y, 640, 360, step), view.max_dwell)
                    } else {
                        dwell_f64(&points, offset_f64(x, y, 640, 360, step.to_f64()), view.max_dwell)
                    };
                    let direct = direct_dwell(&view, x, y, guard);
                    if d != direct {
                        let more = direct_dwell(&view, x, y, guard + 128);
                        println!("  ({x}, {y}): perturbation {d}, direct {direct}, direct +128 bits {more}");
                    }
                    (d, direct)
                })
                .collect();
            let bad = results.iter().filter(|(a, b)| a != b).count();
            let (lo, hi) = results
                .iter()
                .fold((u32::MAX, 0), |(l, h), r| (l.min(r.1), h.max(r.1)));
            println!(
                "{} {}: {precision:?}, dwells {lo}..{hi}, {bad}/{samples} differ",
                b.name, b.span
            );
            assert!(bad * 1000 <= samples, "{}: {bad} differ", b.name);
        }
    }
}
