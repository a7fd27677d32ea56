//! `Dd`: a double-double, hi + lo with |lo| ≤ ½ ulp(hi) — about 106 bits of mantissa, the
//! number type of the perturbation path (pixels down to 2⁻⁹⁶⁰). Plain f64 is not enough
//! there: near a minibrot the dwell can change when c moves by 10⁻¹⁴ of a pixel (the
//! period-8007 bookmark), while an f64 δ, δc and Z_k carry errors of 2⁻⁵³ of |δ|, i.e. of
//! hundreds of pixels' 2⁻⁵³ ≈ 10⁻¹⁴ pixel. Every operation here is written exactly like its
//! twin in `kernels/perturbation.cuh` (same operations, same order; `mul_add` is the
//! correctly rounded `__fma_rn`), so the CPU and the GPU agree bit for bit.

use super::float_exp::pow2;
use num_bigint::BigInt;
use num_traits::ToPrimitive;

/// hi + lo, hi the nearest f64 to the sum (after [`Dd::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Dd {
    pub hi: f64,
    pub lo: f64,
}

/// a + b as (rounded sum, exact error) (Knuth's TwoSum, any magnitudes).
fn two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    let bb = s - a;
    Dd {
        hi: s,
        lo: (a - (s - bb)) + (b - bb),
    }
}

/// a + b as (rounded sum, exact error) when |a| ≥ |b| or a = 0 (Dekker's FastTwoSum).
fn fast_two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    Dd {
        hi: s,
        lo: b - (s - a),
    }
}

/// x · 2^k, exact while the result is normal (k may reach below −1022).
fn ldexp(x: f64, k: i64) -> f64 {
    let mut x = x;
    let mut k = k;
    while k < -1000 {
        x *= pow2(-1000);
        k += 1000;
    }
    while k > 1000 {
        x *= pow2(1000);
        k -= 1000;
    }
    x * pow2(k as i32)
}

impl Dd {
    pub const ZERO: Dd = Dd { hi: 0.0, lo: 0.0 };

    /// hi + lo, normalised (|hi| ≥ |lo| needed).
    pub fn new(hi: f64, lo: f64) -> Self {
        fast_two_sum(hi, lo)
    }

    /// The fixed-point value v · 2^-bits, to 110 bits (the lower ones truncated).
    pub fn from_fixed(v: &BigInt, bits: usize) -> Self {
        let shift = (v.magnitude().bits() as i64 - 110).max(0);
        let top = (v >> shift as usize).to_i128().unwrap_or(0);
        let hi = top as f64;
        // |top − hi| < 2^57: exact in an i128 and in an f64.
        let lo = (top - hi as i128) as f64;
        let e = shift - bits as i64;
        Self::new(ldexp(hi, e), ldexp(lo, e))
    }

    /// 2 · self (exact).
    pub fn double(self) -> Self {
        Dd {
            hi: 2.0 * self.hi,
            lo: 2.0 * self.lo,
        }
    }

    /// The sum left unnormalised (|lo| may reach ~1 ulp(hi)): for an operand of a
    /// further operation, whose own two-sum absorbs it (saves 3 flops).
    pub fn add_raw(self, b: Self) -> Self {
        let s = two_sum(self.hi, b.hi);
        Dd {
            hi: s.hi,
            lo: s.lo + (self.lo + b.lo),
        }
    }

    /// The product left unnormalised (see [`Dd::add_raw`]).
    pub fn mul_raw(self, b: Self) -> Self {
        let p = self.hi * b.hi;
        let e = self.hi.mul_add(b.hi, -p);
        let e = self.hi.mul_add(b.lo, e);
        Dd {
            hi: p,
            lo: self.lo.mul_add(b.hi, e),
        }
    }

    /// self · t for an f64 t (the pixel offset from the step).
    pub fn mul_f64(self, t: f64) -> Self {
        let p = self.hi * t;
        let e = self.hi.mul_add(t, -p);
        let e = self.lo.mul_add(t, e);
        fast_two_sum(p, e)
    }
}

impl std::ops::Neg for Dd {
    type Output = Dd;

    /// −self (exact).
    fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

impl std::ops::Add for Dd {
    type Output = Dd;

    /// The error of the high parts plus both low parts, normalised once (the "sloppy" sum:
    /// error ~2⁻¹⁰⁴·(|self| + |b|), far below what the dwells need).
    fn add(self, b: Dd) -> Dd {
        let s = self.add_raw(b);
        fast_two_sum(s.hi, s.lo)
    }
}

impl std::ops::Mul for Dd {
    type Output = Dd;

    /// The exact product of the high parts (FMA) plus the cross terms, normalised.
    fn mul(self, b: Dd) -> Dd {
        let p = self.mul_raw(b);
        fast_two_sum(p.hi, p.lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(v: &BigInt, bits: usize) -> f64 {
        v.to_f64().unwrap_or(f64::NAN) / 2f64.powi(bits as i32)
    }

    #[test]
    fn keeps_the_bits_f64_loses() {
        let third = Dd::from_fixed(&((BigInt::from(1u32) << 200usize) / 3), 200);
        assert_eq!(third.hi, 1.0 / 3.0);
        // 1/3 − hi is 1/3 · 2^-54 to 2^-106 or so.
        assert!(
            (third.lo * 3.0 * 2f64.powi(54) - 1.0).abs() < 1e-15,
            "{third:?}"
        );
        let one = third.mul_f64(3.0);
        assert_eq!(one.hi, 1.0);
        assert!(one.lo.abs() < 2f64.powi(-100), "{one:?}");
        let sum = third + third + third;
        assert_eq!(sum.hi, 1.0);
        assert!(sum.lo.abs() < 2f64.powi(-100));
        let nine = (third * third).mul_f64(9.0);
        assert_eq!(nine.hi, 1.0);
        assert!(nine.lo.abs() < 2f64.powi(-100));
        assert_eq!(third + -third, Dd::ZERO);
        assert_eq!(third.double(), third + third);
        let raw = third.add_raw(third).mul_raw(third);
        let two_ninths = Dd::new(raw.hi, raw.lo).mul_f64(4.5);
        assert_eq!(two_ninths.hi, 1.0);
        assert!(two_ninths.lo.abs() < 2f64.powi(-100));
    }

    #[test]
    fn converts_tiny_and_negative_fixed_point() {
        // −(5·2^120 + 1)·2^-1000: 123 bits, the lowest 13 dropped (towards −∞ like the shift).
        let v = -((BigInt::from(5u32) << 120usize) + 1u32);
        let d = Dd::from_fixed(&v, 1000);
        assert_eq!(d.hi, -5.0 * pow2(-880));
        assert_eq!(d.lo, -pow2(-987));
        assert_eq!(
            Dd::from_fixed(&BigInt::from(3u32), 1).hi,
            fixed(&BigInt::from(3u32), 1)
        );
        assert_eq!(Dd::from_fixed(&BigInt::ZERO, 50), Dd::ZERO);
    }
}
