//! Launcher for `kernels/perturbation.cu`: per-pixel perturbation dwells (and distance
//! estimates) of a deep view around a reference orbit held on the device ([`DeviceOrbit`]),
//! with its BLA table ([`DeviceBla`]) when the view takes BLA steps.

use super::mandelbrot_tiles::{PT_BLOCK_X, PT_BLOCK_Y};
use crate::cuda::{blocks, load_function, load_module, CudaDevice, CudaError};
use crate::mandelbrot::deep::{BlaTable, DeepView, OrbitLayout, ReferenceOrbit};
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use std::sync::Arc;

/// Mirror of `struct PtArgs` in perturbation.cuh (same field order, C layout; 136 bytes).
/// Also the last field of the Mariani–Silver kernels' arguments (zero for plain views).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct PtArgs {
    dwells: u64,
    smooth: u64,
    width: i32,
    height: i32,
    max_dwell: i32,
    orbit: u64,
    orbit_exp: u64,
    orbit_last: i32,
    step: f64,
    step_exp: i32,
    step_lo: f64,
    orbit_start: i32,
    rebase_last: i32,
    julia: i32,
    bla: u64,
    bla_level: u64,
    bla_levels: i32,
    cr: f64,
    ci: f64,
}

/// Mirror of `struct PtFill` in perturbation.cu (C layout, 16 bytes): distance estimates
/// (0: none) and the place of the filled view's pixels in the orbit's view.
#[repr(C)]
#[derive(Clone, Copy)]
struct PtFillArgs {
    distance: u64,
    ox: i32,
    oy: i32,
}

// SAFETY: PtArgs and PtFillArgs are #[repr(C)], Copy, and match the kernel's structs field
// for field.
unsafe impl cudarc::driver::DeviceRepr for PtArgs {}
// SAFETY: as above.
unsafe impl cudarc::driver::DeviceRepr for PtFillArgs {}

/// Which number type the pixels iterate in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerturbationPath {
    /// Double-double differences; the orbit as double-doubles.
    DoubleDouble,
    /// Shared-exponent complex differences; the orbit as mantissas and exponents.
    Extended,
}

impl PerturbationPath {
    /// Index in the kernels' per-path arrays.
    fn index(self) -> usize {
        match self {
            PerturbationPath::DoubleDouble => 0,
            PerturbationPath::Extended => 1,
        }
    }
}

/// A BLA table on the device (`BlaTable::device_layout`): the entries and the levels'
/// offsets.
pub struct DeviceBla {
    entries: CudaSlice<f64>,
    levels: CudaSlice<i32>,
    level_count: usize,
    extended: bool,
}

impl DeviceBla {
    /// Uploads `table`.
    pub fn upload(stream: &Arc<CudaStream>, table: &BlaTable) -> Result<Self, CudaError> {
        let (mut entries, levels) = table.device_layout();
        if entries.is_empty() {
            // A table without levels (a very short orbit) still gets a valid pointer.
            entries.push(0.0);
        }
        Ok(Self {
            entries: stream
                .clone_htod(&entries)
                .map_err(CudaError::driver("cuMemcpyHtoD(BLA table)"))?,
            level_count: levels.len() - 1,
            levels: stream
                .clone_htod(&levels)
                .map_err(CudaError::driver("cuMemcpyHtoD(BLA levels)"))?,
            extended: table.is_extended(),
        })
    }
}

/// A reference orbit on the device, in the form one path reads, and the BLA table the
/// kernels use with it (none: every step is a perturbation step).
pub struct DeviceOrbit {
    points: CudaSlice<f64>,
    exponents: CudaSlice<i32>,
    len: usize,
    layout: OrbitLayout,
    pub path: PerturbationPath,
    pub bla: Option<DeviceBla>,
}

impl DeviceOrbit {
    /// Uploads `orbit` for `path`.
    pub fn upload(
        stream: &Arc<CudaStream>,
        orbit: &ReferenceOrbit,
        path: PerturbationPath,
    ) -> Result<Self, CudaError> {
        let (points, exponents): (Vec<f64>, Vec<i32>) = match path {
            PerturbationPath::DoubleDouble => (orbit.device_dd_points(), vec![0]),
            PerturbationPath::Extended => (
                orbit.points.iter().flat_map(|p| [p.re, p.im]).collect(),
                orbit.points.iter().map(|p| p.e).collect(),
            ),
        };
        Ok(Self {
            points: stream
                .clone_htod(&points)
                .map_err(CudaError::driver("cuMemcpyHtoD(orbit)"))?,
            exponents: stream
                .clone_htod(&exponents)
                .map_err(CudaError::driver("cuMemcpyHtoD(orbit exponents)"))?,
            len: orbit.points.len(),
            layout: orbit.layout,
            path,
            bla: None,
        })
    }
}

/// The loaded perturbation kernels, per path (double-double, extended).
pub struct PerturbationKernels {
    per_pixel: [CudaFunction; 2],
    distance: [CudaFunction; 2],
    fill: [CudaFunction; 2],
}

/// One thread per pixel in blocks of PT_BLOCK_X × PT_BLOCK_Y.
fn pixel_grid(width: u32, height: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks(width, PT_BLOCK_X), blocks(height, PT_BLOCK_Y), 1),
        block_dim: (PT_BLOCK_X, PT_BLOCK_Y, 1),
        shared_mem_bytes: 0,
    }
}

impl PerturbationKernels {
    pub fn load(device: &CudaDevice) -> Result<Self, CudaError> {
        let module = load_module(device, "perturbation")?;
        let pair = |name: &str| -> Result<[CudaFunction; 2], CudaError> {
            Ok([
                load_function(&module, &format!("{name}_dd"))?,
                load_function(&module, &format!("{name}_ext"))?,
            ])
        };
        Ok(Self {
            per_pixel: pair("perturb_per_pixel")?,
            distance: pair("perturb_distance")?,
            fill: pair("perturb_fill")?,
        })
    }

    /// A pan's exposed pixels (dwell `MANDEL_PAN_UNSET` in `dwells`, ≥ W·H) around `orbit`,
    /// the reference of `orbit_view` (the view the pans started from, of the same size):
    /// pixel (x, y) is `orbit_view`'s (x + ox, y + oy). Continuous values into `smooth` and
    /// distance estimates into `distance` where given; BLA steps with `bla` and a table,
    /// for pixels within `orbit_view` only.
    #[allow(clippy::too_many_arguments)]
    pub fn fill(
        &self,
        stream: &Arc<CudaStream>,
        orbit_view: &DeepView,
        orbit: &DeviceOrbit,
        dwells: &mut CudaSlice<i32>,
        smooth: Option<&mut CudaSlice<f32>>,
        distance: Option<&mut CudaSlice<f32>>,
        (ox, oy): (i64, i64),
        bla: bool,
    ) -> Result<(), CudaError> {
        let (width, height) = (orbit_view.width, orbit_view.height);
        let pixels = width as usize * height as usize;
        let short = |b: Option<usize>| b.is_some_and(|n| n < pixels);
        let far = |o: i64, side: u32| o.unsigned_abs() > 4 * u64::from(side);
        if dwells.len() < pixels
            || short(smooth.as_ref().map(|s| s.len()))
            || short(distance.as_ref().map(|s| s.len()))
            || far(ox, width)
            || far(oy, height)
        {
            return Err(CudaError::Launch {
                kernel: "perturb_fill",
                reason: format!(
                    "buffers of {} for {width}×{height}, offset ({ox}, {oy})",
                    dwells.len()
                ),
            });
        }
        let (d, _guard) = dwells.device_ptr(stream);
        let smooth = smooth.map(|s| s.device_ptr(stream));
        let distance = distance.map(|s| s.device_ptr(stream));
        let mut args =
            orbit.kernel_args(stream, orbit_view, d, smooth.as_ref().map_or(0, |s| s.0))?;
        if !bla {
            (args.bla, args.bla_level, args.bla_levels) = (0, 0, 0);
        }
        let fill = PtFillArgs {
            distance: distance.as_ref().map_or(0, |s| s.0),
            ox: ox as i32,
            oy: oy as i32,
        };
        let mut b = stream.launch_builder(&self.fill[orbit.path.index()]);
        b.arg(&args).arg(&fill);
        // SAFETY: matches perturb_fill_*(PtArgs, PtFill); the buffers hold W·H values
        // (checked), the orbit's arguments are valid (`kernel_args`: every pixel, inside the
        // view or not, indexes the orbit only up to its last point) and the offset is small.
        unsafe { b.launch(pixel_grid(width, height)) }
            .map_err(CudaError::launch("perturb_fill"))?;
        Ok(())
    }

    /// The distance estimate of each pixel of `view` whose dwell in `dwells` (a computed
    /// frame around `orbit`) is below the max dwell, 0 elsewhere, into `out` (≥ W·H): the
    /// pixel iterates again with its derivative.
    pub fn distance(
        &self,
        stream: &Arc<CudaStream>,
        view: &DeepView,
        orbit: &DeviceOrbit,
        dwells: &CudaSlice<i32>,
        out: &mut CudaSlice<f32>,
    ) -> Result<(), CudaError> {
        let (width, height) = (view.width, view.height);
        let pixels = width as usize * height as usize;
        if dwells.len() < pixels || out.len() < pixels {
            return Err(CudaError::Launch {
                kernel: "perturb_distance",
                reason: format!("buffers of {} for {width}×{height}", out.len()),
            });
        }
        let (d, _guard) = dwells.device_ptr(stream);
        let args = orbit.kernel_args(stream, view, d, 0)?;
        let mut b = stream.launch_builder(&self.distance[orbit.path.index()]);
        b.arg(&args).arg(&mut *out);
        // SAFETY: matches perturb_distance_*(PtArgs, float*); the dwells the kernel reads
        // and `out` hold W·H values (checked), the orbit's arguments are valid (`kernel_args`).
        unsafe { b.launch(pixel_grid(width, height)) }
            .map_err(CudaError::launch("perturb_distance"))?;
        Ok(())
    }

    /// Computes the W×H dwells of `view` into `dwells` (≥ W·H `i32`) around `orbit` (the
    /// reference at the view's centre), and their continuous values into `smooth` (≥ W·H)
    /// when given.
    pub fn dwells(
        &self,
        stream: &Arc<CudaStream>,
        view: &DeepView,
        orbit: &DeviceOrbit,
        dwells: &mut CudaSlice<i32>,
        smooth: Option<&mut CudaSlice<f32>>,
    ) -> Result<(), CudaError> {
        let (width, height) = (view.width, view.height);
        let pixels = width as usize * height as usize;
        if dwells.len() < pixels || smooth.as_ref().is_some_and(|s| s.len() < pixels) {
            return Err(CudaError::Launch {
                kernel: "perturb_per_pixel",
                reason: format!("dwell buffer of {} for {width}×{height}", dwells.len()),
            });
        }
        let (d, _guard) = dwells.device_ptr(stream);
        let smooth = smooth.map(|s| s.device_ptr(stream));
        let args = orbit.kernel_args(stream, view, d, smooth.as_ref().map_or(0, |s| s.0))?;
        let mut b = stream.launch_builder(&self.per_pixel[orbit.path.index()]);
        b.arg(&args);
        // SAFETY: matches perturb_per_pixel_*(PtArgs); `dwells` holds W·H ints and `smooth`
        // is 0 or W·H floats (checked), and the orbit's arguments are valid (`kernel_args`).
        unsafe { b.launch(pixel_grid(width, height)) }
            .map_err(CudaError::launch("perturb_per_pixel"))?;
        Ok(())
    }
}

impl DeviceOrbit {
    /// The kernels' arguments for `view` around this orbit, dwells and continuous values
    /// going to `dwells` and `smooth` (device pointers; 0 where the kernel writes through
    /// its own arguments, `smooth` 0 for none). The orbit
    /// buffers hold `len` points (two double2 each on the double-double path, exponents on
    /// the extended path, the only one that reads them), and every index a kernel reads is
    /// ≤ orbit_last. All work is on the one stream, so the pointers stay valid for it.
    pub(crate) fn kernel_args(
        &self,
        stream: &Arc<CudaStream>,
        view: &DeepView,
        dwells: u64,
        smooth: u64,
    ) -> Result<PtArgs, CudaError> {
        let (width, height, max_dwell) = (view.width, view.height, view.max_dwell);
        let invalid = |reason: String| CudaError::Launch {
            kernel: "perturb",
            reason,
        };
        if width == 0 || height == 0 || width > 32768 || height > 32768 {
            return Err(invalid(format!("a view of {width}×{height}")));
        }
        let layout = self.layout;
        if self.len < 2
            || self.len > i32::MAX as usize
            || max_dwell > i32::MAX as u32
            || layout.last != self.len - 1
            || layout.rebase_last > layout.last
            || layout.start == 0
            || layout.start > layout.last
        {
            return Err(invalid(format!(
                "orbit of {} points laid out as {layout:?}",
                self.len
            )));
        }
        // The table's entries end within the orbit (whole blocks of steps from index 1 up
        // to orbit_last) and are of this path's layout.
        let bla = match &self.bla {
            Some(t) if t.extended != (self.path == PerturbationPath::Extended) => {
                return Err(invalid("a BLA table of the other path".into()));
            }
            Some(t) => (
                t.entries.device_ptr(stream).0,
                t.levels.device_ptr(stream).0,
                t.level_count as i32,
            ),
            None => (0, 0, 0),
        };
        let (step, step_exp, step_lo) = match self.path {
            PerturbationPath::DoubleDouble => {
                let step = view.location.pixel_size_dd(width);
                (step.hi, 0, step.lo)
            }
            PerturbationPath::Extended => {
                let step = view.location.pixel_size(width);
                (step.m, step.e, 0.0)
            }
        };
        // c in f64 for the continuous value (perturb.rs: Perturbation::new).
        let (cr, ci) = match view.fractal.julia_c() {
            Some(c) => c.to_f64(),
            None => (view.location.re.to_f64(), view.location.im.to_f64()),
        };
        Ok(PtArgs {
            dwells,
            smooth,
            width: width as i32,
            height: height as i32,
            max_dwell: max_dwell as i32,
            orbit: self.points.device_ptr(stream).0,
            orbit_exp: self.exponents.device_ptr(stream).0,
            orbit_last: (self.len - 1) as i32,
            step,
            step_exp,
            step_lo,
            orbit_start: layout.start as i32,
            rebase_last: layout.rebase_last as i32,
            julia: i32::from(!layout.offset_each_step),
            bla: bla.0,
            bla_level: bla.1,
            bla_levels: bla.2,
            cr,
            ci,
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn args_have_the_kernel_layout() {
        assert_eq!(std::mem::size_of::<super::PtArgs>(), 136);
        assert_eq!(std::mem::size_of::<super::PtFillArgs>(), 16);
    }
}
