//! Transpose: `out(x, y) = in(y, x)`; alpha moves with its pixel; any sample type.
//!
//! Cache-blocked: each task writes `BLOCK` output rows (= `BLOCK` input columns), reading
//! `BLOCK` pixels (a cache line or more) from every input row and appending one pixel to
//! each of its `BLOCK` output rows, so every line is read and written once.

use crate::ops::cpu::rows::{by_bands, with_channel_count};
use image::RgbaImage;

/// Pixels per block side: 16 RGBA8 pixels are one 64-byte cache line.
const BLOCK: usize = 16;

/// Output rows `x0..` (as many as `out` holds) from input columns `x0..`; `C` samples a
/// pixel.
#[inline(always)]
fn transpose_band<T: Copy, const C: usize>(src: &[T], (w, h): (usize, usize), x0: usize, out: &mut [T]) {
    let columns = out.len() / (C * h);
    for y in 0..h {
        let line = &src[C * (y * w + x0)..][..C * columns];
        for (dx, pixel) in line.chunks_exact(C).enumerate() {
            let at = C * (dx * h + y);
            out[at..at + C].copy_from_slice(pixel);
        }
    }
}

/// The transpose of `src` (`w × h` pixels of `c` samples: 1, 3 or 4) into `out` (`h × w`).
pub fn transpose_samples<T: Copy + Send + Sync>(src: &[T], size: (usize, usize), c: usize, out: &mut [T]) {
    if size.0 == 0 || size.1 == 0 {
        return;
    }
    macro_rules! run {
        ($n:literal) => {
            by_bands(out, $n * size.1, BLOCK, |x0, band| {
                transpose_band::<T, $n>(src, size, x0, band)
            })
        };
    }
    with_channel_count!(c, run)
}

/// The H×W transpose of a W×H image.
pub fn transpose(image: &RgbaImage) -> RgbaImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let mut out = RgbaImage::new(image.height(), image.width());
    transpose_samples(image.as_raw(), (w, h), 4, &mut out);
    out
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
