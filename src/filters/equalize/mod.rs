//! `equalize`: histogram equalisation of R, G and B, each on its own, as OpenCV's
//! `equalizeHist` computes it: with the channel's histogram `h`, `N` pixels, `i0` the
//! smallest value present and `cdf` the cumulative histogram,
//! `v ↦ round((cdf(v) − h(i0)) · s)` where `s = 255 / (N − h(i0))` in f32 and rounding is to
//! nearest, ties to even; a constant channel is left as it is. Alpha is kept. Exact.
//!
//! CPU reference in `cpu.rs`. GPU: the histogram kernel counts the input into the scratch,
//! `kernels/filters/equalize.cu` builds the three LUTs there and applies them: histogram,
//! LUT and application stay on the device.
//!
//! Every sample type and channel count: the generic reference in `typed.rs` (its rules
//! there; `docs/design/pixel-types.md`), equal to `cpu_rgba8` on RGBA8.

mod cpu;
mod typed;

use crate::kernel_constants::{
    EQUALIZE_BINS, EQUALIZE_BLOCK_X, EQUALIZE_BLOCK_Y, EQUALIZE_ROWS, EQUALIZE_TABLE_THREADS,
    TYPED_HIST_BINS,
};
use super::histogram::{launch_histogram, HISTOGRAM_BIN_BYTES};
use super::{FilterDef, FilterOps, Golden, GpuStage, Params, RGBA8};
use crate::cuda::{blocks, check_scratch, CudaError};
use cudarc::driver::{DevicePtrMut, LaunchConfig, PushKernelArg};
use crate::pixels::{PixelImage, SampleType};
use image::RgbaImage;

/// The three 256-entry LUTs follow the bins in the scratch.
const LUT_BYTES: usize = 3 * EQUALIZE_BINS as usize;

/// The typed kernels' scratch, in u32 words (`EQ_*` in equalize.cu): the bins of three
/// channels, their float ranges, their tables and a flag each.
const BINS: usize = TYPED_HIST_BINS as usize;
const EQ_RANGE: usize = 3 * BINS;
const EQ_TABLE: usize = EQ_RANGE + 8;
const EQ_HAS: usize = EQ_TABLE + 3 * BINS;
const TYPED_WORDS: usize = EQ_HAS + 4;

/// Equalisation of a typed stage (`equalize_{range,hist,map}_<format>`, `equalize_tables`):
/// counted, each channel's table made (the arithmetic of [`typed::equalize_tables`]) and
/// looked up, all on the device.
fn launch_typed(stage: &mut GpuStage<'_>) -> Result<(), CudaError> {
    let (w, h) = (stage.width, stage.height);
    check_scratch("equalize", stage.scratch.len(), 4 * TYPED_WORDS)?;
    let sample = stage.layout.0;
    let colour = stage.colour_channels();
    let cfg = GpuStage::pixel_grid(w, h);
    let (s, d, wi, hi) = (stage.input.handle(), stage.output.handle(), w as i32, h as i32);
    stage.zero_scratch(0, 4 * 3 * BINS)?;
    stage.write_scratch(4 * EQ_RANGE, &[u32::MAX, 0, u32::MAX, 0, u32::MAX, 0])?;
    let counting = match sample {
        SampleType::F32 => &["equalize_range", "equalize_hist"][..],
        _ => &["equalize_hist"][..],
    };
    for &base in counting {
        let (kernel, launch) = match base {
            "equalize_range" => (
                crate::typed_kernel!("equalize_range", stage.layout)?,
                GpuStage::range_grid(w, h),
            ),
            _ => (crate::typed_kernel!("equalize_hist", stage.layout)?, cfg),
        };
        let f = stage.kernels.function("equalize", kernel, &launch)?;
        let mut b = stage.stream.launch_builder(&f);
        b.arg(&s).arg(&mut *stage.scratch).arg(&wi).arg(&hi);
        // SAFETY: matches `equalize_{range,hist}_<format>(tex, unsigned int*, int, int)`;
        // they count into the bins and ranges of the checked scratch (bins below
        // TYPED_HIST_BINS per channel).
        unsafe { b.launch(launch) }.map_err(CudaError::launch(kernel))?;
    }
    let tables_cfg = LaunchConfig {
        grid_dim: (colour as u32, 1, 1),
        block_dim: (EQUALIZE_TABLE_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let f = stage
        .kernels
        .function("equalize", "equalize_tables", &tables_cfg)?;
    let (round, full) = (i32::from(sample != SampleType::F32), sample.full_scale());
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&mut *stage.scratch).arg(&round).arg(&full);
    // SAFETY: matches `equalize_tables(unsigned int*, int, float)`; block c reads channel
    // c's bins and writes its table and flag, inside the checked scratch (c < 3).
    unsafe { b.launch(tables_cfg) }.map_err(CudaError::launch("equalize_tables"))?;
    let kernel = crate::typed_kernel!("equalize_map", stage.layout)?;
    let f = stage.kernels.function("equalize", kernel, &cfg)?;
    let mut b = stage.stream.launch_builder(&f);
    b.arg(&s).arg(&d).arg(&*stage.scratch).arg(&wi).arg(&hi);
    // SAFETY: matches `equalize_map_<format>(tex, surf, const unsigned int*, int, int)`;
    // it reads the ranges, tables and flags written above on this stream and writes inside
    // w × h of the output.
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch(kernel))
}

pub struct Equalize;

pub static EQUALIZE: FilterDef = FilterDef {
    name: "equalize",
    aliases: &[],
    summary: "equalize  histogram equalisation of R, G and B each (as OpenCV's equalizeHist), exact",
    ui_default: "equalize",
    params: &[],
    gpu_tolerance: 0,
    kernel_modules: &["histogram", "equalize"],
    bench_specs: &["equalize"],
    test_specs: &["equalize"],
    goldens: &[Golden {
                photo: "camera.png",
                specs: &["equalize"],
                file: "camera-equalize.png",
            }],
    note: None,
    ops: &Equalize,
};

impl FilterOps for Equalize {
    fn cpu_rgba8(&self, image: &RgbaImage, _: &Params) -> RgbaImage {
        cpu::equalize(image)
    }

    fn cpu(&self, image: &PixelImage, _: &Params) -> PixelImage {
        crate::map_pixels!(image, b => typed::equalize_typed(b))
    }

    fn scratch_bytes(&self, _: u32, _: u32, layout: (SampleType, u8), _: &Params) -> usize {
        match layout == RGBA8 {
            true => HISTOGRAM_BIN_BYTES + LUT_BYTES,
            false => 4 * TYPED_WORDS,
        }
    }

    fn launch(&self, stage: &mut GpuStage<'_>, _: &Params) -> Result<(), CudaError> {
        let (w, h) = (stage.width, stage.height);
        if !stage.is_rgba8() {
            return launch_typed(stage);
        }
        check_scratch(
            "equalize",
            stage.scratch.len(),
            HISTOGRAM_BIN_BYTES + LUT_BYTES,
        )?;
        let stream = stage.stream;
        let mut bins = stage.scratch.slice_mut(0..HISTOGRAM_BIN_BYTES);
        stream
            .memset_zeros(&mut bins)
            .map_err(CudaError::driver("cuMemsetD8Async(bins)"))?;
        {
            let (bins_ptr, _sync) = bins.device_ptr_mut(stream);
            // SAFETY: `bins` is HISTOGRAM_BIN_BYTES of this context's device memory, alive
            // (borrowed from the scratch) until the stream has run the kernel.
            unsafe { launch_histogram(stage.kernels, stream, stage.input, w, h, bins_ptr)? };
        }
        let total = (w * h) as i32;
        let lut_cfg = LaunchConfig {
            grid_dim: (3, 1, 1),
            block_dim: (EQUALIZE_BINS, 1, 1),
            shared_mem_bytes: 0,
        };
        let lut_fn = stage
            .kernels
            .function("equalize", "equalize_lut", &lut_cfg)?;
        let mut b = stream.launch_builder(&lut_fn);
        b.arg(&*stage.scratch).arg(&total);
        // SAFETY: matches `equalize_lut(unsigned char* scratch, int)`: it reads the bins at
        // offset 0 and writes the 3 × 256 LUT bytes after them, inside the checked scratch.
        unsafe { b.launch(lut_cfg) }.map_err(CudaError::launch("equalize_lut"))?;
        let cfg = LaunchConfig {
            grid_dim: (
                blocks(w, EQUALIZE_BLOCK_X),
                blocks(h, EQUALIZE_BLOCK_Y * EQUALIZE_ROWS),
                1,
            ),
            block_dim: (EQUALIZE_BLOCK_X, EQUALIZE_BLOCK_Y, 1),
            shared_mem_bytes: 0,
        };
        let apply_fn = stage.kernels.function("equalize", "equalize_apply", &cfg)?;
        let (s, d, wi, hi) = (
            stage.input.handle(),
            stage.output.handle(),
            w as i32,
            h as i32,
        );
        let mut b = stream.launch_builder(&apply_fn);
        b.arg(&s).arg(&d).arg(&wi).arg(&hi).arg(&*stage.scratch);
        // SAFETY: matches `equalize_apply(tex, surf, int, int, const unsigned char*)`; it
        // reads the LUT inside the checked scratch; the output is w × h.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("equalize_apply"))
    }
}
