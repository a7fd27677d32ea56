//! The unsharp mask's CPU reference: the Gaussian's f32 plane, then the formula.

use crate::filters::gaussian::gaussian_plane;
use crate::ops::cpu::to_u8;
use image::RgbaImage;
use rayon::prelude::*;

/// The unsharp mask of the contract.
pub fn unsharp(image: &RgbaImage, sigma: f32, amount: f32, radius: u32) -> RgbaImage {
    let blurred = gaussian_plane(image, sigma, radius);
    let mut out = image.clone();
    out.par_chunks_mut(4)
        .zip(blurred.par_iter())
        .for_each(|(p, g)| {
            for c in 0..3 {
                let v = f32::from(p[c]);
                p[c] = to_u8(v + amount * (v - g[c]));
            }
        });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::random_image;

    #[test]
    fn amount_zero_is_the_identity_and_alpha_is_kept() {
        let img = random_image(33, 20, 5);
        assert_eq!(unsharp(&img, 2.0, 0.0, 6), img);
    }

    #[test]
    fn follows_the_formula_on_every_channel() {
        let img = random_image(17, 9, 6);
        let (sigma, amount, radius) = (1.5, 2.5, 4);
        let g = gaussian_plane(&img, sigma, radius);
        let out = unsharp(&img, sigma, amount, radius);
        for (i, ((p, q), g)) in img.pixels().zip(out.pixels()).zip(&g).enumerate() {
            for (c, &blur) in g.iter().enumerate() {
                let v = f64::from(p.0[c]);
                let want = (v + f64::from(amount) * (v - f64::from(blur))).clamp(0.0, 255.0);
                assert!((f64::from(q.0[c]) - want).abs() <= 0.5 + 1e-3, "pixel {i}");
            }
            assert_eq!(p.0[3], q.0[3]);
        }
    }
}
