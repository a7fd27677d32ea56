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

/// The constants of the levels map in a type's units (`s`: full scale / 255).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelsMap {
    pub black: f64,
    pub span: f64,
    pub lo: f64,
    pub hi: f64,
    pub inv_gamma: f64,
}

impl LevelsMap {
    pub fn new(p: &Levels, s: f64) -> Self {
        Self {
            black: f64::from(p.input.0) * s,
            span: ((f64::from(p.input.1) - f64::from(p.input.0)) * s).max(s),
            lo: f64::from(p.output.0) * s,
            hi: f64::from(p.output.1) * s,
            inv_gamma: 1.0 / f64::from(p.gamma),
        }
    }

    /// The map of one value (the CUDA kernel's f64 steps, in this order).
    pub fn of(&self, v: f64) -> f64 {
        let t = ((v - self.black) / self.span).clamp(0.0, 1.0);
        self.lo + (self.hi - self.lo) * t.powf(self.inv_gamma)
    }
}

/// The table of every value of an integer type `T` (256 or 65536 entries): the reference's
/// own map, so a lookup on the GPU is exact.
pub fn levels_table<T: Sample>(p: &Levels) -> Vec<T> {
    let full = T::TYPE.full_scale();
    let map = LevelsMap::new(p, f64::from(full) / 255.0);
    (0..=full as u32)
        .map(|v| T::from_f64(map.of(f64::from(v))))
        .collect()
}

/// Levels applied to the colour channels; alpha kept.
pub fn levels_typed<T: Sample>(image: &ImageBuf<T>, p: &Levels) -> ImageBuf<T> {
    let s = f64::from(T::TYPE.full_scale()) / 255.0;
    let map = LevelsMap::new(p, s);
    map_colour(image, |v| T::from_f64(map.of(v.to_f64())))
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
