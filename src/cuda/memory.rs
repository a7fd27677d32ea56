//! Thin `Result` wrappers for the raw memory calls on mapped resources (arrays and
//! device pointers owned by GL), which cudarc's typed slices do not cover. Each takes raw
//! handles with no lifetime tying them to their owner, so each is an `unsafe fn` whose
//! caller vouches for the memory behind them.

use super::{check, CudaError};
use cudarc::driver::sys::{self, CUarray, CUdeviceptr, CUmemorytype};
use cudarc::driver::CudaStream;

/// Where a 2-D copy from an array goes.
enum CopyTarget {
    Array(CUarray),
    /// Host memory, rows packed (pitch = width × 4).
    Host(*mut u8),
}

/// Copies `width × height` RGBA8 pixels out of `src` into `dst`, on `stream`.
///
/// # Safety
/// `src` must be a live RGBA8 array of at least `width × height` pixels (owned, mapped or
/// imported); `dst` an array as large, or host memory of `width × height × 4` bytes; both
/// must stay so until the stream has run the copy.
unsafe fn copy_from_array(
    src: CUarray,
    dst: CopyTarget,
    width: u32,
    height: u32,
    stream: &CudaStream,
) -> Result<(), CudaError> {
    let (dst_type, dst_array, dst_host, dst_pitch) = match dst {
        CopyTarget::Array(a) => (
            CUmemorytype::CU_MEMORYTYPE_ARRAY,
            a,
            std::ptr::null_mut(),
            0,
        ),
        CopyTarget::Host(p) => (
            CUmemorytype::CU_MEMORYTYPE_HOST,
            std::ptr::null_mut(),
            p.cast(),
            width as usize * 4,
        ),
    };
    let copy = sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: CUmemorytype::CU_MEMORYTYPE_ARRAY,
        srcHost: std::ptr::null(),
        srcDevice: 0,
        srcArray: src,
        srcPitch: 0,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: dst_type,
        dstHost: dst_host,
        dstDevice: 0,
        dstArray: dst_array,
        dstPitch: dst_pitch,
        WidthInBytes: width as usize * 4,
        Height: height as usize,
    };
    // SAFETY: the caller guarantees both ends (see # Safety); `copy` is fully initialised.
    check("cuMemcpy2DAsync", unsafe {
        sys::cuMemcpy2DAsync_v2(&copy, stream.cu_stream())
    })
}

/// Copies a `width × height` RGBA8 array into another of the same size, on `stream`.
///
/// # Safety
/// `src` and `dst` must be live RGBA8 arrays of at least `width × height` pixels (owned,
/// mapped or imported), and stay so until the stream has run the copy.
pub unsafe fn copy_array(
    src: CUarray,
    dst: CUarray,
    width: u32,
    height: u32,
    stream: &CudaStream,
) -> Result<(), CudaError> {
    // SAFETY: as guaranteed by the caller.
    unsafe { copy_from_array(src, CopyTarget::Array(dst), width, height, stream) }
}

/// Copies a `width × height` RGBA8 array into `out` (rows packed) and waits for the copy:
/// the read-back of a result through CUDA, whose staging buffers are the driver's own and
/// kept, where a GL pixel-pack buffer of the image's size would be made for each read.
///
/// # Safety
/// `src` must be a live RGBA8 array of at least `width × height` pixels (owned, mapped or
/// imported) that stays so until this returns.
pub unsafe fn read_array(
    src: CUarray,
    width: u32,
    height: u32,
    out: &mut [u8],
    stream: &CudaStream,
) -> Result<(), CudaError> {
    if out.len() != width as usize * height as usize * 4 {
        return Err(CudaError::Driver {
            call: "cuMemcpy2DAsync",
            reason: format!("{} bytes for a {width}×{height} image", out.len()),
        });
    }
    let dst = CopyTarget::Host(out.as_mut_ptr());
    // SAFETY: `out` holds exactly the image (checked) and outlives the copy, which is
    // waited for below; the caller guarantees `src`.
    unsafe { copy_from_array(src, dst, width, height, stream)? };
    stream
        .synchronize()
        .map_err(CudaError::driver("cuStreamSynchronize"))
}

/// Sets `count` u32 at `ptr` to `value`, on `stream`.
///
/// # Safety
/// `ptr` must point to device memory of at least `count` u32 that stays allocated (and
/// mapped, for a GL buffer) until the stream has run the fill.
pub unsafe fn fill_u32(
    ptr: CUdeviceptr,
    value: u32,
    count: usize,
    stream: &CudaStream,
) -> Result<(), CudaError> {
    // SAFETY: the caller guarantees `ptr` covers `count` u32 (see # Safety).
    check("cuMemsetD32Async", unsafe {
        sys::cuMemsetD32Async(ptr, value, count, stream.cu_stream())
    })
}

/// Queues a copy of `out.len()` u32 from `ptr` into page-locked host memory on `stream`;
/// the values may be read once the stream has reached this point (synchronize first).
///
/// # Safety
/// `ptr` must point to device memory of at least `out.len()` u32 that stays allocated (and
/// mapped) until the stream has run the copy; `out` must not be freed before then either.
pub unsafe fn read_u32_async(
    ptr: CUdeviceptr,
    out: &mut cudarc::driver::PinnedHostSlice<u32>,
    stream: &CudaStream,
) -> Result<(), CudaError> {
    let bytes = out.num_bytes();
    // The slice's own event is never recorded here, so this does not wait.
    let dst = out
        .as_mut_ptr()
        .map_err(CudaError::driver("cuEventSynchronize"))?;
    // SAFETY: `dst` is page-locked host memory of `bytes`; the caller guarantees that
    // `ptr` covers as many bytes until the copy has run.
    check("cuMemcpyDtoHAsync", unsafe {
        sys::cuMemcpyDtoHAsync_v2(dst.cast(), ptr, bytes, stream.cu_stream())
    })
}
