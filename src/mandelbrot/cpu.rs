//! The per-pixel evaluation on the CPU in f64 (the reference the GPU is compared with), and
//! the per-pixel render, rows in parallel.

use super::View;
use crate::kernel_constants::MANDEL_PERIOD_STRIDE;

/// |z|² a point must reach before its continuous escape value is taken (radius 256).
pub const SMOOTH_BAILOUT_SQ: f64 = 65536.0;
/// Iterations at most past the dwell's escape (|z|² ≥ 4) to reach that radius.
pub const SMOOTH_EXTRA_MAX: u32 = 16;

/// The Mandelbrot iteration z ← z² + c from z = c while |z|² < 4, at most `max_dwell`
/// times: the number of iterations (the dwell) and the last z.
#[inline]
pub fn escape(cr: f64, ci: f64, max_dwell: u32) -> (u32, f64, f64) {
    escape_from((cr, ci), (cr, ci), max_dwell)
}

/// The iteration z ← z² + c from z = z₀ while |z|² < 4, at most `max_dwell` times (the
/// Julia set's, and the Mandelbrot set's with z₀ = c). Every [`MANDEL_PERIOD_STRIDE`] steps
/// z is compared with the z saved at the last power-of-two step: equal, the orbit repeats
/// and never escapes, so the max dwell is returned at once (the same dwell as the plain
/// loop; the kernels check alike).
#[inline]
pub fn escape_from(z0: (f64, f64), c: (f64, f64), max_dwell: u32) -> (u32, f64, f64) {
    let (n, zr, zi, _) = escape_steps(z0, c, max_dwell);
    (n, zr, zi)
}

/// [`escape_from`] and the steps it took (fewer than the dwell where a cycle ended it).
#[inline]
fn escape_steps(
    (zr0, zi0): (f64, f64),
    (cr, ci): (f64, f64),
    max_dwell: u32,
) -> (u32, f64, f64, u32) {
    let (mut zr, mut zi) = (zr0, zi0);
    let mut n = 0;
    // No orbit point is at (4, 4): nothing saved yet.
    let (mut pr, mut pi, mut save_at) = (4.0, 4.0, MANDEL_PERIOD_STRIDE);
    while n < max_dwell && zr * zr + zi * zi < 4.0 {
        let t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        n += 1;
        if n % MANDEL_PERIOD_STRIDE == 0 {
            if zr == pr && zi == pi {
                return (max_dwell, zr, zi, n);
            }
            if n == save_at {
                (pr, pi) = (zr, zi);
                save_at = save_at.saturating_mul(2);
            }
        }
    }
    (n, zr, zi, n)
}

/// The dwell of c = (cr, ci).
#[inline]
pub fn dwell_at(cr: f64, ci: f64, max_dwell: u32) -> u32 {
    escape(cr, ci, max_dwell).0
}

/// The continuous escape value of a point that escaped after `n` iterations at z: the
/// iteration goes on until |z|² ≥ 65536 (m more steps), then ν = n + m + 1 − log2(log2 |z|²),
/// which lies in about (n − 1, n] and is continuous across dwell bands. Same operations
/// as the kernel's f64 path.
#[inline]
pub fn smooth_after_escape(n: u32, mut zr: f64, mut zi: f64, cr: f64, ci: f64) -> f32 {
    let mut r2 = zr * zr + zi * zi;
    let mut m = 0;
    while r2 < SMOOTH_BAILOUT_SQ && m < SMOOTH_EXTRA_MAX {
        let t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        r2 = zr * zr + zi * zi;
        m += 1;
    }
    (f64::from(n + m + 1) - r2.log2().log2()) as f32
}

/// z ← z² + c with its derivative w ← 2·z·w + a, in the kernels' order.
#[inline]
fn step_with_derivative(
    (zr, zi): (f64, f64),
    (wr, wi): (f64, f64),
    (cr, ci): (f64, f64),
    a: f64,
) -> ((f64, f64), (f64, f64)) {
    let (t, u) = (zr * wr - zi * wi, zr * wi + zi * wr);
    let w = (2.0 * t + a, 2.0 * u);
    let z = (zr * zr - zi * zi + cr, 2.0 * zr * zi + ci);
    (z, w)
}

/// The distance estimate, in pixels, of a point that escaped at z with w = dz/dp, the
/// derivative of z by the pixel coordinate (dz/dc·s for the Mandelbrot set, dz/dz₀·s for a
/// Julia set, s the pixel size). The iteration goes on as for ν (to |z|² ≥ 65536, at most
/// 16 steps) with w ← 2·z·w + a (a = s for the Mandelbrot set, 0 for a Julia set), then
/// d = |z|·ln|z|² / |w|: Milnor's estimate 2·|z|·ln|z| / |z′|, which the Koebe ¼ theorem ties
/// to the true distance within a factor of 4. Same operations as the kernels'
/// `distance_after_escape`.
#[inline]
pub fn distance_after_escape(
    (mut zr, mut zi): (f64, f64),
    (mut wr, mut wi): (f64, f64),
    (cr, ci): (f64, f64),
    a: f64,
) -> f32 {
    let mut r2 = zr * zr + zi * zi;
    let mut m = 0;
    while r2 < SMOOTH_BAILOUT_SQ && m < SMOOTH_EXTRA_MAX {
        ((zr, zi), (wr, wi)) = step_with_derivative((zr, zi), (wr, wi), (cr, ci), a);
        r2 = zr * zr + zi * zi;
        m += 1;
    }
    (r2.sqrt() * r2.ln() / (wr * wr + wi * wi).sqrt()) as f32
}

/// Pixel (x, y)'s distance estimate in pixels ([`distance_after_escape`]), 0 where it did not
/// escape. The plain loop of the contract with the derivative beside it (w starts at s).
pub fn distance(view: &View, x: u32, y: u32) -> f32 {
    let ((mut zr, mut zi), (cr, ci)) = view.start(x, y);
    let s = view.pixel_size();
    let a = if view.fractal.julia_c().is_some() {
        0.0
    } else {
        s
    };
    let (mut wr, mut wi) = (s, 0.0);
    let mut n = 0;
    while n < view.max_dwell && zr * zr + zi * zi < 4.0 {
        ((zr, zi), (wr, wi)) = step_with_derivative((zr, zi), (wr, wi), (cr, ci), a);
        n += 1;
    }
    if n < view.max_dwell {
        distance_after_escape((zr, zi), (wr, wi), (cr, ci), a)
    } else {
        0.0
    }
}

/// One pixel's dwell and (with `smooth`) continuous value; the latter is the dwell itself
/// for points that did not escape.
#[inline]
pub fn evaluate(view: &View, x: u32, y: u32, smooth: bool) -> (u32, f32) {
    let (z0, (cr, ci)) = view.start(x, y);
    let (n, zr, zi) = escape_from(z0, (cr, ci), view.max_dwell);
    let v = if smooth && n < view.max_dwell {
        smooth_after_escape(n, zr, zi, cr, ci)
    } else {
        n as f32
    };
    (n, v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::render_per_pixel;

    /// The contract written out with complex-number arithmetic, one pixel at a time.
    fn plain(view: &View) -> Vec<u32> {
        let mut out = Vec::new();
        for y in 0..view.height {
            for x in 0..view.width {
                let c = (
                    view.center.0
                        + (f64::from(x) + 0.5 - f64::from(view.width) / 2.0) * view.span
                            / f64::from(view.width),
                    view.center.1
                        - (f64::from(y) + 0.5 - f64::from(view.height) / 2.0) * view.span
                            / f64::from(view.width),
                );
                let mut z = c;
                let mut n = 0;
                while n < view.max_dwell && z.0 * z.0 + z.1 * z.1 < 4.0 {
                    z = (z.0 * z.0 - z.1 * z.1 + c.0, 2.0 * z.0 * z.1 + c.1);
                    n += 1;
                }
                out.push(n);
            }
        }
        out
    }

    #[test]
    fn equals_the_plain_contract_exactly() {
        for (w, h) in [(1, 1), (7, 3), (64, 48), (33, 65)] {
            let view = View {
                center: (-0.5, 0.1),
                span: 2.5,
                width: w,
                height: h,
                max_dwell: 200,
                fractal: crate::mandelbrot::Fractal::Mandelbrot,
            };
            assert_eq!(
                render_per_pixel(&view, false).values,
                plain(&view),
                "{w}x{h}"
            );
            let smooth = render_per_pixel(&view, true);
            assert_eq!(smooth.values, plain(&view), "{w}x{h} with smooth values");
        }
    }

    /// A Julia set's contract written out: z = the pixel's point, c fixed.
    fn plain_julia(view: &View, c: (f64, f64)) -> Vec<u32> {
        let mut out = Vec::new();
        for y in 0..view.height {
            for x in 0..view.width {
                let step = view.span / f64::from(view.width);
                let mut z = (
                    view.center.0 + (f64::from(x) + 0.5 - f64::from(view.width) / 2.0) * step,
                    view.center.1 - (f64::from(y) + 0.5 - f64::from(view.height) / 2.0) * step,
                );
                let mut n = 0;
                while n < view.max_dwell && z.0 * z.0 + z.1 * z.1 < 4.0 {
                    z = (z.0 * z.0 - z.1 * z.1 + c.0, 2.0 * z.0 * z.1 + c.1);
                    n += 1;
                }
                out.push(n);
            }
        }
        out
    }

    /// For c = 0 the Julia set is the unit circle and z_n = z₀^(2ⁿ), z′_n = 2ⁿ·z₀^(2ⁿ − 1):
    /// the estimate |z_n|·ln|z_n|² / |z′_n| is 2·r·ln r for |z₀| = r, whatever n.
    #[test]
    fn distance_of_the_unit_circle_julia_set_is_two_r_ln_r() {
        use crate::mandelbrot::{Fractal, JuliaC};
        let view = View {
            center: (0.1, -0.05),
            span: 4.0,
            width: 80,
            height: 60,
            max_dwell: 100,
            fractal: Fractal::Julia {
                c: JuliaC::from_f64(0.0, 0.0).expect("finite"),
            },
        };
        let mut outside = 0;
        for y in 0..view.height {
            for x in 0..view.width {
                let (zr, zi) = view.point(x, y);
                let r = zr.hypot(zi);
                let got = f64::from(distance(&view, x, y));
                if r <= 1.0 {
                    assert_eq!(got, 0.0, "({x}, {y}) inside");
                    continue;
                }
                outside += 1;
                let want = 2.0 * r * r.ln() / view.pixel_size();
                assert!(
                    (got - want).abs() <= 1e-6 * want,
                    "({x}, {y}): {got} vs {want}"
                );
            }
        }
        assert!(outside > 1000);
    }

    /// The plain path's estimates equal the deep paths' (perturbation with its derivative)
    /// on a shallow view of the Mandelbrot set and of a Julia set.
    #[test]
    fn plain_distances_equal_the_perturbation_paths() {
        use crate::mandelbrot::deep::{DeepView, Perturbation, ReferenceOrbit};
        use crate::mandelbrot::{DwellSource, Fractal, JuliaC, Precision};
        for fractal in [
            Fractal::Mandelbrot,
            Fractal::Julia {
                c: JuliaC::from_f64(-0.75, 0.1).expect("finite"),
            },
        ] {
            let view = View {
                center: (-0.74, 0.12),
                span: 0.05,
                width: 48,
                height: 32,
                max_dwell: 2000,
                fractal,
            };
            let deep = DeepView::from_view(&view).expect("finite");
            let orbit = ReferenceOrbit::compute(&deep);
            let mut escaped = 0;
            for p in [Precision::Perturbation, Precision::Extended] {
                let source = Perturbation::new(&deep, &orbit, p);
                for y in 0..view.height {
                    for x in 0..view.width {
                        let (plain, other) = (distance(&view, x, y), source.distance(x, y));
                        let dwell = evaluate(&view, x, y, false).0;
                        // Where the two dwells differ (a pixel or two on the boundary) so
                        // do their derivatives; within a millionth of a pixel of the set, f64's
                        // rounding of c (2⁻⁵³ of |c|, grown by |dz/dc| ~ 1/distance) is no
                        // longer small beside the distance.
                        let (max, same) = (view.max_dwell, source.pixel(x, y, false).0 == dwell);
                        if dwell == max || !same || plain < 1e-6 {
                            continue;
                        }
                        escaped += 1;
                        let close = (plain - other).abs() <= 1e-3 * plain;
                        assert!(close, "{fractal:?} {p:?} ({x}, {y}): {plain} vs {other}");
                    }
                }
            }
            assert!(escaped > 100, "{fractal:?}");
        }
    }

    #[test]
    fn julia_sets_equal_their_plain_contract_exactly() {
        use crate::mandelbrot::{Fractal, JuliaC};
        for (c, w, h) in [
            ((-0.8, 0.156), 64, 48),
            ((-0.75, 0.1), 33, 65),
            ((0.3, 0.5), 7, 3),
        ] {
            let view = View {
                center: (0.0, 0.0),
                span: 3.2,
                width: w,
                height: h,
                max_dwell: 300,
                fractal: Fractal::Julia {
                    c: JuliaC::from_f64(c.0, c.1).expect("finite"),
                },
            };
            let want = plain_julia(&view, c);
            assert_eq!(render_per_pixel(&view, false).values, want, "{c:?}");
            assert_eq!(render_per_pixel(&view, true).values, want, "{c:?} smooth");
            assert!(
                want.contains(&300) || c == (0.3, 0.5),
                "{c:?}: inside points"
            );
            assert!(want.iter().any(|&d| d < 5), "{c:?}: outside points");
        }
    }

    #[test]
    fn julia_known_points() {
        // c = 0: the unit disc is the filled set; z = 1.5 → 2.25 escapes after one step.
        assert_eq!(escape_from((0.5, 0.0), (0.0, 0.0), 100).0, 100);
        assert_eq!(escape_from((1.5, 0.0), (0.0, 0.0), 100).0, 1);
        assert_eq!(
            escape_from((0.0, 0.0), (0.5, 0.0), 100).0,
            dwell_at(0.5, 0.0, 100) + 1
        );
    }

    /// The loop without the periodicity check.
    fn plain_escape((zr0, zi0): (f64, f64), (cr, ci): (f64, f64), max_dwell: u32) -> u32 {
        let (mut zr, mut zi, mut n) = (zr0, zi0, 0);
        while n < max_dwell && zr * zr + zi * zi < 4.0 {
            let t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            n += 1;
        }
        n
    }

    #[test]
    fn the_periodicity_check_gives_the_plain_loops_dwells() {
        // Every bookmark at 256×144 and max dwell 8192 (interior-heavy ones included), and
        // Julia sets: the same dwell as the loop without the check, pixel for pixel; most
        // interior pixels are found early (a fixed point's orbit repeats after a few steps).
        for (_, centre, span, _) in crate::mandelbrot::BOOKMARKS {
            let view = View {
                center: centre,
                span,
                width: 256,
                height: 144,
                max_dwell: 8192,
                ..View::default()
            };
            for y in 0..view.height {
                for x in 0..view.width {
                    let (z0, c) = view.start(x, y);
                    let plain = plain_escape(z0, c, view.max_dwell);
                    assert_eq!(
                        escape_from(z0, c, view.max_dwell).0,
                        plain,
                        "{centre:?} ({x}, {y})"
                    );
                }
            }
        }
        for (z0, c) in [((0.1, 0.1), (-0.123, 0.745)), ((0.3, -0.2), (-0.75, 0.1))] {
            assert_eq!(escape_from(z0, c, 50_000).0, plain_escape(z0, c, 50_000));
        }
        // Inside the main cardioid and the period-2 bulb the orbit settles on its cycle in
        // floating point within a few thousand steps: the check ends it there.
        for i in 0..100 {
            for c in [
                (-0.1 + f64::from(i) * 1e-3, 0.05),
                (-1.0 + f64::from(i) * 1e-3, 0.02),
            ] {
                let (n, _, _, steps) = escape_steps(c, c, 5_000_000);
                assert_eq!(n, 5_000_000, "{c:?}");
                assert!(steps < 50_000, "{c:?}: {steps} steps");
            }
        }
    }

    #[test]
    fn known_points() {
        assert_eq!(dwell_at(0.0, 0.0, 100), 100);
        assert_eq!(dwell_at(-1.0, 0.0, 100), 100);
        assert_eq!(dwell_at(2.0, 2.0, 100), 0);
        // z0 = c = 1, z1 = 2: |z1|² = 4 is not < 4, so one iteration.
        assert_eq!(dwell_at(1.0, 0.0, 100), 1);
        assert_eq!(dwell_at(0.5, 0.0, 100), 4); // 0.5, 0.75, 1.0625, 1.6289, 3.153
    }

    #[test]
    fn smooth_values_are_near_the_dwell_and_continuous() {
        // Along a ray leaving the set, ν changes by much less than a band between
        // neighbouring points, also where the integer dwell jumps.
        let mut last: Option<f32> = None;
        for i in 0..2000 {
            let cr = 0.26 + f64::from(i) * 1e-5;
            let (n, zr, zi) = escape(cr, 0.0, 10_000);
            assert!(n < 10_000);
            let v = smooth_after_escape(n, zr, zi, cr, 0.0);
            assert!(
                v > n as f32 - 1.5 && v <= n as f32 + 0.5,
                "c={cr}: n={n} ν={v}"
            );
            if let Some(prev) = last {
                assert!(
                    (prev - v).abs() < 0.1 * prev.max(1.0),
                    "jump at c={cr}: {prev} → {v}"
                );
            }
            last = Some(v);
        }
    }
}
