//! A GL memory object imported from an opaque file descriptor (`GL_EXT_memory_object_fd`),
//! and the textures and buffers whose storage it provides. Release with
//! [`GlMemoryObject::destroy`] after the textures and buffers made from it.

use super::destroy_guard::DestroyGuard;
use super::ext_ffi::{self, DEDICATED_MEMORY_OBJECT, HANDLE_TYPE_OPAQUE_FD};
use super::{check_gl, max_texture_size, GlBuffer, GlError, GlTexture, TexelFormat};
use glow::HasContext;
use std::os::fd::{FromRawFd, IntoRawFd, OwnedFd};

/// An imported, dedicated memory object of `size` bytes.
#[derive(Debug)]
pub struct GlMemoryObject {
    pub id: u32,
    pub size: u64,
    guard: DestroyGuard,
}

impl GlMemoryObject {
    /// Imports `fd` (a dedicated allocation of `size` bytes); GL owns the descriptor after
    /// a successful import, and it is closed here otherwise.
    pub fn import(gl: &glow::Context, fd: OwnedFd, size: u64) -> Result<Self, GlError> {
        let f = ext_ffi::fns()?;
        let mut id = 0u32;
        let dedicated = 1i32;
        let raw = fd.into_raw_fd();
        // SAFETY: `id` is a valid out-pointer for one name; the parameter points to one
        // GLint; `raw` is an open descriptor we own until the import succeeds.
        unsafe {
            (f.create_memory_objects)(1, &mut id);
            (f.memory_object_parameteriv)(id, DEDICATED_MEMORY_OBJECT, &dedicated);
            (f.import_memory_fd)(id, size, HANDLE_TYPE_OPAQUE_FD, raw);
        }
        match check_gl(gl, "glImportMemoryFdEXT") {
            Ok(()) => Ok(Self {
                id,
                size,
                guard: DestroyGuard::new("GlMemoryObject"),
            }),
            Err(e) => {
                // SAFETY: the failed import left the descriptor with us: close it once;
                // the memory object name is deleted once.
                unsafe {
                    drop(OwnedFd::from_raw_fd(raw));
                    (f.delete_memory_objects)(1, &id);
                }
                Err(e)
            }
        }
    }

    /// A `width × height` texture of `format` (optimal tiling) on the object at offset 0
    /// (an image allocation of the same format).
    pub fn texture_2d(
        &self,
        gl: &glow::Context,
        width: u32,
        height: u32,
        format: TexelFormat,
    ) -> Result<GlTexture, GlError> {
        let max = max_texture_size(gl);
        if width == 0 || height == 0 || width > max || height > max {
            return Err(GlError::TooLarge { width, height, max });
        }
        let f = ext_ffi::fns()?;
        let id = GlTexture::new_name(gl)?;
        // SAFETY: the new texture is bound to TEXTURE_2D; the memory object holds a
        // dedicated image allocation of this size and format.
        unsafe {
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                ext_ffi::TEXTURE_TILING,
                ext_ffi::OPTIMAL_TILING as i32,
            );
            (f.tex_storage_mem_2d)(
                glow::TEXTURE_2D,
                1,
                format.internal,
                width as i32,
                height as i32,
                self.id,
                0,
            );
        }
        let texture = GlTexture::from_name(id, width, height, format);
        if let Err(e) = check_gl(gl, "glTexStorageMem2DEXT") {
            texture.destroy(gl);
            return Err(e);
        }
        Ok(texture)
    }

    /// A buffer of `size` bytes on the object at offset 0.
    pub fn buffer(&self, gl: &glow::Context, size: usize) -> Result<GlBuffer, GlError> {
        let f = ext_ffi::fns()?;
        // SAFETY: a new buffer name bound to ARRAY_BUFFER, given storage from the object
        // (whose size the caller made at least `size`), then unbound.
        let id = unsafe {
            let id = gl.create_buffer().map_err(|reason| GlError::Create {
                what: "buffer",
                reason,
            })?;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(id));
            (f.buffer_storage_mem)(glow::ARRAY_BUFFER, size as isize, self.id, 0);
            gl.bind_buffer(glow::ARRAY_BUFFER, None);
            id
        };
        let buffer = GlBuffer::from_name(id, size, true);
        if let Err(e) = check_gl(gl, "glBufferStorageMemEXT") {
            buffer.destroy(gl);
            return Err(e);
        }
        Ok(buffer)
    }

    /// Deletes the memory object (after every texture and buffer made from it).
    pub fn destroy(mut self, gl: &glow::Context) {
        match ext_ffi::fns() {
            // SAFETY: the name belongs to the current context and is not used afterwards.
            Ok(f) => unsafe { (f.delete_memory_objects)(1, &self.id) },
            Err(e) => log::error!("deleting memory object {}: {e}", self.id),
        }
        self.guard.disarm();
        let _ = gl;
    }
}
