//! Device memory shared between the parent and the kernel host without host copies:
//! one VMM allocation (`cuMemCreate`) exportable as a POSIX file descriptor, passed over
//! the socket with `SCM_RIGHTS` and imported and mapped by the host. A frame holds the
//! input and the output image, pitch-linear RGBA8; the host reads the input through a
//! pitch-linear texture object and copies its kernel's output array into the output.

use crate::cuda::{check, point_clamp_integer_reads, release_in, CudaError};
use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::CudaContext;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;

/// Row pitch of a frame's images: 256 bytes is a multiple of every device's texture pitch
/// alignment.
pub const PITCH_ALIGN: usize = 256;

const POSIX_FD: sys::CUmemAllocationHandleType =
    sys::CUmemAllocationHandleType_enum::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;

/// The row pitch of a `width`-pixel RGBA8 image in a frame.
pub fn frame_pitch(width: u32) -> usize {
    (width as usize * 4).div_ceil(PITCH_ALIGN) * PITCH_ALIGN
}

/// Bytes of one image of a frame (rows of [`frame_pitch`]).
pub fn image_span(width: u32, height: u32) -> usize {
    frame_pitch(width) * height as usize
}

fn allocation_prop(device: i32) -> sys::CUmemAllocationProp {
    sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: POSIX_FD,
        location: sys::CUmemLocation {
            type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: device,
        },
        win32HandleMetaData: std::ptr::null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 {
            compressionType: 0,
            gpuDirectRDMACapable: 0,
            usage: 0,
            reserved: [0; 4],
        },
    }
}

/// Whether the context's device can share VMM allocations as file descriptors.
pub fn supported(ctx: &Arc<CudaContext>) -> bool {
    use sys::CUdevice_attribute::*;
    let has = |a| ctx.attribute(a).is_ok_and(|v| v != 0);
    has(CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED)
        && has(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED)
}

/// A VMM allocation mapped read-write in a context; unmapped and released on drop.
pub struct SharedDeviceBuffer {
    ctx: Arc<CudaContext>,
    handle: CUmemGenericAllocationHandle,
    ptr: CUdeviceptr,
    size: usize,
}

impl SharedDeviceBuffer {
    /// A new allocation of at least `min_size` bytes, exportable as a file descriptor.
    pub fn create(ctx: &Arc<CudaContext>, min_size: usize) -> Result<Self, CudaError> {
        ctx.bind_to_thread()
            .map_err(CudaError::driver("cuCtxSetCurrent"))?;
        let prop = allocation_prop(ctx.cu_device());
        let mut granularity = 0usize;
        // SAFETY: valid out-pointer and a fully initialised prop.
        check("cuMemGetAllocationGranularity", unsafe {
            sys::cuMemGetAllocationGranularity(
                &mut granularity,
                &prop,
                sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
            )
        })?;
        let size = min_size.max(1).div_ceil(granularity.max(1)) * granularity.max(1);
        let mut handle = 0;
        // SAFETY: valid out-pointer; size is a multiple of the granularity.
        check("cuMemCreate", unsafe {
            sys::cuMemCreate(&mut handle, size, &prop, 0)
        })?;
        Self::map(ctx, handle, size)
    }

    /// Imports an allocation of `size` bytes from `fd` (exported by the other process).
    pub fn import(ctx: &Arc<CudaContext>, fd: &OwnedFd, size: usize) -> Result<Self, CudaError> {
        ctx.bind_to_thread()
            .map_err(CudaError::driver("cuCtxSetCurrent"))?;
        let mut handle = 0;
        // SAFETY: for POSIX descriptors the OS handle is the descriptor's number in the
        // pointer argument; the driver does not take ownership of it.
        check("cuMemImportFromShareableHandle", unsafe {
            sys::cuMemImportFromShareableHandle(
                &mut handle,
                fd.as_raw_fd() as isize as *mut std::ffi::c_void,
                POSIX_FD,
            )
        })?;
        Self::map(ctx, handle, size)
    }

    /// Reserves an address range, maps `handle` there and makes it read-write for the
    /// context's device; releases the handle on failure.
    fn map(
        ctx: &Arc<CudaContext>,
        handle: CUmemGenericAllocationHandle,
        size: usize,
    ) -> Result<Self, CudaError> {
        let mut ptr = 0;
        // SAFETY: valid out-pointer; no fixed address asked for.
        let reserved = check("cuMemAddressReserve", unsafe {
            sys::cuMemAddressReserve(&mut ptr, size, 0, 0, 0)
        });
        if let Err(e) = reserved {
            // SAFETY: the handle was created or imported above and is not mapped.
            unsafe { sys::cuMemRelease(handle) };
            return Err(e);
        }
        // From here Drop unmaps (a no-op error when not mapped yet) and releases all.
        let buffer = Self {
            ctx: ctx.clone(),
            handle,
            ptr,
            size,
        };
        // SAFETY: the range was reserved with this size; offset 0 of the allocation.
        check("cuMemMap", unsafe {
            sys::cuMemMap(ptr, size, 0, handle, 0)
        })?;
        let access = sys::CUmemAccessDesc {
            location: sys::CUmemLocation {
                type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                id: ctx.cu_device(),
            },
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        // SAFETY: the range is mapped; one access descriptor.
        check("cuMemSetAccess", unsafe {
            sys::cuMemSetAccess(ptr, size, &access, 1)
        })?;
        Ok(buffer)
    }

    /// A file descriptor for the other process (`import`).
    pub fn export_fd(&self) -> Result<OwnedFd, CudaError> {
        let mut fd: libc::c_int = -1;
        // SAFETY: for POSIX descriptors the shareable handle is an int written at the
        // pointer; the handle is ours.
        check("cuMemExportToShareableHandle", unsafe {
            sys::cuMemExportToShareableHandle(
                (&mut fd as *mut libc::c_int).cast(),
                self.handle,
                POSIX_FD,
                0,
            )
        })?;
        // SAFETY: the driver created this descriptor for us.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    pub fn ptr(&self) -> CUdeviceptr {
        self.ptr
    }

    pub fn size(&self) -> usize {
        self.size
    }
}

impl Drop for SharedDeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: the range and handle were made in `map`, each released once; unmapping
        // a range that failed to map only returns an error, which is logged.
        release_in(&self.ctx, "cuMemUnmap", || unsafe {
            sys::cuMemUnmap(self.ptr, self.size)
        });
        release_in(&self.ctx, "cuMemAddressFree", || unsafe {
            sys::cuMemAddressFree(self.ptr, self.size)
        });
        release_in(&self.ctx, "cuMemRelease", || unsafe {
            sys::cuMemRelease(self.handle)
        });
    }
}

/// A texture object over a pitch-linear RGBA8 image; destroyed on drop.
pub struct PitchTexture {
    raw: sys::CUtexObject,
    ctx: Arc<CudaContext>,
}

impl PitchTexture {
    /// # Safety
    /// `ptr` must point to `height` rows of `pitch` bytes (a multiple of the device's
    /// texture pitch alignment) holding `width` RGBA8 pixels each, mapped in this context
    /// for as long as the object and every kernel launched with it.
    pub unsafe fn new(
        ctx: &Arc<CudaContext>,
        ptr: CUdeviceptr,
        width: u32,
        height: u32,
        pitch: usize,
    ) -> Result<Self, CudaError> {
        ctx.bind_to_thread()
            .map_err(CudaError::driver("cuCtxSetCurrent"))?;
        let mut res = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1 {
            reserved: sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_5 { reserved: [0; 32] },
        };
        res.pitch2D = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_4 {
            devPtr: ptr,
            format: sys::CUarray_format::CU_AD_FORMAT_UNSIGNED_INT8,
            numChannels: 4,
            width: width as usize,
            height: height as usize,
            pitchInBytes: pitch,
        };
        let resource = sys::CUDA_RESOURCE_DESC {
            resType: sys::CUresourcetype::CU_RESOURCE_TYPE_PITCH2D,
            res,
            flags: 0,
        };
        // The same sampling as the array textures: point, clamp, integer reads.
        let desc = point_clamp_integer_reads();
        let mut raw = 0;
        // SAFETY: both descriptors are fully initialised; `raw` is a valid out-pointer;
        // the caller vouches for the memory.
        check("cuTexObjectCreate", unsafe {
            sys::cuTexObjectCreate(&mut raw, &resource, &desc, std::ptr::null())
        })?;
        Ok(Self {
            raw,
            ctx: ctx.clone(),
        })
    }

    pub fn handle(&self) -> u64 {
        self.raw
    }
}

impl Drop for PitchTexture {
    fn drop(&mut self) {
        // SAFETY: created by cuTexObjectCreate in this context, destroyed once.
        release_in(&self.ctx, "cuTexObjectDestroy", || unsafe {
            sys::cuTexObjectDestroy(self.raw)
        });
    }
}

/// One end of a pitched 2-D copy.
#[derive(Clone, Copy)]
pub enum Pitched {
    Array(sys::CUarray),
    Device { ptr: CUdeviceptr, pitch: usize },
    Host { ptr: *mut u8, pitch: usize },
}

/// Copies `width × height` RGBA8 pixels from `src` to `dst` on `stream`.
///
/// # Safety
/// Both ends must hold the image (arrays of at least that size, device or host rows of
/// their pitch) until the stream has run the copy.
pub unsafe fn copy_pitched(
    src: Pitched,
    dst: Pitched,
    width: u32,
    height: u32,
    stream: sys::CUstream,
) -> Result<(), CudaError> {
    let (src_type, src_array, src_device, src_host, src_pitch) = end(src);
    let (dst_type, dst_array, dst_device, dst_host, dst_pitch) = end(dst);
    let c = sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: src_type,
        srcHost: src_host.cast_const().cast(),
        srcDevice: src_device,
        srcArray: src_array,
        srcPitch: src_pitch,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: dst_type,
        dstHost: dst_host.cast(),
        dstDevice: dst_device,
        dstArray: dst_array,
        dstPitch: dst_pitch,
        WidthInBytes: width as usize * 4,
        Height: height as usize,
    };
    // SAFETY: as guaranteed by the caller.
    check("cuMemcpy2DAsync", unsafe {
        sys::cuMemcpy2DAsync_v2(&c, stream)
    })
}

/// (memory type, array, device pointer, host pointer, pitch) of a copy's end.
fn end(p: Pitched) -> (sys::CUmemorytype, sys::CUarray, CUdeviceptr, *mut u8, usize) {
    use sys::CUmemorytype::*;
    let null = std::ptr::null_mut();
    match p {
        Pitched::Array(a) => (CU_MEMORYTYPE_ARRAY, a, 0, null, 0),
        Pitched::Device { ptr, pitch } => {
            (CU_MEMORYTYPE_DEVICE, std::ptr::null_mut(), ptr, null, pitch)
        }
        Pitched::Host { ptr, pitch } => (CU_MEMORYTYPE_HOST, std::ptr::null_mut(), 0, ptr, pitch),
    }
}
