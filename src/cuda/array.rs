//! A CUDA-owned 2-D array usable as both texture and surface (pipeline intermediates).

use super::{check, ArrayFormat, ArrayRef, CudaError};
use cudarc::driver::sys::{self, CUarray, CUDA_ARRAY3D_DESCRIPTOR};
use cudarc::driver::CudaContext;
use std::sync::Arc;

/// An array created with surface load/store; destroyed on drop (its context is kept
/// alive until then).
pub struct CudaArray2d {
    raw: CUarray,
    ctx: Arc<CudaContext>,
    pub width: u32,
    pub height: u32,
    pub format: ArrayFormat,
}

impl CudaArray2d {
    /// Allocates a `width × height` RGBA8 array in `ctx`.
    pub fn new(ctx: &Arc<CudaContext>, width: u32, height: u32) -> Result<Self, CudaError> {
        Self::with_format(ctx, width, height, ArrayFormat::RGBA8)
    }

    /// Allocates a `width × height` array of `format` in `ctx`.
    pub fn with_format(
        ctx: &Arc<CudaContext>,
        width: u32,
        height: u32,
        format: ArrayFormat,
    ) -> Result<Self, CudaError> {
        ctx.bind_to_thread()
            .map_err(CudaError::driver("cuCtxSetCurrent"))?;
        if crate::fault::injected(crate::fault::Fault::OomTexture) {
            return Err(CudaError::OutOfMemory {
                call: "cuArray3DCreate",
            });
        }
        // Every field set explicitly: a zeroed descriptor has no valid format value.
        let desc = CUDA_ARRAY3D_DESCRIPTOR {
            Width: width as usize,
            Height: height as usize,
            Depth: 0,
            Format: format.format,
            NumChannels: format.channels,
            Flags: sys::CUDA_ARRAY3D_SURFACE_LDST,
        };
        let mut raw: CUarray = std::ptr::null_mut();
        // SAFETY: `desc` is fully initialised and `raw` is a valid out-pointer.
        check("cuArray3DCreate", unsafe {
            sys::cuArray3DCreate_v2(&mut raw, &desc)
        })?;
        Ok(Self {
            raw,
            ctx: ctx.clone(),
            width,
            height,
            format,
        })
    }

    /// The array, borrowed for as long as `self`.
    pub fn view(&self) -> ArrayRef<'_> {
        // SAFETY: a surface-load/store array of `ctx`, freed only when `self` drops.
        unsafe { ArrayRef::new(self.raw) }
    }
}

// SAFETY: an array handle is usable from any thread of its context (the calls on it bind
// the context first); the array is owned by one value at a time.
unsafe impl Send for CudaArray2d {}

impl Drop for CudaArray2d {
    fn drop(&mut self) {
        // SAFETY: `raw` was created by cuArray3DCreate in this context, destroyed once.
        super::release_in(&self.ctx, "cuArrayDestroy", || unsafe {
            sys::cuArrayDestroy(self.raw)
        });
    }
}
