//! `transpose`: `out(x, y) = in(y, x)`; the output is H×W and alpha moves with its pixel.
//! CPU reference in `cpu.rs`; kernel `kernels/filters/transpose.cu` (padded tile);
//! NPP peer: `nppiTranspose_8u_C4R`.

mod cpu;

use crate::kernel_constants::{TRANSPOSE_ROWS, TRANSPOSE_TILE};
use super::{FilterDef, Golden, GpuStage, ParamDef, Params};
use crate::cuda::{blocks, CudaError};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use image::RgbaImage;

pub struct Transpose;

impl FilterDef for Transpose {
    fn name(&self) -> &'static str {
        "transpose"
    }

    fn summary(&self) -> &'static str {
        "transpose  swap rows and columns (the output is H×W), exact"
    }

    fn ui_default(&self) -> &'static str {
        "transpose"
    }

    fn params(&self) -> &'static [ParamDef] {
        &[]
    }

    fn output_size(&self, width: u32, height: u32) -> (u32, u32) {
        (height, width)
    }

    fn cpu(&self, image: &RgbaImage, _: &Params) -> RgbaImage {
        cpu::transpose(image)
    }

    fn gpu_tolerance(&self) -> u8 {
        0
    }

    fn kernel_modules(&self) -> &'static [&'static str] {
        &["transpose"]
    }

    fn launch(&self, stage: &mut GpuStage<'_>, _: &Params) -> Result<(), CudaError> {
        let (w, h) = (stage.width, stage.height);
        let cfg = LaunchConfig {
            grid_dim: (blocks(w, TRANSPOSE_TILE), blocks(h, TRANSPOSE_TILE), 1),
            block_dim: (TRANSPOSE_TILE, TRANSPOSE_ROWS, 1),
            shared_mem_bytes: 0,
        };
        let f = stage.kernels.function("transpose", "transpose", &cfg)?;
        let (s, d, wi, hi) = (
            stage.input.handle(),
            stage.output.handle(),
            w as i32,
            h as i32,
        );
        let mut b = stage.stream.launch_builder(&f);
        b.arg(&s).arg(&d).arg(&wi).arg(&hi);
        // SAFETY: matches `transpose(tex, surf, int, int)`; the output is h × w.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("transpose"))
    }

    fn bench_specs(&self) -> &'static [&'static str] {
        &["transpose"]
    }

    fn test_specs(&self) -> &'static [&'static str] {
        &["transpose"]
    }

    fn goldens(&self) -> &'static [Golden] {
        &[Golden {
            photo: "logo.png",
            specs: &["transpose", "sobel:scale=2"],
            file: "logo-transpose-sobel.png",
        }]
    }

    fn note(&self) -> Option<&'static str> {
        Some("output is H×W")
    }
}
