//! Thin `Result` wrappers for the raw memory calls on mapped resources (arrays and
//! device pointers owned by GL), which cudarc's typed slices do not cover. Each takes raw
//! handles with no lifetime tying them to their owner, so each is an `unsafe fn` whose
//! caller vouches for the memory behind them.

use super::{check, CudaError};
use cudarc::driver::sys::{self, CUarray, CUdeviceptr, CUmemorytype};
use cudarc::driver::CudaStream;

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
        dstMemoryType: CUmemorytype::CU_MEMORYTYPE_ARRAY,
        dstHost: std::ptr::null_mut(),
        dstDevice: 0,
        dstArray: dst,
        dstPitch: 0,
        WidthInBytes: width as usize * 4,
        Height: height as usize,
    };
    // SAFETY: the caller guarantees both arrays (see # Safety); `copy` is fully initialised.
    check("cuMemcpy2DAsync", unsafe {
        sys::cuMemcpy2DAsync_v2(&copy, stream.cu_stream())
    })
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

/// Copies `out.len()` u32 from `ptr` to the host, ordered after the stream's work.
///
/// # Safety
/// `ptr` must point to device memory of at least `out.len()` u32, live until this returns.
pub unsafe fn read_u32(
    ptr: CUdeviceptr,
    out: &mut [u32],
    stream: &CudaStream,
) -> Result<(), CudaError> {
    // SAFETY: `out` is a writable host slice of the copied size; the caller guarantees
    // that `ptr` covers it.
    check("cuMemcpyDtoHAsync", unsafe {
        sys::cuMemcpyDtoHAsync_v2(
            out.as_mut_ptr().cast(),
            ptr,
            std::mem::size_of_val(out),
            stream.cu_stream(),
        )
    })?;
    // SAFETY: waits on a valid stream; `out` must not be read before this returns.
    check("cuStreamSynchronize", unsafe {
        sys::cuStreamSynchronize(stream.cu_stream())
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
