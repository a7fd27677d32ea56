//! `Decimal`: an exact decimal number held inline, so that the views holding it stay `Copy`.
//! Deep centres and spans are kept in this form: parsed from text, printed back as text, and
//! turned into binary only when something is computed from them.

use super::DeepError;
use num_bigint::{BigInt, BigUint, Sign};
use std::fmt;
use std::str::FromStr;

/// Significant digits a [`Decimal`] holds at most: a centre of magnitude 1 to 10⁻¹⁰⁹⁰.
pub const DECIMAL_DIGITS: usize = 1100;

/// Largest decimal exponent accepted in text (far beyond anything a view can use).
const EXPONENT_LIMIT: i64 = 100_000;

/// ±digits × 10^exp10, with no trailing zero digits (zero has no digits).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Decimal {
    negative: bool,
    len: u16,
    exp10: i32,
    /// ASCII digits, most significant first; bytes past `len` are b'0'.
    digits: [u8; DECIMAL_DIGITS],
}

impl Decimal {
    pub const ZERO: Decimal = Decimal {
        negative: false,
        len: 0,
        exp10: 0,
        digits: [b'0'; DECIMAL_DIGITS],
    };

    /// ±integer × 10^exp10, normalised; fails if the integer has too many digits.
    pub fn from_parts(integer: &BigInt, exp10: i64) -> Result<Self, DeepError> {
        let text = integer.magnitude().to_str_radix(10);
        let trimmed = text.trim_end_matches('0');
        if trimmed.is_empty() {
            return Ok(Self::ZERO);
        }
        let exp10 = exp10 + (text.len() - trimmed.len()) as i64;
        if trimmed.len() > DECIMAL_DIGITS {
            return Err(DeepError::TooManyDigits {
                digits: trimmed.len(),
                max: DECIMAL_DIGITS,
            });
        }
        if exp10.abs() > EXPONENT_LIMIT * 2 {
            return Err(DeepError::Exponent(exp10));
        }
        let mut digits = [b'0'; DECIMAL_DIGITS];
        digits[..trimmed.len()].copy_from_slice(trimmed.as_bytes());
        Ok(Self {
            negative: integer.sign() == Sign::Minus,
            len: trimmed.len() as u16,
            exp10: exp10 as i32,
            digits,
        })
    }

    /// The exact value as (integer, exp10): value = integer × 10^exp10.
    pub fn parts(&self) -> (BigInt, i64) {
        if self.len == 0 {
            return (BigInt::ZERO, 0);
        }
        let magnitude = BigUint::parse_bytes(self.significand(), 10).unwrap_or_default();
        let sign = if self.negative {
            Sign::Minus
        } else {
            Sign::Plus
        };
        (BigInt::from_biguint(sign, magnitude), i64::from(self.exp10))
    }

    fn significand(&self) -> &[u8] {
        &self.digits[..usize::from(self.len)]
    }

    pub fn is_zero(&self) -> bool {
        self.len == 0
    }

    pub fn is_negative(&self) -> bool {
        self.negative && self.len > 0
    }

    /// The exponent of the leading digit: 10^e ≤ |value| < 10^(e+1) (0 for zero).
    pub fn leading_exponent(&self) -> i64 {
        if self.len == 0 {
            0
        } else {
            i64::from(self.exp10) + i64::from(self.len) - 1
        }
    }

    /// The exponent of the last digit: the value is a multiple of 10^e (0 for zero).
    pub fn smallest_exponent(&self) -> i64 {
        i64::from(self.exp10)
    }

    /// The exact decimal value of a finite f64.
    pub fn from_f64(x: f64) -> Result<Self, DeepError> {
        if !x.is_finite() {
            return Err(DeepError::Invalid(format!("{x}")));
        }
        if x == 0.0 {
            return Ok(Self::ZERO);
        }
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i64;
        let fraction = bits & ((1u64 << 52) - 1);
        let (mantissa, exp2) = if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | (1u64 << 52), biased - 1075)
        };
        let mut integer = BigInt::from(mantissa);
        if x < 0.0 {
            integer = -integer;
        }
        if exp2 >= 0 {
            Self::from_parts(&(integer << exp2 as usize), 0)
        } else {
            // m·2^-k = m·5^k·10^-k
            let k = (-exp2) as u32;
            Self::from_parts(&(integer * BigInt::from(5u32).pow(k)), -i64::from(k))
        }
    }

    /// The nearest f64 (Rust's correctly rounded parser on the exact text).
    pub fn to_f64(&self) -> f64 {
        let text = self.scientific();
        f64::from_str(&text).unwrap_or(0.0)
    }

    /// The value rounded to a multiple of 10^quantum (halves away from zero).
    pub fn round_to(&self, quantum: i64) -> Self {
        let (integer, exp10) = self.parts();
        if exp10 >= quantum {
            return *self;
        }
        let shift = (quantum - exp10) as u32;
        let scale = BigInt::from(10u32).pow(shift);
        let half = &scale / 2u32;
        let magnitude = (integer.magnitude() + half.magnitude()) / scale.magnitude();
        let rounded = BigInt::from_biguint(integer.sign(), magnitude);
        Self::from_parts(&rounded, quantum).unwrap_or(*self)
    }

    /// The exact sum.
    pub fn add(&self, other: &Decimal) -> Result<Self, DeepError> {
        let ((a, ea), (b, eb)) = (self.parts(), other.parts());
        let e = ea.min(eb);
        let ten = BigInt::from(10u32);
        let sum = a * ten.pow((ea - e) as u32) + b * ten.pow((eb - e) as u32);
        Self::from_parts(&sum, e)
    }

    /// −value.
    pub fn neg(&self) -> Self {
        Self {
            negative: !self.negative && self.len > 0,
            ..*self
        }
    }

    /// d.ddd…e±x form.
    pub fn scientific(&self) -> String {
        if self.len == 0 {
            return "0".to_string();
        }
        let d = std::str::from_utf8(self.significand()).unwrap_or("0");
        let sign = if self.negative { "-" } else { "" };
        let (first, rest) = d.split_at(1);
        let point = if rest.is_empty() { "" } else { "." };
        format!("{sign}{first}{point}{rest}e{}", self.leading_exponent())
    }

    /// Positional form (every digit written out).
    fn positional(&self) -> String {
        let d = std::str::from_utf8(self.significand()).unwrap_or("0");
        let sign = if self.negative { "-" } else { "" };
        let e = i64::from(self.exp10);
        if e >= 0 {
            return format!("{sign}{d}{}", "0".repeat(e as usize));
        }
        let point = d.len() as i64 + e;
        if point > 0 {
            let (int, frac) = d.split_at(point as usize);
            format!("{sign}{int}.{frac}")
        } else {
            format!("{sign}0.{}{d}", "0".repeat((-point) as usize))
        }
    }
}

impl fmt::Display for Decimal {
    /// Positional for magnitudes in [1e-6, 1e21), scientific otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.len == 0 {
            return f.write_str("0");
        }
        let lead = self.leading_exponent();
        if (-6..21).contains(&lead) {
            f.write_str(&self.positional())
        } else {
            f.write_str(&self.scientific())
        }
    }
}

impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Decimal({self})")
    }
}

impl FromStr for Decimal {
    type Err = DeepError;

    /// `[+-]digits[.digits][e[+-]digits]` (a leading or trailing point is allowed).
    fn from_str(text: &str) -> Result<Self, DeepError> {
        let invalid = || DeepError::Invalid(text.to_string());
        let s = text.trim();
        let (negative, s) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let (mantissa, exponent) = match s.find(['e', 'E']) {
            Some(i) => (&s[..i], Some(&s[i + 1..])),
            None => (s, None),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
        if int.len() + frac.len() == 0 || !all_digits(int) || !all_digits(frac) {
            return Err(invalid());
        }
        let exp: i64 = match exponent {
            Some(e) => {
                let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
                if digits.is_empty() || digits.len() > 7 || !all_digits(digits) {
                    return Err(invalid());
                }
                e.parse().map_err(|_| invalid())?
            }
            None => 0,
        };
        if exp.abs() > EXPONENT_LIMIT {
            return Err(DeepError::Exponent(exp));
        }
        let joined = format!("{int}{frac}");
        let magnitude = BigUint::parse_bytes(joined.as_bytes(), 10).ok_or_else(invalid)?;
        let sign = if negative { Sign::Minus } else { Sign::Plus };
        let value = Self::from_parts(
            &BigInt::from_biguint(sign, magnitude),
            exp - frac.len() as i64,
        )?;
        // The limit holds for the value too, not only the written exponent, so that every
        // accepted value prints (scientific) to text that parses back.
        let lead = value.leading_exponent();
        if !value.is_zero() && lead.abs() > EXPONENT_LIMIT {
            return Err(DeepError::Exponent(lead));
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_accepted_text_prints_to_text_that_parses_back() {
        for text in [
            "123456789e100000",
            "0.001e-99998",
            "-7",
            "1e-100000",
            "9.99e99999",
        ] {
            if let Ok(d) = text.parse::<Decimal>() {
                let again: Decimal = d.scientific().parse().expect(text);
                assert_eq!(again, d, "{text}");
            }
        }
        assert!("123456789e100000".parse::<Decimal>().is_err());
        assert!("1e-100000".parse::<Decimal>().is_ok());
    }

    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().expect(s)
    }

    #[test]
    fn parses_and_prints_back() {
        assert_eq!(d("-0.75").to_string(), "-0.75");
        assert_eq!(d("1e-250").to_string(), "1e-250");
        assert_eq!(d("2.50e3").to_string(), "2500");
        assert_eq!(d("+.5").to_string(), "0.5");
        assert_eq!(d("7.").to_string(), "7");
        assert_eq!(d("0.000").to_string(), "0");
        assert_eq!(d("-0").to_string(), "0");
        assert_eq!(d("1.25e-300").scientific(), "1.25e-300");
        assert_eq!(d("123.456e-2"), d("1.23456"));
        let long = format!("-1.{}", "3".repeat(900));
        assert_eq!(d(&long).to_string(), long);
    }

    #[test]
    fn refuses_what_is_not_a_decimal() {
        for bad in [
            "",
            "-",
            ".",
            "1e",
            "e5",
            "1.2.3",
            "0x10",
            "1e+",
            "nan",
            "inf",
            "1 2",
            "1e9999999",
        ] {
            assert!(bad.parse::<Decimal>().is_err(), "{bad:?}");
        }
        let too_long = format!("0.{}", "1".repeat(DECIMAL_DIGITS + 1));
        assert!(matches!(
            too_long.parse::<Decimal>(),
            Err(DeepError::TooManyDigits { .. })
        ));
    }

    #[test]
    fn f64_round_trips_exactly() {
        for x in [
            0.0,
            -0.5,
            0.1,
            -1.768_778_833,
            1e-300,
            5e-324,
            f64::MAX,
            2.0f64.powi(-1074),
        ] {
            assert_eq!(Decimal::from_f64(x).expect("finite").to_f64(), x, "{x}");
        }
        assert_eq!(
            Decimal::from_f64(0.1).expect("finite").to_string().len(),
            57
        );
        assert_eq!(d("1e-400").to_f64(), 0.0);
    }

    #[test]
    fn adds_and_rounds_exactly() {
        assert_eq!(d("0.1").add(&d("0.2")).expect("sum"), d("0.3"));
        assert_eq!(
            d("1e-300").add(&d("-1")).expect("sum").leading_exponent(),
            -1
        );
        assert_eq!(d("1.2345").round_to(-2), d("1.23"));
        assert_eq!(d("-1.235").round_to(-2), d("-1.24"));
        assert_eq!(d("1.2").round_to(-5), d("1.2"));
        assert_eq!(d("0.004").round_to(-2), Decimal::ZERO);
        assert_eq!(d("-3").neg(), d("3"));
        assert_eq!(d("12.5e-10").leading_exponent(), -9);
    }
}
