//! Separable Gaussian: normalised weights `exp(-x²/2σ²)` for `|x| ≤ R`, a row pass and a
//! column pass in f32, rounded to nearest at the end.
//!
//! Every output value is `Σ_k w[k]·v[k]` summed for k = 0, 1, …, 2R from 0.0, first along
//! the row, then down the column over the row pass's f32 results: the order of the plain
//! definition, so the values are the same bit for bit. Only the loop nest is arranged for
//! speed: each band of rows (one rayon task) runs the row pass into a ring of
//! `SUB_BAND + 2R` rows, tile by tile of `TILE` floats accumulated in registers, and the
//! column pass reads that ring in column tiles small enough to stay in L1.

use crate::ops::cpu::rows::{band_height, by_bands, clamp_index};
use crate::ops::cpu::simd::vectorized;
use crate::pixels::Sample;
use image::RgbaImage;

/// Floats per register tile: 16 RGB or 48 grey pixels (six AVX2 registers of
/// accumulators).
const TILE: usize = 48;
/// Output rows per column pass over the ring.
const SUB_BAND: usize = 32;

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

/// `Σ_k weights[k] · tap(k)[t]` for t < TILE, k ascending, starting from 0.0.
#[inline(always)]
fn weighted_tile<'a>(weights: &[f32], tap: impl Fn(usize) -> &'a [f32]) -> [f32; TILE] {
    let mut acc = [0f32; TILE];
    for (k, &w) in weights.iter().enumerate() {
        for (a, &v) in acc.iter_mut().zip(&tap(k)[..TILE]) {
            *a += w * v;
        }
    }
    acc
}

/// The row geometry of one image of `channels` interleaved samples a pixel, of which the
/// first `colour` are filtered (a fourth, alpha, is copied): rows of the row pass padded to
/// whole tiles.
struct Rows<'a, T> {
    src: &'a [T],
    width: usize,
    height: usize,
    channels: usize,
    colour: usize,
    weights: &'a [f32],
    /// Floats per row of the row pass: `colour·width` rounded up to whole tiles.
    stride: usize,
}

impl<T: Sample> Rows<'_, T> {
    fn radius(&self) -> usize {
        self.weights.len() / 2
    }

    /// The row pass of source row `y` into `out` (`stride` floats): the colour samples of
    /// the row as f32 with `R` copies of the edge pixels on each side (`padded`), then per
    /// tile `out[j] = Σ_k w[k]·padded[j + colour·k]`.
    #[inline(always)]
    fn row_pass(&self, y: usize, padded: &mut Vec<f32>, out: &mut [f32]) {
        let (c, cc, r) = (self.channels, self.colour, self.radius());
        let row = &self.src[c * self.width * y..][..c * self.width];
        let pixel = |p: &[T]| [p[0].to_f32(), p[cc / 2].to_f32(), p[cc - 1].to_f32()];
        let (first, last) = (pixel(row), pixel(&row[row.len() - c..]));
        padded.clear();
        (0..r).for_each(|_| padded.extend_from_slice(&first[..cc]));
        if c == cc {
            padded.extend(row.iter().map(|v| v.to_f32()));
        } else {
            padded.extend(row.chunks_exact(c).flat_map(pixel));
        }
        (0..r).for_each(|_| padded.extend_from_slice(&last[..cc]));
        padded.resize(self.stride + 2 * cc * r, 0.0);
        let padded: &[f32] = padded;
        for (j0, tile) in (0..self.stride)
            .step_by(TILE)
            .zip(out.chunks_exact_mut(TILE))
        {
            tile.copy_from_slice(&weighted_tile(self.weights, move |k| &padded[j0 + cc * k..]));
        }
    }

    /// Stores `pixels` pixels of column-pass sums (`colour` a pixel) from pixel `x0` of
    /// output row `y`: rounded into the sample type, alpha from the source.
    #[inline(always)]
    fn store(&self, y: usize, x0: usize, pixels: usize, acc: &[f32], out_row: &mut [T]) {
        let c = self.channels;
        let dst = &mut out_row[c * x0..c * (x0 + pixels)];
        if c == self.colour {
            for (o, &v) in dst.iter_mut().zip(acc) {
                *o = T::from_f32(v);
            }
            return;
        }
        let src_row = &self.src[c * self.width * y..][..c * self.width];
        let alpha = &src_row[c * x0..c * (x0 + pixels)];
        for ((o, a), v) in dst
            .chunks_exact_mut(c)
            .zip(alpha.chunks_exact(c))
            .zip(acc.chunks_exact(3))
        {
            o[0] = T::from_f32(v[0]);
            o[1] = T::from_f32(v[1]);
            o[2] = T::from_f32(v[2]);
            o[3] = a[3];
        }
    }

    /// Rows `y0..` of the output (as many as `out` holds).
    #[inline(always)]
    fn band(&self, y0: usize, out: &mut [T]) {
        let (w, r, c, cc) = (self.width, self.radius(), self.channels, self.colour);
        let ring_rows = SUB_BAND + 2 * r;
        let mut ring = vec![0f32; ring_rows * self.stride];
        let mut padded = Vec::with_capacity(self.stride + 2 * cc * r);
        let mut offsets = Vec::with_capacity(ring_rows);
        let clamp_row = |y: isize| clamp_index(y, self.height);
        let mut next = clamp_row(y0 as isize - r as isize);
        for (sub, out_rows) in out.chunks_mut(c * w * SUB_BAND).enumerate() {
            let ys = y0 + sub * SUB_BAND;
            let rows = out_rows.len() / (c * w);
            // Real rows ys-R ..= ye-1+R (clamped): each in ring slot row mod ring_rows.
            let last = clamp_row((ys + rows - 1 + r) as isize);
            while next <= last {
                let slot = next % ring_rows;
                let dst = &mut ring[slot * self.stride..][..self.stride];
                self.row_pass(next, &mut padded, dst);
                next += 1;
            }
            offsets.clear();
            offsets.extend(
                (0..rows + 2 * r)
                    .map(|i| clamp_row((ys + i) as isize - r as isize) % ring_rows * self.stride),
            );
            let ring: &[f32] = &ring;
            for j0 in (0..self.stride).step_by(TILE) {
                let x0 = j0 / cc;
                let pixels = (w - x0).min(TILE / cc);
                for (i, out_row) in out_rows.chunks_exact_mut(c * w).enumerate() {
                    let taps = &offsets[i..i + 2 * r + 1];
                    let acc = weighted_tile(self.weights, move |k| &ring[taps[k] + j0..]);
                    self.store(ys + i, x0, pixels, &acc[..cc * pixels], out_row);
                }
            }
        }
    }
}

/// The Gaussian of `src` (`width × height` pixels of `channels` interleaved samples; the
/// colour channels filtered, alpha copied) into `out`, bands of rows in parallel.
pub fn gaussian_samples<T: Sample>(
    src: &[T],
    (width, height, channels): (usize, usize, usize),
    sigma: f32,
    radius: u32,
    out: &mut [T],
) {
    if width == 0 || height == 0 {
        return;
    }
    let weights = gaussian_weights(sigma, radius);
    let colour = channels.min(3);
    let rows = Rows {
        src,
        width,
        height,
        channels,
        colour,
        weights: &weights,
        stride: (colour * width).div_ceil(TILE) * TILE,
    };
    let band = band_height(height, 2 * radius as usize);
    by_bands(out, channels * width, band, |y0, out| {
        vectorized(|| rows.band(y0, out))
    });
}

/// Gaussian blur per RGB channel; alpha unchanged.
pub fn gaussian(image: &RgbaImage, sigma: f32, radius: u32) -> RgbaImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let mut out = RgbaImage::new(image.width(), image.height());
    gaussian_samples(image.as_raw(), (w, h, 4), sigma, radius, &mut out);
    out
}

/// The blurred RGB plane before rounding, by the plain separable definition (row pass, then
/// column pass, taps summed in order from 0.0 in f32; rows in parallel): what `gaussian`
/// rounds (a test checks they agree bit for bit) and what `unsharp` subtracts.
pub fn gaussian_plane(image: &RgbaImage, sigma: f32, radius: u32) -> Vec<[f32; 3]> {
    use rayon::prelude::*;
    let (w, h) = (image.width() as usize, image.height() as usize);
    if w == 0 || h == 0 {
        return Vec::new();
    }
    let weights = gaussian_weights(sigma, radius);
    let r = radius as isize;
    let src = image.as_raw();
    let mut rows = vec![[0f32; 3]; w * h];
    rows.par_chunks_mut(w).enumerate().for_each(|(y, out)| {
        let line = &src[4 * w * y..][..4 * w];
        for (x, o) in out.iter_mut().enumerate() {
            for (k, &wk) in weights.iter().enumerate() {
                let xx = (x as isize + k as isize - r).clamp(0, w as isize - 1) as usize;
                (0..3).for_each(|c| o[c] += wk * f32::from(line[4 * xx + c]));
            }
        }
    });
    let mut plane = vec![[0f32; 3]; w * h];
    plane.par_chunks_mut(w).enumerate().for_each(|(y, out)| {
        for (k, &wk) in weights.iter().enumerate() {
            let yy = (y as isize + k as isize - r).clamp(0, h as isize - 1) as usize;
            for (o, v) in out.iter_mut().zip(&rows[w * yy..][..w]) {
                (0..3).for_each(|c| o[c] += wk * v[c]);
            }
        }
    });
    plane
}

#[cfg(test)]
mod tests {
    use crate::ops::cpu::test_images::{at, random, SIZES};
    use crate::ops::cpu::to_u8;
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

    /// The plain separable definition in f32 (row pass, then column pass, taps summed in
    /// order from 0.0): the fast version must equal it bit for bit.
    fn plain_separable(img: &RgbaImage, sigma: f32, radius: u32) -> RgbaImage {
        let wts = gaussian_weights(sigma, radius);
        let (w, h, r) = (img.width() as i64, img.height() as i64, i64::from(radius));
        let mut rows = vec![[0f32; 3]; (w * h) as usize];
        for y in 0..h {
            for x in 0..w {
                let mut acc = [0f32; 3];
                for (k, &wk) in wts.iter().enumerate() {
                    let q = at(img, x + k as i64 - r, y);
                    (0..3).for_each(|c| acc[c] += wk * f32::from(q[c]));
                }
                rows[(y * w + x) as usize] = acc;
            }
        }
        let mut out = img.clone();
        for (x, y, p) in out.enumerate_pixels_mut() {
            let mut acc = [0f32; 3];
            for (k, &wk) in wts.iter().enumerate() {
                let yy = (i64::from(y) + k as i64 - r).clamp(0, h - 1);
                let v = rows[(yy * w + i64::from(x)) as usize];
                (0..3).for_each(|c| acc[c] += wk * v[c]);
            }
            (0..3).for_each(|c| p.0[c] = to_u8(acc[c]));
        }
        out
    }

    #[test]
    fn equals_the_plain_separable_definition_bit_for_bit() {
        let sizes = SIZES
            .iter()
            .copied()
            .chain([(61, 150), (100, 41), (17, 300)]);
        for (i, (w, h)) in sizes.enumerate() {
            let img = random(w, h, 400 + i as u64);
            for (s, r) in [(0.1, 1), (1.0, 3), (2.0, 6), (16.0, 48), (32.0, 96)] {
                assert_eq!(
                    gaussian(&img, s, r),
                    plain_separable(&img, s, r),
                    "{w}x{h} r={r}"
                );
            }
        }
    }

    #[test]
    fn rounds_the_plane_that_unsharp_subtracts() {
        let img = random(37, 23, 77);
        for (s, r) in [(0.1, 1), (2.0, 6), (32.0, 96)] {
            let plane = gaussian_plane(&img, s, r);
            let got = gaussian(&img, s, r);
            for (p, g) in got.pixels().zip(&plane) {
                assert_eq!([p.0[0], p.0[1], p.0[2]], g.map(to_u8), "sigma={s}");
            }
        }
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
