//! A GL buffer object: histogram bins (drawn as a texture buffer) and pixel buffers.

use super::destroy_guard::DestroyGuard;
use super::{check_gl, GlError};
use glow::HasContext;

/// GL buffer with its size in bytes. Release with [`GlBuffer::destroy`].
#[derive(Debug)]
pub struct GlBuffer {
    pub id: glow::Buffer,
    pub size: usize,
    guard: DestroyGuard,
    /// Storage from a memory object: immutable, written by copies, not `glBufferSubData`.
    pub(super) immutable: bool,
}

impl GlBuffer {
    /// Wraps a buffer name of this context (`destroy` deletes it).
    pub(super) fn from_name(id: glow::Buffer, size: usize, immutable: bool) -> Self {
        Self {
            id,
            size,
            guard: DestroyGuard::new("GlBuffer"),
            immutable,
        }
    }

    /// A zero-filled buffer of `size` bytes.
    pub fn new(gl: &glow::Context, size: usize) -> Result<Self, GlError> {
        // SAFETY: a new buffer name; the data slice has exactly `size` bytes.
        unsafe {
            let id = gl.create_buffer().map_err(|reason| GlError::Create {
                what: "buffer",
                reason,
            })?;
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(id));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, &vec![0u8; size], glow::DYNAMIC_DRAW);
            gl.bind_buffer(glow::ARRAY_BUFFER, None);
            check_gl(gl, "glBufferData")?;
            Ok(Self::from_name(id, size, false))
        }
    }

    /// Writes `bytes` at offset 0 (the CPU backend's bins).
    pub fn write(&self, gl: &glow::Context, bytes: &[u8]) -> Result<(), GlError> {
        if bytes.len() > self.size {
            return Err(GlError::Create {
                what: "buffer write",
                reason: format!("{} > {} bytes", bytes.len(), self.size),
            });
        }
        if self.immutable {
            return self.write_by_copy(gl, bytes);
        }
        // SAFETY: the write stays inside the buffer (checked above).
        unsafe {
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.id));
            gl.buffer_sub_data_u8_slice(glow::ARRAY_BUFFER, 0, bytes);
            gl.bind_buffer(glow::ARRAY_BUFFER, None);
        }
        check_gl(gl, "glBufferSubData")
    }

    /// Writes through a staging buffer and `glCopyBufferSubData`, which immutable storage
    /// without `DYNAMIC_STORAGE_BIT` (memory objects) accepts.
    fn write_by_copy(&self, gl: &glow::Context, bytes: &[u8]) -> Result<(), GlError> {
        let staging = Self::new(gl, bytes.len())?;
        // SAFETY: both buffers hold at least `bytes.len()` bytes; bound to the copy targets
        // only for the calls and unbound after.
        unsafe {
            gl.bind_buffer(glow::COPY_READ_BUFFER, Some(staging.id));
            gl.buffer_sub_data_u8_slice(glow::COPY_READ_BUFFER, 0, bytes);
            gl.bind_buffer(glow::COPY_WRITE_BUFFER, Some(self.id));
            gl.copy_buffer_sub_data(
                glow::COPY_READ_BUFFER,
                glow::COPY_WRITE_BUFFER,
                0,
                0,
                bytes.len() as i32,
            );
            gl.bind_buffer(glow::COPY_READ_BUFFER, None);
            gl.bind_buffer(glow::COPY_WRITE_BUFFER, None);
        }
        let copied = check_gl(gl, "glCopyBufferSubData");
        staging.destroy(gl);
        copied
    }

    /// Reads the whole buffer back (tests).
    pub fn read(&self, gl: &glow::Context) -> Result<Vec<u8>, GlError> {
        let mut out = vec![0u8; self.size];
        // SAFETY: `out` has exactly the buffer's size.
        unsafe {
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.id));
            gl.get_buffer_sub_data(glow::ARRAY_BUFFER, 0, &mut out);
            gl.bind_buffer(glow::ARRAY_BUFFER, None);
        }
        check_gl(gl, "glGetBufferSubData").map(|_| out)
    }

    /// Deletes the GL buffer.
    pub fn destroy(mut self, gl: &glow::Context) {
        // SAFETY: the name belongs to this context and is not used afterwards.
        unsafe { gl.delete_buffer(self.id) };
        self.guard.disarm();
    }
}
