//! Transpose: `out(x, y) = in(y, x)`; alpha moves with its pixel.

use image::RgbaImage;
use rayon::prelude::*;

/// The H×W transpose of a W×H image.
pub fn transpose(image: &RgbaImage) -> RgbaImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let src = image.as_raw();
    let mut out = RgbaImage::new(h as u32, w as u32);
    if w == 0 || h == 0 {
        return out;
    }
    // Output row x holds input column x; the output is the only allocation.
    out.par_chunks_mut(4 * h).enumerate().for_each(|(x, row)| {
        for (y, p) in row.chunks_exact_mut(4).enumerate() {
            let i = 4 * (y * w + x);
            p.copy_from_slice(&src[i..i + 4]);
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_images::{random, SIZES};
    use super::*;

    #[test]
    fn swaps_coordinates_exactly() {
        for (i, &(w, h)) in SIZES.iter().enumerate() {
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
