//! Ping-pong CUDA arrays between filter stages, reallocated only when a size changes.

use crate::cuda::{CudaArray2d, CudaError, SurfaceObject, TextureObject};
use cudarc::driver::CudaContext;
use std::sync::Arc;

/// One intermediate image with its texture (read) and surface (write) objects. Fields drop
/// in order: the objects before the array they view.
pub struct Intermediate {
    pub texture: TextureObject,
    pub surface: SurfaceObject,
    pub array: CudaArray2d,
}

impl Intermediate {
    fn new(ctx: &Arc<CudaContext>, width: u32, height: u32) -> Result<Self, CudaError> {
        let array = CudaArray2d::new(ctx, width, height)?;
        // SAFETY: `array` is an RGBA8 surface-load/store array of `ctx`, owned by the same
        // `Intermediate`, whose fields drop the objects before the array.
        let texture = unsafe { TextureObject::from_array(ctx, array.raw())? };
        // SAFETY: as above.
        let surface = unsafe { SurfaceObject::from_array(ctx, array.raw())? };
        Ok(Self {
            texture,
            surface,
            array,
        })
    }
}

/// Two slots; stage k writes slot k % 2 and reads slot (k − 1) % 2.
#[derive(Default)]
pub struct Intermediates {
    slots: [Option<Intermediate>; 2],
}

impl Intermediates {
    /// Makes slot `k % 2` hold a `width × height` image.
    pub fn ensure(
        &mut self,
        ctx: &Arc<CudaContext>,
        k: usize,
        width: u32,
        height: u32,
    ) -> Result<(), CudaError> {
        let slot = &mut self.slots[k % 2];
        if !matches!(slot, Some(i) if i.array.width == width && i.array.height == height) {
            *slot = None; // free before allocating the replacement
            *slot = Some(Intermediate::new(ctx, width, height)?);
        }
        Ok(())
    }

    /// The slot written by stage `k`.
    pub fn get(&self, k: usize) -> Option<&Intermediate> {
        self.slots[k % 2].as_ref()
    }
}
