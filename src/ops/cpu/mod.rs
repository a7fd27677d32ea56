//! CPU reference implementations of the operation contract, parallel over rows (rayon).
//!
//! Every later backend is tested against these functions; each file also checks itself
//! against a plain, obviously correct version.

mod box_filter;
mod equalize;
mod gaussian;
mod histogram;
mod rows;
mod simd;
mod sobel;
mod transpose;

pub use box_filter::box_filter;
pub use equalize::equalize_lut;
pub use gaussian::{gaussian, gaussian_plane, gaussian_weights, to_u8};
pub use histogram::histogram;
pub use sobel::sobel;
pub use transpose::transpose;

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
