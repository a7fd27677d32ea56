//! Fixed-point arbitrary precision on `num-bigint`: a value is an integer × 2^-bits. The
//! Mandelbrot iteration stays bounded (|z| < 2 until it escapes), so one absolute precision
//! serves every value, and the escape test |z|² ≥ 4 is exact on the integers. Used for the
//! reference orbit and for the direct-iteration reference of deep views (`direct.rs`, which
//! also places a view's pixels in fixed point).

use super::Decimal;
use num_bigint::BigInt;

/// round(numerator · 2^bits / denominator), halves away from zero; denominator > 0.
pub(super) fn rational_to_fixed(numerator: BigInt, denominator: &BigInt, bits: usize) -> BigInt {
    let scaled = numerator << bits;
    let half = denominator / 2u32;
    let magnitude = (scaled.magnitude() + half.magnitude()) / denominator.magnitude();
    BigInt::from_biguint(scaled.sign(), magnitude)
}

/// A decimal as fixed point, correctly rounded.
pub fn decimal_to_fixed(d: &Decimal, bits: usize) -> BigInt {
    let (integer, exp10) = d.parts();
    let ten = BigInt::from(10u32);
    if exp10 >= 0 {
        (integer * ten.pow(exp10 as u32)) << bits
    } else {
        rational_to_fixed(integer, &ten.pow((-exp10) as u32), bits)
    }
}

/// The pixel size span / width in fixed point, correctly rounded.
pub fn pixel_step(span: &Decimal, width: u32, bits: usize) -> BigInt {
    let (s, e) = span.parts();
    let ten = BigInt::from(10u32);
    let width = BigInt::from(width.max(1));
    if e >= 0 {
        rational_to_fixed(s * ten.pow(e as u32), &width, bits)
    } else {
        rational_to_fixed(s, &(width * ten.pow((-e) as u32)), bits)
    }
}

/// Iterates z ← z² + c from z = c while |z|² < 4, at most `limit` times, showing every z
/// (before its test) to `visit`. Returns the number of iterations (the dwell).
pub fn iterate(
    cr: &BigInt,
    ci: &BigInt,
    bits: usize,
    limit: u32,
    visit: impl FnMut(&BigInt, &BigInt),
) -> u32 {
    iterate_from((cr, ci), cr, ci, bits, limit, visit)
}

/// The same from z = z₀ (a Julia set's pixel; the Mandelbrot set's is c).
pub fn iterate_from(
    (zr0, zi0): (&BigInt, &BigInt),
    cr: &BigInt,
    ci: &BigInt,
    bits: usize,
    limit: u32,
    mut visit: impl FnMut(&BigInt, &BigInt),
) -> u32 {
    let four = BigInt::from(4u32) << (2 * bits);
    let (mut zr, mut zi) = (zr0.clone(), zi0.clone());
    let mut n = 0;
    loop {
        visit(&zr, &zi);
        let (rr, ii) = (&zr * &zr, &zi * &zi);
        if n >= limit || &rr + &ii >= four {
            return n;
        }
        let product = &zr * &zi;
        zi = (product >> (bits - 1)) + ci;
        zr = ((rr - ii) >> bits) + cr;
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::dwell_at;

    #[test]
    fn decimals_become_fixed_point_exactly() {
        let d: Decimal = "-0.375".parse().expect("decimal");
        assert_eq!(decimal_to_fixed(&d, 8), BigInt::from(-96));
        let third: Decimal = "0.333".parse().expect("decimal");
        assert_eq!(decimal_to_fixed(&third, 10), BigInt::from(341)); // 340.99
        assert_eq!(
            decimal_to_fixed(&"3".parse().expect("3"), 2),
            BigInt::from(12)
        );
    }

    #[test]
    fn iteration_matches_f64_on_easy_points() {
        for (re, im) in [
            (0.5, 0.0),
            (-1.0, 0.0),
            (0.3, 0.5),
            (-0.75, 0.1),
            (2.0, 2.0),
        ] {
            let bits = 120;
            let to = |v: f64| BigInt::from((v * 2f64.powi(60)) as i64) << 60;
            let n = iterate(&to(re), &to(im), bits, 200, |_, _| {});
            assert_eq!(n, dwell_at(re, im, 200), "{re},{im}");
        }
    }
}
