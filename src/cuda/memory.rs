//! Thin `Result` wrappers for the raw memory calls on mapped resources (arrays and
//! device pointers owned by GL), which cudarc's typed slices do not cover. Each takes raw
//! handles with no lifetime tying them to their owner, so each is an `unsafe fn` whose
//! caller vouches for the memory behind them.

use super::{check, CudaError};
use cudarc::driver::sys::{self, CUarray, CUdeviceptr, CUmemorytype};
use cudarc::driver::CudaStream;

/// One end of a 2-D copy of pixel rows.
enum CopyEnd {
    Array(CUarray),
    /// Host memory, rows packed (pitch = the row's bytes).
    Host(*mut u8),
}

impl CopyEnd {
    /// (memory type, array, host pointer, pitch) as `CUDA_MEMCPY2D` takes them.
    fn fields(&self, row_bytes: usize) -> (CUmemorytype, CUarray, *mut std::ffi::c_void, usize) {
        match *self {
            CopyEnd::Array(a) => (
                CUmemorytype::CU_MEMORYTYPE_ARRAY,
                a,
                std::ptr::null_mut(),
                0,
            ),
            CopyEnd::Host(p) => (
                CUmemorytype::CU_MEMORYTYPE_HOST,
                std::ptr::null_mut(),
                p.cast(),
                row_bytes,
            ),
        }
    }
}

/// Copies `height` rows of `row_bytes` from `src` (from `src_at`: byte in the row, row) to
/// `dst`, on `stream`.
///
/// # Safety
/// Each end must be a live array holding the rows copied (owned, mapped or imported) or
/// host memory of `row_bytes × height` bytes (only read when it is the source), and stay
/// so until the stream has run the copy.
unsafe fn copy_2d(
    (src, src_at): (CopyEnd, (usize, u32)),
    dst: CopyEnd,
    row_bytes: usize,
    height: u32,
    stream: &CudaStream,
) -> Result<(), CudaError> {
    let (src_type, src_array, src_host, src_pitch) = src.fields(row_bytes);
    let (dst_type, dst_array, dst_host, dst_pitch) = dst.fields(row_bytes);
    let copy = sys::CUDA_MEMCPY2D {
        srcXInBytes: src_at.0,
        srcY: src_at.1 as usize,
        srcMemoryType: src_type,
        srcHost: src_host.cast_const(),
        srcDevice: 0,
        srcArray: src_array,
        srcPitch: src_pitch,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: dst_type,
        dstHost: dst_host,
        dstDevice: 0,
        dstArray: dst_array,
        dstPitch: dst_pitch,
        WidthInBytes: row_bytes,
        Height: height as usize,
    };
    // SAFETY: the caller guarantees both ends (see # Safety); `copy` is fully initialised.
    check("cuMemcpy2DAsync", unsafe {
        sys::cuMemcpy2DAsync_v2(&copy, stream.cu_stream())
    })
}

/// Bytes of one RGBA8 pixel.
const RGBA8_BYTES: usize = 4;

/// Checks that `bytes` host bytes hold a `width × height` image of `pixel_bytes` per pixel;
/// the bytes of one row.
fn check_host_size(
    bytes: usize,
    width: u32,
    height: u32,
    pixel_bytes: usize,
) -> Result<usize, CudaError> {
    let row = width as usize * pixel_bytes;
    if bytes == row * height as usize {
        return Ok(row);
    }
    Err(CudaError::Driver {
        call: "cuMemcpy2DAsync",
        reason: format!("{bytes} bytes for a {width}×{height} image"),
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
    unsafe {
        copy_2d(
            (CopyEnd::Array(src), (0, 0)),
            CopyEnd::Array(dst),
            width as usize * RGBA8_BYTES,
            height,
            stream,
        )
    }
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
    // SAFETY: as guaranteed by the caller, with RGBA8 pixels.
    unsafe { read_texels(src, (width, height), RGBA8_BYTES, out, stream) }
}

/// [`read_array`] for an array of any format: `pixel_bytes` per pixel (its
/// `ArrayFormat::bytes_per_pixel`), `out` holding `width × height` of them.
///
/// # Safety
/// `src` must be a live array of at least `width × height` pixels of `pixel_bytes` (owned,
/// mapped or imported) that stays so until this returns.
pub unsafe fn read_texels(
    src: CUarray,
    (width, height): (u32, u32),
    pixel_bytes: usize,
    out: &mut [u8],
    stream: &CudaStream,
) -> Result<(), CudaError> {
    let row = check_host_size(out.len(), width, height, pixel_bytes)?;
    let dst = CopyEnd::Host(out.as_mut_ptr());
    // SAFETY: `out` holds exactly the image (checked) and outlives the copy, which is
    // waited for below; the caller guarantees `src`.
    unsafe { copy_2d((CopyEnd::Array(src), (0, 0)), dst, row, height, stream)? };
    stream
        .synchronize()
        .map_err(CudaError::driver("cuStreamSynchronize"))
}

/// Copies `pixels` (a `width × height` RGBA8 image, rows packed) into the array `dst` and
/// waits for the copy: an upload through CUDA's own staging buffers, where a GL upload
/// from client memory goes through staging memory the GL driver maps and unmaps in 4 MiB
/// blocks.
///
/// # Safety
/// `dst` must be a live RGBA8 array of at least `width × height` pixels (owned, mapped or
/// imported) that stays so until this returns, and nothing else may use it meanwhile.
pub unsafe fn write_array(
    dst: CUarray,
    width: u32,
    height: u32,
    pixels: &[u8],
    stream: &CudaStream,
) -> Result<(), CudaError> {
    // SAFETY: as guaranteed by the caller, with RGBA8 pixels.
    unsafe { write_texels(dst, (width, height), RGBA8_BYTES, pixels, stream) }
}

/// [`write_array`] for an array of any format: `pixel_bytes` per pixel (its
/// `ArrayFormat::bytes_per_pixel`), `texels` holding `width × height` of them.
///
/// # Safety
/// `dst` must be a live array of at least `width × height` pixels of `pixel_bytes` (owned,
/// mapped or imported) that stays so until this returns, and nothing else may use it
/// meanwhile.
pub unsafe fn write_texels(
    dst: CUarray,
    (width, height): (u32, u32),
    pixel_bytes: usize,
    texels: &[u8],
    stream: &CudaStream,
) -> Result<(), CudaError> {
    let row = check_host_size(texels.len(), width, height, pixel_bytes)?;
    // Only read: the source end of the copy.
    let src = CopyEnd::Host(texels.as_ptr().cast_mut());
    // SAFETY: `texels` holds exactly the image (checked) and outlives the copy, which is
    // waited for below; the caller guarantees `dst`.
    unsafe { copy_2d((src, (0, 0)), CopyEnd::Array(dst), row, height, stream)? };
    stream
        .synchronize()
        .map_err(CudaError::driver("cuStreamSynchronize"))
}

/// Reads the pixel at (`x`, `y`) of an RGBA8 array and waits for it.
///
/// # Safety
/// `src` must be a live RGBA8 array holding (`x`, `y`) that stays so until this returns.
pub unsafe fn read_pixel(
    src: CUarray,
    (x, y): (u32, u32),
    stream: &CudaStream,
) -> Result<[u8; 4], CudaError> {
    let mut out = [0u8; RGBA8_BYTES];
    let at = (x as usize * RGBA8_BYTES, y);
    let dst = CopyEnd::Host(out.as_mut_ptr());
    // SAFETY: `out` holds one pixel and outlives the copy, waited for below; the caller
    // guarantees `src` holds the pixel.
    unsafe { copy_2d((CopyEnd::Array(src), at), dst, RGBA8_BYTES, 1, stream)? };
    stream
        .synchronize()
        .map_err(CudaError::driver("cuStreamSynchronize"))?;
    Ok(out)
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
