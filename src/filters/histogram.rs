//! Launchers of `kernels/histogram.cu`, the R, G, B and luma histograms of a texture (not a
//! filter of the stack: every frame runs it on the output, and `equalize` on its input),
//! and of `kernels/histogram_ranged.cu`, ranged histograms of typed images in device memory.

use crate::cuda::{CudaDevice, CudaError, KernelSet, TextureObject};
use crate::kernel_constants::{HIST_RANGED_COPIES_BYTES, HIST_RANGED_WARPS, HIST_ROWS, HIST_WARPS};
use crate::ops::histogram::{channel_names, BinRange};
use crate::pixels::{PixelImage, SampleType};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaStream, DevicePtr, DeviceRepr, LaunchConfig, PushKernelArg};

/// Histogram blocks per multiprocessor (the kernel loops over the image).
const HIST_BLOCKS_PER_SM: u64 = 4;

/// Bytes of the 4 × 256 `u32` bins.
pub const HISTOGRAM_BIN_BYTES: usize = 4 * 256 * 4;

/// Adds the R, G, B and luma counts of `src` (`w × h`) to the 4 × 256 `u32` bins at `bins`
/// (the caller zeroes them).
///
/// # Safety
/// `bins` must point to at least [`HISTOGRAM_BIN_BYTES`] of device memory writable by
/// `stream`'s context, valid until the stream has run the kernel.
pub unsafe fn launch_histogram(
    kernels: &KernelSet,
    stream: &CudaStream,
    src: &TextureObject,
    w: u32,
    h: u32,
    bins: CUdeviceptr,
) -> Result<(), CudaError> {
    // Items of 32 columns × HIST_ROWS rows, one warp each at a time.
    let items = u64::from(w.div_ceil(32)) * u64::from(h.div_ceil(HIST_ROWS));
    let cfg = grid_stride(kernels, items.div_ceil(u64::from(HIST_WARPS)));
    let f = kernels.function("histogram", "histogram", &cfg)?;
    let (s, wi, hi) = (src.handle(), w as i32, h as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&s).arg(&wi).arg(&hi).arg(&bins);
    // SAFETY: matches `histogram(tex, int, int, unsigned int*)`; the caller guarantees that
    // `bins` holds 4 · 256 u32.
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch("histogram"))
}

/// A grid-stride launch of the frame histogram's kernels: blocks of HIST_WARPS warps,
/// `blocks` of them where the device runs that many at once, else a few per SM.
fn grid_stride(kernels: &KernelSet, blocks: u64) -> LaunchConfig {
    let grid = blocks.min(u64::from(kernels.sm_count) * HIST_BLOCKS_PER_SM) as u32;
    LaunchConfig {
        grid_dim: (grid.max(1), 1, 1),
        block_dim: (HIST_WARPS * 32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Turns the bins of `src` (counted by [`launch_histogram`]) into those of what is shown
/// where `out` shows inside `rect` only (x, y, width, height; inside both textures): the
/// rectangle's source pixels taken away, its result pixels added.
///
/// # Safety
/// As [`launch_histogram`]; `src` and `out` must be RGBA8 textures of one size holding
/// `rect`.
pub unsafe fn launch_histogram_swap_rect(
    kernels: &KernelSet,
    stream: &CudaStream,
    (src, out): (&TextureObject, &TextureObject),
    (x, y, w, h): (u32, u32, u32, u32),
    bins: CUdeviceptr,
) -> Result<(), CudaError> {
    // One thread a pixel.
    let pixels = u64::from(w) * u64::from(h);
    let cfg = grid_stride(kernels, pixels.div_ceil(u64::from(HIST_WARPS * 32)));
    let f = kernels.function("histogram", "histogram_swap_rect", &cfg)?;
    let (s, o) = (src.handle(), out.handle());
    let [xi, yi, wi, hi] = [x, y, w, h].map(|v| v as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&s)
        .arg(&o)
        .arg(&xi)
        .arg(&yi)
        .arg(&wi)
        .arg(&hi)
        .arg(&bins);
    // SAFETY: matches `histogram_swap_rect(tex, tex, int, int, int, int, unsigned int*)`;
    // the caller guarantees that `bins` holds 4 · 256 u32 and the rectangle lies inside
    // both textures.
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch("histogram_swap_rect"))
}

/// The module of the ranged histograms of typed images (`kernels/histogram_ranged.cu`).
pub const RANGED_MODULE: &str = "histogram_ranged";

/// Ranged-histogram blocks per multiprocessor (the kernel loops over the image).
const RANGED_BLOCKS_PER_SM: u64 = 4;

/// Pixels one block may count: its shared u32 counts cannot wrap.
const RANGED_BLOCK_PIXELS: u64 = 1 << 31;

/// What one ranged-histogram launch counts.
#[derive(Debug, Clone, Copy)]
pub struct RangedLaunch {
    pub sample_type: SampleType,
    /// 1 (grey), 3 (RGB) or 4 (RGBA) interleaved samples per pixel.
    pub channels: u8,
    pub pixels: u64,
    pub range: BinRange,
}

impl RangedLaunch {
    /// Histogram channels: 1 for grey, 4 (R, G, B, luma) otherwise.
    pub fn hists(&self) -> usize {
        channel_names(self.channels).len()
    }
    /// Counts in the output: `(bins + 3)` per histogram channel.
    pub fn slots(&self) -> usize {
        self.hists() * (self.range.bins() + 3)
    }
    /// The slot table the kernel reads for 8 and 16-bit images (None for float).
    pub fn slot_table(&self) -> Option<Vec<u32>> {
        match self.sample_type {
            SampleType::U8 => Some(self.range.slot_table(256)),
            SampleType::U16 => Some(self.range.slot_table(65536)),
            SampleType::F32 => None,
        }
    }
    fn kernel(&self) -> &'static str {
        match (self.sample_type, self.channels) {
            (SampleType::U8, 1) => "ranged_histogram_u8_c1",
            (SampleType::U8, 3) => "ranged_histogram_u8_c3",
            (SampleType::U8, _) => "ranged_histogram_u8_c4",
            (SampleType::U16, 1) => "ranged_histogram_u16_c1",
            (SampleType::U16, 3) => "ranged_histogram_u16_c3",
            (SampleType::U16, _) => "ranged_histogram_u16_c4",
            (SampleType::F32, 1) => "ranged_histogram_f32_c1",
            (SampleType::F32, 3) => "ranged_histogram_f32_c3",
            (SampleType::F32, _) => "ranged_histogram_f32_c4",
        }
    }
    /// Shared sub-histograms per block: one per warp while they fit in
    /// `HIST_RANGED_COPIES_BYTES`, one up to the device's limit `max_shared`, else none
    /// (counts go straight to the output).
    fn copies(&self, max_shared: u32) -> u32 {
        let bytes = (self.slots() * 4) as u64;
        if bytes <= u64::from(HIST_RANGED_COPIES_BYTES) {
            (u64::from(HIST_RANGED_COPIES_BYTES) / bytes).min(u64::from(HIST_RANGED_WARPS)) as u32
        } else if bytes <= u64::from(max_shared) {
            1
        } else {
            0
        }
    }
}

/// Adds the ranged histogram of the image at `src` to the `launch.slots()` u64 counts at
/// `out` (the caller zeroes them): per channel the bins, then below, above and NaN.
///
/// # Safety
/// `src` must hold `pixels · channels` samples of the sample type; for 8 and 16-bit images
/// `lut` must hold `launch.slot_table()`; `out` must hold `launch.slots()` u64. All in
/// device memory of `stream`'s context, valid until the stream has run the kernel.
pub unsafe fn launch_ranged_histogram(
    kernels: &KernelSet,
    stream: &CudaStream,
    src: CUdeviceptr,
    lut: CUdeviceptr,
    out: CUdeviceptr,
    launch: &RangedLaunch,
) -> Result<(), CudaError> {
    if launch.pixels == 0 {
        return Ok(());
    }
    let block = HIST_RANGED_WARPS * 32;
    let copies = launch.copies(kernels.max_shared);
    let grid = launch
        .pixels
        .div_ceil(u64::from(block))
        .min(u64::from(kernels.sm_count) * RANGED_BLOCKS_PER_SM)
        .max(launch.pixels.div_ceil(RANGED_BLOCK_PIXELS));
    let cfg = LaunchConfig {
        grid_dim: (u32::try_from(grid).unwrap_or(u32::MAX), 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: copies * (launch.slots() * 4) as u32,
    };
    let name = launch.kernel();
    let f = kernels.function(RANGED_MODULE, name, &cfg)?;
    let r = &launch.range;
    let (pixels, lo, hi, step) = (launch.pixels as i64, r.lo(), r.hi(), r.step());
    let (bins, copies) = (r.bins() as i32, copies as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&src)
        .arg(&pixels)
        .arg(&lut)
        .arg(&lo)
        .arg(&hi)
        .arg(&step);
    b.arg(&bins).arg(&copies).arg(&out);
    // SAFETY: matches `NAME(const T*, long long, const unsigned*, double, double, double,
    // int, int, unsigned long long*)`; the caller guarantees the buffers' sizes.
    unsafe { b.launch(cfg) }
        .map(|_| ())
        .map_err(CudaError::launch(name))
}

/// The ranged histogram counts of `image` over `range` on `device` (uploads the image,
/// launches, reads back): per channel the bins, then below, above and NaN, as
/// [`crate::ops::histogram::RangedHistogram::slot_counts`] lays them out.
pub fn ranged_histogram_cuda(
    device: &CudaDevice,
    kernels: &KernelSet,
    image: &PixelImage,
    range: &BinRange,
) -> Result<Vec<u64>, CudaError> {
    let (w, h) = image.dimensions();
    let launch = RangedLaunch {
        sample_type: image.sample_type(),
        channels: image.channels(),
        pixels: u64::from(w) * u64::from(h),
        range: *range,
    };
    crate::with_pixels!(image, b => counts_of(device, kernels, b.as_slice(), &launch))
}

/// Uploads `samples`, launches, reads the counts back.
fn counts_of<T: DeviceRepr>(
    device: &CudaDevice,
    kernels: &KernelSet,
    samples: &[T],
    launch: &RangedLaunch,
) -> Result<Vec<u64>, CudaError> {
    let stream = &device.stream;
    let src = stream
        .clone_htod(samples)
        .map_err(CudaError::driver("cuMemcpyHtoD(ranged histogram)"))?;
    let table = launch.slot_table().unwrap_or_else(|| vec![0]);
    let lut = stream
        .clone_htod(&table)
        .map_err(CudaError::driver("cuMemcpyHtoD(slot table)"))?;
    let out = stream
        .alloc_zeros::<u64>(launch.slots())
        .map_err(CudaError::driver("cuMemAlloc(ranged histogram)"))?;
    {
        let (src_ptr, _src_sync) = src.device_ptr(stream);
        let (lut_ptr, _lut_sync) = lut.device_ptr(stream);
        let (out_ptr, _out_sync) = out.device_ptr(stream);
        // SAFETY: `src` holds the image's samples, `lut` its slot table, `out`
        // launch.slots() zeroed u64, all on `stream`, which runs the kernel before the
        // read-back below.
        unsafe { launch_ranged_histogram(kernels, stream, src_ptr, lut_ptr, out_ptr, launch)? };
    }
    stream
        .clone_dtoh(&out)
        .map_err(CudaError::driver("cuMemcpyDtoH(ranged histogram)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(sample_type: SampleType, channels: u8, bins: usize) -> RangedLaunch {
        RangedLaunch {
            sample_type,
            channels,
            pixels: 100,
            range: BinRange::new(0.0, 256.0, bins).expect("valid"),
        }
    }

    #[test]
    fn sub_histograms_fit_the_shared_memory() {
        let max_shared = 227 * 1024;
        // RGBA 256 bins: 4 × 259 slots, 4144 B, one copy per warp.
        let rgba = launch(SampleType::U8, 4, 256);
        assert_eq!(rgba.slots(), 4 * 259);
        assert_eq!(rgba.copies(max_shared), HIST_RANGED_WARPS);
        // Grey 8192 bins: 32 KB, one copy.
        assert_eq!(launch(SampleType::F32, 1, 8192).copies(max_shared), 1);
        // 4 × 65536 bins do not fit: global counts.
        assert_eq!(launch(SampleType::U16, 3, 65536).copies(max_shared), 0);
        for (t, c, bins) in [(SampleType::U8, 1, 1), (SampleType::U16, 4, 40000)] {
            let l = launch(t, c, bins);
            let bytes = l.copies(max_shared) as usize * l.slots() * 4;
            assert!(bytes <= max_shared as usize, "{t:?} {c} {bins}");
        }
    }

    #[test]
    fn slot_tables_follow_the_bin_rule() {
        let l = launch(SampleType::U8, 1, 256);
        let table = l.slot_table().expect("8-bit table");
        assert_eq!(table.len(), 256);
        assert!(table.iter().enumerate().all(|(v, &s)| s as usize == v));
        let wide = launch(SampleType::U16, 3, 4)
            .slot_table()
            .expect("16-bit table");
        assert_eq!(wide.len(), 65536);
        assert_eq!(
            (wide[0], wide[63], wide[64], wide[256], wide[257]),
            (0, 0, 1, 3, 5)
        );
        assert!(launch(SampleType::F32, 4, 16).slot_table().is_none());
    }
}
