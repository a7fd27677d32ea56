//! Launcher of `kernels/copy.cu`: the frame's copy from the source to the output texture
//! when no filter runs. Not a filter of the stack.

use crate::cuda::{blocks, CudaError, KernelSet, SurfaceObject, TextureObject};
use crate::kernel_constants::{COPY_BLOCK_X, COPY_BLOCK_Y, COPY_ROWS};
use cudarc::driver::{CudaStream, LaunchConfig, PushKernelArg};

/// Copies `src` into `dst`, both `w × h` RGBA8.
pub fn launch_copy(
    kernels: &KernelSet,
    stream: &CudaStream,
    src: &TextureObject,
    dst: &SurfaceObject,
    w: u32,
    h: u32,
) -> Result<(), CudaError> {
    let cfg = LaunchConfig {
        grid_dim: (
            blocks(w, COPY_BLOCK_X),
            blocks(h, COPY_BLOCK_Y * COPY_ROWS),
            1,
        ),
        block_dim: (COPY_BLOCK_X, COPY_BLOCK_Y, 1),
        shared_mem_bytes: 0,
    };
    let f = kernels.function("copy", "copy_image", &cfg)?;
    let (s, d, wi, hi) = (src.handle(), dst.handle(), w as i32, h as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&s).arg(&d).arg(&wi).arg(&hi);
    // SAFETY: matches `copy_image(tex, surf, int, int)`; the kernel writes only inside
    // `w × h` of `dst`, which has that size.
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch("copy_image"))
}
