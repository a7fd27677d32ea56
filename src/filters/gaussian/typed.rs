//! The Gaussian in every sample type: per colour channel the separable convolution with
//! [`gaussian_weights`] (clamp-to-edge), alpha kept. The arithmetic is the RGBA8
//! reference's: f32, a row pass then a column pass, taps summed in order from 0.0, so U8
//! equals the fast path bit for bit; results stored by `Sample::from_f32` (integers round
//! half away from zero and saturate, F32 as computed).

use super::cpu::gaussian_samples;
use super::gaussian_weights;
use crate::filters::typed::{clamp_to_edge, colour_channels};
use crate::pixels::{ImageBuf, Sample};
use rayon::prelude::*;

/// The blurred colour channels before rounding: `colour_channels` values per pixel,
/// row-major (what [`gaussian_typed`] stores and `unsharp` subtracts).
pub fn gaussian_plane_typed<T: Sample>(image: &ImageBuf<T>, sigma: f32, radius: u32) -> Vec<f32> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    if w == 0 || h == 0 {
        return Vec::new();
    }
    let (c, cc) = (
        usize::from(image.channels()),
        colour_channels(image.channels()),
    );
    let weights = gaussian_weights(sigma, radius);
    let r = radius as isize;
    let src = image.as_slice();
    let mut rows = vec![0f32; w * h * cc];
    rows.par_chunks_mut(w * cc).enumerate().for_each(|(y, out)| {
        let line = &src[c * w * y..][..c * w];
        // The row's colour samples as f32, `r` edge pixels repeated on each side.
        let padded: Vec<f32> = (0..w + 2 * r as usize)
            .flat_map(|i| {
                let xx = clamp_to_edge(i as isize - r, w);
                line[c * xx..c * xx + cc].iter().map(|v| v.to_f32())
            })
            .collect();
        // Tap by tap over the whole row: each output still sums its taps in order.
        for (k, &wk) in weights.iter().enumerate() {
            for (o, v) in out.iter_mut().zip(&padded[k * cc..k * cc + w * cc]) {
                *o += wk * v;
            }
        }
    });
    let mut plane = vec![0f32; w * h * cc];
    plane
        .par_chunks_mut(w * cc)
        .enumerate()
        .for_each(|(y, out)| {
            for (k, &wk) in weights.iter().enumerate() {
                let yy = clamp_to_edge(y as isize + k as isize - r, h);
                for (o, v) in out.iter_mut().zip(&rows[w * cc * yy..][..w * cc]) {
                    *o += wk * v;
                }
            }
        });
    plane
}

/// Gaussian blur of the colour channels; alpha kept: [`gaussian_plane_typed`] stored in the
/// type, computed by the RGBA8 reference's bands of rows and register tiles (the same sums).
pub fn gaussian_typed<T: Sample>(image: &ImageBuf<T>, sigma: f32, radius: u32) -> ImageBuf<T> {
    let (w, h, c) = (image.width(), image.height(), image.channels());
    let mut out = image.zeroed_like();
    gaussian_samples(
        image.as_slice(),
        (w as usize, h as usize, usize::from(c)),
        sigma,
        radius,
        out.as_mut_slice(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::typed::test_inputs::random;
    use crate::pixels::SampleType;

    /// Direct 2-D convolution with the outer product of the weights, in f64.
    fn naive<T: Sample>(img: &ImageBuf<T>, sigma: f32, radius: u32) -> Vec<f64> {
        let wts = gaussian_weights(sigma, radius);
        let (w, h, r) = (img.width() as i64, img.height() as i64, i64::from(radius));
        let mut out = Vec::new();
        for y in 0..h {
            for x in 0..w {
                for c in 0..colour_channels(img.channels()) {
                    let mut acc = 0.0;
                    for dy in -r..=r {
                        for dx in -r..=r {
                            let q = img.pixel(
                                (x + dx).clamp(0, w - 1) as u32,
                                (y + dy).clamp(0, h - 1) as u32,
                            );
                            let wt = f64::from(wts[(dy + r) as usize])
                                * f64::from(wts[(dx + r) as usize]);
                            acc += wt * q[c].to_f64();
                        }
                    }
                    out.push(acc);
                }
            }
        }
        out
    }

    #[test]
    fn plane_is_the_direct_convolution_in_every_type() {
        for (i, ty) in SampleType::ALL.into_iter().enumerate() {
            for channels in [1, 3, 4] {
                let img = random(ty, 11, 8, channels, 20 + i as u64);
                for (s, r) in [(0.5, 2), (2.0, 6)] {
                    crate::with_pixels!(&img, b => {
                        let got = gaussian_plane_typed(b, s, r);
                        let want = naive(b, s, r);
                        let scale = f64::from(ty.full_scale());
                        for (g, w) in got.iter().zip(&want) {
                            assert!((f64::from(*g) - w).abs() <= 1e-5 * scale, "{ty} {g} vs {w}");
                        }
                    });
                }
            }
        }
    }

    /// The bands and tiles store the plain plane's sums, bit for bit, in every type and
    /// channel count, across bands and sub-bands (tall images) and partial tiles.
    #[test]
    fn stores_the_plain_plane_in_every_type() {
        for (i, ty) in SampleType::ALL.into_iter().enumerate() {
            for (channels, (w, h)) in [(1, (53, 9)), (3, (17, 80)), (4, (21, 70)), (4, (1, 5))] {
                let img = random(ty, w, h, channels, 30 + i as u64);
                for (s, r) in [(0.5, 1), (2.0, 6), (9.0, 27)] {
                    crate::with_pixels!(&img, b => {
                        let plane = gaussian_plane_typed(b, s, r);
                        let got = gaussian_typed(b, s, r);
                        let cc = colour_channels(b.channels());
                        let c = usize::from(b.channels());
                        for (p, px) in got.as_slice().chunks_exact(c).enumerate() {
                            for ch in 0..c {
                                let want = if ch < cc {
                                    Sample::from_f32(plane[p * cc + ch])
                                } else {
                                    b.as_slice()[p * c + ch]
                                };
                                assert_eq!(px[ch], want, "{ty} c{channels} {w}x{h} s{s}");
                            }
                        }
                    });
                }
            }
        }
    }
}
