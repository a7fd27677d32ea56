//! Levels in every sample type. The parameters stay on the 0–255 scale users write and mean
//! that fraction of full scale (128 is 128·257 in U16 and 128/255 in F32), so a
//! specification means the same picture in every type. Per colour channel, with `s = full
//! scale / 255` and every level multiplied by `s`: `t = clamp((v − B) / (W − B), 0, 1)` and
//! `out = C + (D − C) · t^(1/G)` in f64, stored by `Sample::from_f64` (integers round half
//! away from zero; F32 unrounded, within `C..D` by the clamp); alpha kept. With `s = 1` this
//! is the 8-bit table's arithmetic, so U8 equals it exactly.

use crate::filters::typed::map_colour;
use crate::pixels::{ImageBuf, Sample};

/// The levels of a filter, on the 0–255 scale: `(black, white)`, gamma, `(out_black,
/// out_white)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Levels {
    pub input: (u32, u32),
    pub gamma: f32,
    pub output: (u32, u32),
}

/// The levels map of one value in `T`'s units (`s`: full scale / 255).
fn level_of(v: f64, p: &Levels, s: f64) -> f64 {
    let black = f64::from(p.input.0) * s;
    let span = ((f64::from(p.input.1) - f64::from(p.input.0)) * s).max(s);
    let (lo, hi) = (f64::from(p.output.0) * s, f64::from(p.output.1) * s);
    let t = ((v - black) / span).clamp(0.0, 1.0);
    lo + (hi - lo) * t.powf(1.0 / f64::from(p.gamma))
}

/// Levels applied to the colour channels; alpha kept.
pub fn levels_typed<T: Sample>(image: &ImageBuf<T>, p: &Levels) -> ImageBuf<T> {
    let s = f64::from(T::TYPE.full_scale()) / 255.0;
    map_colour(image, |v| T::from_f64(level_of(v.to_f64(), p, s)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::typed::test_inputs::random;
    use crate::pixels::{PixelImage, SampleType};

    fn params(black: u32, white: u32, gamma: f32, out_black: u32, out_white: u32) -> Levels {
        Levels {
            input: (black, white),
            gamma,
            output: (out_black, out_white),
        }
    }

    #[test]
    fn a_level_means_the_same_fraction_of_full_scale_in_every_type() {
        let p = params(16, 235, 1.2, 10, 240);
        let img = random(SampleType::U8, 16, 16, 3, 4);
        let want = {
            let PixelImage::U8(b) = &img else { panic!("U8") };
            levels_typed(b, &p)
        };
        // U8 input widened exactly: U16 and F32 give the same picture within rounding.
        let PixelImage::U16(u) = img.to_type(SampleType::U16) else { panic!("U16") };
        let PixelImage::F32(f) = img.to_type(SampleType::F32) else { panic!("F32") };
        let (u, f) = (levels_typed(&u, &p), levels_typed(&f, &p));
        for ((w, u), f) in want.as_slice().iter().zip(u.as_slice()).zip(f.as_slice()) {
            assert!((f64::from(*u) / 257.0 - f64::from(*w)).abs() <= 0.5 + 1e-9);
            assert!((f64::from(*f) * 255.0 - f64::from(*w)).abs() <= 0.5 + 1e-4);
        }
    }

    #[test]
    fn f32_values_outside_the_range_clamp_to_the_output_levels() {
        let p = params(0, 255, 1.0, 51, 204);
        let b = ImageBuf::<f32>::from_vec(3, 1, 1, vec![-0.5, 0.5, 1.5]).expect("size");
        let out = levels_typed(&b, &p);
        assert_eq!(out.as_slice(), &[0.2, 0.5, 0.8]);
    }
}
