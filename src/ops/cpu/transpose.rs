//! Transpose: `out(x, y) = in(y, x)`; alpha moves with its pixel.
//!
//! Cache-blocked: each task writes `BLOCK` output rows (= `BLOCK` input columns) in tiles
//! of `BLOCK × BLOCK` pixels: one cache line read from each of `BLOCK` input rows into a
//! local tile, one cache line written to each of `BLOCK` output rows from it, so every line
//! is read and written once, in whole-line copies.

use super::rows::rgba_by_bands;
use super::simd::vectorized;
use image::RgbaImage;

/// Pixels per block side: 16 RGBA8 pixels are one 64-byte cache line.
const BLOCK: usize = 16;

/// Output rows `x0..` (as many as `out` holds) from input columns `x0..`.
#[inline(always)]
fn transpose_band(src: &[u8], width: usize, height: usize, x0: usize, out: &mut [u8]) {
    let columns = out.len() / (4 * height);
    // tile[dx][dy]: pixel (x0 + dx, y0 + dy) of the input.
    let mut tile = [[[0u8; 4]; BLOCK]; BLOCK];
    for y0 in (0..height).step_by(BLOCK) {
        let rows = (height - y0).min(BLOCK);
        for dy in 0..rows {
            let line = &src[4 * ((y0 + dy) * width + x0)..][..4 * columns];
            for (column, pixel) in tile.iter_mut().zip(line.chunks_exact(4)) {
                column[dy].copy_from_slice(pixel);
            }
        }
        for (column, row) in tile.iter().zip(out.chunks_exact_mut(4 * height)) {
            let dst = &mut row[4 * y0..4 * (y0 + rows)];
            for (d, pixel) in dst.chunks_exact_mut(4).zip(column) {
                d.copy_from_slice(pixel);
            }
        }
    }
}

/// The H×W transpose of a W×H image.
pub fn transpose(image: &RgbaImage) -> RgbaImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    if w == 0 || h == 0 {
        return RgbaImage::new(image.height(), image.width());
    }
    let src = image.as_raw();
    rgba_by_bands(image.height(), image.width(), BLOCK, |x0, out| {
        vectorized(|| transpose_band(src, w, h, x0, out))
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_images::{random, SIZES};
    use super::*;

    #[test]
    fn swaps_coordinates_exactly() {
        let sizes = SIZES.iter().copied().chain([(40, 37), (17, 50)]);
        for (i, (w, h)) in sizes.enumerate() {
            let img = random(w, h, 300 + i as u64);
            let t = transpose(&img);
            assert_eq!((t.width(), t.height()), (h, w));
            for (x, y, p) in img.enumerate_pixels() {
                assert_eq!(t.get_pixel(y, x), p);
            }
            assert_eq!(transpose(&t), img);
        }
    }
}
