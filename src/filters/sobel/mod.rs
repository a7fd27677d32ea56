//! `sobel[:scale=S]`: gradient magnitude of luma, scaled, written to R, G and B (alpha kept).
//! CPU reference in `cpu.rs`; kernel `kernels/filters/sobel.cu` (warps sliding down
//! strips of 30 output columns, neighbours' lumas by shuffle, in every stored format); NPP peer: the horizontal and vertical
//! Sobel passes (a different operation, timed for scale).
//!
//! Every sample type and channel count: the generic reference in `typed.rs` (its rules
//! there; `docs/design/pixel-types.md`), equal to `cpu_rgba8` on RGBA8.

mod cpu;
mod typed;

use crate::kernel_constants::{SOBEL_OUT, SOBEL_SEGMENT, SOBEL_WARPS};
use super::param::typed_params;
use super::param::Default::Value;
use super::{slides_strips, FilterDef, FilterOps, Golden, GpuStage, ParamDef, Params};
use crate::cuda::{blocks, CudaError};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use crate::pixels::PixelImage;
use image::RgbaImage;

pub struct Sobel;

const PARAMS: &[ParamDef] = &[ParamDef::real("scale", 0.0, 64.0, Value(1.0))
    .min_exclusive()
    .logarithmic()];

typed_params! {
    /// The factor of the gradient magnitude.
    pub struct SobelParams for PARAMS => { scale: f32 }
}

pub static SOBEL: FilterDef = FilterDef {
    name: "sobel",
    aliases: &[],
    summary: "sobel[:scale=S]  gradient magnitude of luma × S (0 < S ≤ 64, default 1) into R, G, B",
    ui_default: "sobel",
    params: PARAMS,
    gpu_tolerance: 1,
    kernel_modules: &["sobel"],
    bench_specs: &["sobel"],
    test_specs: &["sobel", "sobel:scale=0.05", "sobel:scale=64"],
    goldens: &[Golden {
                photo: "astronaut.png",
                specs: &["sobel"],
                file: "astronaut-sobel.png",
            }],
    note: None,
    ops: &Sobel,
};

impl FilterOps for Sobel {
    fn cpu_rgba8(&self, image: &RgbaImage, p: &Params) -> RgbaImage {
        cpu::sobel(image, SobelParams::from_params(p).scale)
    }

    fn cpu(&self, image: &PixelImage, p: &Params) -> PixelImage {
        crate::map_pixels!(image, b => typed::sobel_typed(b, SobelParams::from_params(p).scale))
    }

    fn launch(&self, stage: &mut GpuStage<'_>, p: &Params) -> Result<(), CudaError> {
        let (w, h) = (stage.width, stage.height);
        let scale = SobelParams::from_params(p).scale;
        // RGBA8 and narrow typed texels slide strips (`slide_window_strip`).
        let cfg = LaunchConfig {
            grid_dim: (
                blocks(w, SOBEL_OUT * SOBEL_WARPS),
                blocks(h, SOBEL_SEGMENT),
                1,
            ),
            block_dim: (32, SOBEL_WARPS, 1),
            shared_mem_bytes: 0,
        };
        if !stage.is_rgba8() {
            let cfg = match slides_strips(stage.layout) {
                true => cfg,
                false => GpuStage::pixel_grid(w, h),
            };
            let kernel = crate::typed_kernel!("sobel", stage.layout)?;
            let f = stage.kernels.function("sobel", kernel, &cfg)?;
            let (s, d, wi, hi) = (stage.input.handle(), stage.output.handle(), w as i32, h as i32);
            let mut b = stage.stream.launch_builder(&f);
            b.arg(&s).arg(&d).arg(&wi).arg(&hi).arg(&scale);
            // SAFETY: matches `sobel_<format>(tex, surf, int, int, float)` for the stage's
            // layout; the kernel writes only inside `w × h` of the output.
            return unsafe { b.launch(cfg) }
                .map(|_| ())
                .map_err(CudaError::launch(kernel));
        }
        let f = stage.kernels.function("sobel", "sobel", &cfg)?;
        let (s, d, wi, hi, scale) = (
            stage.input.handle(),
            stage.output.handle(),
            w as i32,
            h as i32,
            scale,
        );
        let mut b = stage.stream.launch_builder(&f);
        b.arg(&s).arg(&d).arg(&wi).arg(&hi).arg(&scale);
        // SAFETY: the argument list matches `sobel(tex, surf, int, int, float)` in
        // kernels/filters/sobel.cu; the kernel writes only inside `w × h` of the output,
        // which has that size.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("sobel"))
    }
}
