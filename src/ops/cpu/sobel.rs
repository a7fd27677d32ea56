//! Sobel gradient magnitude of luma: `clamp(round(S·sqrt(Gx²+Gy²)), 0, 255)` into R, G, B.

use super::super::luma;
use super::gaussian::to_u8;
use super::rows::clamp_index;
use image::RgbaImage;
use rayon::prelude::*;

/// Gradient magnitude from a clamp-addressed luma lookup `at(dx, dy)`.
fn magnitude(at: impl Fn(isize, isize) -> f32) -> f32 {
    let gx = (at(1, -1) + 2.0 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2.0 * at(-1, 0) + at(-1, 1));
    let gy = (at(-1, 1) + 2.0 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2.0 * at(0, -1) + at(1, -1));
    (gx * gx + gy * gy).sqrt()
}

/// Rows per parallel band; a band holds the luma of its rows and one above and below.
const BAND: usize = 64;

/// Gradient magnitude of the luma, scaled, rounded, written to R, G and B; alpha kept.
pub fn sobel(image: &RgbaImage, scale: f32) -> RgbaImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let mut out = image.clone();
    if w == 0 || h == 0 {
        return out;
    }
    let src = image.as_raw();
    out.par_chunks_mut(4 * w * BAND)
        .enumerate()
        .for_each(|(b, band)| {
            let y0 = b * BAND;
            let first = y0.saturating_sub(1);
            let last = (y0 + band.len() / (4 * w)).min(h - 1);
            let lumas: Vec<f32> = src[first * 4 * w..(last + 1) * 4 * w]
                .chunks_exact(4)
                .map(|p| luma(p[0], p[1], p[2]))
                .collect();
            for (dy, row) in band.chunks_exact_mut(4 * w).enumerate() {
                let y = y0 + dy;
                for (x, p) in row.chunks_exact_mut(4).enumerate() {
                    let m = magnitude(|ox, oy| {
                        let sy = clamp_index(y as isize + oy, h) - first;
                        lumas[sy * w + clamp_index(x as isize + ox, w)]
                    });
                    p[..3].fill(to_u8(scale * m));
                }
            }
        });
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_images::{at, random, SIZES};
    use super::*;

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
