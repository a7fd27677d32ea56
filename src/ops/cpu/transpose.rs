//! Transpose: `out(x, y) = in(y, x)`; alpha moves with its pixel.

use super::rows::transpose_plane;
use image::RgbaImage;

/// The H×W transpose of a W×H image.
pub fn transpose(image: &RgbaImage) -> RgbaImage {
    let (w, h) = (image.width(), image.height());
    let pixels: Vec<[u8; 4]> = image
        .as_raw()
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]])
        .collect();
    let flipped = transpose_plane(&pixels, w as usize, h as usize);
    RgbaImage::from_raw(h, w, flipped.into_iter().flatten().collect())
        .unwrap_or_else(|| RgbaImage::new(h, w))
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
