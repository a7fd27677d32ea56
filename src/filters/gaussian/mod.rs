//! `gaussian:sigma=S[,radius=R]`: separable Gaussian with normalised weights
//! `exp(-x²/2σ²)`, `|x| ≤ R` (R defaults to ⌈3σ⌉), per RGB channel, alpha kept. CPU
//! reference in `cpu.rs`. Kernels, weights in constant memory: up to
//! `CONV_FUSED_MAX_RADIUS` one fused f32 pass per tile (`kernels/filters/convolution.cu`: rows and
//! columns through shared memory); above it a row pass and a column pass on the tensor cores
//! through a linear scratch plane (`kernels/filters/convolution_mma.cu`, launched by
//! `mma.rs`). The f32 row pass into a `float4` scratch plane (`conv_rows`,
//! [`row_pass`]) serves `unsharp`. NPP peer: `nppiFilterGaussAdvancedBorder_8u_C4R` with
//! the same weights.
//!
//! Every sample type and channel count: the generic reference in `typed.rs` (its rules
//! there; `docs/design/pixel-types.md`), equal to `cpu_rgba8` on RGBA8.

mod cpu;
mod typed;
mod mma;

pub use cpu::{gaussian_plane, gaussian_weights};
pub use typed::gaussian_plane_typed;
use crate::kernel_constants::{
    CONV_BLOCK, CONV_FUSED_MAX_RADIUS, CONV_MAX_RADIUS, CONV_ROWS_OUT_STRIDE, CONV_RUN,
    CONV_TILE_W, GAUSS_ROWS_WARPS, TYPED_BLOCK_X, TYPED_BLOCK_Y,
};
use super::param::typed_params;
use super::param::Default::{Derived, Required};
use super::{colour_plane_bytes, FilterDef, FilterOps, Golden, GpuStage, ParamDef, Params, RGBA8};
use crate::cuda::{blocks, check_scratch, tile_height, CudaError};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use crate::pixels::{PixelImage, SampleType};
use image::RgbaImage;

/// Rows per block of the row pass (one per lane).
const CONV_ROWS_PER_BLOCK: u32 = 32;
/// σ range.
pub const GAUSSIAN_SIGMA_MIN: f32 = 0.1;
pub const GAUSSIAN_SIGMA_MAX: f32 = 32.0;
/// Bytes of scratch per pixel of `conv_rows` (unsharp's row pass): one `float4`.
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

typed_params! {
    /// The Gaussian's σ and radius.
    pub struct GaussianParams for PARAMS => { sigma: f32, radius: u32 }
}

/// `⌈3σ⌉`, at least 1 and at most [`CONV_MAX_RADIUS`].
pub fn default_radius(sigma: f32) -> u32 {
    ((3.0 * sigma).ceil() as u32).clamp(1, CONV_MAX_RADIUS)
}

/// The tile height measured fastest on the H200 at 4K and 8K (a kernel sweep:
/// fused 32 rows 0.116/0.408 ms for σ = 2 against 64 rows 0.167/0.602): the smaller tiles
/// give more blocks per SM to hide the texture reads behind.
const FUSED_TILE_HEIGHT: u32 = 32;

/// Shared bytes of `conv_fused` for a tile `th` rows high.
fn fused_shared(radius: u32, th: u32) -> u32 {
    let rows = th + 2 * radius;
    let in_stride = (CONV_TILE_W + 2 * radius) | 1;
    4 * (rows * in_stride + 3 * rows * (CONV_TILE_W + 1))
}

/// Shared bytes of `conv_rows`: the staged input, then (reusing it) the output staging of
/// three planes of 32 rows × `CONV_ROWS_OUT_STRIDE` floats.
fn rows_shared(radius: u32) -> u32 {
    let input = CONV_ROWS_PER_BLOCK * ((CONV_TILE_W + 2 * radius) | 1);
    let output = 3 * CONV_ROWS_PER_BLOCK * CONV_ROWS_OUT_STRIDE;
    4 * input.max(output)
}

/// Copies `weights` into `c_weights` of kernel module `module`.
pub(super) fn upload_weights(
    stage: &GpuStage<'_>,
    module: &str,
    weights: &[f32],
) -> Result<(), CudaError> {
    let radius = (weights.len() / 2) as u32;
    if weights.len().is_multiple_of(2) || radius > CONV_MAX_RADIUS {
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
        grid_dim: (blocks(w, CONV_TILE_W), blocks(h, CONV_ROWS_PER_BLOCK), 1),
        block_dim: (CONV_BLOCK, 1, 1),
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

/// Rows and columns in one f32 pass per tile (radius up to `CONV_FUSED_MAX_RADIUS`, weights
/// already uploaded to the convolution module): the rounded Gaussian (`conv_fused`), or with
/// `unsharp_amount` the unsharp mask of the source with that Gaussian (`unsharp_fused`).
pub(super) fn fused_pass(
    stage: &mut GpuStage<'_>,
    radius: u32,
    unsharp_amount: Option<f32>,
) -> Result<(), CudaError> {
    let (w, h) = (stage.width, stage.height);
    let th = tile_height(FUSED_TILE_HEIGHT, CONV_RUN, stage.kernels.max_shared, |t| {
        fused_shared(radius, t)
    });
    let cfg = LaunchConfig {
        grid_dim: (blocks(w, CONV_TILE_W), blocks(h, th), 1),
        block_dim: (CONV_BLOCK, 1, 1),
        shared_mem_bytes: fused_shared(radius, th),
    };
    let kernel = match unsharp_amount {
        None => "conv_fused",
        Some(_) => "unsharp_fused",
    };
    let f = stage.kernels.function("convolution", kernel, &cfg)?;
    let (s, d) = (stage.input.handle(), stage.output.handle());
    let (wi, hi, r, t) = (w as i32, h as i32, radius as i32, th as i32);
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&s).arg(&d).arg(&wi).arg(&hi).arg(&r).arg(&t);
    if let Some(amount) = &unsharp_amount {
        b.arg(amount);
    }
    // SAFETY: matches `conv_fused(tex, surf, int, int, int, int)` and, with the amount,
    // `unsharp_fused(tex, surf, int, int, int, int, float)`; the output is w × h, th is a
    // multiple of CONV_RUN and the shared size is the kernels' layout for (radius, th).
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch(kernel))
}

/// Floats between two channels of a `gauss_rows_<format>` warp's staged row: its span of
/// `32 · CONV_RUN` columns and the `2R` apron, one padding float after every 8 values.
fn gauss_rows_stride(radius: u32) -> u32 {
    let n = 32 * CONV_RUN + 2 * radius;
    n + n / 8 + 1
}

/// The Gaussian (or with `unsharp_amount` the unsharp mask) of a typed stage, weights
/// already uploaded to the convolution module: rows into the scratch's f32 plane, then
/// columns to the output (`gauss_rows_<format>`, `gauss_cols_<format>`).
pub(super) fn typed_passes(
    stage: &mut GpuStage<'_>,
    radius: u32,
    unsharp_amount: Option<f32>,
) -> Result<(), CudaError> {
    let (w, h) = (stage.width, stage.height);
    check_scratch("gauss_rows", stage.scratch.len(), colour_plane_bytes(w, h, stage.layout))?;
    let stride = gauss_rows_stride(radius);
    let colours = stage.colour_channels() as u32;
    let rows = LaunchConfig {
        grid_dim: (w.div_ceil(32 * CONV_RUN), h.div_ceil(GAUSS_ROWS_WARPS), 1),
        block_dim: (32, GAUSS_ROWS_WARPS, 1),
        shared_mem_bytes: 4 * GAUSS_ROWS_WARPS * colours * stride,
    };
    let (s, d) = (stage.input.handle(), stage.output.handle());
    let (wi, hi, r, st) = (w as i32, h as i32, radius as i32, stride as i32);
    let kernel = crate::typed_kernel!("gauss_rows", stage.layout)?;
    let f = stage.kernels.function("convolution", kernel, &rows)?;
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&s).arg(&mut *stage.scratch).arg(&wi).arg(&hi).arg(&r).arg(&st);
    // SAFETY: matches `gauss_rows_<format>(tex, float*, int, int, int, int)` with the shared
    // memory of its warps' staged rows at `stride`; it writes w·h floats per colour channel,
    // which the scratch holds (checked above).
    unsafe { b.launch(rows) }.map_err(CudaError::launch(kernel))?;
    let (unsharp, amount) = (i32::from(unsharp_amount.is_some()), unsharp_amount.unwrap_or(0.0));
    let cols = LaunchConfig {
        grid_dim: (w.div_ceil(TYPED_BLOCK_X), h.div_ceil(TYPED_BLOCK_Y * CONV_RUN), 1),
        block_dim: (TYPED_BLOCK_X, TYPED_BLOCK_Y, 1),
        shared_mem_bytes: 0,
    };
    let kernel = crate::typed_kernel!("gauss_cols", stage.layout)?;
    let f = stage.kernels.function("convolution", kernel, &cols)?;
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&s)
        .arg(&*stage.scratch)
        .arg(&d)
        .arg(&wi)
        .arg(&hi)
        .arg(&r)
        .arg(&unsharp)
        .arg(&amount);
    // SAFETY: matches `gauss_cols_<format>(tex, const float*, surf, int, int, int, int,
    // float)`; it reads the plane written above on this stream and writes inside w × h.
    unsafe { b.launch(cols) }
        .map(|_| ())
        .map_err(CudaError::launch(kernel))
}

pub static GAUSSIAN: FilterDef = FilterDef {
    name: "gaussian",
    aliases: &["gauss"],
    summary: "gaussian:sigma=S[,radius=R]  Gaussian blur (0.1 ≤ S ≤ 32, R defaults to ⌈3S⌉, at most 96)",
    ui_default: "gaussian:sigma=2",
    params: PARAMS,
    gpu_tolerance: 1,
    kernel_modules: &["convolution", "convolution_mma"],
    bench_specs: &["gaussian:sigma=2", "gaussian:sigma=4", "gaussian:sigma=16"],
    test_specs: &[
                "gaussian:sigma=0.1,radius=1",
                "gaussian:sigma=2",
                "gaussian:sigma=16",
                "gaussian:sigma=32,radius=96",
            ],
    goldens: &[Golden {
                photo: "coffee.png",
                specs: &["gaussian:sigma=3"],
                file: "coffee-gaussian3.png",
            }],
    note: None,
    ops: &Gaussian,
};

impl FilterOps for Gaussian {
    fn derive(&self, p: &mut Params) {
        let mut g = GaussianParams::from_params(p);
        g.radius = default_radius(g.sigma);
        *p = g.to_params();
    }

    fn cpu_rgba8(&self, image: &RgbaImage, p: &Params) -> RgbaImage {
        let g = GaussianParams::from_params(p);
        cpu::gaussian(image, g.sigma, g.radius)
    }

    fn cpu(&self, image: &PixelImage, p: &Params) -> PixelImage {
        let g = GaussianParams::from_params(p);
        crate::map_pixels!(image, b => typed::gaussian_typed(b, g.sigma, g.radius))
    }

    fn scratch_bytes(&self, width: u32, height: u32, layout: (SampleType, u8), p: &Params) -> usize {
        if layout != RGBA8 {
            colour_plane_bytes(width, height, layout)
        } else if GaussianParams::from_params(p).radius <= CONV_FUSED_MAX_RADIUS {
            0
        } else {
            mma::scratch_bytes(width, height)
        }
    }

    fn launch(&self, stage: &mut GpuStage<'_>, p: &Params) -> Result<(), CudaError> {
        let GaussianParams { sigma, radius } = GaussianParams::from_params(p);
        let weights = gaussian_weights(sigma, radius);
        if !stage.is_rgba8() {
            upload_weights(stage, "convolution", &weights)?;
            return typed_passes(stage, radius, None);
        }
        if radius <= CONV_FUSED_MAX_RADIUS {
            upload_weights(stage, "convolution", &weights)?;
            fused_pass(stage, radius, None)
        } else {
            upload_weights(stage, "convolution_mma", &weights)?;
            mma::launch(stage, radius)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_row_pass_staging_fits_every_radius() {
        // Value i of a staged row lies at i + i / 8 (kernels/filters/convolution.cu).
        for radius in 0..=CONV_MAX_RADIUS {
            let n = 32 * CONV_RUN + 2 * radius;
            let last = n - 1;
            assert!(last + last / 8 < gauss_rows_stride(radius));
        }
        // 48 KiB: no opt-in attribute needed.
        assert!(4 * GAUSS_ROWS_WARPS * 3 * gauss_rows_stride(CONV_MAX_RADIUS) <= 48 * 1024);
    }

    #[test]
    fn tiles_fit_the_shared_memory_they_are_sized_for() {
        for limit in [64 << 10, 99 << 10, 163 << 10, 227 << 10] {
            for radius in 1..=CONV_FUSED_MAX_RADIUS {
                let th = tile_height(64, CONV_RUN, limit, |t| fused_shared(radius, t));
                assert!(th % CONV_RUN == 0 && th >= CONV_RUN, "r {radius}: th {th}");
                assert!(fused_shared(radius, th) <= limit, "r {radius} at {limit} B");
            }
            for radius in 1..=CONV_MAX_RADIUS {
                assert!(rows_shared(radius) <= 48 << 10, "r {radius}");
            }
        }
    }
}
