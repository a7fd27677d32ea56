//! The Mandelbrot picture's pixel buffer object: written by the colour kernel, then copied
//! into the display texture on the GL side. On the external-memory path it is shared with
//! CUDA for as long as its size stays (`SharedPbo`, semaphores per frame); on the classic
//! path it is registered and mapped and unmapped each frame. The one place that hands it
//! between the APIs.

use super::external::ExternalInterop;
use super::interop_resources::{ClassicResources, InteropResources};
use super::shared_pbo::SharedPbo;
use super::PipelineError;
use crate::cuda::{ffi, CudaError, GpuTimeline};
use crate::gl::{GlBuffer, GlTexture};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, CudaStream};
use std::sync::Arc;

/// How CUDA reaches the buffer.
enum Access {
    Classic(ClassicResources),
    External(Box<SharedPbo>),
}

/// The PBO and CUDA's access to it (re-made when the size changes).
pub struct MandelbrotPbo {
    buffer: GlBuffer,
    access: Access,
}

impl MandelbrotPbo {
    /// A PBO of `bytes`: shared memory with `interop`, else registered write-discard.
    fn new(
        gl: &glow::Context,
        ctx: &Arc<CudaContext>,
        interop: Option<&ExternalInterop>,
        bytes: usize,
    ) -> Result<Self, PipelineError> {
        if let Some(interop) = interop {
            let (shared, buffer) = SharedPbo::new(interop, gl, bytes)?;
            return Ok(Self {
                buffer,
                access: Access::External(Box::new(shared)),
            });
        }
        let buffer = GlBuffer::new(gl, bytes)?;
        match ClassicResources::register(ctx, &[], &[(buffer.id, ffi::REGISTER_WRITE_DISCARD)]) {
            Ok(resources) => Ok(Self {
                buffer,
                access: Access::Classic(resources),
            }),
            Err(e) => {
                buffer.destroy(gl);
                Err(e.into())
            }
        }
    }

    fn usable(&self) -> bool {
        match &self.access {
            Access::Classic(c) => c.usable(),
            Access::External(_) => true,
        }
    }

    /// Keeps `slot` holding a PBO of `bytes` CUDA can reach (a classic registration lost
    /// with a failed frame is made again).
    pub fn ensure<'a>(
        slot: &'a mut Option<Self>,
        gl: &glow::Context,
        ctx: &Arc<CudaContext>,
        interop: Option<&ExternalInterop>,
        bytes: usize,
    ) -> Result<&'a mut Self, PipelineError> {
        if !slot
            .as_ref()
            .is_some_and(|p| p.buffer.size == bytes && p.usable())
        {
            if let Some(old) = slot.take() {
                old.destroy(gl);
            }
            *slot = Some(Self::new(gl, ctx, interop, bytes)?);
        }
        slot.as_mut()
            .ok_or(PipelineError::Cuda(CudaError::NoDevice))
    }

    /// Hands the PBO to CUDA (marking "interop in" on the timeline), runs `write` on its
    /// device pointer and size and the timeline, and hands it back to GL ("interop out").
    pub fn write<T>(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
        timeline: &mut GpuTimeline,
        write: impl FnOnce(CUdeviceptr, usize, &mut GpuTimeline) -> Result<T, CudaError>,
    ) -> Result<T, PipelineError> {
        let access: &mut dyn InteropResources = match &mut self.access {
            Access::Classic(c) => c,
            Access::External(s) => s.as_mut(),
        };
        let views = access.acquire(gl, stream)?;
        timeline.mark("interop in", stream)?;
        let written = views
            .pointer(0)
            .and_then(|(ptr, size)| write(ptr, size, timeline));
        let released = access.release(gl, stream);
        timeline.mark("interop out", stream)?;
        let value = written?;
        released.map(|()| value)
    }

    /// Copies the PBO into `texture` (GL side, after the hand-back).
    pub fn upload_to(&self, gl: &glow::Context, texture: &GlTexture) -> Result<(), PipelineError> {
        Ok(texture.upload_from_pbo(gl, &self.buffer)?)
    }

    /// Releases CUDA's access (registration or shared memory), then the buffer.
    pub fn destroy(self, gl: &glow::Context) {
        match self.access {
            Access::Classic(c) => {
                drop(c);
                self.buffer.destroy(gl);
            }
            Access::External(s) => {
                self.buffer.destroy(gl);
                (*s).destroy(gl);
            }
        }
    }
}
