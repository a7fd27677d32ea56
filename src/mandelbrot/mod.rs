//! The Mandelbrot explorer's contract and CPU reference: the view, escape-time dwells,
//! Mariani–Silver refinement, palettes and bookmarks. The CUDA renderer is in
//! `pipeline::cuda_mandelbrot`.

mod bookmarks;
mod cpu;
pub mod deep;
mod mariani_silver;
mod palette;
mod view;

pub use bookmarks::BOOKMARKS;
pub use cpu::{dwell_at, render_per_pixel};
pub use mariani_silver::{render_mariani_silver, MsRecord, RectKind};
pub use palette::{colorize, Palette};
pub use view::{parse_center as parse_center_arg, Mode, Precision, View};

/// Largest max dwell (deep views need 10⁵ and more).
pub const MAX_DWELL_LIMIT: u32 = 1 << 20;
/// Largest max dwell a 16-bit dwell PNG can hold.
pub const MAX_DWELL_16_BIT: u32 = 65535;

/// The dwells of a view, row-major, one per pixel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dwells {
    pub width: u32,
    pub height: u32,
    pub values: Vec<u32>,
}

impl Dwells {
    /// Number of pixels whose dwells differ.
    pub fn mismatches(&self, other: &Dwells) -> usize {
        self.values
            .iter()
            .zip(&other.values)
            .filter(|(a, b)| a != b)
            .count()
            + self.values.len().abs_diff(other.values.len())
    }

    /// The dwells as a 16-bit greyscale image (values are the dwells).
    pub fn to_gray16(&self) -> Option<image::ImageBuffer<image::Luma<u16>, Vec<u16>>> {
        let values = self
            .values
            .iter()
            .map(|&d| d.min(MAX_DWELL_16_BIT) as u16)
            .collect();
        image::ImageBuffer::from_raw(self.width, self.height, values)
    }
}
