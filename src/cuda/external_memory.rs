//! Memory allocated outside CUDA (Vulkan, exported as an opaque fd) and imported for the
//! whole session: a CUDA array over an image, or a device pointer over a buffer.
//! Each owns its import and frees both on drop (mapping first), logging errors.

use super::{check, release_in, ArrayFormat, ArrayRef, BufferRef, CudaError};
use cudarc::driver::sys::{
    self, CUarray, CUdeviceptr, CUexternalMemory, CUexternalMemoryHandleType, CUmipmappedArray,
    CUresult, CUDA_ARRAY3D_DESCRIPTOR,
};
use cudarc::driver::CudaContext;
use std::ffi::c_int;
use std::os::fd::{IntoRawFd, OwnedFd};
use std::sync::Arc;

/// The array flags matching the Vulkan image's usages (storage → surface load/store, colour
/// attachment → colour attachment); CUDA and the graphics API must agree on them for the
/// layouts to match.
pub const SHARED_ARRAY_FLAGS: u32 =
    sys::CUDA_ARRAY3D_SURFACE_LDST | sys::CUDA_ARRAY3D_COLOR_ATTACHMENT;

/// An object one process shares with another through external memory, as the importer
/// needs it described (the exporter's interop hands these out; the kernel host's protocol
/// carries them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedObject {
    /// An RGBA8 image of `width × height` in `size` bytes of memory.
    Image { width: u32, height: u32, size: u64 },
    /// A buffer of `size` bytes in `memory_size` bytes of memory.
    Buffer { size: u64, memory_size: u64 },
    /// A binary semaphore.
    Semaphore,
}

/// One imported allocation; destroyed on drop.
struct ExternalMemory {
    raw: CUexternalMemory,
    ctx: Arc<CudaContext>,
}

impl ExternalMemory {
    /// Imports a dedicated allocation of `size` bytes. CUDA owns `fd` after a successful
    /// import; it is closed otherwise.
    fn import(ctx: &Arc<CudaContext>, fd: OwnedFd, size: u64) -> Result<Self, CudaError> {
        if crate::fault::injected(crate::fault::Fault::Register) {
            // Closes `fd`, as a failed import does.
            drop(fd);
            return Err(CudaError::raw("cuImportExternalMemory", 999));
        }
        let raw = import_fd(ctx, fd, "cuImportExternalMemory", |raw_fd| {
            // SAFETY: an all-zero union of an int and pointers is a valid value.
            let mut handle: sys::CUDA_EXTERNAL_MEMORY_HANDLE_DESC_st__bindgen_ty_1 =
                unsafe { std::mem::zeroed() };
            handle.fd = raw_fd;
            let desc = sys::CUDA_EXTERNAL_MEMORY_HANDLE_DESC {
                type_: CUexternalMemoryHandleType::CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD,
                handle,
                size,
                flags: sys::CUDA_EXTERNAL_MEMORY_DEDICATED,
                reserved: [0; 16],
            };
            let mut raw: CUexternalMemory = std::ptr::null_mut();
            // SAFETY: `desc` is fully initialised; `raw` is a valid out-pointer.
            let status = unsafe { sys::cuImportExternalMemory(&mut raw, &desc) };
            (status, raw)
        })?;
        Ok(Self {
            raw,
            ctx: ctx.clone(),
        })
    }
}

/// Binds `ctx` and runs a raw import of `fd`'s descriptor (`import` returns the status and
/// the handle): CUDA owns the descriptor once the import succeeds; it is closed here when
/// the import fails.
pub(super) fn import_fd<H>(
    ctx: &Arc<CudaContext>,
    fd: OwnedFd,
    call: &'static str,
    import: impl FnOnce(c_int) -> (CUresult, H),
) -> Result<H, CudaError> {
    ctx.bind_to_thread()
        .map_err(CudaError::driver("cuCtxSetCurrent"))?;
    let raw_fd = fd.into_raw_fd();
    let (status, handle) = import(raw_fd);
    if let Err(e) = check(call, status) {
        // SAFETY: the failed import left the descriptor with us; closed once.
        unsafe { libc::close(raw_fd) };
        return Err(e);
    }
    Ok(handle)
}

impl Drop for ExternalMemory {
    fn drop(&mut self) {
        // SAFETY: imported in this context, destroyed once, after what was mapped on it.
        release_in(&self.ctx, "cuDestroyExternalMemory", || unsafe {
            sys::cuDestroyExternalMemory(self.raw)
        });
    }
}

/// A `width × height` CUDA array of one format over an imported image (level 0 of a one-level
/// mipmapped array), usable for texture and surface objects like any other array.
pub struct ExternalArray {
    mipmapped: CUmipmappedArray,
    array: CUarray,
    memory: ExternalMemory,
    pub width: u32,
    pub height: u32,
    pub format: ArrayFormat,
}

impl ExternalArray {
    /// Imports the image's memory (`fd`, `size` bytes) and maps an array of `format` on it
    /// (the format of the exported image: CUDA and Vulkan must agree on it for the layouts
    /// to match).
    pub fn import(
        ctx: &Arc<CudaContext>,
        fd: OwnedFd,
        size: u64,
        (width, height): (u32, u32),
        format: ArrayFormat,
    ) -> Result<Self, CudaError> {
        let memory = ExternalMemory::import(ctx, fd, size)?;
        // Every field set explicitly: a zeroed descriptor has no valid format value.
        let desc = sys::CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC {
            offset: 0,
            arrayDesc: CUDA_ARRAY3D_DESCRIPTOR {
                Width: width as usize,
                Height: height as usize,
                Depth: 0,
                Format: format.format,
                NumChannels: format.channels,
                Flags: SHARED_ARRAY_FLAGS,
            },
            numLevels: 1,
            reserved: [0; 16],
        };
        let mut mipmapped: CUmipmappedArray = std::ptr::null_mut();
        // SAFETY: `desc` is fully initialised; the out-pointer is valid; the context of
        // the import is current.
        check("cuExternalMemoryGetMappedMipmappedArray", unsafe {
            sys::cuExternalMemoryGetMappedMipmappedArray(&mut mipmapped, memory.raw, &desc)
        })?;
        let mut array: CUarray = std::ptr::null_mut();
        // SAFETY: level 0 exists in a one-level array; the out-pointer is valid.
        let level = check("cuMipmappedArrayGetLevel", unsafe {
            sys::cuMipmappedArrayGetLevel(&mut array, mipmapped, 0)
        });
        let out = Self {
            mipmapped,
            array,
            memory,
            width,
            height,
            format,
        };
        level.map(|_| out)
    }

    /// The CUDA array, borrowed for as long as `self`.
    pub fn view(&self) -> ArrayRef<'_> {
        // SAFETY: the imported level-0 array lives until `self` drops.
        unsafe { ArrayRef::new(self.array) }
    }
}

impl Drop for ExternalArray {
    fn drop(&mut self) {
        // SAFETY: mapped once on `memory`, destroyed once; `memory` (a field) is destroyed
        // after this.
        release_in(&self.memory.ctx, "cuMipmappedArrayDestroy", || unsafe {
            sys::cuMipmappedArrayDestroy(self.mipmapped)
        });
    }
}

/// A device pointer over an imported buffer.
pub struct ExternalBuffer {
    ptr: CUdeviceptr,
    memory: ExternalMemory,
    pub size: usize,
}

impl ExternalBuffer {
    /// Imports the buffer's memory (`fd`, `memory_size` bytes) and maps `size` bytes of it.
    pub fn import(
        ctx: &Arc<CudaContext>,
        fd: OwnedFd,
        memory_size: u64,
        size: usize,
    ) -> Result<Self, CudaError> {
        let memory = ExternalMemory::import(ctx, fd, memory_size)?;
        let desc = sys::CUDA_EXTERNAL_MEMORY_BUFFER_DESC {
            offset: 0,
            size: size as u64,
            flags: 0,
            reserved: [0; 16],
        };
        let mut ptr: CUdeviceptr = 0;
        // SAFETY: `desc` is fully initialised and within the import; `ptr` is valid.
        check("cuExternalMemoryGetMappedBuffer", unsafe {
            sys::cuExternalMemoryGetMappedBuffer(&mut ptr, memory.raw, &desc)
        })?;
        Ok(Self { ptr, memory, size })
    }

    /// The buffer, borrowed for as long as `self`.
    pub fn view(&self) -> BufferRef<'_> {
        // SAFETY: the mapped range lives until `self` drops.
        unsafe { BufferRef::new(self.ptr, self.size) }
    }
}

impl Drop for ExternalBuffer {
    fn drop(&mut self) {
        // SAFETY: mapped once on `memory`, freed once, before `memory` (a field).
        release_in(&self.memory.ctx, "cuMemFree(external buffer)", || unsafe {
            sys::cuMemFree_v2(self.ptr)
        });
    }
}
