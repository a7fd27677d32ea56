//! The reference for deep views: the contract iterated directly in arbitrary precision,
//! c computed from the decimal centre and span with one rounding. Slow (every step is a
//! big-integer product), so tests use it on sampled pixels.

use super::fixed::{self, rational_to_fixed};
use super::{Decimal, DeepView};
use num_bigint::BigInt;
use rand::{Rng, SeedableRng};

/// The dwell of pixel (x, y), iterated with `guard` bits below the pixel size: from z = c =
/// the pixel's point (Mandelbrot), or from z = the point with Julia's c.
pub fn direct_dwell(view: &DeepView, x: u32, y: u32, guard: usize) -> u32 {
    let bits = bits_for(view, guard);
    let (pr, pi) = pixel_c(view, x, y, bits);
    match view.fractal.julia_c() {
        None => fixed::iterate(&pr, &pi, bits, view.max_dwell, |_, _| {}),
        Some(c) => {
            let cr = fixed::decimal_to_fixed(c.re(), bits);
            let ci = fixed::decimal_to_fixed(c.im(), bits);
            fixed::iterate_from((&pr, &pi), &cr, &ci, bits, view.max_dwell, |_, _| {})
        }
    }
}

/// The point of pixel (x, y) (c of the Mandelbrot set, z₀ of a Julia set) in fixed point, from the exact decimal centre and span with a single
/// rounding: (re + (2x + 1 − W)·S/(2W), im − (2y + 1 − H)·S/(2W)).
pub fn pixel_c(view: &DeepView, x: u32, y: u32, bits: usize) -> (BigInt, BigInt) {
    let loc = &view.location;
    let (s, es) = loc.span.parts();
    let two_w = BigInt::from(2 * u64::from(view.width));
    let offset = |centre: &Decimal, steps: i64, sign: i64| {
        let (a, ea) = centre.parts();
        let e = ea.min(es).min(0);
        let ten = BigInt::from(10u32);
        let a = a * ten.pow((ea - e) as u32);
        let s = &s * ten.pow((es - e) as u32);
        let numerator = a * &two_w + s * BigInt::from(steps * sign);
        rational_to_fixed(numerator, &(&two_w * ten.pow((-e) as u32)), bits)
    };
    let sx = 2 * i64::from(x) + 1 - i64::from(view.width);
    let sy = 2 * i64::from(y) + 1 - i64::from(view.height);
    (offset(&loc.re, sx, 1), offset(&loc.im, sy, -1))
}

/// Fraction bits for a view: the pixel's own bits plus `guard` bits below it.
pub fn bits_for(view: &DeepView, guard: usize) -> usize {
    let pixel = view.location.pixel_size(view.width);
    let below = (-pixel.log2()).ceil().max(0.0) as usize;
    below + guard + 8
}

/// `count` distinct pixels of a view, drawn reproducibly from `seed` (all pixels when the
/// view has no more).
pub fn sample_pixels(width: u32, height: u32, count: usize, seed: u64) -> Vec<(u32, u32)> {
    let total = width as usize * height as usize;
    if count >= total {
        return (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .collect();
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut chosen = std::collections::BTreeSet::new();
    while chosen.len() < count {
        chosen.insert(rng.random_range(0..total));
    }
    chosen
        .into_iter()
        .map(|i| ((i % width as usize) as u32, (i / width as usize) as u32))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::deep::DeepLocation;
    use crate::mandelbrot::{render_per_pixel, View};

    #[test]
    fn equals_f64_where_f64_is_exact_enough() {
        let view = View {
            center: (-0.5, 0.0),
            span: 3.0,
            width: 40,
            height: 30,
            max_dwell: 60,
            fractal: crate::mandelbrot::Fractal::Mandelbrot,
        };
        let plain = render_per_pixel(&view, false);
        let deep = DeepView::from_view(&view).expect("finite");
        let bad = sample_pixels(40, 30, 200, 7)
            .into_iter()
            .filter(|&(x, y)| direct_dwell(&deep, x, y, 64) != plain.values[(y * 40 + x) as usize])
            .count();
        assert!(bad <= 1, "{bad} of 200");
    }

    #[test]
    fn julia_sets_equal_f64_where_f64_is_exact_enough() {
        use crate::mandelbrot::{Fractal, JuliaC};
        let view = View {
            center: (0.1, -0.05),
            span: 3.2,
            width: 40,
            height: 30,
            max_dwell: 80,
            fractal: Fractal::Julia {
                c: JuliaC::parse("-0.75,0.1").expect("c"),
            },
        };
        let plain = render_per_pixel(&view, false);
        let deep = DeepView::from_view(&view).expect("finite");
        let bad = sample_pixels(40, 30, 200, 9)
            .into_iter()
            .filter(|&(x, y)| direct_dwell(&deep, x, y, 64) != plain.values[(y * 40 + x) as usize])
            .count();
        assert!(bad <= 1, "{bad} of 200");
    }

    #[test]
    fn samples_are_distinct_and_inside() {
        let s = sample_pixels(50, 20, 300, 1);
        assert_eq!(s.len(), 300);
        assert!(s.iter().all(|&(x, y)| x < 50 && y < 20));
        assert_eq!(
            s.iter().collect::<std::collections::BTreeSet<_>>().len(),
            300
        );
        assert_eq!(sample_pixels(3, 2, 10, 1).len(), 6);
    }

    #[test]
    fn pixel_centres_follow_the_contract() {
        let view = View {
            center: (-0.5, 0.25),
            span: 2.0,
            width: 4,
            height: 2,
            max_dwell: 10,
            fractal: crate::mandelbrot::Fractal::Mandelbrot,
        };
        let deep = DeepView::from_view(&view).expect("finite view");
        for (x, y) in [(0, 0), (3, 1), (2, 0)] {
            let (cr, ci) = pixel_c(&deep, x, y, 60);
            let (er, ei) = view.point(x, y);
            assert_eq!(cr, BigInt::from((er * 2f64.powi(60)) as i64));
            assert_eq!(ci, BigInt::from((ei * 2f64.powi(60)) as i64));
        }
    }

    #[test]
    fn fraction_bits_cover_the_pixel_and_the_guard() {
        let loc = DeepLocation::parse("0,0", "1e-30").expect("location");
        let view = DeepView {
            location: loc,
            width: 1000,
            height: 1,
            max_dwell: 1,
            fractal: crate::mandelbrot::Fractal::Mandelbrot,
        };
        // A pixel of 1e-33 is 2^-109.6.
        assert_eq!(bits_for(&view, 64), 110 + 64 + 8);
    }
}
