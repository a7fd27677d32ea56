//! The sample types and their rounding, saturation and full scale.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The type of one channel value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SampleType {
    U8,
    U16,
    F32,
}

impl SampleType {
    pub const ALL: [SampleType; 3] = [SampleType::U8, SampleType::U16, SampleType::F32];

    /// Bytes per sample.
    pub fn bytes(self) -> usize {
        match self {
            SampleType::U8 => 1,
            SampleType::U16 => 2,
            SampleType::F32 => 4,
        }
    }

    /// The name on the command line (`--depth 8|16|32f`).
    pub fn depth_name(self) -> &'static str {
        match self {
            SampleType::U8 => "8",
            SampleType::U16 => "16",
            SampleType::F32 => "32f",
        }
    }

    /// Parses a `--depth` value: `8`, `16` or `32f` (`32` and `f32` too).
    pub fn from_depth_name(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "8" | "u8" => Some(SampleType::U8),
            "16" | "u16" => Some(SampleType::U16),
            "32f" | "32" | "f32" | "float" => Some(SampleType::F32),
            _ => None,
        }
    }

    /// Full scale as f32: 255, 65535 or 1.
    pub fn full_scale(self) -> f32 {
        match self {
            SampleType::U8 => 255.0,
            SampleType::U16 => 65535.0,
            SampleType::F32 => 1.0,
        }
    }
}

impl fmt::Display for SampleType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SampleType::U8 => "8-bit",
            SampleType::U16 => "16-bit",
            SampleType::F32 => "32-bit float",
        })
    }
}

/// One channel value: `u8`, `u16` or `f32`.
pub trait Sample:
    Copy + Default + PartialEq + PartialOrd + Send + Sync + fmt::Debug + 'static
{
    const TYPE: SampleType;
    /// White: 255, 65535 or 1.0.
    const FULL: Self;
    /// The raw value as f32 (exact for u8 and u16).
    fn to_f32(self) -> f32;
    /// A computed value stored in this type: integers round half away from zero and
    /// saturate (NaN becomes 0); f32 keeps it.
    fn from_f32(v: f32) -> Self;
    /// The raw value as f64 (exact for every type).
    fn to_f64(self) -> f64;
    /// As [`Sample::from_f32`], from f64.
    fn from_f64(v: f64) -> Self;

    /// The value as a fraction of white.
    fn to_unit(self) -> f32 {
        self.to_f32() / Self::TYPE.full_scale()
    }
    /// A fraction of white stored in this type (integers clamp to 0..1 first).
    fn from_unit(u: f32) -> Self {
        Self::from_f32(u * Self::TYPE.full_scale())
    }
}

/// Round half away from zero and saturate to `0..=max`; NaN gives 0.
fn round_saturate(v: f64, max: f64) -> f64 {
    if v.is_nan() {
        0.0
    } else {
        v.round().clamp(0.0, max)
    }
}

impl Sample for u8 {
    const TYPE: SampleType = SampleType::U8;
    const FULL: Self = u8::MAX;
    fn to_f32(self) -> f32 {
        f32::from(self)
    }
    fn from_f32(v: f32) -> Self {
        round_saturate(f64::from(v), 255.0) as u8
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        round_saturate(v, 255.0) as u8
    }
}

impl Sample for u16 {
    const TYPE: SampleType = SampleType::U16;
    const FULL: Self = u16::MAX;
    fn to_f32(self) -> f32 {
        f32::from(self)
    }
    fn from_f32(v: f32) -> Self {
        round_saturate(f64::from(v), 65535.0) as u16
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        round_saturate(v, 65535.0) as u16
    }
}

impl Sample for f32 {
    const TYPE: SampleType = SampleType::F32;
    const FULL: Self = 1.0;
    fn to_f32(self) -> f32 {
        self
    }
    fn from_f32(v: f32) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

/// The order key of an f32: its IEEE bits with the sign bit flipped for positives and every
/// bit flipped for negatives, so that integer order is `f32::total_cmp` (NaN above every
/// number). Integer samples are exact in f32, so their keys order them too.
#[inline(always)]
pub fn f32_key(v: f32) -> u32 {
    let b = v.to_bits();
    b ^ (((b as i32 >> 31) as u32) | 0x8000_0000)
}

/// The f32 of an order key ([`f32_key`] undone, bit for bit).
#[inline(always)]
pub fn f32_of_key(k: u32) -> f32 {
    f32::from_bits(k ^ (!((k as i32 >> 31) as u32) | 0x8000_0000))
}

/// Converts one sample between types by the module's depth rules.
pub fn convert_sample<S: Sample, D: Sample>(v: S) -> D {
    match (S::TYPE, D::TYPE) {
        (a, b) if a == b => D::from_f64(v.to_f64()),
        // 8 → 16 is exact: v · 257.
        (SampleType::U8, SampleType::U16) => D::from_f64(v.to_f64() * 257.0),
        (SampleType::U16, SampleType::U8) => D::from_f64(v.to_f64() / 257.0),
        (_, SampleType::F32) => D::from_f64(v.to_f64() / f64::from(S::TYPE.full_scale())),
        // F32 → integer: clamp to 0..1, scale, round.
        (SampleType::F32, _) => {
            let unit = if v.to_f64().is_nan() {
                0.0
            } else {
                v.to_f64().clamp(0.0, 1.0)
            };
            D::from_f64(unit * f64::from(D::TYPE.full_scale()))
        }
        _ => D::from_f64(v.to_f64()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_round_half_away_and_saturate() {
        assert_eq!(u8::from_f32(127.5), 128);
        assert_eq!(u8::from_f32(127.49), 127);
        assert_eq!(u8::from_f32(-3.0), 0);
        assert_eq!(u8::from_f32(300.0), 255);
        assert_eq!(u8::from_f32(f32::NAN), 0);
        assert_eq!(u16::from_f32(65535.4), 65535);
        assert_eq!(u16::from_f32(1e9), 65535);
        assert_eq!(u16::from_f32(0.5), 1);
        assert!(f32::from_f32(-2.5) == -2.5);
    }

    #[test]
    fn depth_conversions_follow_the_rules() {
        for v in 0..=255u8 {
            let wide: u16 = convert_sample(v);
            assert_eq!(wide, u16::from(v) * 257);
            assert_eq!(convert_sample::<u16, u8>(wide), v);
        }
        // U16 → U8 is round(v / 257) for every value, as integer arithmetic computes it.
        for v in 0..=65535u16 {
            let narrow: u8 = convert_sample(v);
            assert_eq!(u32::from(narrow), (u32::from(v) + 128) / 257, "{v}");
        }
        assert_eq!(convert_sample::<f32, u8>(0.5), 128);
        assert_eq!(convert_sample::<f32, u8>(1.7), 255);
        assert_eq!(convert_sample::<f32, u16>(-0.2), 0);
        assert_eq!(convert_sample::<f32, u16>(f32::NAN), 0);
        assert_eq!(convert_sample::<u16, f32>(65535), 1.0);
        assert_eq!(convert_sample::<u8, f32>(51), 0.2);
        assert_eq!(convert_sample::<f32, f32>(7.25), 7.25);
    }

    #[test]
    fn depth_names_parse() {
        for t in SampleType::ALL {
            assert_eq!(SampleType::from_depth_name(t.depth_name()), Some(t));
        }
        assert_eq!(SampleType::from_depth_name("12"), None);
    }

    #[test]
    fn keys_keep_the_total_order_both_ways() {
        let mut values = vec![
            f32::NEG_INFINITY,
            -1e30,
            -1.0,
            -f32::MIN_POSITIVE,
            -0.0,
            0.0,
            1e-45,
            0.5,
            65535.0,
            f32::INFINITY,
            f32::NAN,
        ];
        values.sort_by(f32::total_cmp);
        let keys: Vec<u32> = values.iter().map(|&v| f32_key(v)).collect();
        assert!(keys.windows(2).all(|k| k[0] < k[1]));
        for &v in &values {
            assert_eq!(f32_of_key(f32_key(v)).to_bits(), v.to_bits());
        }
    }
}
