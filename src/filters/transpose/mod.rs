//! `transpose`: `out(x, y) = in(y, x)`; the output is H×W and alpha moves with its pixel.
//! CPU reference in `cpu.rs`; kernel `kernels/filters/transpose.cu` (padded tile);
//! NPP peer: `nppiTranspose_8u_C4R`.
//!
//! Every sample type and channel count: the generic reference in `typed.rs` (its rules
//! there; `docs/design/pixel-types.md`), equal to `cpu_rgba8` on RGBA8.

mod cpu;
mod typed;

use crate::kernel_constants::{TRANSPOSE_ROWS, TRANSPOSE_TILE};
use super::{FilterDef, FilterOps, Golden, GpuStage, Params};
use crate::cuda::{blocks, CudaError};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use crate::pixels::PixelImage;
use image::RgbaImage;

pub struct Transpose;

pub static TRANSPOSE: FilterDef = FilterDef {
    name: "transpose",
    aliases: &[],
    summary: "transpose  swap rows and columns (the output is H×W), exact",
    ui_default: "transpose",
    params: &[],
    gpu_tolerance: 0,
    kernel_modules: &["transpose"],
    bench_specs: &["transpose"],
    test_specs: &["transpose"],
    goldens: &[Golden {
                photo: "logo.png",
                specs: &["transpose", "sobel:scale=2"],
                file: "logo-transpose-sobel.png",
            }],
    note: Some("output is H×W"),
    ops: &Transpose,
};

impl FilterOps for Transpose {
    fn output_size(&self, width: u32, height: u32) -> (u32, u32) {
        (height, width)
    }

    fn cpu_rgba8(&self, image: &RgbaImage, _: &Params) -> RgbaImage {
        cpu::transpose(image)
    }

    fn cpu(&self, image: &PixelImage, _: &Params) -> PixelImage {
        crate::map_pixels!(image, b => typed::transpose_typed(b))
    }

    fn launch(&self, stage: &mut GpuStage<'_>, _: &Params) -> Result<(), CudaError> {
        let (w, h) = (stage.width, stage.height);
        let cfg = LaunchConfig {
            grid_dim: (blocks(w, TRANSPOSE_TILE), blocks(h, TRANSPOSE_TILE), 1),
            block_dim: (TRANSPOSE_TILE, TRANSPOSE_ROWS, 1),
            shared_mem_bytes: 0,
        };
        let kernel = match stage.is_rgba8() {
            true => "transpose",
            false => crate::typed_kernel!("transpose", stage.layout)?,
        };
        let f = stage.kernels.function("transpose", kernel, &cfg)?;
        let (s, d, wi, hi) = (
            stage.input.handle(),
            stage.output.handle(),
            w as i32,
            h as i32,
        );
        let mut b = stage.stream.launch_builder(&f);
        b.arg(&s).arg(&d).arg(&wi).arg(&hi);
        // SAFETY: matches `transpose[_<format>](tex, surf, int, int)` for the stage's
        // layout; the output is h × w of that layout.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch(kernel))
    }
}
