//! A surface object over a CUDA array created or registered with surface load/store.

use super::texture_object::array_resource;
use super::{check, ArrayRef, CudaError};
use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::marker::PhantomData;
use std::sync::Arc;

/// Surface object for `surf2Dwrite`, valid while the array it writes (`'a`); destroyed on
/// drop.
pub struct SurfaceObject<'a> {
    raw: sys::CUsurfObject,
    ctx: Arc<CudaContext>,
    array: PhantomData<ArrayRef<'a>>,
}

impl<'a> SurfaceObject<'a> {
    /// Creates a surface object over `array` (an array of `ctx` with surface load/store),
    /// which outlives it by construction.
    pub fn from_array(ctx: &Arc<CudaContext>, array: ArrayRef<'a>) -> Result<Self, CudaError> {
        ctx.bind_to_thread()
            .map_err(CudaError::driver("cuCtxSetCurrent"))?;
        let resource = array_resource(array.raw());
        let mut raw = 0;
        // SAFETY: the descriptor is fully initialised; `raw` is a valid out-pointer.
        check("cuSurfObjectCreate", unsafe {
            sys::cuSurfObjectCreate(&mut raw, &resource)
        })?;
        Ok(Self {
            raw,
            ctx: ctx.clone(),
            array: PhantomData,
        })
    }

    /// The handle passed to kernels (`cudaSurfaceObject_t`).
    pub fn handle(&self) -> u64 {
        self.raw
    }
}

impl Drop for SurfaceObject<'_> {
    fn drop(&mut self) {
        // SAFETY: created by cuSurfObjectCreate in this context, destroyed once.
        super::release_in(&self.ctx, "cuSurfObjectDestroy", || unsafe {
            sys::cuSurfObjectDestroy(self.raw)
        });
    }
}
