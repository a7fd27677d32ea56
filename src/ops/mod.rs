//! The operation contract shared by every backend: filter specifications, the
//! histogram type and the CPU reference implementations.
//!
//! Images are RGBA8 ([`image::RgbaImage`]). Borders clamp to the edge; alpha passes
//! through unchanged except for `transpose`, where it moves with its pixel.

pub mod cpu;
mod filter;
pub mod histogram;
mod luma;
mod random;

pub use filter::{
    default_gaussian_radius as filter_default_gaussian_radius, Filter, FilterSpecError,
    BOX_RADIUS_MAX, GAUSSIAN_RADIUS_MAX,
};
pub use histogram::{ChannelStats, Histogram, HISTOGRAM_BINS};
pub use luma::{luma, luma_bin};
pub use random::random_image;
