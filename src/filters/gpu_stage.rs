//! What a filter's CUDA launcher gets for one stage of the frame.

use crate::cuda::{KernelSet, SurfaceObject, TextureObject};
use cudarc::driver::{CudaSlice, CudaStream};
use std::sync::Arc;

/// One stage: read `input` (`width × height`, clamp-to-edge texture), write `output`
/// (sized by the filter's `output_size`), with `scratch` of at least the filter's
/// `scratch_bytes`.
pub struct GpuStage<'a> {
    pub kernels: &'a KernelSet,
    pub stream: &'a Arc<CudaStream>,
    pub input: &'a TextureObject<'a>,
    pub output: &'a SurfaceObject<'a>,
    pub width: u32,
    pub height: u32,
    pub scratch: &'a mut CudaSlice<u8>,
}
