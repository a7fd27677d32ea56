//! `median:radius=R` (1 ≤ R ≤ 7): per R, G and B channel the median of the `(2R+1)²`
//! window, clamp-to-edge borders, alpha kept; exact on the GPU.
//!
//! CPU reference (`cpu.rs`): up to radius 2 the order-key path shared with every sample type
//! (`keys.rs`), above Huang's sliding histogram along each row. Kernel
//! `kernels/filters/median.cu`: for radius 1 `median3`, warps sliding down strips (Sobel's
//! layout), each lane sorting its column of three and taking its neighbours' by shuffle,
//! two channels per 16-bit SIMD compare; for
//! radius 2 `median5`, warps of lanes that each own two adjacent columns (one channel of
//! both in a word's 16-bit halves) and run a pruned merging network over sorted columns
//! (checked on every 0-1 input by `scripts/median5_network.py`); for larger radii `median`,
//! a shared tile with apron, then a bitwise radix select over the three channels at once.
//!
//! Every sample type and channel count: the generic reference in `typed.rs` (its rules
//! there; `docs/design/pixel-types.md`), equal to `cpu_rgba8` on RGBA8.

mod cpu;
mod keys;
mod typed;


use crate::kernel_constants::{
    MEDIAN3_OUT, MEDIAN3_SEGMENT, MEDIAN3_WARPS, MEDIAN5_OUT, MEDIAN5_SEGMENT, MEDIAN5_WARPS,
    MEDIAN_BLOCK, MEDIAN_MAX_RADIUS,
};
use super::param::typed_params;
use super::param::Default::Required;
use super::{slides_strips, FilterDef, FilterOps, Golden, GpuStage, ParamDef, Params};
use crate::cuda::{blocks, CudaError};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use crate::pixels::PixelImage;
use cpu::median;
use image::RgbaImage;

pub struct Median;

const PARAMS: &[ParamDef] =
    &[ParamDef::int("radius", 1, MEDIAN_MAX_RADIUS, Required).aliases(&["r"])];

typed_params! {
    /// The window's radius.
    pub struct MedianParams for PARAMS => { radius: u32 }
}

pub static MEDIAN: FilterDef = FilterDef {
    name: "median",
    aliases: &[],
    summary: "median:radius=R  median of the (2R+1)² window per channel (1 ≤ R ≤ 7), exact",
    ui_default: "median:radius=2",
    params: PARAMS,
    gpu_tolerance: 0,
    kernel_modules: &["median"],
    bench_specs: &["median:radius=1", "median:radius=2", "median:radius=7"],
    test_specs: &["median:radius=1", "median:radius=2", "median:radius=7"],
    goldens: &[Golden {
                photo: "coffee.png",
                specs: &["median:radius=2"],
                file: "coffee-median2.png",
            }],
    note: None,
    ops: &Median,
};

impl FilterOps for Median {
    fn cpu_rgba8(&self, image: &RgbaImage, p: &Params) -> RgbaImage {
        median(image, MedianParams::from_params(p).radius)
    }

    fn cpu(&self, image: &PixelImage, p: &Params) -> PixelImage {
        crate::map_pixels!(image, b => typed::median_typed(b, MedianParams::from_params(p).radius))
    }

    fn launch(&self, stage: &mut GpuStage<'_>, p: &Params) -> Result<(), CudaError> {
        let (w, h) = (stage.width, stage.height);
        let radius = MedianParams::from_params(p).radius;
        if radius > MEDIAN_MAX_RADIUS {
            return Err(CudaError::Launch {
                kernel: "median",
                reason: format!("radius {radius} > {MEDIAN_MAX_RADIUS}"),
            });
        }
        let typed = !stage.is_rgba8();
        // Warps sliding down strips of `out` columns and `segment` rows, `warps` a block.
        let strip = |out: u32, warps: u32, segment: u32| LaunchConfig {
            grid_dim: (blocks(w, out * warps), blocks(h, segment), 1),
            block_dim: (32, warps, 1),
            shared_mem_bytes: 0,
        };
        // Blocks of MEDIAN_BLOCK² outputs with their (16 + 2R)² window in shared memory:
        // RGBA8 packs a pixel's channels in one word; the typed kernels keep a plane each.
        let side = MEDIAN_BLOCK + 2 * radius;
        let planes = if typed { stage.colour_channels() as u32 } else { 1 };
        let tile = LaunchConfig {
            grid_dim: (blocks(w, MEDIAN_BLOCK), blocks(h, MEDIAN_BLOCK), 1),
            block_dim: (MEDIAN_BLOCK, MEDIAN_BLOCK, 1),
            shared_mem_bytes: side * side * 4 * planes,
        };
        let median3 = strip(MEDIAN3_OUT, MEDIAN3_WARPS, MEDIAN3_SEGMENT);
        // The kernel, its launch, and whether it takes the radius.
        let (kernel, cfg, takes_radius) = match (typed, radius) {
            (false, 1) => ("median3", median3, false),
            (false, 2) => ("median5", strip(MEDIAN5_OUT, MEDIAN5_WARPS, MEDIAN5_SEGMENT), false),
            (false, _) => ("median", tile, true),
            (true, 1) => (
                crate::typed_kernel!("median3", stage.layout)?,
                if slides_strips(stage.layout) { median3 } else { tile },
                false,
            ),
            (true, 2) => (crate::typed_kernel!("median5", stage.layout)?, tile, true),
            (true, _) => (crate::typed_kernel!("median", stage.layout)?, tile, true),
        };
        let f = stage.kernels.function("median", kernel, &cfg)?;
        let (s, d) = (stage.input.handle(), stage.output.handle());
        let (wi, hi, r) = (w as i32, h as i32, radius as i32);
        let mut b = stage.stream.launch_builder(&f);
        b.arg(&s).arg(&d).arg(&wi).arg(&hi);
        if takes_radius {
            b.arg(&r);
        }
        // SAFETY: matches kernels/filters/median.cu: `median3`, `median5` and
        // `median3_<format>` take (tex, surf, int, int), `median`, `median_<format>` and
        // `median5_<format>` the radius after them; strips are the layout the shared
        // constants give, tiles get the shared memory of their (16 + 2R)² window (one key
        // plane per colour channel for the typed kernels); each writes only inside w × h of
        // the output (the surface drops the strips' apron).
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch(kernel))
    }
}
