//! Launchers for `kernels/mandelbrot.cu`: per-pixel and Mariani–Silver (dynamic
//! parallelism) dwells and continuous values in f32 or f64, Mariani–Silver on perturbation
//! dwells for deep views, and colouring.

use super::mandelbrot_tiles::*;
use super::perturbation_kernels::{DeviceOrbit, PerturbationPath, PtArgs};
use crate::cuda::{blocks, check, load_function, load_module, CudaDevice, CudaError};
use crate::mandelbrot::deep::DeepView;
use crate::mandelbrot::{
    GridLines, Mode, MsRecord, MsStats, MsTuning, Precision, Rect, RectKind, View, MS_MAX_LEVELS,
};
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use std::sync::Arc;

/// Pending device-side launches allowed (the default, 2048, is too few for 16384² views).
const PENDING_LAUNCH_LIMIT: usize = 1 << 16;

/// Mirror of `struct MandelView` in mandelbrot_eval.cuh (C layout, 56 bytes).
#[repr(C)]
#[derive(Clone, Copy)]
struct MandelViewArgs {
    cx: f64,
    cy: f64,
    step: f64,
    width: i32,
    height: i32,
    max_dwell: i32,
    julia: i32,
    jr: f64,
    ji: f64,
}

/// Mirror of `struct MsArgs` in mandelbrot.cu (same field order, C layout).
#[repr(C)]
#[derive(Clone, Copy)]
struct MsArgs {
    dwells: u64,
    smooth: u64,
    records: u64,
    counters: u64,
    view: MandelViewArgs,
    record_capacity: i32,
    levels: i32,
    launch_min_pixels: i32,
    lookahead: i32,
    size: [i32; MS_MAX_LEVELS],
    pt: PtArgs,
}

/// Mirror of `struct MsFused` in mandelbrot_fused.cuh (C layout, 24 bytes): the unit flags
/// of the one-pass refinement, this frame's epoch, the columns and rows of grid lines.
#[repr(C)]
#[derive(Clone, Copy)]
struct MsFusedArgs {
    flags: u64,
    epoch: u32,
    cols: i32,
    rows: i32,
}

/// Mirror of `struct Shading` in mandelbrot.cu (C layout, 16 bytes): the distance
/// estimates (0: no shading) and the shaded band's width in pixels.
#[repr(C)]
#[derive(Clone, Copy)]
struct ShadingArgs {
    distance: u64,
    width: f32,
    pad: u32,
}

/// Mirror of `struct MandelShift` in mandelbrot.cu (C layout, 64 bytes): from and to
/// buffers (0 for the values not moved), the size and the move.
#[repr(C)]
#[derive(Clone, Copy)]
struct MandelShiftArgs {
    dwells: u64,
    smooth: u64,
    distance: u64,
    to_dwells: u64,
    to_smooth: u64,
    to_distance: u64,
    width: i32,
    height: i32,
    dx: i32,
    dy: i32,
}

// SAFETY: all five are #[repr(C)], Copy, and match the kernel's structs field for field.
unsafe impl cudarc::driver::DeviceRepr for MandelViewArgs {}
// SAFETY: as above.
unsafe impl cudarc::driver::DeviceRepr for MandelShiftArgs {}
// SAFETY: as above.
unsafe impl cudarc::driver::DeviceRepr for ShadingArgs {}
// SAFETY: as above.
unsafe impl cudarc::driver::DeviceRepr for MsArgs {}
// SAFETY: as above.
unsafe impl cudarc::driver::DeviceRepr for MsFusedArgs {}

impl MandelViewArgs {
    fn of(view: &View) -> Self {
        Self {
            cx: view.center.0,
            cy: view.center.1,
            step: view.pixel_size(),
            width: view.width as i32,
            height: view.height as i32,
            max_dwell: view.max_dwell as i32,
            julia: i32::from(view.fractal.julia_c().is_some()),
            jr: view.fractal.julia_c().map_or(0.0, |c| c.to_f64().0),
            ji: view.fractal.julia_c().map_or(0.0, |c| c.to_f64().1),
        }
    }
}

/// Where the dwells (and optionally the continuous values) of a view go on the device.
pub struct DwellTargets<'a> {
    pub dwells: &'a mut CudaSlice<i32>,
    pub smooth: Option<&'a mut CudaSlice<f32>>,
}

/// A frame's values on the device: dwells, and the continuous values and distance
/// estimates a pan moves with them (None: not moved).
pub struct FrameValues<'a, D> {
    pub dwells: D,
    pub smooth: Option<&'a CudaSlice<f32>>,
    pub distance: Option<&'a CudaSlice<f32>>,
}

/// Device buffers for the overlay records and the counters, and the one-pass refinement's
/// unit flags with the epoch that marks a flag set in the current frame.
pub struct MsRecordBuffer {
    records: CudaSlice<i32>,
    counters: CudaSlice<u32>,
    capacity: usize,
    unit_flags: CudaSlice<u32>,
    epoch: u32,
}

/// What the last refinement did, read back from the device.
pub struct MsReadout {
    pub records: Vec<MsRecord>,
    pub stats: MsStats,
}

fn decode(r: &[i32]) -> MsRecord {
    MsRecord {
        rect: Rect {
            x0: (r[0] & 0xFFFF) as u32,
            y0: r[1] as u32,
            x1: r[2] as u32,
            y1: r[3] as u32,
        },
        kind: match ((r[0] >> 16) & 0xF) as u32 {
            MS_KIND_FILL => RectKind::Fill,
            MS_KIND_SPLIT => RectKind::Split,
            _ => RectKind::Leaf,
        },
        level: ((r[0] >> 20) & 0xF) as u32,
    }
}

impl MsRecordBuffer {
    pub fn new(stream: &Arc<CudaStream>, capacity: usize) -> Result<Self, CudaError> {
        Ok(Self {
            records: stream
                .alloc_zeros::<i32>(4 * capacity.max(1))
                .map_err(CudaError::driver("cuMemAlloc(records)"))?,
            counters: stream
                .alloc_zeros::<u32>(MS_COUNTERS as usize)
                .map_err(CudaError::driver("cuMemAlloc(counters)"))?,
            capacity,
            unit_flags: stream
                .alloc_zeros::<u32>(1)
                .map_err(CudaError::driver("cuMemAlloc(unit flags)"))?,
            epoch: 0,
        })
    }

    /// Flags for `units` units (zeroed when the buffer grows, or when the epoch wraps) and
    /// a new epoch: a flag equals it once its unit is evaluated in this frame.
    fn next_epoch(
        &mut self,
        stream: &Arc<CudaStream>,
        units: usize,
    ) -> Result<(u64, u32), CudaError> {
        if units > self.unit_flags.len() {
            self.unit_flags = stream
                .alloc_zeros::<u32>(units)
                .map_err(CudaError::driver("cuMemAlloc(unit flags)"))?;
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            stream
                .memset_zeros(&mut self.unit_flags)
                .map_err(CudaError::driver("cuMemsetD32(unit flags)"))?;
            self.epoch = 1;
        }
        Ok((self.unit_flags.device_ptr(stream).0, self.epoch))
    }

    /// Makes room for `capacity` records (the buffer only grows).
    pub fn ensure_capacity(
        &mut self,
        stream: &Arc<CudaStream>,
        capacity: usize,
    ) -> Result<(), CudaError> {
        if capacity > self.capacity {
            self.records = stream
                .alloc_zeros::<i32>(4 * capacity)
                .map_err(CudaError::driver("cuMemAlloc(records)"))?;
            self.capacity = capacity;
        }
        Ok(())
    }

    /// Forgets the records and counters (a run that made none, e.g. a per-pixel deep view;
    /// the colour kernels read the failure count).
    pub fn clear(&mut self, stream: &Arc<CudaStream>) -> Result<(), CudaError> {
        stream
            .memset_zeros(&mut self.counters)
            .map_err(CudaError::driver("cuMemsetD32(counters)"))
    }

    /// The counters of the last run; errors if a child launch failed or a block's lists
    /// overflowed (the image is then incomplete and the colour kernels drew nothing).
    pub fn counters(&self, stream: &Arc<CudaStream>) -> Result<Vec<u32>, CudaError> {
        let c = stream
            .clone_dtoh(&self.counters)
            .map_err(CudaError::driver("cuMemcpyDtoH(counters)"))?;
        match c.get(MS_COUNT_FAILURES as usize) {
            Some(&0) => Ok(c),
            _ => Err(CudaError::Launch {
                kernel: "mandel_ms",
                reason: format!(
                    "{} device-side child launches failed or in-block lists overflowed",
                    c.get(1).copied().unwrap_or(0)
                ),
            }),
        }
    }

    /// The records and statistics of the last run (recorded with `record`).
    pub fn read(
        &self,
        stream: &Arc<CudaStream>,
        view: &View,
        tuning: &MsTuning,
    ) -> Result<MsReadout, CudaError> {
        let c = self.counters(stream)?;
        let made = c[MS_COUNT_RECORDS as usize] as usize;
        if made > self.capacity {
            log::warn!(
                "the overlay shows {} of {made} rectangles (more than the record buffer holds)",
                self.capacity
            );
        }
        let n = made.min(self.capacity);
        let raw = stream
            .clone_dtoh(&self.records.slice(0..4 * n))
            .map_err(CudaError::driver("cuMemcpyDtoH(records)"))?;
        let top = GridLines {
            width: view.width,
            height: view.height,
            s: tuning.init_size,
        };
        Ok(MsReadout {
            records: raw.chunks_exact(4).map(decode).collect(),
            stats: MsStats {
                filled: u64::from(c[4 + MS_KIND_FILL as usize]),
                split: u64::from(c[4 + MS_KIND_SPLIT as usize]),
                leaves: u64::from(c[4 + MS_KIND_LEAF as usize]),
                depth: c[MS_COUNT_DEPTH as usize],
                child_grids: Some(u64::from(c[MS_COUNT_GRIDS as usize])),
                evaluated_pixels: u64::from(c[MS_COUNT_EVALUATED as usize]) + top.pixel_count(),
            },
        })
    }
}

/// Where the dwells come from: the kernel variant, in the order of
/// `MandelbrotKernels::grid_lines` and `mariani_silver` (`per_pixel`, `one_grid` and
/// `fused` have the plain ones only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MsSource {
    F32,
    F64,
    PerturbedDoubleDouble,
    PerturbedExtended,
}

impl MsSource {
    /// Every variant, in the order of the kernel arrays.
    pub const ALL: [MsSource; 4] = [
        MsSource::F32,
        MsSource::F64,
        MsSource::PerturbedDoubleDouble,
        MsSource::PerturbedExtended,
    ];
    /// The variants iterated directly in the plane (the first of [`MsSource::ALL`]).
    pub const PLAIN: [MsSource; 2] = [MsSource::F32, MsSource::F64];

    /// The suffix of the variant's kernels (`mandel_ms_f32`).
    pub fn name(self) -> &'static str {
        match self {
            MsSource::F32 => "f32",
            MsSource::F64 => "f64",
            MsSource::PerturbedDoubleDouble => "pt_dd",
            MsSource::PerturbedExtended => "pt_ext",
        }
    }

    /// One line on how the variant computes a dwell.
    pub fn describe(self) -> &'static str {
        match self {
            MsSource::F32 => "f32 iteration in the plane",
            MsSource::F64 => "f64 iteration in the plane",
            MsSource::PerturbedDoubleDouble => "f64 perturbation of a double-double orbit",
            MsSource::PerturbedExtended => "perturbation with a separate exponent",
        }
    }

    /// The variant's place in [`MsSource::ALL`] (and in [`MsSource::PLAIN`] if plain).
    fn index(self) -> usize {
        self as usize
    }

    fn is_plain(self) -> bool {
        MsSource::PLAIN.contains(&self)
    }

    /// The plain variant of a resolved precision (f32, or f64 for anything else).
    fn of_precision(used: Precision) -> Self {
        if used == Precision::F64 {
            MsSource::F64
        } else {
            MsSource::F32
        }
    }

    /// The variant of a deep view's perturbation path.
    fn of_path(path: PerturbationPath) -> Self {
        match path {
            PerturbationPath::DoubleDouble => MsSource::PerturbedDoubleDouble,
            PerturbationPath::Extended => MsSource::PerturbedExtended,
        }
    }
}

/// Where the colour kernels write the picture.
#[derive(Debug, Clone, Copy)]
pub enum ColourOut {
    /// W·H RGBA8 pixels of linear device memory (the classic path's mapped pixel buffer).
    Buffer(CUdeviceptr),
    /// A surface object over a W×H RGBA8 array (the display texture on the external path).
    Surface(sys::CUsurfObject),
}

impl ColourOut {
    /// Index of the kernel variant (linear, surface) and the 8-byte argument.
    fn variant(self) -> (usize, u64) {
        match self {
            ColourOut::Buffer(p) => (0, p),
            ColourOut::Surface(s) => (1, s),
        }
    }
}

/// The loaded Mandelbrot kernels.
pub struct MandelbrotKernels {
    per_pixel: [CudaFunction; 2],
    /// The refinement's two grids: the border and level-0 lines, then a block per cell.
    grid_lines: [CudaFunction; 4],
    mariani_silver: [CudaFunction; 4],
    /// Both in one grid, above `ONE_GRID_MIN_PIXELS` (f32, f64).
    one_grid: [CudaFunction; 2],
    /// The one-pass refinement of one level of 16 px (f32, f64).
    fused: [CudaFunction; 2],
    /// Linear output, surface output.
    colorize: [CudaFunction; 2],
    colorize_smooth: [CudaFunction; 2],
    distance: CudaFunction,
    /// A pan: the kept values moved, then the exposed pixels (f32, f64).
    shift: CudaFunction,
    fill: [CudaFunction; 2],
}

/// Distance shading for the colour kernels: the estimates (W·H values) when the colouring
/// asks for it and they are there, else none.
fn shading_args(
    coloring: &crate::mandelbrot::Coloring,
    distance: Option<&CudaSlice<f32>>,
    view: &View,
    stream: &CudaStream,
) -> Result<ShadingArgs, CudaError> {
    let pixels = view.width as usize * view.height as usize;
    match (coloring.distance, distance) {
        (Some(width), Some(d)) if d.len() >= pixels => Ok(ShadingArgs {
            distance: d.device_ptr(stream).0,
            width,
            pad: 0,
        }),
        (Some(_), Some(_)) => Err(launch_error(
            "mandel_colorize",
            "short distance buffer".into(),
        )),
        _ => Ok(ShadingArgs {
            distance: 0,
            width: 1.0,
            pad: 0,
        }),
    }
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

fn launch_error(kernel: &'static str, reason: String) -> CudaError {
    CudaError::Launch { kernel, reason }
}

/// Pointer of an optional device buffer (0 for none).
fn optional_ptr(buffer: Option<&CudaSlice<f32>>, stream: &CudaStream) -> u64 {
    buffer.map_or(0, |b| b.device_ptr(stream).0)
}

/// `v` as an array of N functions.
fn array<const N: usize>(v: Vec<CudaFunction>, name: &str) -> Result<[CudaFunction; N], CudaError> {
    v.try_into().map_err(|_| CudaError::Module {
        name: name.into(),
        reason: "wrong number of variants".into(),
    })
}

/// Checks that the buffers hold the view's W·H values and the view fits the kernels.
fn check_targets(
    view: &View,
    dwells: &CudaSlice<i32>,
    smooth: Option<&CudaSlice<f32>>,
) -> Result<(), CudaError> {
    let (w, h) = (view.width, view.height);
    let pixels = w as usize * h as usize;
    let smooth_short = smooth.is_some_and(|s| s.len() < pixels);
    if dwells.len() < pixels || smooth_short || w == 0 || h == 0 || w > 32768 || h > 32768 {
        return Err(launch_error(
            "mandel",
            format!("buffers of {} dwells for {w}×{h}", dwells.len()),
        ));
    }
    Ok(())
}

/// The refinement's arguments for `view` with `tuning` (no perturbation orbit).
fn ms_args(
    stream: &Arc<CudaStream>,
    view: &View,
    tuning: &MsTuning,
    targets: DwellTargets<'_>,
    records: &MsRecordBuffer,
    record: bool,
) -> Result<MsArgs, CudaError> {
    tuning
        .validate()
        .map_err(|e| launch_error("mandel_ms", e.to_string()))?;
    let mut size = [0i32; MS_MAX_LEVELS];
    for (k, s) in size.iter_mut().enumerate().take(tuning.levels()) {
        *s = tuning.size(k) as i32;
    }
    let smooth = targets.smooth.map(|s| &*s);
    Ok(MsArgs {
        dwells: targets.dwells.device_ptr(stream).0,
        smooth: optional_ptr(smooth, stream),
        records: records.records.device_ptr(stream).0,
        counters: records.counters.device_ptr(stream).0,
        view: MandelViewArgs::of(view),
        record_capacity: if record { records.capacity as i32 } else { 0 },
        levels: tuning.levels() as i32,
        launch_min_pixels: if crate::fault::injected(crate::fault::Fault::ChildLaunch) {
            1
        } else {
            tuning.launch_min_pixels.min(i32::MAX as u32) as i32
        },
        lookahead: tuning.lookahead as i32,
        size,
        pt: PtArgs::default(),
    })
}

/// Plain views of at least this many pixels refine in one grid (`mandel_ms_one_grid`)
/// unless the fused one level applies. Against the two grids on the goal view, measured on
/// one lease: 1.02–1.05× at 4096², max dwell 2048, where the cells fill the lines'
/// last wave, 0.99–1.03× at 16384²/2048, 0.96–1.01× at max dwell 512. Up to 3840×2160 the
/// "nested" preset lost up to 14 % with it (max dwell 1024), so smaller views keep the two
/// grids, and so do deep views, which are refined at window sizes.
const ONE_GRID_MIN_PIXELS: u64 = 3840 * 2160 + 1;

/// Whether the one-pass refinement runs these arguments: plain dwells (f32 or f64), one
/// level of MS_FUSED_CELL-pixel cells, every cell refined inside its block (no child grid,
/// as the fault switch for child launches asks for).
fn fused_applies(source: MsSource, args: &MsArgs) -> bool {
    let cell = MS_FUSED_CELL as i32;
    source.is_plain()
        && args.levels == 1
        && args.size[0] == cell
        && args.launch_min_pixels > (cell - 1) * (cell - 1)
}

/// The module to load: `mandelbrot`, or with `CUDALENS_SANITIZER_MODULE=1` (test-only, set by
/// scripts/gpu/verify.sh for racecheck, initcheck and synccheck, which do not support dynamic
/// parallelism) `mandelbrot_sanitize`, the same source built as plain code without
/// device-side launches (build.rs), where a rectangle that needs a child grid fails the
/// frame.
fn module_name() -> &'static str {
    if std::env::var("CUDALENS_SANITIZER_MODULE").is_ok_and(|v| v == "1") {
        log::warn!("loading the Mandelbrot module without child grids (CUDALENS_SANITIZER_MODULE)");
        "mandelbrot_sanitize"
    } else {
        "mandelbrot"
    }
}

impl MandelbrotKernels {
    /// Loads the module (needs the nvcc-built, device-linked fatbin) and raises the
    /// device runtime's pending-launch limit.
    pub fn load(device: &CudaDevice) -> Result<Self, CudaError> {
        let module = load_module(device, module_name())?;
        device.bind()?;
        // SAFETY: sets a context limit of the current context; no pointers involved.
        check("cuCtxSetLimit(DEV_RUNTIME_PENDING_LAUNCH_COUNT)", unsafe {
            sys::cuCtxSetLimit(
                sys::CUlimit::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT,
                if crate::fault::injected(crate::fault::Fault::ChildLaunch) {
                    1
                } else {
                    PENDING_LAUNCH_LIMIT
                },
            )
        })?;
        let each = |name: &str, sources: &[MsSource]| -> Result<Vec<CudaFunction>, CudaError> {
            sources
                .iter()
                .map(|s| load_function(&module, &format!("{name}_{}", s.name())))
                .collect()
        };
        Ok(Self {
            per_pixel: array(
                each("mandel_per_pixel", &MsSource::PLAIN)?,
                "mandel_per_pixel",
            )?,
            grid_lines: array(
                each("mandel_grid_lines", &MsSource::ALL)?,
                "mandel_grid_lines",
            )?,
            mariani_silver: array(each("mandel_ms", &MsSource::ALL)?, "mandel_ms")?,
            one_grid: array(
                each("mandel_ms_one_grid", &MsSource::PLAIN)?,
                "mandel_ms_one_grid",
            )?,
            fused: array(
                each("mandel_ms_fused", &MsSource::PLAIN)?,
                "mandel_ms_fused",
            )?,
            colorize: [
                load_function(&module, "mandel_colorize")?,
                load_function(&module, "mandel_colorize_surface")?,
            ],
            colorize_smooth: [
                load_function(&module, "mandel_colorize_smooth")?,
                load_function(&module, "mandel_colorize_smooth_surface")?,
            ],
            distance: load_function(&module, "mandel_distance")?,
            shift: load_function(&module, "mandel_shift")?,
            fill: array(each("mandel_fill", &MsSource::PLAIN)?, "mandel_fill")?,
        })
    }

    /// A pan by whole pixels: `to` gets `from`'s values moved so that its pixel (x, y) is
    /// `from`'s (x + dx, y + dy), and `MANDEL_PAN_UNSET` for the pixels the move exposed
    /// (for [`Self::fill`]). Continuous values and distance estimates move where both sides
    /// have them.
    #[allow(clippy::too_many_arguments)]
    pub fn shift(
        &self,
        stream: &Arc<CudaStream>,
        view: &View,
        from: &FrameValues<'_, &CudaSlice<i32>>,
        to_dwells: &mut CudaSlice<i32>,
        to_smooth: Option<&mut CudaSlice<f32>>,
        to_distance: Option<&mut CudaSlice<f32>>,
        (dx, dy): (i64, i64),
    ) -> Result<(), CudaError> {
        let pixels = view.width as usize * view.height as usize;
        let short = |b: Option<usize>| b.is_some_and(|n| n < pixels);
        let (ts, td) = (to_smooth.as_deref(), to_distance.as_deref());
        if from.dwells.len() < pixels
            || to_dwells.len() < pixels
            || [from.smooth.map(|b| b.len()), from.distance.map(|b| b.len())]
                .into_iter()
                .chain([ts.map(|b| b.len()), td.map(|b| b.len())])
                .any(short)
            || from.smooth.is_some() != ts.is_some()
            || from.distance.is_some() != td.is_some()
        {
            return Err(launch_error(
                "mandel_shift",
                "buffers of another size".into(),
            ));
        }
        let ptr = |b: Option<&CudaSlice<f32>>| optional_ptr(b, stream);
        let args = MandelShiftArgs {
            dwells: from.dwells.device_ptr(stream).0,
            smooth: ptr(from.smooth),
            distance: ptr(from.distance),
            to_dwells: to_dwells.device_ptr(stream).0,
            to_smooth: ptr(ts),
            to_distance: ptr(td),
            width: view.width as i32,
            height: view.height as i32,
            dx: dx as i32,
            dy: dy as i32,
        };
        let mut b = stream.launch_builder(&self.shift);
        b.arg(&args);
        // SAFETY: matches mandel_shift(MandelShift); every buffer holds W·H values and the
        // optional ones are given on both sides or neither (checked above); the kernel reads
        // `from` only at pixels inside the view.
        unsafe { b.launch(pixel_grid(view.width, view.height)) }
            .map(|_| ())
            .map_err(CudaError::launch("mandel_shift"))
    }

    /// Computes the pixels of `view` marked `MANDEL_PAN_UNSET` (a pan's exposed strips) in
    /// `precision`, with their continuous values and distance estimates where the buffers
    /// are given.
    pub fn fill(
        &self,
        stream: &Arc<CudaStream>,
        view: &View,
        precision: Precision,
        targets: FrameValues<'_, &mut CudaSlice<i32>>,
    ) -> Result<(), CudaError> {
        check_targets(view, targets.dwells, targets.smooth)?;
        check_targets(view, targets.dwells, targets.distance)?;
        let source = MsSource::of_precision(precision);
        let view_args = MandelViewArgs::of(view);
        let smooth = optional_ptr(targets.smooth, stream);
        let distance = optional_ptr(targets.distance, stream);
        let mut b = stream.launch_builder(&self.fill[source.index()]);
        b.arg(targets.dwells)
            .arg(&smooth)
            .arg(&distance)
            .arg(&view_args);
        // SAFETY: matches mandel_fill_*(int*, float*, float*, MandelView); the buffers hold
        // W·H values (checked above), the optional pointers are 0 or such buffers.
        unsafe { b.launch(pixel_grid(view.width, view.height)) }
            .map(|_| ())
            .map_err(CudaError::launch("mandel_fill"))
    }

    /// The distance estimate of each pixel of `view` whose dwell in `dwells` (a computed
    /// frame) is below the max dwell, 0 elsewhere, into `out` (f64 with the derivative).
    pub fn distance(
        &self,
        stream: &Arc<CudaStream>,
        view: &View,
        dwells: &CudaSlice<i32>,
        out: &mut CudaSlice<f32>,
    ) -> Result<(), CudaError> {
        check_targets(view, dwells, Some(out))?;
        let view_args = MandelViewArgs::of(view);
        let mut b = stream.launch_builder(&self.distance);
        b.arg(dwells).arg(&mut *out).arg(&view_args);
        // SAFETY: matches mandel_distance(const int*, float*, MandelView); both buffers hold
        // W·H values (checked above).
        unsafe { b.launch(pixel_grid(view.width, view.height)) }
            .map(|_| ())
            .map_err(CudaError::launch("mandel_distance"))
    }

    /// Computes the dwells of `view` (and its continuous values when `targets.smooth` is
    /// given) on `stream`. The counters of `records` are reset here in both modes (the
    /// colour kernels read the failure count); with `record`, Mariani–Silver appends its
    /// decisions. Returns the precision used.
    #[allow(clippy::too_many_arguments)]
    pub fn dwells(
        &self,
        stream: &Arc<CudaStream>,
        view: &View,
        mode: Mode,
        precision: Precision,
        tuning: &MsTuning,
        targets: DwellTargets<'_>,
        records: &mut MsRecordBuffer,
        record: bool,
    ) -> Result<Precision, CudaError> {
        let (w, h) = (view.width, view.height);
        check_targets(view, targets.dwells, targets.smooth.as_deref())?;
        stream
            .memset_zeros(&mut records.counters)
            .map_err(CudaError::driver("cuMemsetD32(counters)"))?;
        let used = view.resolve_precision(precision);
        let source = MsSource::of_precision(used);
        let view_args = MandelViewArgs::of(view);
        match mode {
            Mode::PerPixel => {
                let smooth_ptr = optional_ptr(targets.smooth.as_deref(), stream);
                let mut b = stream.launch_builder(&self.per_pixel[source.index()]);
                b.arg(&mut *targets.dwells).arg(&smooth_ptr).arg(&view_args);
                // SAFETY: matches mandel_per_pixel_*(int*, float*, MandelView); the buffers hold
                // W·H values (checked above), the smooth pointer is 0 or such a buffer.
                unsafe { b.launch(pixel_grid(w, h)) }
                    .map_err(CudaError::launch("mandel_per_pixel"))?;
            }
            Mode::MarianiSilver => {
                let args = ms_args(stream, view, tuning, targets, records, record)?;
                self.launch_ms(stream, source, &args, view, tuning, records)?;
            }
        }
        Ok(used)
    }

    /// Mariani–Silver on perturbation dwells: the dwells (and continuous values when
    /// `targets.smooth` is given) of the deep view `deep` around `orbit` (its reference),
    /// with the same decisions, records and counters as for a plain view.
    #[allow(clippy::too_many_arguments)]
    pub fn refine_deep(
        &self,
        stream: &Arc<CudaStream>,
        deep: &DeepView,
        orbit: &DeviceOrbit,
        tuning: &MsTuning,
        targets: DwellTargets<'_>,
        records: &mut MsRecordBuffer,
        record: bool,
    ) -> Result<(), CudaError> {
        let view = View {
            width: deep.width,
            height: deep.height,
            max_dwell: deep.max_dwell,
            ..View::default()
        };
        check_targets(&view, targets.dwells, targets.smooth.as_deref())?;
        stream
            .memset_zeros(&mut records.counters)
            .map_err(CudaError::driver("cuMemsetD32(counters)"))?;
        let mut args = ms_args(stream, &view, tuning, targets, records, record)?;
        args.pt = orbit.kernel_args(stream, deep, 0, 0)?;
        let source = MsSource::of_path(orbit.path);
        self.launch_ms(stream, source, &args, &view, tuning, records)
    }

    /// The refinement: the fused one level when `fused_applies`; else, for plain dwells
    /// above `ONE_GRID_MIN_PIXELS`, the level-0 lines and then a block per level-0 cell in
    /// one grid (mandelbrot_fused.cuh); else the same as two grids.
    fn launch_ms(
        &self,
        stream: &Arc<CudaStream>,
        source: MsSource,
        args: &MsArgs,
        view: &View,
        tuning: &MsTuning,
        records: &mut MsRecordBuffer,
    ) -> Result<(), CudaError> {
        let lines = GridLines {
            width: view.width,
            height: view.height,
            s: tuning.init_size,
        };
        if fused_applies(source, args) {
            return self.launch_fused(stream, source, args, &lines, records);
        }
        if source.is_plain()
            && u64::from(view.width) * u64::from(view.height) >= ONE_GRID_MIN_PIXELS
        {
            // As ms_one_grid: as many whole units (a top row and a left column) as a block
            // has threads for, at least one.
            let units_per_tile = (MS_BLOCK / (2 * tuning.init_size - 1)).max(1);
            let kernel = (&self.one_grid[source.index()], "mandel_ms_one_grid");
            return self.launch_tiles(stream, kernel, args, &lines, units_per_tile, records);
        }
        let line_blocks = blocks(lines.pixel_count() as u32, MS_LINES_BLOCK);
        let mut b = stream.launch_builder(&self.grid_lines[source.index()]);
        b.arg(args);
        // SAFETY: matches mandel_grid_lines_*(MsArgs); every pointer in `args` refers to a
        // live allocation of the documented size for the duration of the stream work.
        unsafe {
            b.launch(LaunchConfig {
                grid_dim: (line_blocks, 1, 1),
                block_dim: (MS_LINES_BLOCK, 1, 1),
                shared_mem_bytes: 0,
            })
        }
        .map_err(CudaError::launch("mandel_grid_lines"))?;
        let (nx, ny) = Rect::image(view.width, view.height).cell_counts(tuning.init_size);
        if nx == 0 || ny == 0 {
            return Ok(());
        }
        let mut b = stream.launch_builder(&self.mariani_silver[source.index()]);
        b.arg(args);
        // SAFETY: matches mandel_ms_*(MsArgs), one block per level-0 cell; pointers as above.
        unsafe {
            b.launch(LaunchConfig {
                grid_dim: (nx, ny, 1),
                block_dim: (MS_BLOCK, 1, 1),
                shared_mem_bytes: 0,
            })
        }
        .map(|_| ())
        .map_err(CudaError::launch("mandel_ms"))
    }

    /// The one-pass refinement (mandelbrot_fused.cuh): line tiles of MS_BLOCK / 32 units,
    /// then one tile per cell, in one grid.
    fn launch_fused(
        &self,
        stream: &Arc<CudaStream>,
        source: MsSource,
        args: &MsArgs,
        lines: &GridLines,
        records: &mut MsRecordBuffer,
    ) -> Result<(), CudaError> {
        let kernel = (&self.fused[source.index()], "mandel_ms_fused");
        self.launch_tiles(stream, kernel, args, lines, MS_BLOCK / 32, records)
    }

    /// A refinement in one grid of tiles (mandelbrot_fused.cuh): tiles of `units_per_tile`
    /// grid-line units, then one tile per cell.
    fn launch_tiles(
        &self,
        stream: &Arc<CudaStream>,
        (function, name): (&CudaFunction, &'static str),
        args: &MsArgs,
        lines: &GridLines,
        units_per_tile: u32,
        records: &mut MsRecordBuffer,
    ) -> Result<(), CudaError> {
        let (cols, rows) = lines.counts();
        let units = cols as usize * rows as usize;
        let (flags, epoch) = records.next_epoch(stream, units)?;
        let fused = MsFusedArgs {
            flags,
            epoch,
            cols: cols as i32,
            rows: rows as i32,
        };
        let tiles = blocks(cols * rows, units_per_tile) + (cols - 1) * (rows - 1);
        let mut b = stream.launch_builder(function);
        b.arg(args).arg(&fused);
        // SAFETY: matches mandel_ms_fused_*(MsArgs, MsFused) and mandel_ms_one_grid_*(MsArgs,
        // MsFused), whose line tiles cover the `units` units; `flags` holds a flag per unit
        // (`next_epoch`); every pointer in `args` refers to a live allocation of the
        // documented size for the duration of the stream work. Every tile's block waits
        // only on tiles handed out before its own, so the grid cannot deadlock.
        unsafe {
            b.launch(LaunchConfig {
                grid_dim: (tiles, 1, 1),
                block_dim: (MS_BLOCK, 1, 1),
                shared_mem_bytes: 0,
            })
        }
        .map(|_| ())
        .map_err(CudaError::launch(name))
    }

    /// out[i] = lut[clamp(dwell[i], 0, max_dwell)] for W·H pixels; `lut` holds
    /// max_dwell + 1 entries. Draws nothing when the refinement counted a failure.
    ///
    /// # Safety
    /// `out` must cover W×H pixels (a buffer of at least W·H·4 bytes, or a surface over an
    /// RGBA8 array of at least W×H) that stays allocated (and mapped or handed to CUDA)
    /// until the stream has run the launch.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn colorize(
        &self,
        stream: &CudaStream,
        dwells: &CudaSlice<i32>,
        distance: Option<&CudaSlice<f32>>,
        lut: &CudaSlice<u8>,
        records: &MsRecordBuffer,
        out: ColourOut,
        view: &View,
        coloring: &crate::mandelbrot::Coloring,
    ) -> Result<(), CudaError> {
        let shading = shading_args(coloring, distance, view, stream)?;
        let (wi, hi, md) = (view.width as i32, view.height as i32, view.max_dwell as i32);
        if lut.len() < 4 * (view.max_dwell as usize + 1) {
            return Err(launch_error(
                "mandel_colorize",
                format!("LUT of {} B", lut.len()),
            ));
        }
        let (variant, out) = out.variant();
        let mut b = stream.launch_builder(&self.colorize[variant]);
        b.arg(dwells)
            .arg(lut)
            .arg(&out)
            .arg(&wi)
            .arg(&hi)
            .arg(&md)
            .arg(&shading)
            .arg(&records.counters);
        // SAFETY: matches mandel_colorize(const int*, const uchar4*, uchar4*, int, int, int,
        // Shading, const unsigned*) and mandel_colorize_surface (the same with a
        // cudaSurfaceObject_t, 8 bytes); the kernel clamps every dwell into the LUT's
        // max_dwell + 1 entries (checked above), the shading's estimates are none or W·H
        // values (`shading_args`) and `out` covers W·H pixels (this function's contract).
        unsafe { b.launch(pixel_grid(view.width, view.height)) }
            .map(|_| ())
            .map_err(CudaError::launch("mandel_colorize"))
    }

    /// Smooth colouring: the gradient at √ν · density / 8 + offset per pixel.
    ///
    /// # Safety
    /// As for `colorize`: `out` covers W×H pixels until the stream has run the launch.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn colorize_smooth(
        &self,
        stream: &CudaStream,
        dwells: &CudaSlice<i32>,
        smooth: &CudaSlice<f32>,
        distance: Option<&CudaSlice<f32>>,
        gradient: &CudaSlice<u8>,
        records: &MsRecordBuffer,
        out: ColourOut,
        view: &View,
        coloring: &crate::mandelbrot::Coloring,
    ) -> Result<(), CudaError> {
        let shading = shading_args(coloring, distance, view, stream)?;
        let (wi, hi, md) = (view.width as i32, view.height as i32, view.max_dwell as i32);
        let steps = (gradient.len() / 4) as i32;
        if steps == 0 || smooth.len() < view.width as usize * view.height as usize {
            return Err(launch_error(
                "mandel_colorize_smooth",
                "empty gradient or short buffer".into(),
            ));
        }
        let interior = u32::from_le_bytes(coloring.interior);
        let (variant, out) = out.variant();
        let mut b = stream.launch_builder(&self.colorize_smooth[variant]);
        b.arg(dwells)
            .arg(smooth)
            .arg(gradient)
            .arg(&steps)
            .arg(&out)
            .arg(&wi)
            .arg(&hi)
            .arg(&md)
            .arg(&coloring.density)
            .arg(&coloring.offset)
            .arg(&interior)
            .arg(&shading)
            .arg(&records.counters);
        // SAFETY: matches mandel_colorize_smooth(const int*, const float*, const uchar4*, int,
        // uchar4*, int, int, int, float, float, unsigned, Shading, const unsigned*) and its _surface
        // twin (a cudaSurfaceObject_t, 8 bytes, for the uchar4*); gradient indices
        // stay below `steps`, the buffers hold W·H values and `out` covers W·H pixels (this
        // function's contract).
        unsafe { b.launch(pixel_grid(view.width, view.height)) }
            .map(|_| ())
            .map_err(CudaError::launch("mandel_colorize_smooth"))
    }
}

#[cfg(test)]
mod tests {
    use super::MsSource;

    #[test]
    fn sources_are_listed_once_plain_ones_first() {
        for (i, s) in MsSource::ALL.into_iter().enumerate() {
            assert_eq!(s.index(), i);
            assert_eq!(s.is_plain(), i < MsSource::PLAIN.len(), "{s:?}");
            assert!(!s.describe().is_empty());
            assert_eq!(
                MsSource::ALL
                    .iter()
                    .filter(|t| t.name() == s.name())
                    .count(),
                1
            );
        }
        assert_eq!(MsSource::of_precision(super::Precision::F32), MsSource::F32);
        assert_eq!(MsSource::of_precision(super::Precision::F64), MsSource::F64);
    }

    #[test]
    fn args_have_the_kernel_layout() {
        assert_eq!(std::mem::size_of::<super::MandelViewArgs>(), 56);
        assert_eq!(std::mem::size_of::<super::MsArgs>(), 152 + 136);
        assert_eq!(std::mem::size_of::<super::MsFusedArgs>(), 24);
        assert_eq!(std::mem::size_of::<super::ShadingArgs>(), 16);
        assert_eq!(std::mem::size_of::<super::MandelShiftArgs>(), 64);
    }

    #[test]
    fn smooth_constants_match_the_evaluator() {
        let source = include_str!("../../../kernels/mandelbrot_eval.cuh");
        let define = |name: &str| {
            source.lines().find_map(|l| {
                l.strip_prefix(&format!("#define {name} "))
                    .and_then(|v| v.trim().parse::<f64>().ok())
            })
        };
        assert_eq!(
            define("MANDEL_SMOOTH_BAILOUT_SQ"),
            Some(crate::mandelbrot::SMOOTH_BAILOUT_SQ)
        );
        assert_eq!(
            define("MANDEL_SMOOTH_EXTRA_MAX"),
            Some(f64::from(crate::mandelbrot::SMOOTH_EXTRA_MAX))
        );
    }
}
