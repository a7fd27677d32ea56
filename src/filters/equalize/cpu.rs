//! Equalisation's CPU reference: a table per channel (`ops::cpu::equalize_lut`) applied.

use crate::ops::cpu::equalize_lut;
use image::RgbaImage;
use rayon::prelude::*;

/// Equalisation of the contract.
pub fn equalize(image: &RgbaImage) -> RgbaImage {
    let histogram = crate::ops::cpu::histogram(image);
    let total = image.width() * image.height();
    let luts: [[u8; 256]; 3] = std::array::from_fn(|c| equalize_lut(&histogram.bins[c], total));
    let mut out = image.clone();
    out.par_chunks_mut(4).for_each(|p| {
        for c in 0..3 {
            p[c] = luts[c][usize::from(p[c])];
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::random_image;

    #[test]
    fn constant_channel_is_kept_and_alpha_passes() {
        let mut img = random_image(10, 10, 3);
        for p in img.pixels_mut() {
            p.0[1] = 77;
        }
        let out = equalize(&img);
        assert!(out.pixels().all(|p| p.0[1] == 77));
        assert!(img
            .pixels()
            .zip(out.pixels())
            .all(|(a, b)| a.0[3] == b.0[3]));
        // The extremes of a non-constant channel map to 0 and 255.
        let min = img.pixels().map(|p| p.0[0]).min().unwrap();
        let max = img.pixels().map(|p| p.0[0]).max().unwrap();
        for (a, b) in img.pixels().zip(out.pixels()) {
            if a.0[0] == min {
                assert_eq!(b.0[0], 0);
            }
            if a.0[0] == max {
                assert_eq!(b.0[0], 255);
            }
        }
    }

    #[test]
    fn one_by_one_is_the_identity() {
        let img = random_image(1, 1, 1);
        assert_eq!(equalize(&img), img);
    }
}
