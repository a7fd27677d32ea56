//! `sobel[:scale=S]`: gradient magnitude of luma, scaled, written to R, G and B (alpha kept).
//! CPU reference in `ops/cpu/sobel.rs`; kernel `kernels/sobel.cu` (warps sliding down
//! strips of 30 output columns, neighbours' lumas by shuffle); NPP peer: the horizontal and vertical
//! Sobel passes (a different operation, timed for scale).

use super::param::Default::Value;
use super::{FilterDef, Golden, GpuStage, ParamDef, Params};
use crate::cuda::{blocks, CudaError};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use image::RgbaImage;

pub const SOBEL_WARPS: u32 = 4;
/// Rows a block slides down: short segments spread the work over more blocks (kernel sweep
/// on the H200, device runs 69–71, 8K: 16 rows 0.103 ms, 32 rows 0.108, 64 rows 0.111).
pub const SOBEL_SEGMENT: u32 = 16;
pub const SOBEL_STEP: u32 = 4;
/// Output columns of a warp's strip: 32 lanes less the apron lane at each side.
pub const SOBEL_OUT: u32 = 30;

pub struct Sobel;

const PARAMS: &[ParamDef] = &[ParamDef::real("scale", 0.0, 64.0, Value(1.0))
    .min_exclusive()
    .logarithmic()];

impl FilterDef for Sobel {
    fn name(&self) -> &'static str {
        "sobel"
    }

    fn summary(&self) -> &'static str {
        "sobel[:scale=S]  gradient magnitude of luma × S (0 < S ≤ 64, default 1) into R, G, B"
    }

    fn ui_default(&self) -> &'static str {
        "sobel"
    }

    fn params(&self) -> &'static [ParamDef] {
        PARAMS
    }

    fn cpu(&self, image: &RgbaImage, p: &Params) -> RgbaImage {
        crate::ops::cpu::sobel(image, p.get(0))
    }

    fn gpu_tolerance(&self) -> u8 {
        1
    }

    fn kernel_modules(&self) -> &'static [&'static str] {
        &["sobel"]
    }

    fn tile_constants(&self) -> &'static [(&'static str, &'static str, u32)] {
        &[
            ("sobel", "SOBEL_WARPS", SOBEL_WARPS),
            ("sobel", "SOBEL_SEGMENT", SOBEL_SEGMENT),
            ("sobel", "SOBEL_STEP", SOBEL_STEP),
            ("sobel", "SOBEL_OUT", SOBEL_OUT),
        ]
    }

    fn launch(&self, stage: &mut GpuStage<'_>, p: &Params) -> Result<(), CudaError> {
        let (w, h) = (stage.width, stage.height);
        let cfg = LaunchConfig {
            grid_dim: (
                blocks(w, SOBEL_OUT * SOBEL_WARPS),
                blocks(h, SOBEL_SEGMENT),
                1,
            ),
            block_dim: (32, SOBEL_WARPS, 1),
            shared_mem_bytes: 0,
        };
        let f = stage.kernels.function("sobel", "sobel", &cfg)?;
        let (s, d, wi, hi, scale) = (
            stage.input.handle(),
            stage.output.handle(),
            w as i32,
            h as i32,
            p.get(0),
        );
        let mut b = stage.stream.launch_builder(&f);
        b.arg(&s).arg(&d).arg(&wi).arg(&hi).arg(&scale);
        // SAFETY: the argument list matches `sobel(tex, surf, int, int, float)` in
        // kernels/sobel.cu; the kernel writes only inside `w × h` of the output, which has
        // that size.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("sobel"))
    }

    fn bench_specs(&self) -> &'static [&'static str] {
        &["sobel"]
    }

    fn test_specs(&self) -> &'static [&'static str] {
        &["sobel", "sobel:scale=0.05", "sobel:scale=64"]
    }

    fn goldens(&self) -> &'static [Golden] {
        &[Golden {
            photo: "astronaut.png",
            specs: &["sobel"],
            file: "astronaut-sobel.png",
        }]
    }
}
