//! Pixels as files hold them: 8-bit, 16-bit or 32-bit float samples, with 1 (grey), 3 (RGB)
//! or 4 (RGBA) interleaved channels, kept from load to save.
//!
//! Rules every backend follows (the CPU references state them, the kernels reproduce them):
//! - Integer results round half away from zero and saturate to the type's range; NaN
//!   becomes 0. Float results are kept as computed (no clamping to 0..1).
//! - Full scale is 255, 65535 or 1.0: a value `v` means `v / full scale` of white.
//! - Depth conversions: U8 → U16 multiplies by 257 (exact both ways), U16 → U8 is
//!   `round(v / 257)`, integers → F32 divide by full scale, F32 → integers clamp to 0..1,
//!   scale and round.
//! - Grey shown as colour repeats the grey value in R, G and B; a missing alpha is opaque.
//!
//! A leaf module: it depends on nothing of ours.

mod buffer;
mod image;
mod sample;

pub use self::image::PixelImage;
pub use buffer::{ImageBuf, PixelsError};
pub use sample::{f32_key, f32_of_key, Sample, SampleType};

/// Calls `$body` with `$buf` bound to the typed buffer inside a [`PixelImage`] (by
/// reference), whatever its sample type.
#[macro_export]
macro_rules! with_pixels {
    ($image:expr, $buf:ident => $body:expr) => {
        match $image {
            $crate::pixels::PixelImage::U8($buf) => $body,
            $crate::pixels::PixelImage::U16($buf) => $body,
            $crate::pixels::PixelImage::F32($buf) => $body,
        }
    };
}

/// Maps a [`PixelImage`] to one of the same sample type: `$body` gets the typed buffer and
/// must return an [`ImageBuf`] of the same sample type.
#[macro_export]
macro_rules! map_pixels {
    ($image:expr, $buf:ident => $body:expr) => {
        match $image {
            $crate::pixels::PixelImage::U8($buf) => $crate::pixels::PixelImage::U8($body),
            $crate::pixels::PixelImage::U16($buf) => $crate::pixels::PixelImage::U16($body),
            $crate::pixels::PixelImage::F32($buf) => $crate::pixels::PixelImage::F32($body),
        }
    };
}
