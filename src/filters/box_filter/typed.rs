//! The box filter in every sample type: per colour channel the mean of the `(2R+1)²`
//! window (clamp-to-edge), alpha kept, stored by `Sample::from_f64` (integers round half
//! away from zero; F32 as computed). U8 and U16 sum in integers (exact: the mean is the
//! exactly rounded one, and U8 equals the RGBA8 fast path): column sums slide down each
//! band of rows, row sums come from prefix sums, all channels interleaved. F32 sums in f64
//! planes, rows then columns by prefix sums.

use crate::filters::typed::{channel_f64, clamp_to_edge, colour_channels, with_colour};
use crate::pixels::{ImageBuf, Sample, SampleType};
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

/// Rows a task of the integer path computes (its column sums made once, then slid).
const ROWS_PER_TASK: usize = 32;

/// The integer path: exact sums in `u64`, the window's column sums sliding down the rows.
fn box_integer<T: Sample>(image: &ImageBuf<T>, r: usize) -> ImageBuf<T> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let c = usize::from(image.channels());
    let colour = colour_channels(image.channels());
    let (row, n) = (w * c, ((2 * r + 1) * (2 * r + 1)) as f64);
    let src: Vec<u32> = image
        .as_slice()
        .par_iter()
        .map(|v| v.to_f64() as u32)
        .collect();
    let at = |y: isize| {
        let y = clamp_to_edge(y, h);
        &src[y * row..(y + 1) * row]
    };
    let r_i = r as isize;
    let mut out = image.clone();
    out.as_mut_slice()
        .par_chunks_mut(row * ROWS_PER_TASK)
        .enumerate()
        .for_each(|(task, block)| {
            let y0 = (task * ROWS_PER_TASK) as isize;
            let mut columns = vec![0u64; row];
            for dy in -r_i..=r_i {
                for (s, &v) in columns.iter_mut().zip(at(y0 + dy)) {
                    *s += u64::from(v);
                }
            }
            let mut prefix = vec![0u64; (w + 2 * r + 1) * c];
            for (k, dst) in block.chunks_mut(row).enumerate() {
                let y = y0 + k as isize;
                if k > 0 {
                    for ((s, &add), &sub) in columns.iter_mut().zip(at(y + r_i)).zip(at(y - r_i - 1)) {
                        *s = *s + u64::from(add) - u64::from(sub);
                    }
                }
                for i in 0..w + 2 * r {
                    let x = clamp_to_edge(i as isize - r_i, w);
                    for ch in 0..c {
                        prefix[(i + 1) * c + ch] = prefix[i * c + ch] + columns[x * c + ch];
                    }
                }
                for x in 0..w {
                    for ch in 0..colour {
                        let sum = prefix[(x + 2 * r + 1) * c + ch] - prefix[x * c + ch];
                        dst[x * c + ch] = T::from_f64(sum as f64 / n);
                    }
                }
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
    if T::TYPE != SampleType::F32 {
        return box_integer(image, radius as usize);
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
                for r in [1, 3, 20] {
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
