//! Deep views in the Mandelbrot renderer: the exact location in the settings, zoom and pan
//! in exact arithmetic, and the perturbation backends (CPU with rayon, CUDA) that the
//! renderer calls when [`MandelbrotSettings::deep_precision`] says so.

use super::mandelbrot_renderer::{MandelbrotFrame, MandelbrotSettings};
use super::report::StageTime;
use super::BackendKind;
use crate::cuda::{
    CudaDevice, CudaError, DeviceOrbit, GpuTimeline, PerturbationKernels, PerturbationPath,
};
use crate::mandelbrot::deep::{
    choose_precision, is_deep, render_perturbation, DeepBookmark, DeepError, DeepLocation,
    DeepView, ReferenceOrbit,
};
use crate::mandelbrot::{Dwells, Precision};
use cudarc::driver::{CudaSlice, CudaStream};
use std::sync::Arc;
use std::time::Instant;

impl MandelbrotSettings {
    /// The exact location: `deep` when set, else the f64 view's own.
    pub fn location(&self) -> Result<DeepLocation, DeepError> {
        match self.deep {
            Some(loc) => Ok(loc),
            None => DeepLocation::from_view(&self.view),
        }
    }

    /// The view as a deep view (exact location, size, max dwell).
    pub fn deep_view(&self) -> Result<DeepView, DeepError> {
        Ok(DeepView {
            location: self.location()?,
            width: self.view.width,
            height: self.view.height,
            max_dwell: self.view.max_dwell,
        })
    }

    /// Sets the exact location and the f64 view's approximation of it.
    pub fn set_location(&mut self, location: DeepLocation) {
        location.write_f64(&mut self.view);
        self.deep = Some(location);
    }

    /// Goes to a deep bookmark (its location and max dwell).
    pub fn go_to(&mut self, bookmark: &DeepBookmark) -> Result<(), DeepError> {
        self.set_location(bookmark.location()?);
        self.view.max_dwell = bookmark.max_dwell;
        Ok(())
    }

    /// The perturbation precision this view renders with, if it is deep.
    pub fn deep_precision(&self) -> Option<Precision> {
        let location = self.location().ok()?;
        let p = choose_precision(self.precision, &location, self.view.width);
        is_deep(p).then_some(p)
    }

    /// Zooms by `factor` keeping the point under pixel (px, py) fixed, in exact decimals
    /// (no f64 floor). A location that cannot be represented leaves the view as it was.
    pub fn zoom_at(&mut self, px: f64, py: f64, factor: f64) {
        let size = (self.view.width, self.view.height);
        self.update_location(|l| l.zoom_at(size, (px, py), factor));
    }

    /// Moves the view by a pixel offset (drag), in exact decimals.
    pub fn pan_pixels(&mut self, dx: f64, dy: f64) {
        let width = self.view.width;
        self.update_location(|l| l.pan_pixels(width, dx, dy));
    }

    fn update_location(&mut self, change: impl FnOnce(&mut DeepLocation) -> Result<(), DeepError>) {
        let result = self.location().and_then(|mut l| change(&mut l).map(|()| l));
        match result {
            Ok(l) => self.set_location(l),
            Err(e) => log::warn!("view unchanged: {e}"),
        }
    }
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
                PerturbationPath::F64
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
        let step = view.location.pixel_size(view.width);
        self.kernels.dwells(
            stream,
            (view.width, view.height, view.max_dwell),
            step,
            orbit,
            dwells,
        )?;
        timeline.mark("dwell", stream)?;
        Ok(precision)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::View;

    #[test]
    fn deep_zoom_goes_below_f64_and_back() {
        let mut s = MandelbrotSettings::default();
        assert_eq!(s.deep_precision(), None);
        for _ in 0..200 {
            s.zoom_at(10.0, 20.0, 0.5);
        }
        assert!(s.view.span < 1e-55 && s.view.span > 0.0);
        assert_eq!(s.deep_precision(), Some(Precision::Perturbation));
        let deep = s.location().expect("location");
        s.pan_pixels(3.0, -4.0);
        assert_ne!(s.location().expect("location"), deep);
        s.view = View::default();
        s.deep = None;
        assert_eq!(s.deep_precision(), None);
    }

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
