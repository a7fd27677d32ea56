//! `FloatExp`: a real number as an f64 mantissa and a separate binary exponent, for sizes
//! far below f64's range (pixel sizes of 1e-1000). The kernel's extended path uses its
//! complex sibling [`super::ComplexExp`].

use super::Decimal;
use num_bigint::BigInt;
use num_traits::ToPrimitive;

/// m · 2^e with 1 ≤ |m| < 2, or zero (m = 0, e = 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloatExp {
    pub m: f64,
    pub e: i32,
}

/// 2^k as an f64 for −1022 ≤ k ≤ 1023 (exact).
pub fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// x · 2^k for |x| < 4 and k ≤ 1023, rounded like the kernel's `pt_ldexp` (0 below 2^-1080).
pub fn ldexp_small(x: f64, k: i32) -> f64 {
    if k < -1080 {
        0.0
    } else if k >= -1022 {
        x * pow2(k)
    } else {
        x * pow2(-540) * pow2(k + 540)
    }
}

/// (k, x · 2^-k) with 1 ≤ |x · 2^-k| < 2, for finite nonzero x.
pub fn split_exponent(x: f64) -> (i32, f64) {
    let biased = ((x.to_bits() >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: scale up first (exact).
        let (k, m) = split_exponent(x * pow2(64));
        return (k - 64, m);
    }
    let k = biased - 1023;
    (k, x * pow2(-k))
}

impl FloatExp {
    pub const ZERO: FloatExp = FloatExp { m: 0.0, e: 0 };

    /// m · 2^e, normalised.
    pub fn new(m: f64, e: i32) -> Self {
        if m == 0.0 || !m.is_finite() {
            return Self::ZERO;
        }
        let (k, m) = split_exponent(m);
        Self { m, e: e + k }
    }

    /// The nearest f64 (0 or subnormal when too small, infinite when too large).
    pub fn to_f64(self) -> f64 {
        if self.m == 0.0 {
            0.0
        } else if self.e > 1023 {
            self.m * f64::INFINITY
        } else {
            ldexp_small(self.m, self.e.clamp(-1200, 1023))
        }
    }

    pub fn mul_f64(self, x: f64) -> Self {
        Self::new(self.m * x, self.e)
    }

    pub fn div_f64(self, x: f64) -> Self {
        Self::new(self.m / x, self.e)
    }

    /// log2 |value| (−∞ for zero).
    pub fn log2(self) -> f64 {
        if self.m == 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::from(self.e) + self.m.abs().log2()
        }
    }

    /// integer · 2^-bits, to 64 bits of the integer.
    pub fn from_scaled_integer(integer: &BigInt, bits: i64) -> Self {
        let magnitude = integer.magnitude();
        let length = magnitude.bits() as i64;
        let shift = (length - 64).max(0);
        let top = (magnitude >> shift as usize).to_u64().unwrap_or(0) as f64;
        let signed = if integer.sign() == num_bigint::Sign::Minus {
            -top
        } else {
            top
        };
        Self::new(signed, (shift - bits) as i32)
    }

    /// The value of a decimal to 64 bits.
    pub fn from_decimal(d: &Decimal) -> Self {
        let (integer, exp10) = d.parts();
        if exp10 >= 0 {
            return Self::from_scaled_integer(
                &(integer * BigInt::from(10u32).pow(exp10 as u32)),
                0,
            );
        }
        // integer / 10^k = (integer · 2^s / 10^k) · 2^-s, with s large enough for 64 bits.
        let k = (-exp10) as u32;
        let s = 70 + (f64::from(k) * std::f64::consts::LOG2_10).ceil() as i64
            - integer.magnitude().bits() as i64;
        let s = s.max(0);
        let q = (integer << s as usize) / BigInt::from(10u32).pow(k);
        Self::from_scaled_integer(&q, s)
    }

    /// The decimal nearest to this value among multiples of 10^quantum.
    pub fn to_decimal(self, quantum: i64) -> Decimal {
        if self.m == 0.0 {
            return Decimal::ZERO;
        }
        // m·2^e = (m·2^52)·2^(e−52); divided by 10^quantum and rounded.
        let integer = BigInt::from((self.m * pow2(52)) as i64);
        let e2 = i64::from(self.e) - 52;
        let ten = BigInt::from(10u32);
        let (numerator, denominator) = match (e2 >= 0, quantum >= 0) {
            (true, true) => (integer << e2 as usize, ten.pow(quantum as u32)),
            (true, false) => (
                (integer << e2 as usize) * ten.pow((-quantum) as u32),
                BigInt::from(1u32),
            ),
            (false, true) => (integer, ten.pow(quantum as u32) << (-e2) as usize),
            (false, false) => (
                integer * ten.pow((-quantum) as u32),
                BigInt::from(1u32) << (-e2) as usize,
            ),
        };
        let half = &denominator / 2u32;
        let magnitude = (numerator.magnitude() + half.magnitude()) / denominator.magnitude();
        let rounded = BigInt::from_biguint(numerator.sign(), magnitude);
        Decimal::from_parts(&rounded, quantum).unwrap_or(Decimal::ZERO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_and_converts() {
        let x = FloatExp::new(3.0, 10);
        assert_eq!((x.m, x.e), (1.5, 11));
        assert_eq!(x.to_f64(), 3072.0);
        assert_eq!(FloatExp::new(-0.75, 0).to_f64(), -0.75);
        assert_eq!(FloatExp::new(1.0, -2000).to_f64(), 0.0);
        assert_eq!(FloatExp::new(5e-324, 0).e, -1074);
        assert_eq!(ldexp_small(1.5, -1060), 1.5 * 2f64.powi(-1060));
        assert_eq!(FloatExp::new(1.0, -1100).log2(), -1100.0);
    }

    #[test]
    fn decimals_convert_both_ways() {
        let d: Decimal = "1e-250".parse().expect("decimal");
        let x = FloatExp::from_decimal(&d);
        assert!((x.to_f64() / 1e-250 - 1.0).abs() < 1e-15);
        let deep: Decimal = "3e-1000".parse().expect("decimal");
        let y = FloatExp::from_decimal(&deep);
        assert!((y.log2() - (3f64.log2() - 1000.0 * std::f64::consts::LOG2_10)).abs() < 1e-9);
        assert_eq!(y.to_decimal(-1005).round_to(-1000), deep);
        assert_eq!(
            FloatExp::new(-0.375, 0).to_decimal(-3).to_string(),
            "-0.375"
        );
        assert_eq!(FloatExp::new(1234.0, 0).to_decimal(2).to_string(), "1200");
        let big: Decimal = "12345678901234567890123".parse().expect("decimal");
        assert!(
            (FloatExp::from_decimal(&big).to_f64() / 1.2345678901234568e22 - 1.0).abs() < 1e-15
        );
    }
}
