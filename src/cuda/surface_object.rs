//! A surface object over a CUDA array created or registered with surface load/store.

use super::texture_object::array_resource;
use super::{check, CudaError};
use cudarc::driver::sys::{self, CUarray};
use cudarc::driver::CudaContext;
use std::sync::Arc;

/// Surface object for `surf2Dwrite`; destroyed on drop.
pub struct SurfaceObject {
    raw: sys::CUsurfObject,
    ctx: Arc<CudaContext>,
}

impl SurfaceObject {
    /// Creates a surface object over `array`.
    ///
    /// # Safety
    /// `array` must be a live RGBA8 array of this context (created with surface load/store
    /// for a surface) that outlives the object and every kernel launched with its handle.
    pub unsafe fn from_array(ctx: &Arc<CudaContext>, array: CUarray) -> Result<Self, CudaError> {
        ctx.bind_to_thread()
            .map_err(CudaError::driver("cuCtxSetCurrent"))?;
        let resource = array_resource(array);
        let mut raw = 0;
        // SAFETY: the descriptor is fully initialised; `raw` is a valid out-pointer.
        check("cuSurfObjectCreate", unsafe {
            sys::cuSurfObjectCreate(&mut raw, &resource)
        })?;
        Ok(Self {
            raw,
            ctx: ctx.clone(),
        })
    }

    /// The handle passed to kernels (`cudaSurfaceObject_t`).
    pub fn handle(&self) -> u64 {
        self.raw
    }
}

impl Drop for SurfaceObject {
    fn drop(&mut self) {
        // SAFETY: created by cuSurfObjectCreate in this context, destroyed once.
        super::release_in(&self.ctx, "cuSurfObjectDestroy", || unsafe {
            sys::cuSurfObjectDestroy(self.raw)
        });
    }
}
