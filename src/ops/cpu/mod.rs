//! CPU references shared beyond one filter (the histogram, the equalisation table) and the
//! helpers the filters' own references (`filters/<name>/cpu.rs`) are built from: row bands
//! in parallel (rayon), the AVX2 dispatch, the rounding to 8 bits.
//!
//! Every backend is tested against the references; each file also checks itself against a
//! plain, obviously correct version.

mod equalize;
mod histogram;
pub mod rows;
pub mod simd;

pub use equalize::equalize_lut;
pub use histogram::{histogram, histogram_shown};

/// Rounds a filtered value to 8 bits: `clamp(round(v), 0, 255)`.
#[inline(always)]
pub fn to_u8(v: f32) -> u8 {
    v.round().clamp(0.0, 255.0) as u8
}

#[cfg(test)]
pub(crate) mod test_images {
    use image::RgbaImage;

    pub use crate::ops::random_image as random;

    /// Clamp-to-edge pixel fetch.
    pub fn at(img: &RgbaImage, x: i64, y: i64) -> [u8; 4] {
        let x = x.clamp(0, i64::from(img.width()) - 1) as u32;
        let y = y.clamp(0, i64::from(img.height()) - 1) as u32;
        img.get_pixel(x, y).0
    }

    pub const SIZES: [(u32, u32); 6] = [(1, 1), (7, 3), (3, 7), (1, 9), (16, 16), (33, 20)];
}
