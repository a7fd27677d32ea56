//! The Mandelbrot picture's pixel buffer on the external-memory path: one Vulkan buffer
//! that GL sees as an ordinary buffer (the source of the display texture's upload) and CUDA
//! as a device pointer (the colour kernels' output), for as long as the size stays, handed
//! between the two by semaphores instead of a map and an unmap per frame. Release with
//! [`SharedPbo::destroy`] after the GL buffer made with it.

use super::external::{hand_back_to_gl, usable_sync, BufferBacking, ExternalInterop, ExternalSync};
use super::interop_resources::{InteropResources, InteropViews};
use super::PipelineError;
use crate::gl::{GlBuffer, SharedObjects};
use cudarc::driver::CudaStream;
use std::sync::Arc;

pub struct SharedPbo {
    interop: ExternalInterop,
    backing: BufferBacking,
    name: glow::Buffer,
    sync: Option<ExternalSync>,
}

impl SharedPbo {
    /// Shared memory of `bytes`; returns the GL buffer on it too.
    pub fn new(
        interop: &ExternalInterop,
        gl: &glow::Context,
        bytes: usize,
    ) -> Result<(Self, GlBuffer), PipelineError> {
        let (backing, buffer) = BufferBacking::new(interop, gl, bytes)?;
        let shared = Self {
            interop: interop.clone(),
            backing,
            name: buffer.id,
            sync: None,
        };
        Ok((shared, buffer))
    }

    /// Deletes the semaphores and the memory (the GL buffer is the caller's).
    pub fn destroy(self, gl: &glow::Context) {
        if let Some(sync) = self.sync {
            sync.destroy(gl);
        }
        self.backing.destroy(gl);
    }
}

impl InteropResources for SharedPbo {
    fn acquire(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
    ) -> Result<InteropViews, PipelineError> {
        let objects = SharedObjects {
            buffers: &[self.name],
            textures: &[],
        };
        usable_sync(&mut self.sync, &self.interop, gl)?.hand_to_cuda(gl, &objects, stream)?;
        Ok(InteropViews {
            arrays: Vec::new(),
            pointers: vec![self.backing.pointer()],
        })
    }

    fn release(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
    ) -> Result<(), PipelineError> {
        let objects = SharedObjects {
            buffers: &[self.name],
            textures: &[],
        };
        hand_back_to_gl(&mut self.sync, gl, &objects, stream)
    }
}
