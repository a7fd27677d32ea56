//! How a CUDA array stores its pixels and how texture objects read them: the CUDA side of
//! the project's GPU pixel formats (`pipeline::GpuPixelFormat` picks one per image).

use cudarc::driver::sys::{self, CUarray_format};

/// A CUDA array's sample format and channel count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrayFormat {
    pub format: CUarray_format,
    /// 1 or 4 (arrays have no 3-channel formats).
    pub channels: u32,
}

impl ArrayFormat {
    /// 8-bit RGBA, the frame's format before typed images.
    pub const RGBA8: ArrayFormat = ArrayFormat {
        format: CUarray_format::CU_AD_FORMAT_UNSIGNED_INT8,
        channels: 4,
    };

    /// Bytes of one sample.
    pub fn sample_bytes(self) -> usize {
        match self.format {
            CUarray_format::CU_AD_FORMAT_UNSIGNED_INT8
            | CUarray_format::CU_AD_FORMAT_SIGNED_INT8 => 1,
            CUarray_format::CU_AD_FORMAT_UNSIGNED_INT16
            | CUarray_format::CU_AD_FORMAT_SIGNED_INT16
            | CUarray_format::CU_AD_FORMAT_HALF => 2,
            _ => 4,
        }
    }

    /// Bytes of one pixel (a row's pitch is width × this).
    pub fn bytes_per_pixel(self) -> usize {
        self.sample_bytes() * self.channels as usize
    }

    /// Whether samples are integers: texture objects then read them as they are stored
    /// (`CU_TRSF_READ_AS_INTEGER`, no normalisation to 0..1); floats are read as floats.
    pub fn is_integer(self) -> bool {
        !matches!(
            self.format,
            CUarray_format::CU_AD_FORMAT_FLOAT | CUarray_format::CU_AD_FORMAT_HALF
        )
    }

    /// The texture object's read flags for this format: elements as stored.
    pub fn texture_read_flags(self) -> u32 {
        if self.is_integer() {
            sys::CU_TRSF_READ_AS_INTEGER
        } else {
            0
        }
    }
}
