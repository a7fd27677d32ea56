//! `threshold[:level=L,method=M,invert=0|1]`: a binary image from the luma. A pixel whose
//! luma bin is at least the level becomes white (255 in R, G and B), any other black (0);
//! `invert=1` swaps them; alpha is kept. The luma bin is the frame histogram's:
//! `round(Y)` with `Y = (0.2126 R + 0.7152 G) + 0.0722 B` in f32 (`ops::luma_bin`).
//!
//! `method` picks the level; the automatic ones compute it from the image's 256-bin luma
//! histogram, as scikit-image's `threshold_*` functions do (`t` in their terms, with
//! foreground `image > t`; here the level is `t + 1`, which selects the same pixels):
//! - `manual`: `level` (0..=255, default 128); the other methods ignore it.
//! - `otsu`: Otsu (1979), the split that maximises the between-class variance
//!   `w₁ w₂ (μ₁ − μ₂)²`; `t` is the last bin of the lower class, the first on ties.
//! - `isodata`: Ridler and Calvard (1978), the iterative intermeans of ImageJ's "IsoData"
//!   (ImageJ's "Default" is a variant that ignores the extreme bins): the first `t` with
//!   `t ≤ (μ(≤ t) + μ(> t)) / 2 < t + 1`, decided exactly in integers.
//! - `mean`: Glasbey (1993), the mean luma: `t = ⌊mean⌋`.
//! - `triangle`: Zack, Rogers and Latt (1977): the line from the histogram's peak to the
//!   end of its longer tail; `t` is the bin of that tail farthest below the line.
//!
//! A constant image gets `t` = its value under every automatic method (all black).
//!
//! CPU reference in `cpu.rs`. GPU (`kernels/filters/threshold.cu`): the histogram kernel
//! counts the input into the scratch, a one-block kernel finds the level there (integers,
//! or the f64 operations of the reference in its order), and the map reads it: no host
//! sync in the frame, and the same level and pixels as the reference: exact. `manual` skips
//! the histogram.
//!
//! Every sample type and channel count: the generic reference in `typed.rs` (its rules
//! there; `docs/design/pixel-types.md`), equal to `cpu_rgba8` on RGBA8.

mod cpu;
mod typed;
mod method;

use crate::kernel_constants::{THRESHOLD_BINS, THRESHOLD_BLOCK_X, THRESHOLD_BLOCK_Y, TYPED_HIST_BINS};
use super::histogram::{launch_histogram, HISTOGRAM_BIN_BYTES};
use super::param::Default::Value;
use super::param::typed_params;
use super::{FilterDef, FilterOps, Golden, GpuStage, ParamDef, Params, RGBA8};
use crate::cuda::{blocks, check_scratch, CudaError};
use cudarc::driver::{DevicePtrMut, LaunchConfig, PushKernelArg};
use crate::pixels::{PixelImage, SampleType};
use image::RgbaImage;
use method::Method;
use crate::pixels::f32_of_key;

/// The level (a `u32`) follows the bins in the scratch.
const SCRATCH_BYTES: usize = HISTOGRAM_BIN_BYTES + 4;

pub struct Threshold;

const PARAMS: &[ParamDef] = &[
    ParamDef::int("level", 0, 255, Value(128.0)),
    ParamDef::choice("method", Method::WORDS, Value(0.0)),
    ParamDef::int("invert", 0, 1, Value(0.0)),
];

typed_params! {
    /// The manual level, the method and whether black and white swap.
    pub struct ThresholdParams for PARAMS => {
        level: u32,
        method: Method,
        invert: u32,
    }
}

pub static THRESHOLD: FilterDef = FilterDef {
    name: "threshold",
    aliases: &[],
    summary: "threshold[:level=L,method=M,invert=0|1]  luma bin ≥ level → 255 in R, G and B, else 0 (inverted with invert=1); level 0..=255 (default 128) for method=manual, else computed from the luma histogram, exact",
    ui_default: "threshold:method=otsu",
    params: PARAMS,
    gpu_tolerance: 0,
    kernel_modules: &["histogram", "threshold"],
    bench_specs: &["threshold:level=100", "threshold:method=otsu"],
    test_specs: &[
                "threshold",
                "threshold:level=0",
                "threshold:level=255,invert=1",
                "threshold:method=mean",
                "threshold:method=isodata,invert=1",
                "threshold:method=triangle",
                "threshold:method=otsu",
            ],
    goldens: &[
                Golden {
                    photo: "camera.png",
                    specs: &["threshold:method=otsu"],
                    file: "camera-threshold-otsu.png",
                },
                Golden {
                    photo: "coffee.png",
                    specs: &["threshold:method=triangle,invert=1"],
                    file: "coffee-threshold-triangle.png",
                },
            ],
    note: Some("level is used by method = manual; the others compute it from the luma histogram"),
    ops: &Threshold,
};

impl FilterOps for Threshold {
    fn cpu_rgba8(&self, image: &RgbaImage, p: &Params) -> RgbaImage {
        let p = ThresholdParams::from_params(p);
        let level = if p.method == Method::Manual {
            p.level
        } else {
            cpu::level(p.method, p.level, &cpu::luma_histogram(image))
        };
        cpu::apply_level(image, level, p.invert == 1)
    }

    fn cpu(&self, image: &PixelImage, p: &Params) -> PixelImage {
        let t = ThresholdParams::from_params(p);
        let rule = typed::ThresholdRule {
            method: t.method,
            level: t.level,
            invert: t.invert == 1,
        };
        crate::map_pixels!(image, b => typed::threshold_typed(b, &rule))
    }

    fn scratch_bytes(&self, _: u32, _: u32, layout: (SampleType, u8), _: &Params) -> usize {
        match layout == RGBA8 {
            true => SCRATCH_BYTES,
            false => TYPED_SCRATCH_BYTES,
        }
    }

    fn launch(&self, stage: &mut GpuStage<'_>, p: &Params) -> Result<(), CudaError> {
        let (w, h) = (stage.width, stage.height);
        let p = ThresholdParams::from_params(p);
        if !stage.is_rgba8() {
            return launch_typed(stage, &p);
        }
        check_scratch("threshold", stage.scratch.len(), SCRATCH_BYTES)?;
        let stream = stage.stream;
        // The level the map uses: the manual one, or -1 to read the computed one.
        let fixed = if p.method == Method::Manual {
            p.level as i32
        } else {
            let mut bins = stage.scratch.slice_mut(0..HISTOGRAM_BIN_BYTES);
            stream
                .memset_zeros(&mut bins)
                .map_err(CudaError::driver("cuMemsetD8Async(bins)"))?;
            {
                let (bins_ptr, _sync) = bins.device_ptr_mut(stream);
                // SAFETY: `bins` is HISTOGRAM_BIN_BYTES of this context's device memory,
                // alive (borrowed from the scratch) until the stream has run the kernel.
                unsafe { launch_histogram(stage.kernels, stream, stage.input, w, h, bins_ptr)? };
            }
            let cfg = LaunchConfig {
                grid_dim: (1, 1, 1),
                block_dim: (THRESHOLD_BINS, 1, 1),
                shared_mem_bytes: 0,
            };
            let f = stage
                .kernels
                .function("threshold", "threshold_level", &cfg)?;
            let (method, manual) = (p.method as i32, p.level as i32);
            let mut b = stream.launch_builder(&f);
            b.arg(&*stage.scratch).arg(&method).arg(&manual);
            // SAFETY: matches `threshold_level(unsigned char* scratch, int, int)`: it reads
            // the bins at offset 0 and writes the level's 4 bytes after them, inside the
            // checked scratch.
            unsafe { b.launch(cfg) }.map_err(CudaError::launch("threshold_level"))?;
            -1
        };
        let (on, off) = if p.invert == 1 {
            (0u32, 255u32)
        } else {
            (255, 0)
        };
        let cfg = LaunchConfig {
            grid_dim: (
                blocks(w, THRESHOLD_BLOCK_X),
                blocks(h, THRESHOLD_BLOCK_Y),
                1,
            ),
            block_dim: (THRESHOLD_BLOCK_X, THRESHOLD_BLOCK_Y, 1),
            shared_mem_bytes: 0,
        };
        let f = stage
            .kernels
            .function("threshold", "threshold_apply", &cfg)?;
        let (s, d, wi, hi) = (
            stage.input.handle(),
            stage.output.handle(),
            w as i32,
            h as i32,
        );
        let mut b = stream.launch_builder(&f);
        b.arg(&s)
            .arg(&d)
            .arg(&wi)
            .arg(&hi)
            .arg(&*stage.scratch)
            .arg(&fixed)
            .arg(&on)
            .arg(&off);
        // SAFETY: matches `threshold_apply(tex, surf, int, int, const unsigned char*, int,
        // unsigned int, unsigned int)`; with `fixed` < 0 it reads the level inside the
        // checked scratch, written above on this stream; it writes only inside w × h.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("threshold_apply"))
    }
}

/// Scratch of the typed kernels: the bins, then the float lumas' range as two order keys.
const TYPED_SCRATCH_BYTES: usize = 4 * TYPED_HIST_BINS as usize + 8;

/// The threshold of a typed stage (`threshold_{range,hist,map}_<format>`): an automatic
/// level is found on the host, by the reference's own [`cpu::level`], from the bins the
/// device counted (one wait for the stream).
fn launch_typed(stage: &mut GpuStage<'_>, p: &ThresholdParams) -> Result<(), CudaError> {
    let (w, h) = (stage.width, stage.height);
    let sample = stage.layout.0;
    let floats = sample == SampleType::F32;
    let cfg = GpuStage::pixel_grid(w, h);
    let (s, d, wi, hi) = (stage.input.handle(), stage.output.handle(), w as i32, h as i32);
    let range_at = 4 * TYPED_HIST_BINS as usize;
    let full = sample.full_scale();
    let (mut lo, mut hi_luma) = (0f32, 0f32);
    let (mode, level) = if p.method == Method::Manual {
        match floats {
            true => (0i32, 0u32),
            false => (1, p.level * (full as u32 / 255)),
        }
    } else {
        check_scratch("threshold", stage.scratch.len(), TYPED_SCRATCH_BYTES)?;
        let bins = match sample {
            SampleType::F32 => TYPED_HIST_BINS as usize,
            _ => full as usize + 1,
        };
        stage.zero_scratch(0, 4 * bins)?;
        stage.write_scratch(range_at, &[u32::MAX, 0])?;
        if floats {
            let kernel = crate::typed_kernel!("threshold_range", stage.layout)?;
            let range_cfg = GpuStage::range_grid(w, h);
            let f = stage.kernels.function("threshold", kernel, &range_cfg)?;
            let mut b = stage.stream.launch_builder(&f);
            b.arg(&s).arg(&mut *stage.scratch).arg(&wi).arg(&hi);
            // SAFETY: matches `threshold_range_<format>(tex, unsigned int*, int, int)`; it
            // updates the two keys after the bins, inside the checked scratch.
            unsafe { b.launch(range_cfg) }.map_err(CudaError::launch(kernel))?;
        }
        let kernel = crate::typed_kernel!("threshold_hist", stage.layout)?;
        let f = stage.kernels.function("threshold", kernel, &cfg)?;
        let float_bins = i32::from(floats);
        let mut b = stage.stream.launch_builder(&f);
        b.arg(&s)
            .arg(&mut *stage.scratch)
            .arg(&wi)
            .arg(&hi)
            .arg(&float_bins);
        // SAFETY: matches `threshold_hist_<format>(tex, unsigned int*, int, int, int)`; it
        // counts into the first `bins` words (round(Y) ≤ full scale, or a range bin below
        // TYPED_HIST_BINS) and reads the keys after them, inside the checked scratch.
        unsafe { b.launch(cfg) }.map_err(CudaError::launch(kernel))?;
        // Floats: the two range keys follow the TYPED_HIST_BINS bins, read in one copy.
        let words = if floats { bins + 2 } else { bins };
        let counts = stage.scratch_u32(0, words)?;
        let level = cpu::level(p.method, p.level, &counts[..bins]);
        if floats {
            (lo, hi_luma) = (f32_of_key(counts[bins]), f32_of_key(counts[bins + 1]));
        }
        (if floats { 2 } else { 1 }, level)
    };
    let (on, off) = match p.invert == 1 {
        true => (0.0f32, full),
        false => (full, 0.0),
    };
    let at = p.level as f32 / 255.0;
    let kernel = crate::typed_kernel!("threshold_map", stage.layout)?;
    let f = stage.kernels.function("threshold", kernel, &cfg)?;
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&s)
        .arg(&d)
        .arg(&wi)
        .arg(&hi)
        .arg(&mode)
        .arg(&level)
        .arg(&at)
        .arg(&lo)
        .arg(&hi_luma)
        .arg(&on)
        .arg(&off);
    // SAFETY: matches `threshold_map_<format>(tex, surf, int, int, int, unsigned int,
    // float, float, float, float, float)`; it writes only inside w × h of the output.
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch(kernel))
}

#[cfg(test)]
mod tests;
