//! What a filter's CUDA launcher gets for one stage of the frame, and what the launchers of
//! the typed kernels (`kernels/typed.cuh`: every stored format but RGBA8) share.

use crate::cuda::{blocks, check_scratch, CudaError, KernelSet, SurfaceObject, TextureObject};
use crate::kernel_constants::{
    TYPED_BLOCK_X, TYPED_BLOCK_Y, TYPED_RANGE_ROWS, TYPED_STRIP_MAX_TEXEL_BYTES,
};
use crate::pixels::SampleType;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use std::sync::Arc;

/// One stage: read `input` (`width × height`, clamp-to-edge texture), write `output`
/// (sized by the filter's `output_size`), both stored as `layout` (sample type, 1 or 4
/// channels), with `scratch` of at least the filter's `scratch_bytes`.
pub struct GpuStage<'a> {
    pub kernels: &'a KernelSet,
    pub stream: &'a Arc<CudaStream>,
    pub input: &'a TextureObject<'a>,
    pub output: &'a SurfaceObject<'a>,
    pub width: u32,
    pub height: u32,
    pub layout: (SampleType, u8),
    pub scratch: &'a mut CudaSlice<u8>,
}

/// 8-bit RGBA: the layout of the filters' fast kernels.
pub const RGBA8: (SampleType, u8) = (SampleType::U8, 4);

impl GpuStage<'_> {
    /// Whether the stage is RGBA8 (the fast kernels) rather than a typed format.
    pub fn is_rgba8(&self) -> bool {
        self.layout == RGBA8
    }

    /// Colour channels the stage computes: 1 for grey, 3 for RGBA (alpha is kept).
    pub fn colour_channels(&self) -> usize {
        usize::from(self.layout.1.min(3))
    }

    /// One thread a pixel over `w × h`: `TYPED_BLOCK_X × TYPED_BLOCK_Y` blocks.
    pub fn pixel_grid(w: u32, h: u32) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (blocks(w, TYPED_BLOCK_X), blocks(h, TYPED_BLOCK_Y), 1),
            block_dim: (TYPED_BLOCK_X, TYPED_BLOCK_Y, 1),
            shared_mem_bytes: 0,
        }
    }

    /// The launch of a float range kernel (`typed.cuh`): a thread folds `TYPED_RANGE_ROWS`
    /// rows of its column.
    pub fn range_grid(w: u32, h: u32) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (
                blocks(w, TYPED_BLOCK_X),
                blocks(h, TYPED_BLOCK_Y * TYPED_RANGE_ROWS),
                1,
            ),
            ..Self::pixel_grid(w, h)
        }
    }

    /// `count` u32 of the scratch from byte `offset`, copied to the host (waits for the
    /// stream).
    pub fn scratch_u32(&self, offset: usize, count: usize) -> Result<Vec<u32>, CudaError> {
        check_scratch("scratch read", self.scratch.len(), offset + 4 * count)?;
        let mut bytes = vec![0u8; 4 * count];
        self.stream
            .memcpy_dtoh(&self.scratch.slice(offset..offset + 4 * count), &mut bytes)
            .map_err(CudaError::driver("cuMemcpyDtoH(scratch)"))?;
        self.stream
            .synchronize()
            .map_err(CudaError::driver("cuStreamSynchronize"))?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    /// Copies `values` into the scratch from byte `offset`.
    pub fn write_scratch(&mut self, offset: usize, values: &[u32]) -> Result<(), CudaError> {
        let end = offset + 4 * values.len();
        check_scratch("scratch write", self.scratch.len(), end)?;
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.stream
            .memcpy_htod(&bytes, &mut self.scratch.slice_mut(offset..end))
            .map_err(CudaError::driver("cuMemcpyHtoD(scratch)"))
    }

    /// Zeroes `bytes` of the scratch from byte `offset`.
    pub fn zero_scratch(&mut self, offset: usize, bytes: usize) -> Result<(), CudaError> {
        check_scratch("scratch fill", self.scratch.len(), offset + bytes)?;
        self.stream
            .memset_zeros(&mut self.scratch.slice_mut(offset..offset + bytes))
            .map_err(CudaError::driver("cuMemsetD8Async(scratch)"))
    }
}

/// The kernel of `names` (one per typed format, in `TYPED_FORMATS` order: u8x1, u16x1,
/// u16x4, f32x1, f32x4) for `layout`; `base` names the filter in the error.
pub fn pick_typed_kernel(
    layout: (SampleType, u8),
    names: [&'static str; 5],
    base: &'static str,
) -> Result<&'static str, CudaError> {
    let index = match layout {
        (SampleType::U8, 1) => 0,
        (SampleType::U16, 1) => 1,
        (SampleType::U16, 4) => 2,
        (SampleType::F32, 1) => 3,
        (SampleType::F32, 4) => 4,
        (sample, channels) => {
            return Err(CudaError::Launch {
                kernel: base,
                reason: format!("no {base} kernel for {sample} samples × {channels}"),
            })
        }
    };
    Ok(names[index])
}

/// The name of kernel `$base`'s instance for the stage layout `$layout` (`<base>_u16x4`…),
/// as `TYPED_FORMATS` in `kernels/typed.cuh` names them.
#[macro_export]
macro_rules! typed_kernel {
    ($base:literal, $layout:expr) => {
        $crate::filters::pick_typed_kernel(
            $layout,
            [
                concat!($base, "_u8x1"),
                concat!($base, "_u16x1"),
                concat!($base, "_u16x4"),
                concat!($base, "_f32x1"),
                concat!($base, "_f32x4"),
            ],
            $base,
        )
    };
}

/// Whether the typed Sobel and 3×3 median of `layout` (a stage's: its channels are the
/// stored ones, grey 1, else 4) slide strips (`slide_window_strip`): texels of at most
/// `TYPED_STRIP_MAX_TEXEL_BYTES` (`SlidesStrips` in kernels/typed.cuh, the same rule);
/// wider ones run one thread a pixel.
pub fn slides_strips(layout: (SampleType, u8)) -> bool {
    layout.0.bytes() * usize::from(layout.1) <= TYPED_STRIP_MAX_TEXEL_BYTES as usize
}

/// Bytes of a typed stage's f32 (or u32) plane of its colour channels.
pub fn colour_plane_bytes(width: u32, height: u32, layout: (SampleType, u8)) -> usize {
    width as usize * height as usize * usize::from(layout.1.min(3)) * 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_take_texels_up_to_eight_bytes() {
        let strips = |t, c| slides_strips((t, c));
        assert!(strips(SampleType::U8, 1) && strips(SampleType::U16, 1));
        assert!(strips(SampleType::F32, 1));
        // RGB is stored as RGBA.
        assert!(strips(SampleType::U16, 3) && strips(SampleType::U16, 4));
        assert!(!strips(SampleType::F32, 3) && !strips(SampleType::F32, 4));
    }

    /// `typed_kernel!` names each layout by the suffix that `TYPED_FORMATS` in
    /// `kernels/typed.cuh` gives the same sample type and channels.
    #[test]
    fn typed_kernel_names_follow_typed_formats() {
        let header = include_str!("../../kernels/typed.cuh");
        for (sample, channels, c_type) in [
            (SampleType::U8, 1, "unsigned char"),
            (SampleType::U16, 1, "unsigned short"),
            (SampleType::U16, 4, "unsigned short"),
            (SampleType::F32, 1, "float"),
            (SampleType::F32, 4, "float"),
        ] {
            let name = crate::typed_kernel!("k", (sample, channels)).expect("a typed layout");
            let suffix = name.strip_prefix("k_").expect("prefix");
            let entry = format!("M({suffix}, {c_type}, {channels})");
            assert!(header.contains(&entry), "typed.cuh lacks {entry}");
        }
        assert!(crate::typed_kernel!("k", RGBA8).is_err());
        assert!(crate::typed_kernel!("k", (SampleType::U16, 3)).is_err());
    }
}
