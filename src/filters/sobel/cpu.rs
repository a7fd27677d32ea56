//! Sobel gradient magnitude of luma: `S·sqrt(Gx²+Gy²)` stored in the sample type (integers
//! rounded and saturated) into every colour channel, alpha kept; any sample type.
//!
//! Each band of rows (one rayon task) computes the luma of its rows and the two around it
//! into padded f32 rows (edge values repeated), then the magnitude row by row in
//! whole-row loops with the operator's terms summed in a fixed order.

use crate::filters::typed::luma_of;
use crate::ops::cpu::rows::{band_height, by_bands, clamped_row, with_channel_count};
use crate::ops::cpu::simd::vectorized;
use crate::pixels::Sample;
use image::RgbaImage;

/// Luma of a row of `C`-sample pixels into `out` (`width + 2` values: the edges repeated
/// on each side).
#[inline(always)]
fn padded_luma_row<T: Sample, const C: usize>(row: &[T], out: &mut [f32]) {
    for (l, p) in out[1..].iter_mut().zip(row.chunks_exact(C)) {
        *l = luma_of(p);
    }
    let w = out.len() - 2;
    (out[0], out[w + 1]) = (out[1], out[w]);
}

/// Scaled gradient magnitudes of one row from the padded luma rows above, at and below it.
#[inline(always)]
fn magnitude_row(up: &[f32], mid: &[f32], down: &[f32], scale: f32, out: &mut [f32]) {
    let w = out.len();
    let (u0, u1, u2) = (&up[..w], &up[1..w + 1], &up[2..w + 2]);
    let (m0, m2) = (&mid[..w], &mid[2..w + 2]);
    let (d0, d1, d2) = (&down[..w], &down[1..w + 1], &down[2..w + 2]);
    for x in 0..w {
        let gx = (u2[x] + 2.0 * m2[x] + d2[x]) - (u0[x] + 2.0 * m0[x] + d0[x]);
        let gy = (d0[x] + 2.0 * d1[x] + d2[x]) - (u0[x] + 2.0 * u1[x] + u2[x]);
        out[x] = scale * (gx * gx + gy * gy).sqrt();
    }
}

/// Rows `y0..` of the output (as many as `out` holds).
#[inline(always)]
fn sobel_band<T: Sample, const C: usize>(
    src: &[T],
    (width, height): (usize, usize),
    scale: f32,
    y0: usize,
    out: &mut [T],
) {
    let (row_len, padded) = (C * width, width + 2);
    let rows = out.len() / row_len;
    let mut lumas = vec![0f32; (rows + 2) * padded];
    for (i, l) in lumas.chunks_exact_mut(padded).enumerate() {
        let y = y0 as isize + i as isize - 1;
        padded_luma_row::<T, C>(clamped_row(src, row_len, height, y), l);
    }
    let mut magnitudes = vec![0f32; width];
    for (i, out_row) in out.chunks_exact_mut(row_len).enumerate() {
        let l = |k: usize| &lumas[(i + k) * padded..][..padded];
        magnitude_row(l(0), l(1), l(2), scale, &mut magnitudes);
        let source = &src[(y0 + i) * row_len..][..row_len];
        for ((o, a), &m) in out_row
            .chunks_exact_mut(C)
            .zip(source.chunks_exact(C))
            .zip(&magnitudes)
        {
            let v = T::from_f32(m);
            o[..C.min(3)].fill(v);
            if C == 4 {
                o[3] = a[3];
            }
        }
    }
}

/// The Sobel magnitude of `src` (`w × h` pixels of `c` samples: 1, 3 or 4) into `out`.
pub fn sobel_samples<T: Sample>(src: &[T], size: (usize, usize), c: usize, scale: f32, out: &mut [T]) {
    if size.0 == 0 || size.1 == 0 {
        return;
    }
    macro_rules! run {
        ($n:literal) => {
            by_bands(out, $n * size.0, band_height(size.1, 1), |y0, band| {
                vectorized(|| sobel_band::<T, $n>(src, size, scale, y0, band))
            })
        };
    }
    with_channel_count!(c, run)
}

/// Sobel edge magnitude scaled by `scale`; alpha unchanged.
pub fn sobel(image: &RgbaImage, scale: f32) -> RgbaImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let mut out = RgbaImage::new(image.width(), image.height());
    sobel_samples(image.as_raw(), (w, h), 4, scale, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use crate::ops::cpu::test_images::{at, random, SIZES};
    use super::*;
    use crate::ops::luma;

    fn naive(img: &RgbaImage, scale: f32) -> RgbaImage {
        const KX: [[f32; 3]; 3] = [[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]];
        let mut out = img.clone();
        for (x, y, p) in out.enumerate_pixels_mut() {
            let (mut gx, mut gy) = (0f64, 0f64);
            for j in 0..3 {
                for i in 0..3 {
                    let q = at(img, i64::from(x) + i - 1, i64::from(y) + j - 1);
                    let l = f64::from(luma(q[0], q[1], q[2]));
                    gx += f64::from(KX[j as usize][i as usize]) * l;
                    gy += f64::from(KX[i as usize][j as usize]) * l;
                }
            }
            let v = (f64::from(scale) * (gx * gx + gy * gy).sqrt())
                .round()
                .clamp(0.0, 255.0);
            p.0[..3].fill(v as u8);
        }
        out
    }

    #[test]
    fn within_one_of_the_textbook_operator() {
        for (i, &(w, h)) in SIZES.iter().enumerate() {
            let img = random(w, h, 200 + i as u64);
            for s in [0.25, 1.0, 4.0] {
                let (got, want) = (sobel(&img, s), naive(&img, s));
                for (a, b) in got.as_raw().iter().zip(want.as_raw()) {
                    assert!(a.abs_diff(*b) <= 1, "{w}x{h} scale={s}: {a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn flat_image_has_no_edges_and_keeps_alpha() {
        let img = RgbaImage::from_pixel(6, 4, image::Rgba([90, 10, 200, 42]));
        assert!(sobel(&img, 8.0).pixels().all(|p| p.0 == [0, 0, 0, 42]));
    }

    #[test]
    fn vertical_step_gives_the_known_magnitude() {
        // Left half grey 0, right half grey 10: |Gx| = 40 at the step.
        let img = RgbaImage::from_fn(4, 3, |x, _| {
            let v = if x < 2 { 0 } else { 10 };
            image::Rgba([v, v, v, 255])
        });
        let out = sobel(&img, 1.0);
        assert_eq!(out.get_pixel(1, 1).0, [40, 40, 40, 255]);
        assert_eq!(out.get_pixel(0, 1).0, [0, 0, 0, 255]);
    }
}
