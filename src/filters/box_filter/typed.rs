//! The box filter in every sample type: per colour channel the mean of the `(2R+1)²`
//! window (clamp-to-edge), alpha kept. Window sums in f64 (exact for U8 and U16, so the
//! mean is the exactly rounded one and U8 equals the integer fast path), stored by
//! `Sample::from_f64` (integers round half away from zero; F32 as computed).

use crate::filters::typed::{channel_f64, clamp_to_edge, colour_channels, with_colour};
use crate::pixels::{ImageBuf, Sample};
use rayon::prelude::*;

/// Window sums of width `2r + 1` along rows of `width` values (clamp-to-edge), by prefix
/// sums of each padded row.
fn window_sums_along_rows(values: &[f64], width: usize, r: usize) -> Vec<f64> {
    let mut out = vec![0.0; values.len()];
    out.par_chunks_mut(width)
        .zip(values.par_chunks(width))
        .for_each(|(out, row)| {
            let mut prefix = Vec::with_capacity(width + 2 * r + 1);
            prefix.push(0.0);
            let mut acc = 0.0;
            for i in 0..width + 2 * r {
                acc += row[clamp_to_edge(i as isize - r as isize, width)];
                prefix.push(acc);
            }
            for (x, o) in out.iter_mut().enumerate() {
                *o = prefix[x + 2 * r + 1] - prefix[x];
            }
        });
    out
}

/// `values` (`width × height`) transposed.
fn transposed(values: &[f64], width: usize, height: usize) -> Vec<f64> {
    let mut out = vec![0.0; values.len()];
    out.par_chunks_mut(height).enumerate().for_each(|(x, col)| {
        for (y, o) in col.iter_mut().enumerate() {
            *o = values[y * width + x];
        }
    });
    out
}

/// Mean of the `(2R+1)²` window per colour channel; alpha kept.
pub fn box_filter_typed<T: Sample>(image: &ImageBuf<T>, radius: u32) -> ImageBuf<T> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    if w == 0 || h == 0 {
        return image.clone();
    }
    let r = radius as usize;
    let n = ((2 * r + 1) * (2 * r + 1)) as f64;
    let means: Vec<Vec<f64>> = (0..colour_channels(image.channels()))
        .map(|c| {
            let rows = window_sums_along_rows(&channel_f64(image, c), w, r);
            let cols = window_sums_along_rows(&transposed(&rows, w, h), h, r);
            transposed(&cols, h, w)
        })
        .collect();
    with_colour(image, |i, c| T::from_f64(means[c][i] / n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::typed::test_inputs::random;
    use crate::pixels::SampleType;

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
            for channels in [1, 3, 4] {
                let img = random(ty, 13, 9, channels, 10 + i as u64);
                for r in [1, 3, 20] {
                    crate::with_pixels!(&img, b => {
                        let (got, want) = (box_filter_typed(b, r), naive(b, i64::from(r)));
                        for (g, w) in got.as_slice().iter().zip(want.as_slice()) {
                            let d = (g.to_f64() - w.to_f64()).abs();
                            assert!(d <= 1e-6, "{ty} c{channels} r{r}: {g:?} vs {w:?}");
                        }
                    });
                }
            }
        }
    }
}
