//! The operation contract shared by every backend: the histogram type, luma, and the CPU
//! reference implementations of the original filters (each filter's descriptor in
//! `filters/` names its reference).
//!
//! Images are RGBA8 ([`image::RgbaImage`]), except for the ranged histogram, which counts
//! any [`crate::pixels::PixelImage`]. Borders clamp to the edge; alpha passes
//! through unchanged except for `transpose`, where it moves with its pixel.

pub mod cpu;
pub mod histogram;
mod luma;
mod random;

pub use histogram::{ChannelStats, Histogram, ShownSelection, HISTOGRAM_BINS};
pub use luma::{luma, luma_bin};
pub use random::random_image;
