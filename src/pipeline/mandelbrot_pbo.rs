//! The Mandelbrot picture's pixel buffer object: registered with CUDA, mapped while the
//! colour kernel writes it, then copied into the display texture on the GL side. The one
//! place that maps and unmaps it.

use super::PipelineError;
use crate::cuda::interop::{GraphicsResource, Registered};
use crate::cuda::{ffi, CudaError, GpuTimeline};
use crate::gl::{GlBuffer, GlTexture};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, CudaStream};
use std::sync::Arc;

/// The PBO and its registration (re-made when the size changes).
pub struct MandelbrotPbo {
    buffer: GlBuffer,
    registered: Option<Registered>,
}

impl MandelbrotPbo {
    /// A PBO of `bytes` registered write-discard with CUDA.
    fn new(
        gl: &glow::Context,
        ctx: &Arc<CudaContext>,
        bytes: usize,
    ) -> Result<Self, PipelineError> {
        let buffer = GlBuffer::new(gl, bytes)?;
        match GraphicsResource::buffer(ctx, buffer.id, ffi::REGISTER_WRITE_DISCARD) {
            Ok(resource) => Ok(Self {
                buffer,
                registered: Some(Registered::new(vec![resource])),
            }),
            Err(e) => {
                buffer.destroy(gl);
                Err(e.into())
            }
        }
    }

    /// Keeps `slot` holding a registered PBO of `bytes` (a failed frame drops the
    /// registration with its mapping: it is re-made then too).
    pub fn ensure<'a>(
        slot: &'a mut Option<Self>,
        gl: &glow::Context,
        ctx: &Arc<CudaContext>,
        bytes: usize,
    ) -> Result<&'a mut Self, PipelineError> {
        if !slot
            .as_ref()
            .is_some_and(|p| p.buffer.size == bytes && p.registered.is_some())
        {
            if let Some(old) = slot.take() {
                old.destroy(gl);
            }
            *slot = Some(Self::new(gl, ctx, bytes)?);
        }
        slot.as_mut()
            .ok_or(PipelineError::Cuda(CudaError::NoDevice))
    }

    /// Maps the PBO, runs `write` on its device pointer and size, and unmaps it, marking
    /// "map", "colour" and "unmap" on the timeline.
    pub fn write_mapped(
        &mut self,
        stream: &Arc<CudaStream>,
        timeline: &mut GpuTimeline,
        write: impl FnOnce(CUdeviceptr, usize) -> Result<(), CudaError>,
    ) -> Result<(), CudaError> {
        let mapped = self
            .registered
            .take()
            .ok_or(CudaError::NoDevice)?
            .map(stream)?;
        timeline.mark("map", stream)?;
        let (ptr, size) = mapped.pointer(0)?;
        write(ptr, size)?;
        timeline.mark("colour", stream)?;
        self.registered = Some(mapped.unmap()?);
        timeline.mark("unmap", stream)
    }

    /// Copies the PBO into `texture` (GL side, after the unmap).
    pub fn upload_to(&self, gl: &glow::Context, texture: &GlTexture) -> Result<(), PipelineError> {
        Ok(texture.upload_from_pbo(gl, &self.buffer)?)
    }

    /// Releases the registration, then the buffer.
    pub fn destroy(self, gl: &glow::Context) {
        drop(self.registered);
        self.buffer.destroy(gl);
    }
}
