//! A surface object over a CUDA array created or registered with surface load/store.

use super::texture_object::array_resource;
use super::{check, CudaError};
use cudarc::driver::sys::{self, CUarray};

/// Surface object for `surf2Dwrite`; destroyed on drop.
pub struct SurfaceObject {
    raw: sys::CUsurfObject,
}

impl SurfaceObject {
    /// Creates a surface object over `array`, which must outlive it.
    pub fn from_array(array: CUarray) -> Result<Self, CudaError> {
        let resource = array_resource(array);
        let mut raw = 0;
        // SAFETY: the descriptor is fully initialised; `raw` is a valid out-pointer.
        check("cuSurfObjectCreate", unsafe {
            sys::cuSurfObjectCreate(&mut raw, &resource)
        })?;
        Ok(Self { raw })
    }

    /// The handle passed to kernels (`cudaSurfaceObject_t`).
    pub fn handle(&self) -> u64 {
        self.raw
    }
}

impl Drop for SurfaceObject {
    fn drop(&mut self) {
        // SAFETY: created by cuSurfObjectCreate, destroyed once.
        if let Err(e) = check("cuSurfObjectDestroy", unsafe {
            sys::cuSurfObjectDestroy(self.raw)
        }) {
            log::error!("{e}");
        }
    }
}
