//! Ping-pong CUDA arrays between filter stages, reallocated only when a size or format
//! changes; each slot keeps the last other one as a spare (a stack with a transpose
//! alternates).

use crate::cuda::{CudaError, ImageArray};
use crate::pipeline::with_spare::{Size, WithSpare};
use crate::pipeline::GpuPixelFormat;
use cudarc::driver::CudaContext;
use std::sync::Arc;

/// Two slots; stage k writes slot k % 2 and reads slot (k − 1) % 2.
#[derive(Default)]
pub struct Intermediates {
    slots: [WithSpare<ImageArray, (Size, GpuPixelFormat)>; 2],
}

impl Intermediates {
    /// Makes slot `k % 2` hold a `width × height` image of `format`. When the allocation
    /// fails, the slot's other arrays (not in use by this frame) are freed and it is tried
    /// once more.
    pub fn ensure(
        &mut self,
        ctx: &Arc<CudaContext>,
        k: usize,
        (width, height): (u32, u32),
        format: GpuPixelFormat,
    ) -> Result<(), CudaError> {
        let slot = &mut self.slots[k % 2];
        let make = || ImageArray::with_format(ctx, width, height, format.cuda());
        let key = ((width, height), format);
        if slot.select(key, make, drop).is_err() {
            slot.release_all(drop);
            slot.select(key, make, drop)?;
        }
        Ok(())
    }

    /// The slot written by stage `k`.
    pub fn get(&self, k: usize) -> Option<&ImageArray> {
        self.slots[k % 2].current()
    }

    /// Frees the arrays kept for other sizes; true when there were any.
    pub fn release_spares(&mut self) -> bool {
        let [a, b] = &mut self.slots;
        a.release_spare(drop) | b.release_spare(drop)
    }
}
