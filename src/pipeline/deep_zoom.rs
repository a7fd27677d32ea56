//! Deep views in the Mandelbrot renderer: the perturbation backends (CPU with rayon, CUDA)
//! that the renderer calls when [`MandelbrotSettings::deep_precision`] says so (the exact
//! location, zoom and pan are in `mandelbrot/deep_settings.rs`).

use super::mandelbrot_frame::MandelbrotFrame;
use super::report::StageTime;
use super::BackendKind;
use crate::cuda::{
    CudaDevice, CudaError, DeviceOrbit, GpuTimeline, PerturbationKernels, PerturbationPath,
};
use crate::mandelbrot::deep::{render_perturbation, DeepError, DeepLocation, ReferenceOrbit};
use crate::mandelbrot::{Dwells, MandelbrotSettings, Precision};
use cudarc::driver::{CudaSlice, CudaStream};
use std::sync::Arc;
use std::time::Instant;

/// The settings a backend renders: a deep view's dwells are integers only (the
/// perturbation paths compute no continuous escape value yet), so it is coloured through
/// the dwell table even when smooth colouring is on.
pub fn integer_coloring_if_deep(s: &MandelbrotSettings) -> MandelbrotSettings {
    let mut out = *s;
    if s.deep_precision().is_some() {
        out.coloring.smooth = false;
    }
    out
}

fn stage(name: &str, start: Instant) -> StageTime {
    StageTime {
        name: name.into(),
        ms: start.elapsed().as_secs_f64() * 1e3,
    }
}

/// The CPU perturbation backend: the orbit, then every pixel (rayon).
pub fn cpu_deep_dwells(
    s: &MandelbrotSettings,
    precision: Precision,
) -> Result<(Dwells, MandelbrotFrame), DeepError> {
    let view = s.deep_view()?;
    let start = Instant::now();
    let orbit = ReferenceOrbit::compute(&view);
    let orbit_time = stage("reference orbit", start);
    let start = Instant::now();
    let dwells = render_perturbation(&view, &orbit, precision);
    let frame = MandelbrotFrame {
        backend: BackendKind::Cpu,
        precision,
        stages: vec![orbit_time, stage("dwell", start)],
        records: Vec::new(),
        stats: None,
    };
    Ok((dwells, frame))
}

/// What a device orbit was computed for.
#[derive(PartialEq)]
struct OrbitKey {
    location: DeepLocation,
    width: u32,
    max_dwell: u32,
    path: PerturbationPath,
}

/// The CUDA perturbation backend: kernels and the last reference orbit on the device.
pub struct CudaDeep {
    kernels: PerturbationKernels,
    orbit: Option<(OrbitKey, DeviceOrbit)>,
}

impl CudaDeep {
    pub fn new(device: &CudaDevice) -> Result<Self, CudaError> {
        Ok(Self {
            kernels: PerturbationKernels::load(device)?,
            orbit: None,
        })
    }

    /// Computes the view's dwells into `dwells`: the reference orbit (on the host, kept
    /// while the location, width and max dwell stay), marked "reference orbit" on the
    /// timeline, then the per-pixel kernel, marked "dwell".
    pub fn dwells(
        &mut self,
        stream: &Arc<CudaStream>,
        s: &MandelbrotSettings,
        precision: Precision,
        dwells: &mut CudaSlice<i32>,
        timeline: &mut GpuTimeline,
    ) -> Result<Precision, CudaError> {
        let view = s.deep_view().map_err(|e| CudaError::Launch {
            kernel: "perturb_per_pixel",
            reason: e.to_string(),
        })?;
        let key = OrbitKey {
            location: view.location,
            width: view.width,
            max_dwell: view.max_dwell,
            path: if precision == Precision::Extended {
                PerturbationPath::Extended
            } else {
                PerturbationPath::DoubleDouble
            },
        };
        if self.orbit.as_ref().is_none_or(|(k, _)| *k != key) {
            self.orbit = None;
            let orbit = ReferenceOrbit::compute(&view);
            let device = DeviceOrbit::upload(stream, &orbit, key.path)?;
            self.orbit = Some((key, device));
        }
        timeline.mark("reference orbit", stream)?;
        let (_, orbit) = self.orbit.as_ref().ok_or(CudaError::NoDevice)?;
        self.kernels.dwells(stream, &view, orbit, dwells)?;
        timeline.mark("dwell", stream)?;
        Ok(precision)
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
}
