//! Equalisation in every sample type, each colour channel on its own, alpha kept.
//!
//! - U8 and U16: OpenCV's `equalizeHist` rule over one bin per value (256 or 65536, exact):
//!   with `h` the channel's histogram, `N` its pixels and `i0` its smallest value,
//!   `v ↦ round_ties_even((cdf(v) − h(i0)) · s)`, `s = full scale / (N − h(i0))` in f32.
//!   U8 is the 8-bit table exactly.
//! - F32: the finite values binned over their own range `[min, max]` into [`F32_BINS`]
//!   bins (`⌊(v − min) / (max − min) · 65536⌋`, the top value in the last bin), then the
//!   same rule with full scale 1 and no rounding: results in 0..=1. Non-finite values are
//!   kept and not counted.
//!
//! A constant channel is left as it is.

use crate::filters::typed::{colour_channels, with_colour};
use crate::pixels::{ImageBuf, Sample, SampleType};

/// Bins of an F32 channel's histogram over its range.
pub const F32_BINS: usize = 65536;

/// The equalised value of every bin of `hist` (over `total` counted values), scaled to
/// `full`; `None` where the channel is constant (kept as it is).
fn equalize_table(hist: &[u32], total: u64, full: f32, round: bool) -> Option<Vec<f32>> {
    let first = hist.iter().position(|&n| n > 0)?;
    if u64::from(hist[first]) == total {
        return None;
    }
    let scale = full / (total - u64::from(hist[first])) as f32;
    let mut sum = 0u64;
    let mut table = vec![0f32; hist.len()];
    for (i, t) in table.iter_mut().enumerate().skip(first + 1) {
        sum += u64::from(hist[i]);
        *t = if round {
            (sum as f32 * scale).round_ties_even().clamp(0.0, full)
        } else {
            // A division, so that the top bin is exactly `full`.
            sum as f32 * full / (total - u64::from(hist[first])) as f32
        };
    }
    Some(table)
}

/// How one channel's values fall into bins.
struct Binning {
    min: f64,
    max: f64,
    bins: usize,
    integer: bool,
}

impl Binning {
    fn of<T: Sample>(values: &[T]) -> Self {
        if T::TYPE != SampleType::F32 {
            let full = T::TYPE.full_scale() as usize;
            return Binning {
                min: 0.0,
                max: full as f64,
                bins: full + 1,
                integer: true,
            };
        }
        let finite = values.iter().map(|v| v.to_f64()).filter(|v| v.is_finite());
        let (min, max) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        Binning {
            min,
            max,
            bins: F32_BINS,
            integer: false,
        }
    }

    fn bin(&self, v: f64) -> Option<usize> {
        if self.integer {
            return Some(v as usize);
        }
        if !v.is_finite() {
            return None;
        }
        let unit = if self.max > self.min {
            (v - self.min) / (self.max - self.min)
        } else {
            0.0
        };
        Some(((unit * self.bins as f64) as usize).min(self.bins - 1))
    }
}

/// The table of each channel's bins (`hists`: one per colour channel, one bin per value
/// for integer types, [`F32_BINS`] over the channel's range for floats), `None` for a
/// constant channel: what [`equalize_typed`] maps by (the `equalize_tables` kernel makes
/// the same tables on the device).
pub fn equalize_tables(hists: &[&[u32]], sample: SampleType) -> Vec<Option<Vec<f32>>> {
    hists
        .iter()
        .map(|hist| {
            let total = hist.iter().map(|&n| u64::from(n)).sum();
            equalize_table(hist, total, sample.full_scale(), sample != SampleType::F32)
        })
        .collect()
}

/// Histogram equalisation of the colour channels; alpha kept.
pub fn equalize_typed<T: Sample>(image: &ImageBuf<T>) -> ImageBuf<T> {
    let c = usize::from(image.channels());
    let src = image.as_slice();
    let (binnings, hists): (Vec<Binning>, Vec<Vec<u32>>) = (0..colour_channels(image.channels()))
        .map(|ch| {
            let values: Vec<T> = src.iter().skip(ch).step_by(c).copied().collect();
            let binning = Binning::of(&values);
            let mut hist = vec![0u32; binning.bins];
            for b in values.iter().filter_map(|v| binning.bin(v.to_f64())) {
                hist[b] += 1;
            }
            (binning, hist)
        })
        .unzip();
    let hists: Vec<&[u32]> = hists.iter().map(Vec::as_slice).collect();
    let per_channel: Vec<(Binning, Option<Vec<f32>>)> = binnings
        .into_iter()
        .zip(equalize_tables(&hists, T::TYPE))
        .collect();
    with_colour(image, |i, ch| {
        let v = src[i * c + ch];
        let (binning, table) = &per_channel[ch];
        match (table, binning.bin(v.to_f64())) {
            (Some(t), Some(b)) => T::from_f32(t[b]),
            _ => v,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::typed::test_inputs::random;
    use crate::pixels::PixelImage;

    #[test]
    fn extremes_map_to_black_and_white_and_constants_stay() {
        for ty in SampleType::ALL {
            let img = random(ty, 17, 11, 4, 12);
            crate::with_pixels!(&img, b => {
                let mut b = b.clone();
                for px in b.as_mut_slice().chunks_exact_mut(4) {
                    px[1] = Sample::from_f32(0.25 * ty.full_scale());
                }
                let out = equalize_typed(&b);
                let red: Vec<f64> = b.as_slice().iter().step_by(4).map(|v| v.to_f64()).collect();
                let (lo, hi) = red.iter().fold((f64::MAX, f64::MIN), |(l, h), &v| (l.min(v), h.max(v)));
                for (p, q) in b.as_slice().chunks_exact(4).zip(out.as_slice().chunks_exact(4)) {
                    assert_eq!(p[1], q[1], "{ty}: constant green kept");
                    assert_eq!(p[3], q[3], "{ty}: alpha kept");
                    if p[0].to_f64() == lo {
                        assert_eq!(q[0].to_f64(), 0.0, "{ty}");
                    }
                    if p[0].to_f64() == hi {
                        assert_eq!(q[0].to_f64(), f64::from(ty.full_scale()), "{ty}");
                    }
                }
            });
        }
    }

    #[test]
    fn u16_widened_from_u8_equalises_like_u8() {
        let img = random(SampleType::U8, 31, 17, 3, 13);
        let PixelImage::U8(b) = &img else { panic!("U8") };
        let PixelImage::U16(u) = img.to_type(SampleType::U16) else { panic!("U16") };
        let (want, got) = (equalize_typed(b), equalize_typed(&u));
        for (w, g) in want.as_slice().iter().zip(got.as_slice()) {
            // Same counts, a scale 257 times larger: within the 8-bit rounding.
            assert!((f64::from(*g) / 257.0 - f64::from(*w)).abs() <= 0.5 + 1e-6);
        }
    }
}
