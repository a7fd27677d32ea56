//! Launcher of `kernels/copy.cu`: the frame's copy from the source to the output texture
//! when no filter runs, for every stored format. Not a filter of the stack.

use crate::cuda::{blocks, CudaError, KernelSet, SurfaceObject, TextureObject};
use crate::kernel_constants::{COPY_BLOCK_X, COPY_BLOCK_Y, COPY_ROWS};
use crate::pixels::SampleType;
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
    launch_typed_copy(kernels, stream, (src, dst), (w, h), (SampleType::U8, 4))
}

/// The copy kernel of arrays of `sample` with `channels` (1 or 4), as `copy.cu` names it:
/// `copy_image` for RGBA8, `copy_<format>` for the typed formats.
pub fn copy_kernel_name(sample: SampleType, channels: u8) -> Result<&'static str, CudaError> {
    match (sample, channels) {
        super::RGBA8 => Ok("copy_image"),
        layout => crate::typed_kernel!("copy", layout),
    }
}

/// Copies `src` into `dst` (texture and surface objects over arrays of `w × h` pixels of
/// `sample` × `channels`, the texture reading elements as stored): bit for bit.
pub fn launch_typed_copy(
    kernels: &KernelSet,
    stream: &CudaStream,
    (src, dst): (&TextureObject, &SurfaceObject),
    (w, h): (u32, u32),
    (sample, channels): (SampleType, u8),
) -> Result<(), CudaError> {
    let kernel = copy_kernel_name(sample, channels)?;
    let cfg = LaunchConfig {
        grid_dim: (
            blocks(w, COPY_BLOCK_X),
            blocks(h, COPY_BLOCK_Y * COPY_ROWS),
            1,
        ),
        block_dim: (COPY_BLOCK_X, COPY_BLOCK_Y, 1),
        shared_mem_bytes: 0,
    };
    let f = kernels.function("copy", kernel, &cfg)?;
    let (s, d, wi, hi) = (src.handle(), dst.handle(), w as i32, h as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&s).arg(&d).arg(&wi).arg(&hi);
    // SAFETY: matches `copy_*(tex, surf, int, int)`; the kernel writes only inside `w × h`
    // of `dst`, which has that size and the pixel type the kernel stores.
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch(kernel))
}
