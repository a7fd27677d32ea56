//! `unsharp:sigma=S,amount=A[,radius=R]`: per R, G and B channel
//! `out = clamp(round(v + A·(v − g)), 0, 255)` where `g` is the Gaussian of the `gaussian`
//! contract (same σ and R, before rounding); alpha kept; within 1 on the GPU.
//!
//! CPU reference: `ops::cpu::gaussian_plane`, then the formula. GPU: up to
//! `CONV_FUSED_MAX_RADIUS` the Gaussian's fused pass finishing into the formula
//! (`unsharp_fused` in `kernels/convolution.cu`, no scratch); above it the Gaussian row pass
//! of `kernels/convolution.cu` into the scratch plane, then `kernels/unsharp.cu`, a column
//! pass that applies the formula instead of storing the blur.

use super::gaussian::{
    default_radius, fused_pass, row_pass, upload_weights, CONV_FUSED_MAX_RADIUS, RADIUS,
    SCRATCH_PER_PIXEL, SIGMA,
};
use super::param::Default::Required;
use super::{FilterDef, Golden, GpuStage, ParamDef, Params};
use crate::cuda::{blocks, CudaError};
use crate::ops::cpu::{gaussian_plane, gaussian_weights, to_u8};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use image::RgbaImage;
use rayon::prelude::*;

pub const UNSHARP_BLOCK_X: u32 = 32;
pub const UNSHARP_BLOCK_Y: u32 = 8;

pub struct Unsharp;

const PARAMS: &[ParamDef] = &[SIGMA, ParamDef::real("amount", 0.0, 10.0, Required), RADIUS];

/// The unsharp mask of the contract.
pub fn unsharp(image: &RgbaImage, sigma: f32, amount: f32, radius: u32) -> RgbaImage {
    let blurred = gaussian_plane(image, sigma, radius);
    let mut out = image.clone();
    out.par_chunks_mut(4)
        .zip(blurred.par_iter())
        .for_each(|(p, g)| {
            for c in 0..3 {
                let v = f32::from(p[c]);
                p[c] = to_u8(v + amount * (v - g[c]));
            }
        });
    out
}

impl FilterDef for Unsharp {
    fn name(&self) -> &'static str {
        "unsharp"
    }

    fn summary(&self) -> &'static str {
        "unsharp:sigma=S,amount=A[,radius=R]  sharpen: v + A·(v − gaussian) (0 ≤ A ≤ 10; S, R as gaussian)"
    }

    fn ui_default(&self) -> &'static str {
        "unsharp:sigma=2,amount=1"
    }

    fn params(&self) -> &'static [ParamDef] {
        PARAMS
    }

    fn derive(&self, p: &mut Params) {
        p.0[2] = default_radius(p.get(0)) as f32;
    }

    fn cpu(&self, image: &RgbaImage, p: &Params) -> RgbaImage {
        unsharp(image, p.get(0), p.get(1), p.int(2))
    }

    fn gpu_tolerance(&self) -> u8 {
        1
    }

    fn kernel_modules(&self) -> &'static [&'static str] {
        &["convolution", "unsharp"]
    }

    fn tile_constants(&self) -> &'static [(&'static str, &'static str, u32)] {
        &[
            ("unsharp", "UNSHARP_BLOCK_X", UNSHARP_BLOCK_X),
            ("unsharp", "UNSHARP_BLOCK_Y", UNSHARP_BLOCK_Y),
        ]
    }

    fn scratch_bytes(&self, width: u32, height: u32, p: &Params) -> usize {
        if p.int(2) <= CONV_FUSED_MAX_RADIUS {
            return 0; // one fused pass, no row plane
        }
        width as usize * height as usize * SCRATCH_PER_PIXEL
    }

    fn launch(&self, stage: &mut GpuStage<'_>, p: &Params) -> Result<(), CudaError> {
        let (sigma, amount, radius) = (p.get(0), p.get(1), p.int(2));
        let weights = gaussian_weights(sigma, radius);
        upload_weights(stage, "convolution", &weights)?;
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

    fn bench_specs(&self) -> &'static [&'static str] {
        &["unsharp:sigma=2,amount=1"]
    }

    fn test_specs(&self) -> &'static [&'static str] {
        &[
            "unsharp:sigma=0.1,amount=10,radius=1",
            "unsharp:sigma=2,amount=1.5",
            "unsharp:sigma=32,amount=0,radius=96",
            "unsharp:sigma=4,amount=10",
        ]
    }

    fn goldens(&self) -> &'static [Golden] {
        &[Golden {
            photo: "astronaut.png",
            specs: &["unsharp:sigma=2,amount=1.5"],
            file: "astronaut-unsharp.png",
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::random_image;

    #[test]
    fn amount_zero_is_the_identity_and_alpha_is_kept() {
        let img = random_image(33, 20, 5);
        assert_eq!(unsharp(&img, 2.0, 0.0, 6), img);
    }

    #[test]
    fn follows_the_formula_on_every_channel() {
        let img = random_image(17, 9, 6);
        let (sigma, amount, radius) = (1.5, 2.5, 4);
        let g = gaussian_plane(&img, sigma, radius);
        let out = unsharp(&img, sigma, amount, radius);
        for (i, ((p, q), g)) in img.pixels().zip(out.pixels()).zip(&g).enumerate() {
            for (c, &blur) in g.iter().enumerate() {
                let v = f64::from(p.0[c]);
                let want = (v + f64::from(amount) * (v - f64::from(blur))).clamp(0.0, 255.0);
                assert!((f64::from(q.0[c]) - want).abs() <= 0.5 + 1e-3, "pixel {i}");
            }
            assert_eq!(p.0[3], q.0[3]);
        }
    }
}
