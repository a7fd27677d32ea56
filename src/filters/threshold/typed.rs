//! Threshold in every sample type: white (full scale) in every colour channel where the
//! pixel's luma reaches the level, black (0) elsewhere (swapped with `invert`); alpha kept.
//! Luma is [`luma_of`] in the type's units (grey counting as R = G = B).
//!
//! - U8 and U16: the luma bin is `round(Y)` (65536 bins in U16, exact); white where the bin
//!   is at least the level. `level` (0..=255) means that fraction of full scale: `L` in U8,
//!   `L · 257` in U16.
//! - F32: `manual` is white where `Y ≥ L / 255`. The automatic methods bin the finite lumas
//!   over their own range `[min, max]` into [`F32_BINS`] bins (`⌊(Y − min) / (max − min) ·
//!   65536⌋`, the top value in the last bin); white where the bin is at least the level
//!   found; a constant image is all black, NaN luma black.
//! - The automatic levels come from [`level`] on that histogram, as for 8 bits.

use super::cpu::level;
use super::method::Method;
use crate::filters::typed::{luma_plane, with_colour};
use crate::pixels::{ImageBuf, Sample, SampleType};

/// Bins of the F32 luma histogram over the data's range.
pub const F32_BINS: usize = 65536;

/// How lumas fall into bins: integers `round(Y)` up to full scale, F32 its range.
enum Binning {
    Rounded { max: usize },
    Range { min: f32, max: f32 },
}

impl Binning {
    fn of<T: Sample>(luma: &[f32]) -> Self {
        if T::TYPE != SampleType::F32 {
            return Binning::Rounded {
                max: T::TYPE.full_scale() as usize,
            };
        }
        let finite = luma.iter().copied().filter(|y| y.is_finite());
        let (min, max) = finite.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        });
        Binning::Range { min, max }
    }

    fn bins(&self) -> usize {
        match self {
            Binning::Rounded { max } => max + 1,
            Binning::Range { .. } => F32_BINS,
        }
    }

    /// The bin of luma `y` (None: NaN or infinite, never counted, always black).
    fn bin(&self, y: f32) -> Option<usize> {
        match *self {
            Binning::Rounded { max } => Some(y.round().clamp(0.0, max as f32) as usize),
            Binning::Range { min, max } if y.is_finite() => {
                let unit = if max > min {
                    (f64::from(y) - f64::from(min)) / (f64::from(max) - f64::from(min))
                } else {
                    0.0
                };
                Some(((unit * F32_BINS as f64) as usize).min(F32_BINS - 1))
            }
            Binning::Range { .. } => None,
        }
    }
}

/// A threshold's parameters: the method, the manual level (0..=255) and whether black and
/// white swap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThresholdRule {
    pub method: Method,
    pub level: u32,
    pub invert: bool,
}

/// Whether luma `y` is white (before `invert`).
fn is_white<T: Sample>(y: f32, p: &ThresholdRule, binning: &Binning, auto_level: u32) -> bool {
    match (T::TYPE, p.method) {
        (SampleType::F32, Method::Manual) => y >= p.level as f32 / 255.0,
        (_, Method::Manual) => {
            let level = p.level as usize * (T::TYPE.full_scale() as usize / 255);
            binning.bin(y).is_some_and(|b| b >= level)
        }
        _ => binning.bin(y).is_some_and(|b| b as u32 >= auto_level),
    }
}

/// The threshold of the colour channels; alpha kept.
pub fn threshold_typed<T: Sample>(image: &ImageBuf<T>, p: &ThresholdRule) -> ImageBuf<T> {
    let luma = luma_plane(image);
    let binning = Binning::of::<T>(&luma);
    let auto_level = if p.method == Method::Manual {
        0
    } else {
        let mut hist = vec![0u32; binning.bins()];
        for b in luma.iter().filter_map(|&y| binning.bin(y)) {
            hist[b] += 1;
        }
        level(p.method, p.level, &hist)
    };
    let (on, off) = if p.invert {
        (T::default(), T::FULL)
    } else {
        (T::FULL, T::default())
    };
    with_colour(image, |i, _| {
        if is_white::<T>(luma[i], p, &binning, auto_level) {
            on
        } else {
            off
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::typed::test_inputs::random;
    use crate::pixels::PixelImage;

    fn params(level: u32, method: Method) -> ThresholdRule {
        ThresholdRule {
            level,
            method,
            invert: false,
        }
    }

    #[test]
    fn a_manual_level_means_the_same_fraction_in_every_type() {
        let img = random(SampleType::U8, 20, 10, 1, 3);
        let p = params(100, Method::Manual);
        let PixelImage::U8(u8s) = &img else { panic!("U8") };
        let want: Vec<bool> = threshold_typed(u8s, &p).as_slice().iter().map(|&v| v == 255).collect();
        let PixelImage::U16(u) = img.to_type(SampleType::U16) else { panic!("U16") };
        let PixelImage::F32(f) = img.to_type(SampleType::F32) else { panic!("F32") };
        let u: Vec<bool> = threshold_typed(&u, &p).as_slice().iter().map(|&v| v == 65535).collect();
        let f: Vec<bool> = threshold_typed(&f, &p).as_slice().iter().map(|&v| v == 1.0).collect();
        assert_eq!(u, want);
        assert_eq!(f, want);
    }

    #[test]
    fn automatic_levels_split_a_two_level_image_in_every_type() {
        // Two grey levels: every method puts the split between them.
        for ty in SampleType::ALL {
            let b = ImageBuf::<f32>::from_fn(8, 4, 1, |x, _, _| if x < 3 { 0.2 } else { 0.7 })
                .expect("size");
            let img = PixelImage::F32(b).to_type(ty);
            for m in [Method::Otsu, Method::Isodata, Method::Mean, Method::Triangle] {
                crate::with_pixels!(&img, b => {
                    let out = threshold_typed(b, &params(0, m));
                    for y in 0..4 {
                        for x in 0..8 {
                            let white = out.pixel(x, y)[0].to_f64() == f64::from(ty.full_scale());
                            assert_eq!(white, x >= 3, "{ty} {m:?} ({x}, {y})");
                        }
                    }
                });
            }
        }
    }
}
