//! Launchers for `kernels/mandelbrot.cu`: per-pixel and Mariani–Silver (dynamic
//! parallelism) dwells in f32 or f64, and LUT colouring.

use super::tiles::*;
use super::{check, load_function, load_module, memory, CudaDevice, CudaError};
use crate::mandelbrot::{Mode, MsRecord, Precision, RectKind, View};
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};

/// Pending device-side launches allowed (the default, 2048, is too few for 16384² views).
const PENDING_LAUNCH_LIMIT: usize = 1 << 16;

/// Mirror of `struct MsArgs` in mandelbrot.cu (same field order, C layout).
#[repr(C)]
#[derive(Clone, Copy)]
struct MsArgs {
    dwells: u64,
    width: i32,
    height: i32,
    cx: f64,
    cy: f64,
    step: f64,
    max_dwell: i32,
    records: u64,
    counters: u64,
    record_capacity: i32,
    init_subdiv: i32,
    subdiv: i32,
    max_depth: i32,
    min_size: i32,
    launch_min_pixels: i32,
}

// SAFETY: MsArgs is #[repr(C)], Copy, and matches the kernel's struct field for field.
unsafe impl cudarc::driver::DeviceRepr for MsArgs {}

/// Device buffers for the overlay records and the two counters.
pub struct MsRecordBuffer {
    records: CudaSlice<i32>,
    counters: CudaSlice<u32>,
    capacity: usize,
}

impl MsRecordBuffer {
    pub fn new(stream: &std::sync::Arc<CudaStream>, capacity: usize) -> Result<Self, CudaError> {
        Ok(Self {
            records: stream
                .alloc_zeros::<i32>(4 * capacity.max(1))
                .map_err(CudaError::driver("cuMemAlloc(records)"))?,
            counters: stream
                .alloc_zeros::<u32>(2)
                .map_err(CudaError::driver("cuMemAlloc(counters)"))?,
            capacity,
        })
    }

    /// Forgets the records (a run that made none, e.g. a per-pixel deep view).
    pub fn clear(&mut self, stream: &std::sync::Arc<CudaStream>) -> Result<(), CudaError> {
        stream
            .memset_zeros(&mut self.counters)
            .map_err(CudaError::driver("cuMemsetD32(counters)"))
    }

    /// Reads back the records of the last run; errors if a child launch failed.
    pub fn read(&self, stream: &std::sync::Arc<CudaStream>) -> Result<Vec<MsRecord>, CudaError> {
        let counters = stream
            .clone_dtoh(&self.counters)
            .map_err(CudaError::driver("cuMemcpyDtoH(counters)"))?;
        if counters[1] > 0 {
            return Err(CudaError::Launch {
                kernel: "mandel_ms",
                reason: format!("{} device-side child launches failed", counters[1]),
            });
        }
        let n = (counters[0] as usize).min(self.capacity);
        let raw = stream
            .clone_dtoh(&self.records)
            .map_err(CudaError::driver("cuMemcpyDtoH(records)"))?;
        Ok(raw
            .chunks_exact(4)
            .take(n)
            .map(|r| MsRecord {
                x: r[0] as u32,
                y: r[1] as u32,
                w: r[2] as u32,
                h: (r[3] & 0x0FFF_FFFF) as u32,
                kind: match (r[3] >> 28) as u32 {
                    MS_KIND_FILL => RectKind::Fill,
                    MS_KIND_SPLIT => RectKind::Split,
                    _ => RectKind::Leaf,
                },
            })
            .collect())
    }
}

/// The loaded Mandelbrot kernels.
pub struct MandelbrotKernels {
    per_pixel: [CudaFunction; 2],
    mariani_silver: [CudaFunction; 2],
    colorize: CudaFunction,
}

fn pixel_grid(width: u32, height: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (
            blocks(width, MANDEL_BLOCK_X),
            blocks(height, MANDEL_BLOCK_Y),
            1,
        ),
        block_dim: (MANDEL_BLOCK_X, MANDEL_BLOCK_Y, 1),
        shared_mem_bytes: 0,
    }
}

impl MandelbrotKernels {
    /// Loads the module (needs the nvcc-built, device-linked fatbin) and raises the
    /// device runtime's pending-launch limit.
    pub fn load(device: &CudaDevice) -> Result<Self, CudaError> {
        let module = load_module(device, "mandelbrot")?;
        device.bind()?;
        // SAFETY: sets a context limit of the current context; no pointers involved.
        check("cuCtxSetLimit(DEV_RUNTIME_PENDING_LAUNCH_COUNT)", unsafe {
            sys::cuCtxSetLimit(
                sys::CUlimit::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT,
                PENDING_LAUNCH_LIMIT,
            )
        })?;
        Ok(Self {
            per_pixel: [
                load_function(&module, "mandel_per_pixel_f32")?,
                load_function(&module, "mandel_per_pixel_f64")?,
            ],
            mariani_silver: [
                load_function(&module, "mandel_ms_f32")?,
                load_function(&module, "mandel_ms_f64")?,
            ],
            colorize: load_function(&module, "mandel_colorize")?,
        })
    }

    /// Computes the dwells of `view` into `dwells` (≥ W·H `i32`). With `record`, `records`
    /// receives the Mariani–Silver decisions (its counters are reset here either way).
    /// Returns the precision used.
    #[allow(clippy::too_many_arguments)]
    pub fn dwells(
        &self,
        stream: &std::sync::Arc<CudaStream>,
        view: &View,
        mode: Mode,
        precision: Precision,
        tuning: &MsTuning,
        dwells: &mut CudaSlice<i32>,
        records: &mut MsRecordBuffer,
        record: bool,
    ) -> Result<Precision, CudaError> {
        let (w, h) = (view.width, view.height);
        if dwells.len() < w as usize * h as usize || w == 0 || h == 0 {
            return Err(CudaError::Launch {
                kernel: "mandel",
                reason: format!("dwell buffer of {} for {w}×{h}", dwells.len()),
            });
        }
        let used = view.resolve_precision(precision);
        let which = usize::from(used == Precision::F64);
        let (wi, hi, md) = (w as i32, h as i32, view.max_dwell as i32);
        let (cx, cy, step) = (view.center.0, view.center.1, view.pixel_size());
        match mode {
            Mode::PerPixel => {
                let mut b = stream.launch_builder(&self.per_pixel[which]);
                b.arg(&mut *dwells)
                    .arg(&wi)
                    .arg(&hi)
                    .arg(&cx)
                    .arg(&cy)
                    .arg(&step)
                    .arg(&md);
                // SAFETY: matches mandel_per_pixel_*(int*, int, int, double, double, double, int);
                // the buffer holds W·H dwells (checked above).
                unsafe { b.launch(pixel_grid(w, h)) }
                    .map_err(CudaError::launch("mandel_per_pixel"))?;
            }
            Mode::MarianiSilver => {
                stream
                    .memset_zeros(&mut records.counters)
                    .map_err(CudaError::driver("cuMemsetD32(counters)"))?;
                if tuning.init_subdiv == 0
                    || tuning.subdiv < 2
                    || tuning.max_depth == 0
                    || tuning.min_size == 0
                {
                    return Err(CudaError::Launch {
                        kernel: "mandel_ms",
                        reason: format!("invalid tuning {tuning:?}"),
                    });
                }
                let args = {
                    let (d, _g1) = dwells.device_ptr(stream);
                    // Every dwell "not computed yet" (-1): the refinement computes each pixel once.
                    memory::fill_u32(d, u32::MAX, w as usize * h as usize, stream)?;
                    let (r, _g2) = records.records.device_ptr(stream);
                    let (c, _g3) = records.counters.device_ptr(stream);
                    MsArgs {
                        dwells: d,
                        width: wi,
                        height: hi,
                        cx,
                        cy,
                        step,
                        max_dwell: md,
                        records: r,
                        counters: c,
                        record_capacity: if record { records.capacity as i32 } else { 0 },
                        init_subdiv: tuning.init_subdiv as i32,
                        subdiv: tuning.subdiv as i32,
                        max_depth: tuning.max_depth as i32,
                        min_size: tuning.min_size as i32,
                        launch_min_pixels: tuning.launch_min_pixels as i32,
                    }
                };
                let cfg = LaunchConfig {
                    grid_dim: (tuning.init_subdiv, tuning.init_subdiv, 1),
                    block_dim: (MS_BLOCK, 1, 1),
                    shared_mem_bytes: 0,
                };
                let mut b = stream.launch_builder(&self.mariani_silver[which]);
                b.arg(&args);
                // SAFETY: matches mandel_ms_*(MsArgs); every pointer in `args` refers to a
                // live allocation of the documented size for the duration of the stream work.
                unsafe { b.launch(cfg) }.map_err(CudaError::launch("mandel_ms"))?;
            }
        }
        Ok(used)
    }

    /// out[i] = lut[dwell[i]] for W·H pixels; `out` is a device pointer to W·H uchar4
    /// (the mapped PBO); `lut` holds max_dwell + 1 entries.
    pub fn colorize(
        &self,
        stream: &CudaStream,
        dwells: &CudaSlice<i32>,
        lut: &CudaSlice<u8>,
        out: CUdeviceptr,
        width: u32,
        height: u32,
    ) -> Result<(), CudaError> {
        let (wi, hi) = (width as i32, height as i32);
        let mut b = stream.launch_builder(&self.colorize);
        b.arg(dwells).arg(lut).arg(&out).arg(&wi).arg(&hi);
        // SAFETY: matches mandel_colorize(const int*, const uchar4*, uchar4*, int, int); the
        // dwells are all ≤ max_dwell so every LUT index is in range.
        unsafe { b.launch(pixel_grid(width, height)) }
            .map(|_| ())
            .map_err(CudaError::launch("mandel_colorize"))
    }
}
