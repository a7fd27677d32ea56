//! Launcher of `kernels/histogram.cu`: the R, G, B and luma histograms of a texture. Not a
//! filter of the stack: every frame runs it on the output, and `equalize` on its input.

use crate::cuda::{CudaError, KernelSet, TextureObject};
use crate::kernel_constants::{HIST_ROWS, HIST_WARPS};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaStream, LaunchConfig, PushKernelArg};

/// Histogram blocks per multiprocessor (the kernel loops over the image).
const HIST_BLOCKS_PER_SM: u64 = 4;

/// Bytes of the 4 × 256 `u32` bins.
pub const HISTOGRAM_BIN_BYTES: usize = 4 * 256 * 4;

/// Adds the R, G, B and luma counts of `src` (`w × h`) to the 4 × 256 `u32` bins at `bins`
/// (the caller zeroes them).
///
/// # Safety
/// `bins` must point to at least [`HISTOGRAM_BIN_BYTES`] of device memory writable by
/// `stream`'s context, valid until the stream has run the kernel.
pub unsafe fn launch_histogram(
    kernels: &KernelSet,
    stream: &CudaStream,
    src: &TextureObject,
    w: u32,
    h: u32,
    bins: CUdeviceptr,
) -> Result<(), CudaError> {
    let block = HIST_WARPS * 32;
    // Items of 32 columns × HIST_ROWS rows, one warp each at a time, a few blocks per SM.
    let items = u64::from(w.div_ceil(32)) * u64::from(h.div_ceil(HIST_ROWS));
    let grid = items
        .div_ceil(u64::from(HIST_WARPS))
        .min(u64::from(kernels.sm_count) * HIST_BLOCKS_PER_SM) as u32;
    let cfg = LaunchConfig {
        grid_dim: (grid.max(1), 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    };
    let f = kernels.function("histogram", "histogram", &cfg)?;
    let (s, wi, hi) = (src.handle(), w as i32, h as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&s).arg(&wi).arg(&hi).arg(&bins);
    // SAFETY: matches `histogram(tex, int, int, unsigned int*)`; the caller guarantees that
    // `bins` holds 4 · 256 u32.
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch("histogram"))
}
