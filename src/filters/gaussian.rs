//! `gaussian:sigma=S[,radius=R]`: separable Gaussian with normalised weights
//! `exp(-x²/2σ²)`, `|x| ≤ R` (R defaults to ⌈3σ⌉), per RGB channel, alpha kept. CPU
//! reference in `ops/cpu/gaussian.rs`; kernel `kernels/convolution.cu` (row pass into a
//! `float4` scratch plane, column pass; weights in constant memory). The row pass also
//! serves `unsharp`.

use super::param::Default::{Derived, Required};
use super::{FilterDef, Golden, GpuStage, ParamDef, Params};
use crate::cuda::{blocks, check_scratch, CudaError};
use crate::ops::cpu::gaussian_weights;
use cudarc::driver::{LaunchConfig, PushKernelArg};
use image::RgbaImage;

pub const CONV_MAX_RADIUS: u32 = 96;
pub const CONV_ROW_BLOCK_X: u32 = 64;
pub const CONV_ROW_BLOCK_Y: u32 = 4;
pub const CONV_ROW_RESULTS: u32 = 4;
pub const CONV_COL_BLOCK_X: u32 = 32;
pub const CONV_COL_BLOCK_Y: u32 = 8;
pub const CONV_COL_RESULTS: u32 = 4;
/// σ range.
pub const GAUSSIAN_SIGMA_MIN: f32 = 0.1;
pub const GAUSSIAN_SIGMA_MAX: f32 = 32.0;
/// Bytes of scratch per pixel: one `float4` of the row pass.
pub const SCRATCH_PER_PIXEL: usize = 16;

pub struct Gaussian;

/// σ and R, as `gaussian` and `unsharp` take them.
pub const SIGMA: ParamDef =
    ParamDef::real("sigma", GAUSSIAN_SIGMA_MIN, GAUSSIAN_SIGMA_MAX, Required)
        .aliases(&["s"])
        .label("σ")
        .logarithmic();
pub const RADIUS: ParamDef = ParamDef::int("radius", 1, CONV_MAX_RADIUS, Derived).aliases(&["r"]);

const PARAMS: &[ParamDef] = &[SIGMA, RADIUS];

/// `⌈3σ⌉`, at least 1 and at most [`CONV_MAX_RADIUS`].
pub fn default_radius(sigma: f32) -> u32 {
    ((3.0 * sigma).ceil() as u32).clamp(1, CONV_MAX_RADIUS)
}

fn rows_shared(radius: u32) -> u32 {
    CONV_ROW_BLOCK_Y * (CONV_ROW_BLOCK_X * CONV_ROW_RESULTS + 2 * radius) * 16
}

fn columns_shared(radius: u32) -> u32 {
    (CONV_COL_BLOCK_Y * CONV_COL_RESULTS + 2 * radius) * CONV_COL_BLOCK_X * 16
}

/// Copies `weights` into `c_weights` of kernel module `module`.
pub(super) fn upload_weights(
    stage: &GpuStage<'_>,
    module: &str,
    weights: &[f32],
) -> Result<(), CudaError> {
    let radius = (weights.len() / 2) as u32;
    if weights.len() % 2 == 0 || radius > CONV_MAX_RADIUS {
        return Err(CudaError::Launch {
            kernel: "conv_rows",
            reason: format!(
                "{} weights: need an odd count up to {}",
                weights.len(),
                2 * CONV_MAX_RADIUS + 1
            ),
        });
    }
    let bytes: Vec<u8> = weights.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let mut symbol = stage
        .kernels
        .module(module)?
        .get_global("c_weights", stage.stream)
        .map_err(CudaError::driver("cuModuleGetGlobal(c_weights)"))?;
    let mut head = symbol.slice_mut(0..bytes.len());
    stage
        .stream
        .memcpy_htod(&bytes, &mut head)
        .map_err(CudaError::driver("cuMemcpyHtoD(c_weights)"))
}

/// The row pass of radius `radius` (weights already uploaded to the convolution module):
/// input texture → `float4` scratch plane.
pub(super) fn row_pass(stage: &mut GpuStage<'_>, radius: u32) -> Result<(), CudaError> {
    let (w, h) = (stage.width, stage.height);
    check_scratch(
        "conv_rows",
        stage.scratch.len(),
        w as usize * h as usize * SCRATCH_PER_PIXEL,
    )?;
    let cfg = LaunchConfig {
        grid_dim: (
            blocks(w, CONV_ROW_BLOCK_X * CONV_ROW_RESULTS),
            blocks(h, CONV_ROW_BLOCK_Y),
            1,
        ),
        block_dim: (CONV_ROW_BLOCK_X, CONV_ROW_BLOCK_Y, 1),
        shared_mem_bytes: rows_shared(radius),
    };
    let f = stage.kernels.function("convolution", "conv_rows", &cfg)?;
    let (s, wi, hi, r) = (stage.input.handle(), w as i32, h as i32, radius as i32);
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&s).arg(&mut *stage.scratch).arg(&wi).arg(&hi).arg(&r);
    // SAFETY: matches `conv_rows(tex, float4*, int, int, int)`; the scratch holds w·h float4
    // (checked above).
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch("conv_rows"))
}

fn column_pass(stage: &mut GpuStage<'_>, radius: u32) -> Result<(), CudaError> {
    let (w, h) = (stage.width, stage.height);
    let cfg = LaunchConfig {
        grid_dim: (
            blocks(w, CONV_COL_BLOCK_X),
            blocks(h, CONV_COL_BLOCK_Y * CONV_COL_RESULTS),
            1,
        ),
        block_dim: (CONV_COL_BLOCK_X, CONV_COL_BLOCK_Y, 1),
        shared_mem_bytes: columns_shared(radius),
    };
    let f = stage
        .kernels
        .function("convolution", "conv_columns", &cfg)?;
    let (s, d) = (stage.input.handle(), stage.output.handle());
    let (wi, hi, r) = (w as i32, h as i32, radius as i32);
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&*stage.scratch)
        .arg(&s)
        .arg(&d)
        .arg(&wi)
        .arg(&hi)
        .arg(&r);
    // SAFETY: matches `conv_columns(const float4*, tex, surf, int, int, int)`; the scratch
    // holds the w·h row results, the output is w × h.
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch("conv_columns"))
}

impl FilterDef for Gaussian {
    fn name(&self) -> &'static str {
        "gaussian"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["gauss"]
    }

    fn summary(&self) -> &'static str {
        "gaussian:sigma=S[,radius=R]  Gaussian blur (0.1 ≤ S ≤ 32, R defaults to ⌈3S⌉, at most 96)"
    }

    fn ui_default(&self) -> &'static str {
        "gaussian:sigma=2"
    }

    fn params(&self) -> &'static [ParamDef] {
        PARAMS
    }

    fn derive(&self, p: &mut Params) {
        p.0[1] = default_radius(p.get(0)) as f32;
    }

    fn cpu(&self, image: &RgbaImage, p: &Params) -> RgbaImage {
        crate::ops::cpu::gaussian(image, p.get(0), p.int(1))
    }

    fn gpu_tolerance(&self) -> u8 {
        1
    }

    fn kernel_modules(&self) -> &'static [&'static str] {
        &["convolution"]
    }

    fn tile_constants(&self) -> &'static [(&'static str, &'static str, u32)] {
        &[
            ("convolution", "CONV_MAX_RADIUS", CONV_MAX_RADIUS),
            ("convolution", "CONV_ROW_BLOCK_X", CONV_ROW_BLOCK_X),
            ("convolution", "CONV_ROW_BLOCK_Y", CONV_ROW_BLOCK_Y),
            ("convolution", "CONV_ROW_RESULTS", CONV_ROW_RESULTS),
            ("convolution", "CONV_COL_BLOCK_X", CONV_COL_BLOCK_X),
            ("convolution", "CONV_COL_BLOCK_Y", CONV_COL_BLOCK_Y),
            ("convolution", "CONV_COL_RESULTS", CONV_COL_RESULTS),
        ]
    }

    fn scratch_bytes(&self, width: u32, height: u32, _: &Params) -> usize {
        width as usize * height as usize * SCRATCH_PER_PIXEL
    }

    fn launch(&self, stage: &mut GpuStage<'_>, p: &Params) -> Result<(), CudaError> {
        let radius = p.int(1);
        upload_weights(stage, "convolution", &gaussian_weights(p.get(0), radius))?;
        row_pass(stage, radius)?;
        column_pass(stage, radius)
    }

    fn bench_specs(&self) -> &'static [&'static str] {
        &["gaussian:sigma=2", "gaussian:sigma=16"]
    }

    fn test_specs(&self) -> &'static [&'static str] {
        &[
            "gaussian:sigma=0.1,radius=1",
            "gaussian:sigma=2",
            "gaussian:sigma=32,radius=96",
        ]
    }

    fn goldens(&self) -> &'static [Golden] {
        &[Golden {
            photo: "coffee.png",
            specs: &["gaussian:sigma=3"],
            file: "coffee-gaussian3.png",
        }]
    }
}
