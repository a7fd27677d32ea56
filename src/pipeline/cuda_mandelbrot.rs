//! Mandelbrot on CUDA: dwell kernels (per-pixel or Mariani–Silver with dynamic
//! parallelism) → dwell buffer → colour kernel → mapped PBO → `glTexSubImage2D` into the
//! display texture on the GL side. No host round-trip for the picture.

use super::mandelbrot_renderer::{MandelbrotFrame, MandelbrotSettings};
use super::report::stages_from;
use super::{BackendKind, PipelineError};
use crate::cuda::interop::{GraphicsResource, Registered};
use crate::cuda::{ffi, CudaDevice, CudaError, GpuTimeline, MandelbrotKernels, MsRecordBuffer};
use crate::gl::{GlBuffer, GlTexture};
use crate::mandelbrot::{Dwells, Mode, Palette};
use cudarc::driver::CudaSlice;

/// Overlay records kept per frame at most.
const RECORD_CAPACITY: usize = 1 << 16;

/// Pixel buffer and its registration (re-made when the size changes).
struct Pbo {
    buffer: GlBuffer,
    registered: Option<Registered>,
}

/// The colour table on the device, with what it was built for.
struct Lut {
    key: (Palette, u32, [u8; 4]),
    table: CudaSlice<u8>,
}

pub struct CudaMandelbrot {
    pub device: CudaDevice,
    kernels: MandelbrotKernels,
    dwells: Option<CudaSlice<i32>>,
    lut: Option<Lut>,
    records: MsRecordBuffer,
    pbo: Option<Pbo>,
    /// Perturbation for deep views (loaded on the first one).
    deep: Option<super::deep_zoom::CudaDeep>,
}

impl CudaMandelbrot {
    pub fn new(device: CudaDevice) -> Result<Self, CudaError> {
        device.bind()?;
        let kernels = MandelbrotKernels::load(&device)?;
        let records = MsRecordBuffer::new(&device.stream, RECORD_CAPACITY)?;
        Ok(Self {
            device,
            kernels,
            dwells: None,
            lut: None,
            records,
            pbo: None,
            deep: None,
        })
    }

    fn ensure_dwells(&mut self, pixels: usize) -> Result<(), CudaError> {
        if self.dwells.as_ref().map_or(0, |d| d.len()) < pixels {
            self.dwells = None;
            self.dwells = Some(
                self.device
                    .stream
                    .alloc_zeros::<i32>(pixels)
                    .map_err(CudaError::driver("cuMemAlloc(dwells)"))?,
            );
        }
        Ok(())
    }

    fn ensure_lut(&mut self, s: &MandelbrotSettings) -> Result<(), CudaError> {
        let key = (s.palette, s.view.max_dwell, s.interior);
        if self.lut.as_ref().is_some_and(|l| l.key == key) {
            return Ok(());
        }
        let bytes: Vec<u8> = s
            .palette
            .lut(s.view.max_dwell, s.interior)
            .into_iter()
            .flatten()
            .collect();
        let lut = self
            .device
            .stream
            .clone_htod(&bytes)
            .map_err(CudaError::driver("cuMemcpyHtoD(lut)"))?;
        self.lut = Some(Lut { key, table: lut });
        Ok(())
    }

    fn ensure_pbo(&mut self, gl: &glow::Context, bytes: usize) -> Result<(), PipelineError> {
        // A failed frame drops the registration with its `Mapped`: re-register then too.
        if self
            .pbo
            .as_ref()
            .is_some_and(|p| p.buffer.size == bytes && p.registered.is_some())
        {
            return Ok(());
        }
        if let Some(old) = self.pbo.take() {
            drop(old.registered);
            old.buffer.destroy(gl);
        }
        let buffer = GlBuffer::new(gl, bytes)?;
        let resource = match GraphicsResource::buffer(
            &self.device.ctx,
            buffer.id,
            ffi::REGISTER_WRITE_DISCARD,
        ) {
            Ok(r) => r,
            Err(e) => {
                buffer.destroy(gl);
                return Err(e.into());
            }
        };
        let registered = Registered::new(vec![resource]);
        self.pbo = Some(Pbo {
            buffer,
            registered: Some(registered),
        });
        Ok(())
    }

    /// Computes the dwells of the view on the device (left in the dwell buffer).
    fn compute_dwells(
        &mut self,
        s: &MandelbrotSettings,
        timeline: &mut GpuTimeline,
    ) -> Result<crate::mandelbrot::Precision, CudaError> {
        let pixels = s.view.width as usize * s.view.height as usize;
        self.ensure_dwells(pixels)?;
        let stream = self.device.stream.clone();
        let dwells = self.dwells.as_mut().ok_or(CudaError::NoDevice)?;
        if let Some(precision) = s.deep_precision() {
            // Per pixel for now; the Mariani–Silver refinement can call the same device
            // function (kernels/perturbation.cuh) once it takes a dwell source.
            self.records.clear(&stream)?;
            let deep = match &mut self.deep {
                Some(d) => d,
                None => self
                    .deep
                    .insert(super::deep_zoom::CudaDeep::new(&self.device)?),
            };
            return deep.dwells(&stream, s, precision, dwells, timeline);
        }
        let used = self.kernels.dwells(
            &stream,
            &s.view,
            s.mode,
            s.precision,
            &s.tuning,
            dwells,
            &mut self.records,
            s.overlay,
        )?;
        timeline.mark("dwell", &stream)?;
        Ok(used)
    }

    /// Renders into `texture` (already the view's size).
    pub fn render(
        &mut self,
        gl: &glow::Context,
        texture: &GlTexture,
        s: &MandelbrotSettings,
    ) -> Result<MandelbrotFrame, PipelineError> {
        self.device.bind()?;
        let (w, h) = (s.view.width, s.view.height);
        self.ensure_lut(s)?;
        self.ensure_pbo(gl, w as usize * h as usize * 4)?;
        let stream = self.device.stream.clone();
        let mut timeline = GpuTimeline::start(&self.device.ctx, &stream)?;
        let precision = self.compute_dwells(s, &mut timeline)?;
        let pbo = self.pbo.as_mut().ok_or(CudaError::NoDevice)?;
        let mapped = pbo
            .registered
            .take()
            .ok_or(CudaError::NoDevice)?
            .map(&stream)?;
        timeline.mark("map", &stream)?;
        let (ptr, size) = mapped.pointer(0)?;
        if size < w as usize * h as usize * 4 {
            return Err(CudaError::Launch {
                kernel: "mandel_colorize",
                reason: format!("PBO of {size} B"),
            }
            .into());
        }
        let (dwells, lut) = match (&self.dwells, &self.lut) {
            (Some(d), Some(l)) => (d, &l.table),
            _ => return Err(CudaError::NoDevice.into()),
        };
        self.kernels.colorize(&stream, dwells, lut, ptr, w, h)?;
        timeline.mark("colour", &stream)?;
        pbo.registered = Some(mapped.unmap()?);
        timeline.mark("unmap", &stream)?;
        let stages = timeline.stage_times()?;
        let records = if s.mode == Mode::MarianiSilver {
            let all = self.records.read(&stream)?;
            if s.overlay {
                all
            } else {
                Vec::new()
            }
        } else {
            Vec::new()
        };
        texture.upload_from_pbo(gl, &pbo.buffer)?;
        Ok(MandelbrotFrame {
            backend: BackendKind::Cuda,
            precision,
            stages: stages_from(stages),
            records,
        })
    }

    /// Times the dwell computation alone (benchmarks): no colouring, no copy back.
    pub fn time_dwells(&mut self, s: &MandelbrotSettings) -> Result<Vec<(String, f64)>, CudaError> {
        self.device.bind()?;
        let stream = self.device.stream.clone();
        let mut timeline = GpuTimeline::start(&self.device.ctx, &stream)?;
        self.compute_dwells(s, &mut timeline)?;
        let stages = timeline.stage_times()?;
        if s.mode == Mode::MarianiSilver {
            self.records.read(&stream)?; // fails if a child launch failed
        }
        Ok(stages)
    }

    /// The dwells of a view, copied to the host (`--dwell` output, tests, benchmarks).
    pub fn dwells_to_host(
        &mut self,
        s: &MandelbrotSettings,
    ) -> Result<(Dwells, MandelbrotFrame), CudaError> {
        self.device.bind()?;
        let stream = self.device.stream.clone();
        let mut timeline = GpuTimeline::start(&self.device.ctx, &stream)?;
        let precision = self.compute_dwells(s, &mut timeline)?;
        let stages = timeline.stage_times()?;
        let records = if s.mode == Mode::MarianiSilver {
            self.records.read(&stream)?
        } else {
            Vec::new()
        };
        let dwells = self.dwells.as_ref().ok_or(CudaError::NoDevice)?;
        let n = s.view.width as usize * s.view.height as usize;
        let host = stream
            .clone_dtoh(&dwells.slice(0..n))
            .map_err(CudaError::driver("cuMemcpyDtoH(dwells)"))?;
        let dwells = Dwells {
            width: s.view.width,
            height: s.view.height,
            values: host.into_iter().map(|d| d.max(0) as u32).collect(),
        };
        Ok((
            dwells,
            MandelbrotFrame {
                backend: BackendKind::Cuda,
                precision,
                stages: stages_from(stages),
                records,
            },
        ))
    }

    /// Releases the PBO (registration first).
    pub fn destroy(mut self, gl: &glow::Context) {
        if let Some(pbo) = self.pbo.take() {
            drop(pbo.registered);
            pbo.buffer.destroy(gl);
        }
    }
}
