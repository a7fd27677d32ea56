//! The Mandelbrot picture's pixel buffer object on the map/unmap path: registered with
//! CUDA, mapped and unmapped each frame, written by the colour kernel, then copied into
//! the display texture on the GL side. (The external-memory path has no pixel buffer: the
//! colour kernels write the display texture itself, `shared_display.rs`.)

use crate::cuda::{ffi, CudaError, GpuTimeline};
use crate::gl::{GlBuffer, GlTexture};
use crate::pipeline::interop::{with_cuda_access, ClassicResources};
use crate::pipeline::PipelineError;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, CudaStream};
use std::sync::Arc;

/// The PBO and its registration (re-made when the size changes).
pub struct MandelbrotPbo {
    buffer: GlBuffer,
    access: ClassicResources,
}

impl MandelbrotPbo {
    /// A PBO of `bytes`, registered write-discard.
    fn new(
        gl: &glow::Context,
        ctx: &Arc<CudaContext>,
        bytes: usize,
    ) -> Result<Self, PipelineError> {
        let buffer = GlBuffer::new(gl, bytes)?;
        match ClassicResources::register(ctx, &[], &[(buffer.id, ffi::REGISTER_WRITE_DISCARD)]) {
            Ok(access) => Ok(Self { buffer, access }),
            Err(e) => {
                buffer.destroy(gl);
                Err(e.into())
            }
        }
    }

    /// Keeps `slot` holding a registered PBO of `bytes` (a registration lost with a failed
    /// frame is made again).
    pub fn ensure<'a>(
        slot: &'a mut Option<Self>,
        gl: &glow::Context,
        ctx: &Arc<CudaContext>,
        bytes: usize,
    ) -> Result<&'a mut Self, PipelineError> {
        if !slot
            .as_ref()
            .is_some_and(|p| p.buffer.size == bytes && p.access.usable())
        {
            if let Some(old) = slot.take() {
                old.destroy(gl);
            }
            *slot = Some(Self::new(gl, ctx, bytes)?);
        }
        slot.as_mut()
            .ok_or(PipelineError::Cuda(CudaError::Missing("pixel buffer")))
    }

    /// Maps the PBO (marking "interop in" on the timeline), runs `write` on its device
    /// pointer and size and the timeline, and unmaps it ("interop out").
    pub fn write<T>(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
        timeline: &mut GpuTimeline,
        write: impl FnOnce(CUdeviceptr, usize, &mut GpuTimeline) -> Result<T, CudaError>,
    ) -> Result<T, PipelineError> {
        with_cuda_access(&mut self.access, gl, stream, timeline, |views, timeline| {
            views
                .pointer(0)
                .and_then(|buffer| write(buffer.ptr, buffer.size, timeline))
        })
    }

    /// Copies the PBO into `texture` (GL side, after the unmap).
    pub fn upload_to(&self, gl: &glow::Context, texture: &GlTexture) -> Result<(), PipelineError> {
        Ok(texture.upload_from_pbo(gl, &self.buffer)?)
    }

    /// Unregisters the PBO, then deletes it.
    pub fn destroy(self, gl: &glow::Context) {
        drop(self.access);
        self.buffer.destroy(gl);
    }
}
