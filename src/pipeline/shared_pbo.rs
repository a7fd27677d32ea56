//! The Mandelbrot pixel buffer and how CUDA reaches it: registered and mapped per frame, or
//! in memory shared for the whole session with a semaphore pair. Release with
//! [`Pbo::destroy`].

use super::external::{usable_sync, BufferBacking, ExternalInterop, ExternalSync};
use super::interop_resources::{ClassicResources, InteropResources, InteropViews};
use super::PipelineError;
use crate::cuda::{ffi, CudaDevice};
use crate::gl::{GlBuffer, SharedObjects};
use cudarc::driver::CudaStream;
use std::sync::Arc;

/// The external-memory side of a pixel buffer.
struct SharedPbo {
    interop: ExternalInterop,
    backing: BufferBacking,
    name: glow::Buffer,
    sync: Option<ExternalSync>,
}

enum Access {
    Classic(ClassicResources),
    Shared(Box<SharedPbo>),
}

/// A pixel buffer of `buffer.size` bytes that CUDA writes and GL copies into the texture.
pub struct Pbo {
    pub buffer: GlBuffer,
    access: Access,
}

impl Pbo {
    /// A buffer of `bytes`: shared when `external` is given, registered otherwise.
    pub fn new(
        gl: &glow::Context,
        device: &CudaDevice,
        external: Option<&ExternalInterop>,
        bytes: usize,
    ) -> Result<Self, PipelineError> {
        if let Some(interop) = external {
            let (backing, buffer) = BufferBacking::new(interop, gl, bytes)?;
            let name = buffer.id;
            return Ok(Self {
                buffer,
                access: Access::Shared(Box::new(SharedPbo {
                    interop: interop.clone(),
                    backing,
                    name,
                    sync: None,
                })),
            });
        }
        let buffer = GlBuffer::new(gl, bytes)?;
        match ClassicResources::register(
            &device.ctx,
            &[],
            &[(buffer.id, ffi::REGISTER_WRITE_DISCARD)],
        ) {
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

    /// Whether CUDA can still reach the buffer (a failed map drops the registration).
    pub fn usable(&self) -> bool {
        match &self.access {
            Access::Classic(c) => c.usable(),
            Access::Shared(_) => true,
        }
    }

    pub fn destroy(self, gl: &glow::Context) {
        match self.access {
            Access::Classic(resources) => {
                drop(resources); // unregister before the buffer goes
                self.buffer.destroy(gl);
            }
            Access::Shared(shared) => {
                self.buffer.destroy(gl);
                if let Some(sync) = shared.sync {
                    sync.destroy(gl);
                }
                shared.backing.destroy(gl);
            }
        }
    }
}

impl InteropResources for Pbo {
    fn acquire(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
    ) -> Result<InteropViews, PipelineError> {
        match &mut self.access {
            Access::Classic(c) => c.acquire(gl, stream),
            Access::Shared(s) => {
                let objects = SharedObjects {
                    buffers: &[s.name],
                    textures: &[],
                };
                usable_sync(&mut s.sync, &s.interop, gl)?.hand_to_cuda(gl, &objects, stream)?;
                Ok(InteropViews {
                    arrays: Vec::new(),
                    pointers: vec![s.backing.pointer()],
                })
            }
        }
    }

    fn release(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
    ) -> Result<(), PipelineError> {
        match &mut self.access {
            Access::Classic(c) => c.release(gl, stream),
            Access::Shared(s) => {
                let objects = SharedObjects {
                    buffers: &[s.name],
                    textures: &[],
                };
                usable_sync(&mut s.sync, &s.interop, gl)?.hand_to_gl(gl, &objects, stream)
            }
        }
    }
}
