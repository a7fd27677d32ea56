//! `median:radius=R` (1 ≤ R ≤ 7): per R, G and B channel the median of the `(2R+1)²`
//! window, clamp-to-edge borders, alpha kept; exact on the GPU.
//!
//! CPU reference (here): Huang's sliding histogram along each row (rows in parallel), the
//! median tracked by a pointer that moves with the window. Kernel
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

mod typed;

use crate::kernel_constants::{
    MEDIAN3_OUT, MEDIAN3_SEGMENT, MEDIAN3_WARPS, MEDIAN5_OUT, MEDIAN5_SEGMENT, MEDIAN5_WARPS,
    MEDIAN_BLOCK, MEDIAN_MAX_RADIUS,
};
use super::param::typed_params;
use super::param::Default::Required;
use super::{FilterDef, FilterOps, Golden, GpuStage, ParamDef, Params};
use crate::cuda::{blocks, CudaError};
use cudarc::driver::{LaunchConfig, PushKernelArg};
use crate::pixels::PixelImage;
use image::RgbaImage;
use rayon::prelude::*;

pub struct Median;

const PARAMS: &[ParamDef] =
    &[ParamDef::int("radius", 1, MEDIAN_MAX_RADIUS, Required).aliases(&["r"])];

typed_params! {
    /// The window's radius.
    pub struct MedianParams for PARAMS => { radius: u32 }
}

/// A 256-bin histogram of one channel over the window with the running median: `median`
/// is the smallest value with more than `rank` window values at or below it, `below` the
/// count of window values under `median`.
struct RunningMedian {
    bins: [u32; 256],
    median: usize,
    below: u32,
    rank: u32,
}

impl RunningMedian {
    fn new(rank: u32) -> Self {
        Self {
            bins: [0; 256],
            median: 0,
            below: 0,
            rank,
        }
    }

    fn add(&mut self, v: u8) {
        self.bins[usize::from(v)] += 1;
        if usize::from(v) < self.median {
            self.below += 1;
        }
    }

    fn remove(&mut self, v: u8) {
        self.bins[usize::from(v)] -= 1;
        if usize::from(v) < self.median {
            self.below -= 1;
        }
    }

    fn median(&mut self) -> u8 {
        while self.below > self.rank {
            self.median -= 1;
            self.below -= self.bins[self.median];
        }
        while self.below + self.bins[self.median] <= self.rank {
            self.below += self.bins[self.median];
            self.median += 1;
        }
        self.median as u8
    }
}

/// The median filter of the contract.
pub fn median(image: &RgbaImage, radius: u32) -> RgbaImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let mut out = image.clone();
    if w == 0 || h == 0 {
        return out;
    }
    let r = radius as isize;
    let side = 2 * radius as usize + 1;
    let rank = ((side * side - 1) / 2) as u32;
    let src = image.as_raw();
    let at = |x: isize, y: isize, c: usize| {
        let x = x.clamp(0, w as isize - 1) as usize;
        let y = y.clamp(0, h as isize - 1) as usize;
        src[4 * (y * w + x) + c]
    };
    out.par_chunks_mut(4 * w).enumerate().for_each(|(y, row)| {
        let y = y as isize;
        let mut hist: [RunningMedian; 3] = std::array::from_fn(|_| RunningMedian::new(rank));
        for (c, hc) in hist.iter_mut().enumerate() {
            for dy in -r..=r {
                for dx in -r..=r {
                    hc.add(at(dx, y + dy, c));
                }
            }
        }
        for x in 0..w as isize {
            if x > 0 {
                for (c, hc) in hist.iter_mut().enumerate() {
                    for dy in -r..=r {
                        hc.remove(at(x - r - 1, y + dy, c));
                        hc.add(at(x + r, y + dy, c));
                    }
                }
            }
            for (c, hc) in hist.iter_mut().enumerate() {
                row[4 * x as usize + c] = hc.median();
            }
        }
    });
    out
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
        let strip = match radius {
            1 => Some(("median3", MEDIAN3_OUT, MEDIAN3_WARPS, MEDIAN3_SEGMENT)),
            2 => Some(("median5", MEDIAN5_OUT, MEDIAN5_WARPS, MEDIAN5_SEGMENT)),
            _ => None,
        };
        if let Some((kernel, out, warps, segment)) = strip {
            return launch_strip(stage, kernel, out, warps, segment);
        }
        let side = MEDIAN_BLOCK + 2 * radius;
        let cfg = LaunchConfig {
            grid_dim: (blocks(w, MEDIAN_BLOCK), blocks(h, MEDIAN_BLOCK), 1),
            block_dim: (MEDIAN_BLOCK, MEDIAN_BLOCK, 1),
            shared_mem_bytes: side * side * 4,
        };
        if radius > MEDIAN_MAX_RADIUS {
            return Err(CudaError::Launch {
                kernel: "median",
                reason: format!("radius {radius} > {MEDIAN_MAX_RADIUS}"),
            });
        }
        let f = stage.kernels.function("median", "median", &cfg)?;
        let (s, d) = (stage.input.handle(), stage.output.handle());
        let (wi, hi, r) = (w as i32, h as i32, radius as i32);
        let mut b = stage.stream.launch_builder(&f);
        b.arg(&s).arg(&d).arg(&wi).arg(&hi).arg(&r);
        // SAFETY: matches `median(tex, surf, int, int, int)` in kernels/filters/median.cu; the
        // dynamic shared memory holds the (16 + 2R)² tile; the output is w × h.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("median"))
    }
}

/// `median3` or `median5` (the 3×3 or 5×5 median; warps that slide down strips of `out`
/// columns and `segment` rows, `warps` a block) over the stage's image.
fn launch_strip(
    stage: &mut GpuStage<'_>,
    kernel: &'static str,
    out: u32,
    warps: u32,
    segment: u32,
) -> Result<(), CudaError> {
    let (w, h) = (stage.width, stage.height);
    let cfg = LaunchConfig {
        grid_dim: (blocks(w, out * warps), blocks(h, segment), 1),
        block_dim: (32, warps, 1),
        shared_mem_bytes: 0,
    };
    let f = stage.kernels.function("median", kernel, &cfg)?;
    let (s, d) = (stage.input.handle(), stage.output.handle());
    let (wi, hi) = (w as i32, h as i32);
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&s).arg(&d).arg(&wi).arg(&hi);
    // SAFETY: matches `median3` and `median5(tex, surf, int, int)` in kernels/filters/median.cu,
    // whose launch layout the shared constants give; the kernel writes only inside w × h of the
    // output (the surface drops the rest), which has that size.
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch(kernel))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::random_image;

    /// The median by sorting each window.
    fn plain(img: &RgbaImage, radius: u32) -> RgbaImage {
        let (w, h) = (img.width() as i64, img.height() as i64);
        let r = i64::from(radius);
        let mut out = img.clone();
        for y in 0..h {
            for x in 0..w {
                for c in 0..3 {
                    let mut v: Vec<u8> = (-r..=r)
                        .flat_map(|dy| (-r..=r).map(move |dx| (dx, dy)))
                        .map(|(dx, dy)| {
                            let px = (x + dx).clamp(0, w - 1) as u32;
                            let py = (y + dy).clamp(0, h - 1) as u32;
                            img.get_pixel(px, py).0[c]
                        })
                        .collect();
                    v.sort_unstable();
                    out.get_pixel_mut(x as u32, y as u32).0[c] = v[v.len() / 2];
                }
            }
        }
        out
    }

    #[test]
    fn matches_sorting_each_window() {
        for (i, (w, h)) in [(1, 1), (7, 3), (3, 7), (1, 9), (16, 16), (33, 20)]
            .into_iter()
            .enumerate()
        {
            let img = random_image(w, h, 40 + i as u64);
            for r in [1, 2, 7] {
                assert_eq!(median(&img, r), plain(&img, r), "{w}x{h} r={r}");
            }
        }
    }

    #[test]
    fn removes_an_isolated_outlier_and_keeps_alpha() {
        let mut img = RgbaImage::from_pixel(9, 9, image::Rgba([10, 20, 30, 77]));
        img.put_pixel(4, 4, image::Rgba([255, 0, 255, 5]));
        let out = median(&img, 1);
        assert_eq!(out.get_pixel(4, 4).0, [10, 20, 30, 5]);
    }
}
