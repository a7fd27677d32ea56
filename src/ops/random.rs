//! Reproducible random images: test inputs and benchmark data (never all zero, so that a
//! kernel that writes nothing cannot pass a comparison).

use image::RgbaImage;
use rand::{Rng, SeedableRng};

/// A `width × height` RGBA8 image of seeded random bytes.
pub fn random_image(width: u32, height: u32, seed: u64) -> RgbaImage {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut img = RgbaImage::new(width, height);
    let pixels: &mut [u8] = &mut img;
    rng.fill(pixels);
    if let Some(first) = pixels.first_mut() {
        *first |= 1;
    }
    img
}
