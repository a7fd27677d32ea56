//! External memory behind one GL texture or buffer: the Vulkan allocation, GL's memory
//! object and CUDA's array or pointer over the same bytes, for the whole session.
//! Release with `destroy(gl)` after the GL texture or buffer made with it.

use super::ExternalInterop;
use crate::cuda::SharedObject;
use crate::cuda::{ArrayRef, BufferRef, CudaError, ExternalArray, ExternalBuffer};
use crate::gl::{GlBuffer, GlError, GlMemoryObject, GlTexture};
use crate::pipeline::{GpuPixelFormat, PipelineError};
use crate::vk::{ExportedBuffer, ExportedImage, ExportedMemory};
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicU64, Ordering};

/// A number for a shared object, unique in this process (how the kernel host knows it).
pub(super) fn next_shared_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Imports `memory` into GL (the object made by `make_gl` on it) and into CUDA (by
/// `make_cuda` from a descriptor and the size); on failure nothing is left.
fn import_both<G, C>(
    gl: &glow::Context,
    memory: &ExportedMemory,
    make_gl: impl FnOnce(&GlMemoryObject) -> Result<G, GlError>,
    make_cuda: impl FnOnce(OwnedFd, u64) -> Result<C, CudaError>,
    destroy_gl: impl FnOnce(G),
) -> Result<(GlMemoryObject, G, C), PipelineError> {
    let object = GlMemoryObject::import(gl, memory.export_fd()?, memory.size)?;
    let gl_object = match make_gl(&object) {
        Ok(g) => g,
        Err(e) => {
            object.destroy(gl);
            return Err(e.into());
        }
    };
    let cuda = memory
        .export_fd()
        .map_err(PipelineError::from)
        .and_then(|fd| Ok(make_cuda(fd, memory.size)?));
    match cuda {
        Ok(c) => Ok((object, gl_object, c)),
        Err(e) => {
            destroy_gl(gl_object);
            object.destroy(gl);
            Err(e)
        }
    }
}

/// Image memory of one [`GpuPixelFormat`] shared by a GL texture and a CUDA array.
pub struct ImageBacking {
    cuda: ExternalArray,
    memory: GlMemoryObject,
    vk: ExportedImage,
    id: u64,
}

impl ImageBacking {
    /// A `width × height` image of `format` (the same bits for Vulkan, GL and CUDA);
    /// returns the backing and the GL texture on it.
    pub fn new(
        interop: &ExternalInterop,
        gl: &glow::Context,
        (width, height): (u32, u32),
        format: GpuPixelFormat,
    ) -> Result<(Self, GlTexture), PipelineError> {
        let vk = ExportedImage::new(&interop.exporter, width, height, format.vk())?;
        let (memory, texture, cuda) = import_both(
            gl,
            &vk.memory,
            |m| m.texture_2d(gl, width, height, format.gl()),
            |fd, size| {
                ExternalArray::import(&interop.ctx, fd, size, (width, height), format.cuda())
            },
            |t| t.destroy(gl),
        )?;
        let backing = Self {
            cuda,
            memory,
            vk,
            id: next_shared_id(),
        };
        Ok((backing, texture))
    }

    /// CUDA's array over the image, borrowed for as long as the backing.
    pub fn array(&self) -> ArrayRef<'_> {
        self.cuda.view()
    }

    /// The image as another process imports it: its id and description.
    pub fn shared_object(&self) -> (u64, SharedObject) {
        let object = SharedObject::Image {
            width: self.vk.width,
            height: self.vk.height,
            size: self.vk.memory.size,
        };
        (self.id, object)
    }

    /// A new descriptor of the image's memory, for another process.
    pub fn export_fd(&self) -> Result<OwnedFd, PipelineError> {
        Ok(self.vk.memory.export_fd()?)
    }

    /// Frees CUDA's mapping, GL's memory object and the Vulkan image, in that order.
    pub fn destroy(self, gl: &glow::Context) {
        drop(self.cuda);
        self.memory.destroy(gl);
    }
}

/// Image memory shared by GL and CUDA together with its GL texture.
pub struct SharedImage {
    pub backing: ImageBacking,
    pub texture: GlTexture,
}

impl SharedImage {
    /// A `width × height` image of `format` and its texture.
    pub fn new(
        interop: &ExternalInterop,
        gl: &glow::Context,
        size: (u32, u32),
        format: GpuPixelFormat,
    ) -> Result<Self, PipelineError> {
        let (backing, texture) = ImageBacking::new(interop, gl, size, format)?;
        Ok(Self { backing, texture })
    }

    /// Deletes the texture, then the memory.
    pub fn destroy(self, gl: &glow::Context) {
        self.texture.destroy(gl);
        self.backing.destroy(gl);
    }
}

/// Buffer memory shared by a GL buffer and a CUDA device pointer.
pub struct BufferBacking {
    cuda: ExternalBuffer,
    memory: GlMemoryObject,
    vk: ExportedBuffer,
    size: usize,
    id: u64,
}

impl BufferBacking {
    /// A buffer of `size` bytes; returns the backing and the GL buffer on it.
    pub fn new(
        interop: &ExternalInterop,
        gl: &glow::Context,
        size: usize,
    ) -> Result<(Self, GlBuffer), PipelineError> {
        let vk = ExportedBuffer::new(&interop.exporter, size as u64)?;
        let (memory, buffer, cuda) = import_both(
            gl,
            &vk.memory,
            |m| m.buffer(gl, size),
            |fd, memory_size| ExternalBuffer::import(&interop.ctx, fd, memory_size, size),
            |b| b.destroy(gl),
        )?;
        let backing = Self {
            cuda,
            memory,
            vk,
            size,
            id: next_shared_id(),
        };
        Ok((backing, buffer))
    }

    /// CUDA's view of the buffer, borrowed for as long as the backing.
    pub fn pointer(&self) -> BufferRef<'_> {
        self.cuda.view()
    }

    /// The buffer as another process imports it: its id and description.
    pub fn shared_object(&self) -> (u64, SharedObject) {
        let object = SharedObject::Buffer {
            size: self.size as u64,
            memory_size: self.vk.memory.size,
        };
        (self.id, object)
    }

    /// A new descriptor of the buffer's memory, for another process.
    pub fn export_fd(&self) -> Result<OwnedFd, PipelineError> {
        Ok(self.vk.memory.export_fd()?)
    }

    /// Frees CUDA's mapping, GL's memory object and the Vulkan buffer, in that order.
    pub fn destroy(self, gl: &glow::Context) {
        drop(self.cuda);
        self.memory.destroy(gl);
    }
}
