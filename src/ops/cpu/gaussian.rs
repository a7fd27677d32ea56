//! Separable Gaussian: normalised weights `exp(-x²/2σ²)` for `|x| ≤ R`, a row pass and a
//! column pass in f32, rounded to nearest at the end.

use super::rows::clamp_index;
use super::stripes::{for_each_stripe, Passes, Ring};
use image::RgbaImage;
use std::ops::Range;

/// The `2R+1` normalised weights (computed in f64, stored as f32; the CUDA backend
/// uploads exactly these values).
pub fn gaussian_weights(sigma: f32, radius: u32) -> Vec<f32> {
    let s = f64::from(sigma);
    let r = i64::from(radius);
    let raw: Vec<f64> = (-r..=r)
        .map(|x| (-((x * x) as f64) / (2.0 * s * s)).exp())
        .collect();
    let total: f64 = raw.iter().sum();
    raw.iter().map(|w| (w / total) as f32).collect()
}

/// Row pass of one stripe row: `out[i]` is the weighted sum of the clamped taps around
/// column `columns.start + i`, accumulated in tap order (the column pass does the same).
fn convolve_row(rgba: &[u8], columns: &Range<usize>, out: &mut [[f32; 3]], weights: &[f32]) {
    let n = rgba.len() / 4;
    let r = (weights.len() / 2) as isize;
    for (o, x) in out.iter_mut().zip(columns.clone()) {
        let mut acc = [0f32; 3];
        for (k, &w) in weights.iter().enumerate() {
            let i = 4 * clamp_index(x as isize + k as isize - r, n);
            (0..3).for_each(|c| acc[c] += w * f32::from(rgba[i + c]));
        }
        *o = acc;
    }
}

#[inline]
pub(super) fn to_u8(v: f32) -> u8 {
    v.round().clamp(0.0, 255.0) as u8
}

/// Gaussian blur per RGB channel; alpha unchanged.
pub fn gaussian(image: &RgbaImage, sigma: f32, radius: u32) -> RgbaImage {
    let h = image.height() as usize;
    let weights = &gaussian_weights(sigma, radius);
    let r = radius as usize;
    let passes = Passes {
        behind: r,
        ahead: r,
        row_pass: |row: &[u8], columns: &Range<usize>, out: &mut [[f32; 3]]| {
            convolve_row(row, columns, out, weights)
        },
        make_column: move |_| {
            move |y: usize, ring: &Ring<f32>, out: &mut [u8]| {
                for (i, p) in out.chunks_exact_mut(4).enumerate() {
                    let mut acc = [0f32; 3];
                    for (k, &wk) in weights.iter().enumerate() {
                        let v = ring.row(clamp_index(y as isize + k as isize - r as isize, h))[i];
                        (0..3).for_each(|c| acc[c] += wk * v[c]);
                    }
                    p[..3].copy_from_slice(&acc.map(to_u8));
                }
            }
        },
    };
    for_each_stripe(image, passes)
}

#[cfg(test)]
mod tests {
    use super::super::test_images::{at, random, SIZES};
    use super::*;

    /// Direct 2-D convolution with the outer product of the weights, in f64.
    fn naive(img: &RgbaImage, sigma: f32, radius: u32) -> RgbaImage {
        let wts = gaussian_weights(sigma, radius);
        let r = i64::from(radius);
        let mut out = img.clone();
        for (x, y, p) in out.enumerate_pixels_mut() {
            let mut acc = [0f64; 3];
            for dy in -r..=r {
                for dx in -r..=r {
                    let q = at(img, i64::from(x) + dx, i64::from(y) + dy);
                    let w = f64::from(wts[(dy + r) as usize]) * f64::from(wts[(dx + r) as usize]);
                    (0..3).for_each(|c| acc[c] += w * f64::from(q[c]));
                }
            }
            (0..3).for_each(|c| p.0[c] = acc[c].round().clamp(0.0, 255.0) as u8);
        }
        out
    }

    #[test]
    fn weights_are_normalised_and_symmetric() {
        for (s, r) in [(0.1, 1), (1.0, 3), (32.0, 96)] {
            let w = gaussian_weights(s, r);
            assert_eq!(w.len(), 2 * r as usize + 1);
            assert!((w.iter().map(|&v| f64::from(v)).sum::<f64>() - 1.0).abs() < 1e-5);
            assert_eq!(w.first(), w.last());
        }
    }

    #[test]
    fn within_one_of_direct_convolution() {
        for (i, &(w, h)) in SIZES.iter().enumerate() {
            let img = random(w, h, 100 + i as u64);
            for (s, r) in [(0.1, 1), (1.0, 3), (3.0, 9), (32.0, 96)] {
                let got = gaussian(&img, s, r);
                let want = naive(&img, s, r);
                for (a, b) in got.as_raw().iter().zip(want.as_raw()) {
                    assert!(a.abs_diff(*b) <= 1, "{w}x{h} sigma={s} r={r}: {a} vs {b}");
                }
                // Alpha is untouched.
                assert!(got
                    .pixels()
                    .zip(img.pixels())
                    .all(|(a, b)| a.0[3] == b.0[3]));
            }
        }
    }
}
