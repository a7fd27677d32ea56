//! A GL semaphore imported from an opaque file descriptor (`GL_EXT_semaphore_fd`): GL
//! signals one when it is done with the shared objects and waits on another before using
//! them again. Release with [`GlSemaphore::destroy`].

use super::destroy_guard::DestroyGuard;
use super::ext_ffi::{self, HANDLE_TYPE_OPAQUE_FD, LAYOUT_GENERAL};
use super::{check_gl, GlError};
use glow::HasContext;
use std::os::fd::{FromRawFd, IntoRawFd, OwnedFd};

/// An imported binary semaphore.
#[derive(Debug)]
pub struct GlSemaphore {
    pub id: u32,
    guard: DestroyGuard,
}

/// The shared objects a signal or wait covers (memory barriers for each).
pub struct SharedObjects<'a> {
    pub buffers: &'a [glow::Buffer],
    pub textures: &'a [glow::Texture],
}

impl SharedObjects<'_> {
    fn names(&self) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
        let buffers = self.buffers.iter().map(|b| b.0.get()).collect();
        let textures: Vec<u32> = self.textures.iter().map(|t| t.0.get()).collect();
        let layouts = vec![LAYOUT_GENERAL; textures.len()];
        (buffers, textures, layouts)
    }
}

impl GlSemaphore {
    /// Imports `fd`; GL owns the descriptor after a successful import, and it is closed
    /// here otherwise.
    pub fn import(gl: &glow::Context, fd: OwnedFd) -> Result<Self, GlError> {
        let f = ext_ffi::fns()?;
        let mut id = 0u32;
        let raw = fd.into_raw_fd();
        // SAFETY: `id` is a valid out-pointer for one name; `raw` is an open descriptor we
        // own until the import succeeds.
        unsafe {
            (f.gen_semaphores)(1, &mut id);
            (f.import_semaphore_fd)(id, HANDLE_TYPE_OPAQUE_FD, raw);
        }
        match check_gl(gl, "glImportSemaphoreFdEXT") {
            Ok(()) => Ok(Self {
                id,
                guard: DestroyGuard::new("GlSemaphore"),
            }),
            Err(e) => {
                // SAFETY: the failed import left the descriptor with us: close it once;
                // the semaphore name is deleted once.
                unsafe {
                    drop(OwnedFd::from_raw_fd(raw));
                    (f.delete_semaphores)(1, &id);
                }
                Err(e)
            }
        }
    }

    /// Signals once every GL command issued so far is done with `objects` (left in the
    /// general layout), and flushes so that the signal reaches the GPU.
    pub fn signal(&self, gl: &glow::Context, objects: &SharedObjects<'_>) -> Result<(), GlError> {
        let f = ext_ffi::fns()?;
        self.barrier(gl, f.signal_semaphore, objects, "glSignalSemaphoreEXT")?;
        // SAFETY: glFlush has no preconditions beyond a current context.
        unsafe { gl.flush() };
        Ok(())
    }

    /// Makes every later GL command wait until the semaphore is signalled; `objects` are
    /// then taken back from the general layout.
    pub fn wait(&self, gl: &glow::Context, objects: &SharedObjects<'_>) -> Result<(), GlError> {
        let f = ext_ffi::fns()?;
        self.barrier(gl, f.wait_semaphore, objects, "glWaitSemaphoreEXT")
    }

    /// Calls `entry` (glSignalSemaphoreEXT or glWaitSemaphoreEXT) with `objects`.
    fn barrier(
        &self,
        gl: &glow::Context,
        entry: ext_ffi::SemaphoreBarrierFn,
        objects: &SharedObjects<'_>,
        call: &'static str,
    ) -> Result<(), GlError> {
        let (buffers, textures, layouts) = objects.names();
        // SAFETY: the three arrays have the lengths passed; the names are live objects of
        // this context; `entry` is the signal or wait entry point (same signature).
        unsafe {
            entry(
                self.id,
                buffers.len() as u32,
                buffers.as_ptr(),
                textures.len() as u32,
                textures.as_ptr(),
                layouts.as_ptr(),
            );
        }
        check_gl(gl, call)
    }

    /// Deletes the semaphore.
    pub fn destroy(mut self, gl: &glow::Context) {
        match ext_ffi::fns() {
            // SAFETY: the name belongs to the current context and is not used afterwards.
            Ok(f) => unsafe { (f.delete_semaphores)(1, &self.id) },
            Err(e) => log::error!("deleting semaphore {}: {e}", self.id),
        }
        self.guard.disarm();
        let _ = gl;
    }
}
