//! `box:radius=R`: mean over the `(2R+1)²` window per RGB channel (alpha kept), exact, by
//! integer running sums whose cost does not depend on R. CPU reference in
//! `cpu.rs`; kernel `kernels/filters/box_filter.cu`, one pass in either of two
//! layouts: up to [`BOX_SMALL_UP_TO`] a warp per strip, horizontal sums by shuffle and the
//! window's rows in registers (`box_small_R`); above it column window sums in registers
//! sliding down a strip and a prefix row across the block per output row (`box_T`). NPP
//! peer: `nppiFilterBoxBorder_8u_C4R`.
//!
//! Every sample type and channel count: the generic reference in `typed.rs` (its rules
//! there; `docs/design/pixel-types.md`), equal to `cpu_rgba8` on RGBA8. Typed kernels: one
//! pass of shared-memory tiles up to [`TYPED_BOX_TILE_RADIUS`] (`box_tile_<format>`), two
//! passes through a plane of row sums above it.

mod cpu;
mod typed;

use crate::kernel_constants::{
    TYPED_BLOCK_X, TYPED_BLOCK_Y, TYPED_BOX_RUN, TYPED_BOX_TILE_RADIUS, TYPED_BOX_TILE_ROWS,
    BOX_COLUMNS_PER_THREAD, BOX_MIN_SEGMENT, BOX_SMALL_MAX_RADIUS, BOX_SMALL_SEGMENT,
    BOX_SMALL_WARPS, BOX_TINY_MAX_RADIUS, BOX_TINY_SEGMENT,
};
use super::param::typed_params;
use super::param::Default::Required;
use super::{colour_plane_bytes, FilterDef, FilterOps, Golden, GpuStage, ParamDef, Params, RGBA8};
use crate::cuda::{check_scratch, CudaError};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use crate::pixels::{PixelImage, SampleType};
use image::RgbaImage;

/// Largest radius accepted.
pub const BOX_RADIUS_MAX: u32 = 255;
/// Radii that take `box_small_R`: every radius it is built for. Kernel sweep on the H200
/// (random RGBA8, medians of 20), against the strip kernel's measured launch:
/// at 8K radius 1 0.123 against 0.407 ms, radius 4 0.204 against 0.437, radius 7 0.388
/// against 0.453 (radius 8, strips: 0.416); at 4K radius 1 0.039 against 0.113 ms. Its cost
/// grows with R (2R shuffles a row, 2R of 32 lanes apron), the strips' hardly.
pub const BOX_SMALL_UP_TO: u32 = 7;
// The warp kernel takes no radius it was not built for, and its 16-bit channel sums hold
// (2R+1)² · 255.
const _: () = assert!(BOX_SMALL_UP_TO <= BOX_SMALL_MAX_RADIUS);
const _: () = assert!((2 * BOX_SMALL_MAX_RADIUS + 1).pow(2) * 255 < 1 << 16);
const BOX_SMALL_KERNELS: [&str; BOX_SMALL_MAX_RADIUS as usize] = [
    "box_small_1",
    "box_small_2",
    "box_small_3",
    "box_small_4",
    "box_small_5",
    "box_small_6",
    "box_small_7",
];
/// Block sizes of the kernel's instances (`box_128`, `box_256`, `box_512`).
const BOX_THREADS: [(u32, &str); 3] = [(128, "box_128"), (256, "box_256"), (512, "box_512")];

/// The kernel's launch: block threads, strip width, segment height and the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BoxLaunch {
    threads: u32,
    strip: u32,
    segment: u32,
    grid: (u32, u32),
}

/// Block size and segment heights measured fastest on the H200 (kernel sweep over every
/// block size and segments of 16 to 512 rows), by the largest radius each
/// holds for: (radius, threads, segment at 4K, segment at 8K). A cost model that counted
/// texture reads chose 512 threads and 32-row segments, 1.6× slower at 4K: what decides is
/// how many short blocks keep each SM's loads in flight.
const BOX_TUNINGS: [(u32, u32, u32, u32); 6] = [
    (1, 128, 16, 16),
    (5, 128, 16, 16),
    (16, 128, 16, 16),
    (64, 128, 64, 256),
    (128, 128, 128, 256),
    (BOX_RADIUS_MAX, 256, 128, 256),
];

/// Images of more pixels than this take the 8K column of [`BOX_TUNINGS`].
const BOX_LARGE_PIXELS: u64 = 3840 * 2160 * 2;

/// The measured launch for `radius` (the tuning of the next measured radius up), with the
/// block size raised where the strip would be narrower than 32 columns.
fn box_launch(w: u32, h: u32, radius: u32) -> BoxLaunch {
    let tuning = BOX_TUNINGS
        .iter()
        .find(|t| radius <= t.0)
        .unwrap_or(&BOX_TUNINGS[BOX_TUNINGS.len() - 1]);
    let large = u64::from(w) * u64::from(h) > BOX_LARGE_PIXELS;
    let segment = if large { tuning.3 } else { tuning.2 }
        .max(BOX_MIN_SEGMENT)
        .min(h.max(1));
    let (threads, strip) = BOX_THREADS
        .iter()
        .map(|(t, _)| *t)
        .filter(|t| *t >= tuning.1)
        .find_map(|t| {
            let strip = (t * BOX_COLUMNS_PER_THREAD).checked_sub(2 * radius)?;
            (strip >= 32).then_some((t, strip))
        })
        // 512 threads cover 2048 columns, a strip for every radius up to 1008.
        .unwrap_or((512, 32));
    BoxLaunch {
        threads,
        strip,
        segment,
        grid: (h.max(1).div_ceil(segment), w.max(1).div_ceil(strip)),
    }
}

/// Rows of a `box_small_R` block's segment.
fn box_small_segment(radius: u32) -> u32 {
    if radius <= BOX_TINY_MAX_RADIUS {
        BOX_TINY_SEGMENT
    } else {
        BOX_SMALL_SEGMENT
    }
}

/// The small-radius kernel and its launch for `radius`, or None where the strip kernel runs.
fn box_small_launch(w: u32, h: u32, radius: u32) -> Option<(&'static str, LaunchConfig)> {
    if radius == 0 || radius > BOX_SMALL_UP_TO {
        return None;
    }
    let per_block = (32 - 2 * radius) * BOX_SMALL_WARPS;
    let cfg = LaunchConfig {
        grid_dim: (
            w.max(1).div_ceil(per_block),
            h.max(1).div_ceil(box_small_segment(radius)),
            1,
        ),
        block_dim: (32, BOX_SMALL_WARPS, 1),
        shared_mem_bytes: 0,
    };
    Some((BOX_SMALL_KERNELS[radius as usize - 1], cfg))
}

/// Launches `box_small_R` (`name`, from [`box_small_launch`]) over the stage's image.
fn launch_small(
    stage: &mut GpuStage<'_>,
    name: &'static str,
    cfg: LaunchConfig,
) -> Result<(), CudaError> {
    let f = stage.kernels.function("box_filter", name, &cfg)?;
    let (s, d) = (stage.input.handle(), stage.output.handle());
    let (w, h) = (stage.width as i32, stage.height as i32);
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&s).arg(&d).arg(&w).arg(&h);
    // SAFETY: matches `box_small_R(tex, surf, int, int)`; `cfg` covers the w × h image and
    // each warp writes only its strip's columns below `w` and rows below `h` of the output.
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch("box"))
}

pub struct BoxFilter;

const PARAMS: &[ParamDef] = &[ParamDef::int("radius", 1, BOX_RADIUS_MAX, Required)
    .aliases(&["r"])
    .logarithmic()];

typed_params! {
    /// The window's radius.
    pub struct BoxParams for PARAMS => { radius: u32 }
}

pub static BOX_FILTER: FilterDef = FilterDef {
    name: "box",
    aliases: &[],
    summary: "box:radius=R  mean of the (2R+1)² window per channel (1 ≤ R ≤ 255), exact",
    ui_default: "box:radius=3",
    params: PARAMS,
    gpu_tolerance: 0,
    kernel_modules: &["box_filter"],
    bench_specs: &[
                "box:radius=1",
                "box:radius=5",
                "box:radius=64",
                "box:radius=255",
            ],
    test_specs: &["box:radius=1", "box:radius=16", "box:radius=255"],
    goldens: &[Golden {
                photo: "camera.png",
                specs: &["box:radius=7"],
                file: "camera-box7.png",
            }],
    note: None,
    ops: &BoxFilter,
};

impl FilterOps for BoxFilter {
    fn cpu_rgba8(&self, image: &RgbaImage, p: &Params) -> RgbaImage {
        cpu::box_filter(image, BoxParams::from_params(p).radius)
    }

    fn cpu(&self, image: &PixelImage, p: &Params) -> PixelImage {
        crate::map_pixels!(image, b => typed::box_filter_typed(b, BoxParams::from_params(p).radius))
    }

    fn scratch_bytes(&self, w: u32, h: u32, layout: (SampleType, u8), p: &Params) -> usize {
        match layout == RGBA8 || BoxParams::from_params(p).radius <= TYPED_BOX_TILE_RADIUS {
            true => 0,
            false => colour_plane_bytes(w, h, layout),
        }
    }

    fn launch(&self, stage: &mut GpuStage<'_>, p: &Params) -> Result<(), CudaError> {
        let (w, h) = (stage.width, stage.height);
        let radius = BoxParams::from_params(p).radius;
        if !stage.is_rgba8() {
            return launch_typed(stage, radius);
        }
        if let Some((name, cfg)) = box_small_launch(w, h, radius) {
            return launch_small(stage, name, cfg);
        }
        let launch = box_launch(w, h, radius);
        let columns = launch.threads * BOX_COLUMNS_PER_THREAD;
        if launch.strip + 2 * radius > columns {
            return Err(CudaError::Launch {
                kernel: "box",
                reason: format!("radius {radius} leaves no strip for {columns} columns"),
            });
        }
        let cfg = LaunchConfig {
            grid_dim: (launch.grid.0, launch.grid.1, 1),
            block_dim: (launch.threads, 1, 1),
            // The prefix row and the warp totals, three channels each.
            shared_mem_bytes: 4 * 3 * (columns + launch.threads / 32),
        };
        let name = BOX_THREADS
            .iter()
            .find(|(t, _)| *t == launch.threads)
            .map_or("box_512", |(_, n)| n);
        let f = stage.kernels.function("box_filter", name, &cfg)?;
        let (s, d) = (stage.input.handle(), stage.output.handle());
        let (wi, hi, r) = (w as i32, h as i32, radius as i32);
        let (strip, segment) = (launch.strip as i32, launch.segment as i32);
        let mut b = stage.stream.launch_builder(&f);
        b.arg(&s)
            .arg(&d)
            .arg(&wi)
            .arg(&hi)
            .arg(&r)
            .arg(&strip)
            .arg(&segment);
        // SAFETY: matches `box_T(tex, surf, int, int, int, int, int)`, T the block size;
        // each block writes only its strip's columns below `w` and rows below `h` of the
        // w × h output.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("box"))
    }
}

/// Bits of the numerators `2·sum + n` [`box_rounding`] divides exactly: the tiles' integer
/// sums, at most `(2R+1)²·65535` for R ≤ [`TYPED_BOX_TILE_RADIUS`], stay below `2^28`.
const BOX_ROUNDING_BITS: u32 = 28;

/// The multiplier and shift with which `box_tile_<format>` rounds an integer window sum
/// `s` of `n` samples to the nearest mean, halves up: `⌊(2s + n) / 2n⌋ =
/// ((2s + n)·magic) >> shift` for every `2s + n < 2^28`. With `d = 2n`, `l = ⌈log₂ d⌉`
/// and `magic = ⌈2^(28+l) / d⌉`, `2^(28+l) ≤ magic·d < 2^(28+l) + 2^l`, which makes the
/// product's floor exact below `2^28` (Granlund and Montgomery, "Division by invariant
/// integers using multiplication", theorem 4.2).
fn box_rounding(n: u32) -> (u32, i32) {
    let d = 2 * u64::from(n);
    let l = 64 - (d - 1).leading_zeros();
    let shift = BOX_ROUNDING_BITS + l;
    let magic = (1u64 << shift).div_ceil(d);
    (magic as u32, shift as i32)
}

/// Shared memory of a `box_tile_<format>` block: the tile's window row sums and each
/// warp's staged row, 4 bytes a colour channel.
fn box_tile_shared_bytes(radius: u32, colours: u32) -> u32 {
    let window_rows = TYPED_BOX_TILE_ROWS + 2 * radius;
    let staged = TYPED_BLOCK_X + 2 * radius;
    4 * colours * (window_rows * TYPED_BLOCK_X + TYPED_BLOCK_Y * staged)
}

/// The box of a typed stage: up to [`TYPED_BOX_TILE_RADIUS`] one pass of tiles through
/// shared memory (`box_tile_<format>`); above it sliding sums along rows into the
/// scratch's plane, then down columns to the output (`box_rows_<format>`,
/// `box_cols_<format>`).
fn launch_typed(stage: &mut GpuStage<'_>, radius: u32) -> Result<(), CudaError> {
    let (w, h) = (stage.width, stage.height);
    let (s, d) = (stage.input.handle(), stage.output.handle());
    let (wi, hi, r) = (w as i32, h as i32, radius as i32);
    if radius <= TYPED_BOX_TILE_RADIUS {
        let colours = stage.colour_channels() as u32;
        let cfg = LaunchConfig {
            grid_dim: (w.div_ceil(TYPED_BLOCK_X), h.div_ceil(TYPED_BOX_TILE_ROWS), 1),
            block_dim: (TYPED_BLOCK_X, TYPED_BLOCK_Y, 1),
            shared_mem_bytes: box_tile_shared_bytes(radius, colours),
        };
        let kernel = crate::typed_kernel!("box_tile", stage.layout)?;
        let f = stage.kernels.function("box_filter", kernel, &cfg)?;
        let (magic, shift) = box_rounding((2 * radius + 1) * (2 * radius + 1));
        let mut b = stage.stream.launch_builder(&f);
        b.arg(&s).arg(&d).arg(&wi).arg(&hi).arg(&r).arg(&magic).arg(&shift);
        // SAFETY: matches `box_tile_<format>(tex, surf, int, int, int, unsigned, int)` with
        // the shared memory its radius and colour count need; it writes inside w × h of the
        // output.
        return unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch(kernel));
    }
    check_scratch(
        "box",
        stage.scratch.len(),
        colour_plane_bytes(w, h, stage.layout),
    )?;
    let rows = GpuStage::pixel_grid(w.div_ceil(TYPED_BOX_RUN), h);
    let kernel = crate::typed_kernel!("box_rows", stage.layout)?;
    let f = stage.kernels.function("box_filter", kernel, &rows)?;
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&s).arg(&mut *stage.scratch).arg(&wi).arg(&hi).arg(&r);
    // SAFETY: matches `box_rows_<format>(tex, void*, int, int, int)`; it writes the plane
    // of w·h values per colour channel (4 bytes each), which the scratch holds (checked).
    unsafe { b.launch(rows) }.map_err(CudaError::launch(kernel))?;
    let cols = GpuStage::pixel_grid(w, h.div_ceil(TYPED_BOX_RUN));
    let kernel = crate::typed_kernel!("box_cols", stage.layout)?;
    let f = stage.kernels.function("box_filter", kernel, &cols)?;
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&s).arg(&*stage.scratch).arg(&d).arg(&wi).arg(&hi).arg(&r);
    // SAFETY: matches `box_cols_<format>(tex, const void*, surf, int, int, int)`; it reads
    // the plane written above on this stream and writes inside w × h of the output.
    unsafe { b.launch(cols) }
        .map(|_| ())
        .map_err(CudaError::launch(kernel))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tiles_rounding_is_exact_for_every_sum_they_make() {
        for radius in 1..=TYPED_BOX_TILE_RADIUS {
            let n = (2 * radius + 1) * (2 * radius + 1);
            let (magic, shift) = box_rounding(n);
            let d = 2 * u64::from(n);
            let limit = 1u64 << BOX_ROUNDING_BITS;
            // The largest numerator a tile makes fits.
            assert!(2 * u64::from(n) * 65535 + u64::from(n) < limit);
            let q = |x: u64| (x * u64::from(magic)) >> shift;
            // Both sides are monotone: equal at each step's two ends, equal everywhere.
            for k in 0..=(limit - 1) / d {
                let x = k * d;
                assert_eq!(q(x), k, "radius {radius}: {x}");
                if x + d - 1 < limit {
                    assert_eq!(q(x + d - 1), k, "radius {radius}: {}", x + d - 1);
                }
            }
            // The mean, halves up, as the reference rounds it (n is odd: no exact halves).
            for s in [0u64, 1, n as u64 / 2, n as u64, 12_345, 65535 * n as u64] {
                let want = (s as f64 / f64::from(n) + 0.5).floor() as u64;
                assert_eq!(q(2 * s + u64::from(n)), want, "radius {radius}, sum {s}");
            }
        }
    }

    #[test]
    fn a_box_tile_fits_the_shared_memory_any_block_may_take() {
        // 48 KiB: no opt-in attribute needed, on every architecture built for.
        assert!(box_tile_shared_bytes(TYPED_BOX_TILE_RADIUS, 3) <= 48 * 1024);
        assert_eq!(TYPED_BOX_TILE_ROWS % TYPED_BLOCK_Y, 0);
    }

    #[test]
    fn every_radius_gets_a_launch_that_covers_the_image() {
        for (w, h) in [
            (1, 1),
            (7, 3),
            (3840, 2160),
            (7680, 4320),
            (65536, 2),
            (2, 65536),
        ] {
            for radius in [1, 2, 5, 7, 8, 16, 64, 128, 200, BOX_RADIUS_MAX] {
                let l = box_launch(w, h, radius);
                assert!(l.strip >= 32, "{l:?}");
                assert!(
                    l.strip + 2 * radius <= l.threads * BOX_COLUMNS_PER_THREAD,
                    "{l:?}"
                );
                assert!(
                    l.grid.0 * l.segment >= h && l.grid.1 * l.strip >= w,
                    "{l:?}"
                );
                assert!(l.grid.1 <= 65535 && l.segment >= 1, "{l:?}");
                if let Some((name, cfg)) = box_small_launch(w, h, radius) {
                    assert_eq!(name, format!("box_small_{radius}"));
                    let (gx, gy, _) = cfg.grid_dim;
                    assert!(gx * (32 - 2 * radius) * BOX_SMALL_WARPS >= w, "{cfg:?}");
                    assert!(
                        gy * box_small_segment(radius) >= h && gy <= 65535,
                        "{cfg:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn small_radii_take_the_warp_kernel_and_larger_ones_the_strips() {
        for radius in 1..=BOX_RADIUS_MAX {
            let small = box_small_launch(3840, 2160, radius).is_some();
            assert_eq!(small, radius <= BOX_SMALL_UP_TO, "radius {radius}");
        }
    }
}
