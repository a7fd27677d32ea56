//! External memory behind one GL texture or buffer: the Vulkan allocation, GL's memory
//! object and CUDA's array or pointer over the same bytes, for the whole session.
//! Release with `destroy(gl)` after the GL texture or buffer made with it.

use super::ExternalInterop;
use crate::cuda::{ExternalArray, ExternalBuffer};
use crate::gl::{GlBuffer, GlMemoryObject, GlTexture};
use crate::pipeline::PipelineError;
use crate::vk::{ExportedBuffer, ExportedImage, ExportedMemory};
use cudarc::driver::sys::{CUarray, CUdeviceptr};

/// Imports `memory` into GL and makes the GL object with `make`; on failure nothing is left.
fn import_gl<T>(
    gl: &glow::Context,
    memory: &ExportedMemory,
    make: impl FnOnce(&GlMemoryObject) -> Result<T, crate::gl::GlError>,
) -> Result<(GlMemoryObject, T), PipelineError> {
    let object = GlMemoryObject::import(gl, memory.export_fd()?, memory.size)?;
    match make(&object) {
        Ok(t) => Ok((object, t)),
        Err(e) => {
            object.destroy(gl);
            Err(e.into())
        }
    }
}

/// RGBA8 image memory shared by a GL texture and a CUDA array.
pub struct ImageBacking {
    cuda: ExternalArray,
    memory: GlMemoryObject,
    _vk: ExportedImage,
}

impl ImageBacking {
    /// A `width × height` image; returns the backing and the GL texture on it.
    pub fn new(
        interop: &ExternalInterop,
        gl: &glow::Context,
        width: u32,
        height: u32,
    ) -> Result<(Self, GlTexture), PipelineError> {
        let vk = ExportedImage::new(&interop.exporter, width, height)?;
        let (memory, texture) = import_gl(gl, &vk.memory, |m| m.texture_2d(gl, width, height))?;
        let cuda = vk
            .memory
            .export_fd()
            .map_err(PipelineError::from)
            .and_then(|fd| {
                Ok(ExternalArray::import(
                    &interop.ctx,
                    fd,
                    vk.memory.size,
                    width,
                    height,
                )?)
            });
        match cuda {
            Ok(cuda) => Ok((
                Self {
                    cuda,
                    memory,
                    _vk: vk,
                },
                texture,
            )),
            Err(e) => {
                texture.destroy(gl);
                memory.destroy(gl);
                Err(e)
            }
        }
    }

    /// CUDA's array over the image.
    pub fn array(&self) -> CUarray {
        self.cuda.raw()
    }

    /// Frees CUDA's mapping, GL's memory object and the Vulkan image, in that order.
    pub fn destroy(self, gl: &glow::Context) {
        drop(self.cuda);
        self.memory.destroy(gl);
    }
}

/// Buffer memory shared by a GL buffer and a CUDA device pointer.
pub struct BufferBacking {
    cuda: ExternalBuffer,
    memory: GlMemoryObject,
    _vk: ExportedBuffer,
}

impl BufferBacking {
    /// A buffer of `size` bytes; returns the backing and the GL buffer on it.
    pub fn new(
        interop: &ExternalInterop,
        gl: &glow::Context,
        size: usize,
    ) -> Result<(Self, GlBuffer), PipelineError> {
        let vk = ExportedBuffer::new(&interop.exporter, size as u64)?;
        let (memory, buffer) = import_gl(gl, &vk.memory, |m| m.buffer(gl, size))?;
        let cuda = vk
            .memory
            .export_fd()
            .map_err(PipelineError::from)
            .and_then(|fd| {
                Ok(ExternalBuffer::import(
                    &interop.ctx,
                    fd,
                    vk.memory.size,
                    size,
                )?)
            });
        match cuda {
            Ok(cuda) => Ok((
                Self {
                    cuda,
                    memory,
                    _vk: vk,
                },
                buffer,
            )),
            Err(e) => {
                buffer.destroy(gl);
                memory.destroy(gl);
                Err(e)
            }
        }
    }

    /// CUDA's pointer to the buffer and its size in bytes.
    pub fn pointer(&self) -> (CUdeviceptr, usize) {
        (self.cuda.ptr(), self.cuda.size)
    }

    /// Frees CUDA's mapping, GL's memory object and the Vulkan buffer, in that order.
    pub fn destroy(self, gl: &glow::Context) {
        drop(self.cuda);
        self.memory.destroy(gl);
    }
}
