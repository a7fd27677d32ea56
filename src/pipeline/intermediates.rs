//! Ping-pong CUDA arrays between filter stages, reallocated only when a size changes; each
//! slot keeps the last other size as a spare (a stack with a transpose alternates).

use super::with_spare::WithSpare;
use crate::cuda::{ArrayRef, CudaArray2d, CudaError, SurfaceObject, TextureObject};
use cudarc::driver::CudaContext;
use std::sync::Arc;

/// One intermediate image with its texture (read) and surface (write) objects. Fields drop
/// in order: the objects before the array they view (held only to be freed last).
pub struct Intermediate {
    pub texture: TextureObject<'static>,
    pub surface: SurfaceObject<'static>,
    _array: CudaArray2d,
}

impl Intermediate {
    fn new(ctx: &Arc<CudaContext>, width: u32, height: u32) -> Result<Self, CudaError> {
        let array = CudaArray2d::new(ctx, width, height)?;
        // SAFETY: `array` is an RGBA8 surface-load/store array of `ctx`, owned by the same
        // `Intermediate`, whose fields drop the objects before the array.
        let view = unsafe { ArrayRef::new(array.view().raw()) };
        let texture = TextureObject::from_array(ctx, view)?;
        let surface = SurfaceObject::from_array(ctx, view)?;
        Ok(Self {
            texture,
            surface,
            _array: array,
        })
    }
}

/// Two slots; stage k writes slot k % 2 and reads slot (k − 1) % 2.
#[derive(Default)]
pub struct Intermediates {
    slots: [WithSpare<Intermediate>; 2],
}

impl Intermediates {
    /// Makes slot `k % 2` hold a `width × height` image. When the allocation fails, the
    /// slot's other arrays (not in use by this frame) are freed and it is tried once more.
    pub fn ensure(
        &mut self,
        ctx: &Arc<CudaContext>,
        k: usize,
        width: u32,
        height: u32,
    ) -> Result<(), CudaError> {
        let slot = &mut self.slots[k % 2];
        let make = || Intermediate::new(ctx, width, height);
        if slot.select((width, height), make, drop).is_err() {
            slot.release_all(drop);
            slot.select((width, height), make, drop)?;
        }
        Ok(())
    }

    /// The slot written by stage `k`.
    pub fn get(&self, k: usize) -> Option<&Intermediate> {
        self.slots[k % 2].current()
    }

    /// Frees the arrays kept for other sizes; true when there were any.
    pub fn release_spares(&mut self) -> bool {
        let [a, b] = &mut self.slots;
        a.release_spare(drop) | b.release_spare(drop)
    }
}
