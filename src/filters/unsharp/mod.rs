//! `unsharp:sigma=S,amount=A[,radius=R]`: per R, G and B channel
//! `out = clamp(round(v + A·(v − g)), 0, 255)` where `g` is the Gaussian of the `gaussian`
//! contract (same σ and R, before rounding); alpha kept; within 1 on the GPU.
//!
//! CPU reference (`cpu.rs`): the Gaussian's `gaussian_plane`, then the formula. GPU: up to
//! `CONV_FUSED_MAX_RADIUS` the Gaussian's fused pass finishing into the formula
//! (`unsharp_fused` in `kernels/filters/convolution.cu`, no scratch); above it the Gaussian
//! row pass of `kernels/filters/convolution.cu` into the scratch plane, then
//! `kernels/filters/unsharp.cu`, a column pass that applies the formula instead of storing
//! the blur.
//!
//! Every sample type and channel count: the generic reference in `typed.rs` (its rules
//! there; `docs/design/pixel-types.md`), equal to `cpu_rgba8` on RGBA8.

mod cpu;
mod typed;

use crate::kernel_constants::{CONV_FUSED_MAX_RADIUS, UNSHARP_BLOCK_X, UNSHARP_BLOCK_Y};
use super::gaussian::{
    default_radius, fused_pass, gaussian_weights, row_pass, typed_passes, upload_weights, RADIUS,
    SCRATCH_PER_PIXEL, SIGMA,
};
use super::param::typed_params;
use super::param::Default::Required;
use super::{colour_plane_bytes, FilterDef, FilterOps, Golden, GpuStage, ParamDef, Params, RGBA8};
use crate::cuda::{blocks, CudaError};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use crate::pixels::{PixelImage, SampleType};
use image::RgbaImage;

pub struct Unsharp;

const PARAMS: &[ParamDef] = &[SIGMA, ParamDef::real("amount", 0.0, 10.0, Required), RADIUS];

typed_params! {
    /// The Gaussian's σ and radius, and the amount of the difference added.
    pub struct UnsharpParams for PARAMS => { sigma: f32, amount: f32, radius: u32 }
}

pub static UNSHARP: FilterDef = FilterDef {
    name: "unsharp",
    aliases: &[],
    summary: "unsharp:sigma=S,amount=A[,radius=R]  sharpen: v + A·(v − gaussian) (0 ≤ A ≤ 10; S, R as gaussian)",
    ui_default: "unsharp:sigma=2,amount=1",
    params: PARAMS,
    gpu_tolerance: 1,
    kernel_modules: &["convolution", "unsharp"],
    bench_specs: &["unsharp:sigma=2,amount=1"],
    test_specs: &[
                "unsharp:sigma=0.1,amount=10,radius=1",
                "unsharp:sigma=2,amount=1.5",
                "unsharp:sigma=32,amount=0,radius=96",
                "unsharp:sigma=4,amount=10",
            ],
    goldens: &[Golden {
                photo: "astronaut.png",
                specs: &["unsharp:sigma=2,amount=1.5"],
                file: "astronaut-unsharp.png",
            }],
    note: None,
    ops: &Unsharp,
};

impl FilterOps for Unsharp {
    fn derive(&self, p: &mut Params) {
        let mut u = UnsharpParams::from_params(p);
        u.radius = default_radius(u.sigma);
        *p = u.to_params();
    }

    fn cpu_rgba8(&self, image: &RgbaImage, p: &Params) -> RgbaImage {
        let u = UnsharpParams::from_params(p);
        cpu::unsharp(image, u.sigma, u.amount, u.radius)
    }

    fn cpu(&self, image: &PixelImage, p: &Params) -> PixelImage {
        let u = UnsharpParams::from_params(p);
        crate::map_pixels!(image, b => typed::unsharp_typed(b, u.sigma, u.amount, u.radius))
    }

    fn scratch_bytes(&self, width: u32, height: u32, layout: (SampleType, u8), p: &Params) -> usize {
        if layout != RGBA8 {
            return colour_plane_bytes(width, height, layout);
        }
        if UnsharpParams::from_params(p).radius <= CONV_FUSED_MAX_RADIUS {
            return 0; // one fused pass, no row plane
        }
        width as usize * height as usize * SCRATCH_PER_PIXEL
    }

    fn launch(&self, stage: &mut GpuStage<'_>, p: &Params) -> Result<(), CudaError> {
        let UnsharpParams {
            sigma,
            amount,
            radius,
        } = UnsharpParams::from_params(p);
        let weights = gaussian_weights(sigma, radius);
        upload_weights(stage, "convolution", &weights)?;
        if !stage.is_rgba8() {
            return typed_passes(stage, radius, Some(amount));
        }
        if radius <= CONV_FUSED_MAX_RADIUS {
            return fused_pass(stage, radius, Some(amount));
        }
        upload_weights(stage, "unsharp", &weights)?;
        row_pass(stage, radius)?;
        let (w, h) = (stage.width, stage.height);
        let cfg = LaunchConfig {
            grid_dim: (blocks(w, UNSHARP_BLOCK_X), blocks(h, UNSHARP_BLOCK_Y), 1),
            block_dim: (UNSHARP_BLOCK_X, UNSHARP_BLOCK_Y, 1),
            shared_mem_bytes: 0,
        };
        let f = stage.kernels.function("unsharp", "unsharp_columns", &cfg)?;
        let (s, d) = (stage.input.handle(), stage.output.handle());
        let (wi, hi, r) = (w as i32, h as i32, radius as i32);
        let mut b = stage.stream.launch_builder(&f);
        b.arg(&*stage.scratch)
            .arg(&s)
            .arg(&d)
            .arg(&wi)
            .arg(&hi)
            .arg(&r)
            .arg(&amount);
        // SAFETY: matches `unsharp_columns(const float4*, tex, surf, int, int, int, float)`;
        // the row pass filled w·h float4 of the scratch (checked there); the output is w × h.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("unsharp_columns"))
    }
}
