//! Transpose: `out(x, y) = in(y, x)`; alpha moves with its pixel.
//!
//! Cache-blocked: each task writes `BLOCK` output rows (= `BLOCK` input columns), reading
//! one cache line of `BLOCK` pixels from every input row and appending one pixel to each of
//! its `BLOCK` output rows, so every line is read and written once.

use crate::ops::cpu::rows::rgba_by_bands;
use image::RgbaImage;

/// Pixels per block side: 16 RGBA8 pixels are one 64-byte cache line.
const BLOCK: usize = 16;

/// Output rows `x0..` (as many as `out` holds) from input columns `x0..`.
fn transpose_band(src: &[u8], width: usize, height: usize, x0: usize, out: &mut [u8]) {
    let columns = out.len() / (4 * height);
    for y in 0..height {
        let line = &src[4 * (y * width + x0)..][..4 * columns];
        for (dx, pixel) in line.chunks_exact(4).enumerate() {
            let at = 4 * (dx * height + y);
            out[at..at + 4].copy_from_slice(pixel);
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
        transpose_band(src, w, h, x0, out)
    })
}

#[cfg(test)]
mod tests {
    use crate::ops::cpu::test_images::{random, SIZES};
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
