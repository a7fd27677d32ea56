//! `ComplexExp`: a complex number with one shared binary exponent, the number type of the
//! extended-exponent perturbation path (views whose pixels are below f64's range). Every
//! operation here is written exactly like its twin in `kernels/perturbation.cuh` (same
//! operations in the same order, no fused multiply-add), so the CPU and the GPU agree bit
//! for bit.

use super::float_exp::{ldexp_small, pow2, split_exponent};
use num_bigint::BigInt;
use num_traits::ToPrimitive;

/// (re + i·im) · 2^e with 1 ≤ max(|re|, |im|) < 2, or zero (all fields 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ComplexExp {
    pub re: f64,
    pub im: f64,
    pub e: i32,
}

/// x · 2^n, exact when the result is a normal number (n in −2100..=2100).
fn scale2(x: f64, n: i32) -> f64 {
    if n > 1000 {
        x * pow2(1000) * pow2(n - 1000)
    } else if n < -1000 {
        x * pow2(-1000) * pow2(n + 1000)
    } else {
        x * pow2(n)
    }
}

impl ComplexExp {
    pub const ZERO: ComplexExp = ComplexExp {
        re: 0.0,
        im: 0.0,
        e: 0,
    };

    /// (re + i·im) · 2^e, normalised.
    pub fn new(re: f64, im: f64, e: i32) -> Self {
        let m = re.abs().max(im.abs());
        if m == 0.0 {
            return Self::ZERO;
        }
        let (k, _) = split_exponent(m);
        Self {
            re: scale2(re, -k),
            im: scale2(im, -k),
            e: e + k,
        }
    }

    pub fn is_zero(self) -> bool {
        self.re == 0.0 && self.im == 0.0
    }

    /// The fixed-point pair (re, im) · 2^-bits, to 62 bits of the larger part.
    pub fn from_fixed(re: &BigInt, im: &BigInt, bits: usize) -> Self {
        let length = re.magnitude().bits().max(im.magnitude().bits()) as i64;
        let shift = (length - 62).max(0);
        let top = |v: &BigInt| (v >> shift as usize).to_i64().unwrap_or(0) as f64;
        Self::new(top(re), top(im), (shift - bits as i64) as i32)
    }

    fn sum(self, b: Self) -> Self {
        if self.is_zero() {
            return b;
        }
        if b.is_zero() {
            return self;
        }
        if self.e >= b.e {
            let d = b.e - self.e;
            Self::new(
                self.re + ldexp_small(b.re, d),
                self.im + ldexp_small(b.im, d),
                self.e,
            )
        } else {
            let d = self.e - b.e;
            Self::new(
                ldexp_small(self.re, d) + b.re,
                ldexp_small(self.im, d) + b.im,
                b.e,
            )
        }
    }

    fn product(self, b: Self) -> Self {
        Self::new(
            self.re * b.re - self.im * b.im,
            self.re * b.im + self.im * b.re,
            self.e + b.e,
        )
    }

    /// 2 · self (exact).
    pub fn double(self) -> Self {
        if self.is_zero() {
            self
        } else {
            Self {
                e: self.e + 1,
                ..self
            }
        }
    }

    /// |self|² < |b|².
    pub fn norm_less(self, b: Self) -> bool {
        if b.is_zero() {
            return false;
        }
        if self.is_zero() {
            return true;
        }
        let qa = self.re * self.re + self.im * self.im;
        let qb = b.re * b.re + b.im * b.im;
        let d = 2 * (b.e - self.e);
        if d >= 4 {
            true
        } else if d <= -4 {
            false
        } else {
            qa < qb * pow2(d)
        }
    }

    /// |self|² ≥ 4 (the escape test).
    pub fn escaped(self) -> bool {
        if self.is_zero() || self.e <= -2 {
            false
        } else if self.e >= 2 {
            true
        } else {
            let s = pow2(self.e);
            let (r, i) = (self.re * s, self.im * s);
            r * r + i * i >= 4.0
        }
    }

    /// The nearest f64 pair (parts below 2^-1080 become 0).
    pub fn to_f64(self) -> (f64, f64) {
        if self.e > 1023 {
            return (self.re * f64::INFINITY, self.im * f64::INFINITY);
        }
        let e = self.e.max(-1200);
        (ldexp_small(self.re, e), ldexp_small(self.im, e))
    }
}

impl std::ops::Add for ComplexExp {
    type Output = ComplexExp;

    fn add(self, b: Self) -> Self {
        self.sum(b)
    }
}

impl std::ops::Mul for ComplexExp {
    type Output = ComplexExp;

    fn mul(self, b: Self) -> Self {
        self.product(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(re: f64, im: f64) -> ComplexExp {
        ComplexExp::new(re, im, 0)
    }

    #[test]
    fn arithmetic_matches_f64_where_f64_reaches() {
        let (a, b) = (c(0.3, -1.7), c(-2.5, 0.01));
        let (p, s) = ((a * b).to_f64(), (a + b).to_f64());
        assert!((p.0 - (0.3 * -2.5 - -1.7 * 0.01)).abs() < 1e-15);
        assert!((p.1 - (0.3 * 0.01 + -1.7 * -2.5)).abs() < 1e-15);
        assert!((s.0 + 2.2).abs() < 1e-15 && (s.1 + 1.69).abs() < 1e-15);
        assert_eq!(a.double().to_f64(), (0.6, -3.4));
        assert!(c(3.0, 0.0).escaped() && !c(1.9, 0.5).escaped() && c(2.0, 0.0).escaped());
        assert!(c(0.1, 0.1).norm_less(c(0.0, 0.2)) && !c(0.3, 0.0).norm_less(c(0.0, 0.2)));
    }

    #[test]
    fn keeps_precision_far_below_f64() {
        let tiny = ComplexExp::new(1.25, -0.5, -3000);
        let square = tiny * tiny;
        assert_eq!(square.e, -6000);
        assert!((square.re - (1.5625 - 0.25)).abs() < 1e-15);
        assert_eq!(tiny + tiny, ComplexExp::new(2.5, -1.0, -3000));
        // Adding something 2^-2000 smaller leaves the larger unchanged.
        assert_eq!(c(1.0, 0.0) + tiny, c(1.0, 0.0));
        assert!(tiny.norm_less(c(1e-300, 0.0)));
        assert_eq!(tiny.to_f64(), (0.0, 0.0));
        assert_eq!(ComplexExp::new(0.0, 5e-324, 0).e, -1074);
        let fixed = ComplexExp::from_fixed(&BigInt::from(-3), &(BigInt::from(1) << 200), 100);
        assert_eq!(fixed.e, 100);
        assert_eq!(fixed.im, 1.0);
        // 64 significant bits and positive: must not overflow the conversion (the value,
        // 1 − 2⁻⁶⁴ + …, rounds to 1).
        let big = (BigInt::from(u64::MAX) << 10) + 7;
        let x = ComplexExp::from_fixed(&big, &BigInt::ZERO, 74);
        assert_eq!((x.re, x.e), (1.0, 0));
    }
}
