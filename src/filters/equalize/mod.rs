//! `equalize`: histogram equalisation of R, G and B, each on its own, as OpenCV's
//! `equalizeHist` computes it: with the channel's histogram `h`, `N` pixels, `i0` the
//! smallest value present and `cdf` the cumulative histogram,
//! `v ↦ round((cdf(v) − h(i0)) · s)` where `s = 255 / (N − h(i0))` in f32 and rounding is to
//! nearest, ties to even; a constant channel is left as it is. Alpha is kept. Exact.
//!
//! CPU reference in `cpu.rs`. GPU: the histogram kernel counts the input into the scratch,
//! `kernels/filters/equalize.cu` builds the three LUTs there and applies them: histogram,
//! LUT and application stay on the device.
//!
//! Every sample type and channel count: the generic reference in `typed.rs` (its rules
//! there; `docs/design/pixel-types.md`), equal to `cpu_rgba8` on RGBA8.

mod cpu;
mod typed;

use crate::kernel_constants::{EQUALIZE_BINS, EQUALIZE_BLOCK_X, EQUALIZE_BLOCK_Y, EQUALIZE_ROWS};
use super::histogram::{launch_histogram, HISTOGRAM_BIN_BYTES};
use super::{FilterDef, FilterOps, Golden, GpuStage, Params};
use crate::cuda::{blocks, check_scratch, CudaError};
use cudarc::driver::{DevicePtrMut, LaunchConfig, PushKernelArg};
use crate::pixels::PixelImage;
use image::RgbaImage;

/// The three 256-entry LUTs follow the bins in the scratch.
const LUT_BYTES: usize = 3 * EQUALIZE_BINS as usize;

pub struct Equalize;

pub static EQUALIZE: FilterDef = FilterDef {
    name: "equalize",
    aliases: &[],
    summary: "equalize  histogram equalisation of R, G and B each (as OpenCV's equalizeHist), exact",
    ui_default: "equalize",
    params: &[],
    gpu_tolerance: 0,
    kernel_modules: &["histogram", "equalize"],
    bench_specs: &["equalize"],
    test_specs: &["equalize"],
    goldens: &[Golden {
                photo: "camera.png",
                specs: &["equalize"],
                file: "camera-equalize.png",
            }],
    note: None,
    ops: &Equalize,
};

impl FilterOps for Equalize {
    fn cpu_rgba8(&self, image: &RgbaImage, _: &Params) -> RgbaImage {
        cpu::equalize(image)
    }

    fn cpu(&self, image: &PixelImage, _: &Params) -> PixelImage {
        crate::map_pixels!(image, b => typed::equalize_typed(b))
    }

    fn scratch_bytes(&self, _: u32, _: u32, _: &Params) -> usize {
        HISTOGRAM_BIN_BYTES + LUT_BYTES
    }

    fn launch(&self, stage: &mut GpuStage<'_>, _: &Params) -> Result<(), CudaError> {
        let (w, h) = (stage.width, stage.height);
        check_scratch(
            "equalize",
            stage.scratch.len(),
            HISTOGRAM_BIN_BYTES + LUT_BYTES,
        )?;
        let stream = stage.stream;
        let mut bins = stage.scratch.slice_mut(0..HISTOGRAM_BIN_BYTES);
        stream
            .memset_zeros(&mut bins)
            .map_err(CudaError::driver("cuMemsetD8Async(bins)"))?;
        {
            let (bins_ptr, _sync) = bins.device_ptr_mut(stream);
            // SAFETY: `bins` is HISTOGRAM_BIN_BYTES of this context's device memory, alive
            // (borrowed from the scratch) until the stream has run the kernel.
            unsafe { launch_histogram(stage.kernels, stream, stage.input, w, h, bins_ptr)? };
        }
        let total = (w * h) as i32;
        let lut_cfg = LaunchConfig {
            grid_dim: (3, 1, 1),
            block_dim: (EQUALIZE_BINS, 1, 1),
            shared_mem_bytes: 0,
        };
        let lut_fn = stage
            .kernels
            .function("equalize", "equalize_lut", &lut_cfg)?;
        let mut b = stream.launch_builder(&lut_fn);
        b.arg(&*stage.scratch).arg(&total);
        // SAFETY: matches `equalize_lut(unsigned char* scratch, int)`: it reads the bins at
        // offset 0 and writes the 3 × 256 LUT bytes after them, inside the checked scratch.
        unsafe { b.launch(lut_cfg) }.map_err(CudaError::launch("equalize_lut"))?;
        let cfg = LaunchConfig {
            grid_dim: (
                blocks(w, EQUALIZE_BLOCK_X),
                blocks(h, EQUALIZE_BLOCK_Y * EQUALIZE_ROWS),
                1,
            ),
            block_dim: (EQUALIZE_BLOCK_X, EQUALIZE_BLOCK_Y, 1),
            shared_mem_bytes: 0,
        };
        let apply_fn = stage.kernels.function("equalize", "equalize_apply", &cfg)?;
        let (s, d, wi, hi) = (
            stage.input.handle(),
            stage.output.handle(),
            w as i32,
            h as i32,
        );
        let mut b = stream.launch_builder(&apply_fn);
        b.arg(&s).arg(&d).arg(&wi).arg(&hi).arg(&*stage.scratch);
        // SAFETY: matches `equalize_apply(tex, surf, int, int, const unsigned char*)`; it
        // reads the LUT inside the checked scratch; the output is w × h.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("equalize_apply"))
    }
}
