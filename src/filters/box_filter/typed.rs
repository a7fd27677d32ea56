//! The box filter in every sample type: per colour channel the mean of the `(2R+1)²`
//! window (clamp-to-edge), alpha kept. U8 and U16 sum in integers and store the exactly
//! rounded mean (half up; U8 equals the RGBA8 path); F32 sums in f64 and stores the mean
//! rounded to f32. The bands of rows, sliding column sums and running row sums of
//! `cpu.rs` serve every type.

use super::cpu::BoxSample;
use crate::pixels::ImageBuf;

/// Mean of the `(2R+1)²` window per colour channel; alpha kept.
pub fn box_filter_typed<T: BoxSample>(image: &ImageBuf<T>, radius: u32) -> ImageBuf<T> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let mut out = image.zeroed_like();
    if w > 0 && h > 0 {
        let c = usize::from(image.channels());
        T::box_samples(image.as_slice(), (w, h), c, radius as usize, out.as_mut_slice());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::typed::colour_channels;
    use crate::filters::typed::test_inputs::random;
    use crate::pixels::{Sample, SampleType};

    /// The mean of each window summed pixel by pixel.
    fn naive<T: Sample>(img: &ImageBuf<T>, r: i64) -> ImageBuf<T> {
        let (w, h) = (img.width() as i64, img.height() as i64);
        let n = ((2 * r + 1) * (2 * r + 1)) as f64;
        let colour = colour_channels(img.channels());
        ImageBuf::from_fn(img.width(), img.height(), img.channels(), |x, y, c| {
            if usize::from(c) >= colour {
                return img.pixel(x, y)[usize::from(c)];
            }
            let mut sum = 0.0;
            for dy in -r..=r {
                for dx in -r..=r {
                    let xx = (i64::from(x) + dx).clamp(0, w - 1) as u32;
                    let yy = (i64::from(y) + dy).clamp(0, h - 1) as u32;
                    sum += img.pixel(xx, yy)[usize::from(c)].to_f64();
                }
            }
            T::from_f64(sum / n)
        })
        .expect("size")
    }

    #[test]
    fn equals_the_naive_mean_in_every_type() {
        for (i, ty) in SampleType::ALL.into_iter().enumerate() {
            // 70 rows: bands of rows whose column sums start afresh.
            for (channels, (w, h)) in [(1, (13, 9)), (3, (13, 9)), (4, (13, 9)), (3, (20, 70))] {
                let img = random(ty, w, h, channels, 10 + i as u64);
                // 130: 16-bit sums past u32 (u64 lanes).
                for r in [1, 3, 20, 130] {
                    crate::with_pixels!(&img, b => {
                        let (got, want) = (box_filter_typed(b, r), naive(b, i64::from(r)));
                        // Integers exactly (their sums are); floats to f32's rounding.
                        let bound = if ty == SampleType::F32 { 1e-6 } else { 0.0 };
                        for (g, w) in got.as_slice().iter().zip(want.as_slice()) {
                            let d = (g.to_f64() - w.to_f64()).abs();
                            assert!(d <= bound, "{ty} c{channels} r{r}: {g:?} vs {w:?}");
                        }
                    });
                }
            }
        }
    }
}
