//! Deep views in the Mandelbrot renderer: the perturbation backends (CPU with rayon, CUDA)
//! that the renderer calls when [`MandelbrotSettings::deep_precision`] says so (the exact
//! location, zoom and pan are in `mandelbrot/deep_settings.rs`).

use super::mandelbrot_frame::{cpu_render, Cancellable, MandelbrotFrame, RenderControl};
use super::perturbation_kernels::{DeviceBla, DeviceOrbit, PerturbationKernels, PerturbationPath};
use crate::cuda::{CudaDevice, CudaError, GpuTimeline};
use crate::mandelbrot::deep::{
    BlaTable, DeepError, DeepLocation, DeepView, Perturbation, ReferenceOrbit,
};
use crate::mandelbrot::{
    panned_dwells, whole_pixels, Dwells, Fractal, MandelbrotSettings, Precision,
};
use crate::pipeline::report::StageTime;
use crate::pipeline::BackendKind;
use cudarc::driver::{CudaSlice, CudaStream};
use std::sync::Arc;
use std::time::Instant;

/// The CPU perturbation backend: the orbit (and its BLA table when `s.bla`: the stage
/// "reference orbit" includes it), then the pixels (rayon), per pixel or refined by
/// Mariani–Silver as `s.mode` says.
pub fn cpu_deep_dwells(
    s: &MandelbrotSettings,
    precision: Precision,
) -> Result<(Dwells, MandelbrotFrame), DeepError> {
    let never = std::sync::atomic::AtomicBool::new(false);
    cpu_deep_dwells_cancellable(s, precision, RenderControl::cancel_only(&never))
}

/// [`cpu_deep_dwells`] whose pixels stop once cancelled (the orbit runs whole), reporting
/// their progress.
pub fn cpu_deep_dwells_cancellable(
    s: &MandelbrotSettings,
    precision: Precision,
    control: RenderControl<'_>,
) -> Result<(Dwells, MandelbrotFrame), DeepError> {
    let ((dwells, records, stats), stages) = with_perturbation(s, precision, |p| {
        cpu_render(&Cancellable::new(p, control), s)
    })?;
    let frame = MandelbrotFrame {
        backend: BackendKind::Cpu,
        precision,
        stages,
        records,
        stats,
    };
    Ok((dwells, frame))
}

/// `s`'s reference orbit (and its BLA table when `s.bla`), timed as "reference orbit",
/// then `pixels` over perturbation around it, timed as "dwell".
fn with_perturbation<R>(
    s: &MandelbrotSettings,
    precision: Precision,
    pixels: impl FnOnce(&Perturbation<'_>) -> R,
) -> Result<(R, Vec<StageTime>), DeepError> {
    let view = s.deep_view()?;
    let start = Instant::now();
    let orbit = ReferenceOrbit::compute(&view);
    let table = s.bla.then(|| BlaTable::build(&view, &orbit, precision));
    let orbit_time = StageTime::since("reference orbit", start);
    let start = Instant::now();
    let out = pixels(&Perturbation::new(&view, &orbit, precision).with_bla(table.as_ref()));
    Ok((out, vec![orbit_time, StageTime::since("dwell", start)]))
}

/// The deep view `s` as a pan of `kept`, the dwells of the view `offset` whole pixels
/// away (`mandelbrot::pan`): `s`'s reference orbit (and BLA table), then only the exposed
/// pixels by perturbation around it. Returns the dwells, the frame and how many pixels
/// were computed.
pub fn cpu_deep_panned(
    s: &MandelbrotSettings,
    precision: Precision,
    kept: &Dwells,
    offset: (i64, i64),
) -> Result<(Dwells, MandelbrotFrame, u64), DeepError> {
    let ((dwells, computed), stages) =
        with_perturbation(s, precision, |p| panned_dwells(kept, offset, p))?;
    let frame = MandelbrotFrame {
        backend: BackendKind::Cpu,
        precision,
        stages,
        records: Vec::new(),
        stats: None,
    };
    Ok((dwells, frame, computed))
}

/// What a device orbit was computed for.
#[derive(PartialEq)]
struct OrbitKey {
    location: DeepLocation,
    fractal: Fractal,
    width: u32,
    max_dwell: u32,
    path: PerturbationPath,
}

/// The perturbation path of a deep precision.
fn path_of(precision: Precision) -> PerturbationPath {
    if precision == Precision::Extended {
        PerturbationPath::Extended
    } else {
        PerturbationPath::DoubleDouble
    }
}

/// What a device BLA table was built for besides its orbit (its |δc|max needs the height).
#[derive(PartialEq)]
struct BlaKey {
    height: u32,
}

/// The CUDA perturbation backend: the per-pixel kernels and the last reference orbit on
/// the device, with its BLA table while the view asks for one (the Mariani–Silver kernels
/// that refine on perturbation dwells are in the Mandelbrot module,
/// `MandelbrotKernels::refine_deep`; both read the table through the orbit's arguments).
pub struct CudaDeep {
    kernels: PerturbationKernels,
    orbit: Option<(OrbitKey, DeviceOrbit, ReferenceOrbit)>,
    /// The key of the table on the device orbit, if it has one.
    bla: Option<BlaKey>,
}

impl CudaDeep {
    pub fn new(device: &CudaDevice) -> Result<Self, CudaError> {
        Ok(Self {
            kernels: PerturbationKernels::load(device)?,
            orbit: None,
            bla: None,
        })
    }

    /// Makes the view's reference orbit the device orbit (computed on the host, kept while
    /// the location, width and max dwell stay) and, when `s.bla`, gives it its BLA table
    /// (built on the host, uploaded once, kept while the orbit and the height stay), marked
    /// "reference orbit" on the timeline; returns the view.
    pub fn prepare_orbit(
        &mut self,
        stream: &Arc<CudaStream>,
        s: &MandelbrotSettings,
        precision: Precision,
        timeline: &mut GpuTimeline,
    ) -> Result<DeepView, CudaError> {
        let view = s.deep_view().map_err(|e| CudaError::Launch {
            kernel: "perturb",
            reason: e.to_string(),
        })?;
        let key = OrbitKey {
            location: view.location,
            fractal: view.fractal,
            width: view.width,
            max_dwell: view.max_dwell,
            path: path_of(precision),
        };
        if self.orbit.as_ref().is_none_or(|(k, _, _)| *k != key) {
            self.orbit = None;
            self.bla = None;
            let orbit = ReferenceOrbit::compute(&view);
            let device = DeviceOrbit::upload(stream, &orbit, key.path)?;
            self.orbit = Some((key, device, orbit));
        }
        let bla_key = s.bla.then_some(BlaKey {
            height: view.height,
        });
        if let Some((key, device, orbit)) = self.orbit.as_mut() {
            if bla_key != self.bla {
                device.bla = None;
                self.bla = None;
                if bla_key.is_some() {
                    let precision = match key.path {
                        PerturbationPath::Extended => Precision::Extended,
                        PerturbationPath::DoubleDouble => Precision::Perturbation,
                    };
                    let table = BlaTable::build(&view, orbit, precision);
                    device.bla = Some(DeviceBla::upload(stream, &table)?);
                    self.bla = bla_key;
                }
            }
        }
        timeline.mark("reference orbit", stream)?;
        Ok(view)
    }

    /// The orbit of the last [`CudaDeep::prepare_orbit`].
    pub fn device_orbit(&self) -> Result<&DeviceOrbit, CudaError> {
        self.orbit
            .as_ref()
            .map(|(_, o, _)| o)
            .ok_or(CudaError::Missing("reference orbit on the device"))
    }

    /// Where `s` lies from the view of the orbit on the device, when a pan can fill its
    /// exposed pixels around that orbit (no new reference orbit): the same fractal, width,
    /// height of table, max dwell and path, moved by whole pixels (at most four view sizes).
    /// Returns that offset and whether the kept BLA table serves.
    pub fn kept_orbit_offset(
        &self,
        s: &MandelbrotSettings,
        precision: Precision,
    ) -> Option<((i64, i64), bool)> {
        let (key, _, _) = self.orbit.as_ref()?;
        let view = s.deep_view().ok()?;
        let same = key.fractal == view.fractal
            && key.width == view.width
            && key.max_dwell == view.max_dwell
            && key.path == path_of(precision);
        let (ox, oy) = whole_pixels(key.location.pixels_to(&view.location, view.width)?)?;
        let near = ox.abs() <= 4 * i64::from(view.width) && oy.abs() <= 4 * i64::from(view.height);
        let bla = s.bla
            && self.bla
                == Some(BlaKey {
                    height: view.height,
                });
        (same && near).then_some(((ox, oy), bla))
    }

    /// A pan's exposed pixels of `s` (marked by `mandel_shift` in `dwells`) around the kept
    /// orbit, `offset` and `bla` as [`Self::kept_orbit_offset`] gave them.
    #[allow(clippy::too_many_arguments)]
    pub fn fill(
        &self,
        stream: &Arc<CudaStream>,
        s: &MandelbrotSettings,
        (offset, bla): ((i64, i64), bool),
        dwells: &mut CudaSlice<i32>,
        smooth: Option<&mut CudaSlice<f32>>,
        distance: Option<&mut CudaSlice<f32>>,
    ) -> Result<(), CudaError> {
        let (key, device, _) = self
            .orbit
            .as_ref()
            .ok_or(CudaError::Missing("reference orbit on the device"))?;
        let orbit_view = DeepView {
            location: key.location,
            width: s.view.width,
            height: s.view.height,
            max_dwell: key.max_dwell,
            fractal: key.fractal,
        };
        self.kernels.fill(
            stream,
            &orbit_view,
            device,
            dwells,
            smooth,
            distance,
            offset,
            bla,
        )
    }

    /// The distance estimates of `view`'s escaped pixels (their dwells in `dwells`, a frame
    /// computed around the prepared orbit) into `out`.
    pub fn distance(
        &self,
        stream: &Arc<CudaStream>,
        view: &DeepView,
        dwells: &CudaSlice<i32>,
        out: &mut CudaSlice<f32>,
    ) -> Result<(), CudaError> {
        self.kernels
            .distance(stream, view, self.device_orbit()?, dwells, out)
    }

    /// The per-pixel kernel over `view` around the prepared orbit (continuous values into
    /// `smooth` when given).
    pub fn per_pixel(
        &self,
        stream: &Arc<CudaStream>,
        view: &DeepView,
        dwells: &mut CudaSlice<i32>,
        smooth: Option<&mut CudaSlice<f32>>,
    ) -> Result<(), CudaError> {
        self.kernels
            .dwells(stream, view, self.device_orbit()?, dwells, smooth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_backend_reports_orbit_and_dwell() {
        let mut s = MandelbrotSettings::default();
        s.view.width = 8;
        s.view.height = 6;
        s.view.max_dwell = 500;
        s.set_location(DeepLocation::parse("-1.25,0.01", "1e-30").expect("location"));
        let p = s.deep_precision().expect("deep");
        let (dwells, frame) = cpu_deep_dwells(&s, p).expect("dwells");
        assert_eq!(dwells.values.len(), 48);
        let names: Vec<_> = frame.stages.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["reference orbit", "dwell"]);
    }

    /// A pan of a deep view (the period-137 minibrot at 1e-100, continuous values kept)
    /// computes only the exposed strips, around the moved view's own orbit, and equals a
    /// fresh render of the moved view but at one pixel in a thousand at most.
    #[test]
    fn a_deep_pan_computes_the_exposed_strips_and_matches_a_fresh_render() {
        use crate::mandelbrot::deep::find_bookmark;
        use crate::mandelbrot::pan_offset;
        let b = find_bookmark("Spiral by c = i, period-137").expect("bookmark");
        let mut old = MandelbrotSettings::default();
        (old.view.width, old.view.height, old.view.max_dwell) = (160, 90, 3000);
        old.coloring.smooth = true;
        old.set_location(b.location().expect("location"));
        let p = old.deep_precision().expect("deep");
        let (kept, _) = cpu_deep_dwells(&old, p).expect("kept");
        for (mx, my) in [(16.0, 0.0), (-12.0, 9.0)] {
            let mut new = old.clone();
            new.pan_pixels(mx, my);
            let offset = pan_offset(&old, &new).expect("a pan");
            let (panned, frame, computed) =
                cpu_deep_panned(&new, p, &kept, offset).expect("panned");
            let (fresh, _) = cpu_deep_dwells(&new, p).expect("fresh");
            let (ax, ay) = (mx.abs() as u64, my.abs() as u64);
            assert_eq!(computed, ax * 90 + ay * 160 - ax * ay, "by ({mx}, {my})");
            let n = panned.values.len();
            let differ = panned.mismatches(&fresh);
            assert!(differ * 1000 <= n, "{differ} of {n} differ");
            assert!(fresh.values.iter().any(|&d| d > 1000), "a view with detail");
            let (a, b) = (
                panned.smooth.as_ref().expect("kept continuous values"),
                fresh.smooth.as_ref().expect("continuous values"),
            );
            let close = a
                .iter()
                .zip(b)
                .zip(panned.values.iter().zip(&fresh.values))
                .filter(|(_, (d, e))| d == e)
                .all(|((x, y), _)| (x - y).abs() <= 1e-3 * y.abs().max(1.0));
            assert!(close, "continuous values of equal dwells");
            let names: Vec<_> = frame.stages.iter().map(|t| t.name.as_str()).collect();
            assert_eq!(names, ["reference orbit", "dwell"]);
        }
    }

    /// Mariani–Silver on perturbation dwells: every pixel it evaluates equals the
    /// per-pixel perturbation dwell, fills are uniform, and it refines several levels deep
    /// (the period-71 minibrot at 1e-50, where the border test has work to do).
    #[test]
    fn cpu_refinement_of_a_deep_view_evaluates_as_per_pixel() {
        use crate::mandelbrot::deep::find_bookmark;
        use crate::mandelbrot::{Mode, MsTuning, RectKind};
        let b = find_bookmark("Spiral by c = i, period-71").expect("bookmark");
        let mut s = MandelbrotSettings::default();
        (s.view.width, s.view.height, s.view.max_dwell) = (160, 90, b.max_dwell);
        s.set_location(b.location().expect("location"));
        let p = s.deep_precision().expect("deep");
        let (pp, _) = cpu_deep_dwells(&s, p).expect("per pixel");
        s.mode = Mode::MarianiSilver;
        s.overlay = true;
        s.tuning = Some(MsTuning {
            init_size: 32,
            subdiv: 2,
            leaf_size: 4,
            launch_min_pixels: 1,
            lookahead: 1,
        });
        let (ms, frame) = cpu_deep_dwells(&s, p).expect("refined");
        let mut filled = vec![false; pp.values.len()];
        for r in frame.records.iter().filter(|r| r.kind == RectKind::Fill) {
            for i in 0..r.rect.interior_pixels() {
                let (x, y) = r.rect.interior_pixel(i);
                filled[(y * 160 + x) as usize] = true;
            }
        }
        for (i, &f) in filled.iter().enumerate() {
            assert!(f || ms.values[i] == pp.values[i], "pixel {i}");
        }
        assert!(
            ms.mismatches(&pp) * 1000 <= pp.values.len(),
            "{}",
            ms.mismatches(&pp)
        );
        let stats = frame.stats.expect("statistics");
        assert!(
            stats.filled > 0 && stats.split > 0 && stats.depth >= 3,
            "{stats:?}"
        );
        assert!(pp.values.iter().any(|&d| d > 1000), "a view with detail");
    }
}
