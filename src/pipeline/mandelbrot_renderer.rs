//! The Mandelbrot view's renderer: CUDA when available, the CPU reference otherwise.

use super::cuda_mandelbrot::CudaMandelbrot;
use super::report::StageTime;
use super::{BackendKind, BackendRequest, BackendStatus, PipelineError};
use crate::cuda::{kernel_build_description, CudaDevice};
use crate::gl::GlTexture;
use crate::mandelbrot::{
    colorize, render_mariani_silver, render_per_pixel, Dwells, Mode, MsRecord, Palette, Precision,
    View,
};
use std::time::Instant;

/// Everything that decides the picture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MandelbrotSettings {
    pub view: View,
    pub mode: Mode,
    pub precision: Precision,
    pub palette: Palette,
    pub interior: [u8; 4],
    /// Keep the Mariani–Silver rectangles for the overlay.
    pub overlay: bool,
    /// Refinement parameters of the CUDA kernel (the CPU reference uses the tuned ones).
    pub tuning: crate::cuda::tiles::MsTuning,
    /// The exact location of a deep view (`view` then holds its f64 approximation); `None`:
    /// `view` is exact. Set with `set_location` (pipeline/deep_zoom.rs).
    pub deep: Option<crate::mandelbrot::deep::DeepLocation>,
}

impl Default for MandelbrotSettings {
    fn default() -> Self {
        Self {
            view: View::default(),
            mode: Mode::MarianiSilver,
            precision: Precision::Auto,
            palette: Palette::Classic,
            interior: [0, 0, 0, 255],
            overlay: false,
            tuning: crate::cuda::tiles::MsTuning::default(),
            deep: None,
        }
    }
}

/// What one render did.
#[derive(Debug, Clone)]
pub struct MandelbrotFrame {
    pub backend: BackendKind,
    pub precision: Precision,
    pub stages: Vec<StageTime>,
    pub records: Vec<MsRecord>,
}

impl MandelbrotFrame {
    /// Time of the dwell computation (the number compared between modes).
    pub fn dwell_ms(&self) -> f64 {
        self.stages
            .iter()
            .filter(|s| s.name == "dwell")
            .map(|s| s.ms)
            .sum()
    }
}

/// The CPU reference: dwells (and records) on the host.
pub fn cpu_dwells(s: &MandelbrotSettings) -> (Dwells, MandelbrotFrame) {
    if let Some(result) = s
        .deep_precision()
        .and_then(|p| super::deep_zoom::cpu_deep_dwells(s, p).ok())
    {
        return result;
    }
    let start = Instant::now();
    let (dwells, records) = match s.mode {
        Mode::PerPixel => (render_per_pixel(&s.view), Vec::new()),
        Mode::MarianiSilver => render_mariani_silver(&s.view),
    };
    let frame = MandelbrotFrame {
        backend: BackendKind::Cpu,
        precision: Precision::F64,
        stages: vec![StageTime {
            name: "dwell".into(),
            ms: start.elapsed().as_secs_f64() * 1e3,
        }],
        records: if s.overlay { records } else { Vec::new() },
    };
    (dwells, frame)
}

/// Display texture plus backend. Release with [`MandelbrotRenderer::destroy`].
pub struct MandelbrotRenderer {
    pub texture: GlTexture,
    pub status: BackendStatus,
    request: BackendRequest,
    cuda: Option<CudaMandelbrot>,
}

impl MandelbrotRenderer {
    /// `device`: the image pipeline's CUDA device when it has one (one context per app).
    pub fn new(
        gl: &glow::Context,
        request: BackendRequest,
        device: Option<&CudaDevice>,
    ) -> Result<Self, PipelineError> {
        let texture = GlTexture::new(gl, 16, 16, None)?;
        let opened = match (request, device) {
            (BackendRequest::Cpu, _) => Err("requested with --backend cpu".to_string()),
            (_, Some(d)) => CudaMandelbrot::new(d.clone()).map_err(|e| e.to_string()),
            (_, None) => CudaDevice::for_current_gl()
                .and_then(CudaMandelbrot::new)
                .map_err(|e| e.to_string()),
        };
        let (cuda, status) = match opened {
            Ok(c) => {
                let reason = format!("{}; kernels: {}", c.device.info, kernel_build_description());
                (
                    Some(c),
                    BackendStatus {
                        kind: BackendKind::Cuda,
                        reason,
                    },
                )
            }
            Err(reason) if request == BackendRequest::Cuda => {
                texture.destroy(gl);
                return Err(PipelineError::CudaUnavailable(reason));
            }
            Err(reason) => (
                None,
                BackendStatus {
                    kind: BackendKind::Cpu,
                    reason: format!("CUDA unavailable: {reason}"),
                },
            ),
        };
        Ok(Self {
            texture,
            status,
            request,
            cuda,
        })
    }

    /// Renders the view into `self.texture` (resized to the view).
    pub fn render(
        &mut self,
        gl: &glow::Context,
        s: &MandelbrotSettings,
    ) -> Result<MandelbrotFrame, PipelineError> {
        let (w, h) = (s.view.width, s.view.height);
        if (self.texture.width, self.texture.height) != (w, h) {
            self.texture.resize(gl, w, h)?;
        }
        if let Some(cuda) = self.cuda.as_mut() {
            match cuda.render(gl, &self.texture, s) {
                Ok(frame) => return Ok(frame),
                Err(e) if self.request == BackendRequest::Auto => {
                    log::error!("CUDA Mandelbrot failed, falling back to the CPU: {e}");
                    if let Some(c) = self.cuda.take() {
                        c.destroy(gl);
                    }
                    self.status = BackendStatus {
                        kind: BackendKind::Cpu,
                        reason: format!("CUDA failed ({e}); switched to the CPU"),
                    };
                }
                Err(e) => return Err(e),
            }
        }
        let (dwells, mut frame) = cpu_dwells(s);
        let start = Instant::now();
        let image = colorize(&dwells, &s.palette.lut(s.view.max_dwell, s.interior));
        self.texture.upload(gl, &image)?;
        frame.stages.push(StageTime {
            name: "colour + upload".into(),
            ms: start.elapsed().as_secs_f64() * 1e3,
        });
        Ok(frame)
    }

    /// The dwells of a view on this renderer's backend.
    pub fn dwells(
        &mut self,
        s: &MandelbrotSettings,
    ) -> Result<(Dwells, MandelbrotFrame), PipelineError> {
        match self.cuda.as_mut() {
            Some(c) => Ok(c.dwells_to_host(s)?),
            None => Ok(cpu_dwells(s)),
        }
    }

    /// Times the dwell computation of a view (benchmarks).
    pub fn time_dwells(&mut self, s: &MandelbrotSettings) -> Result<Vec<StageTime>, PipelineError> {
        match self.cuda.as_mut() {
            Some(c) => Ok(super::report::stages_from(c.time_dwells(s)?)),
            None => Ok(cpu_dwells(s).1.stages),
        }
    }

    pub fn destroy(mut self, gl: &glow::Context) {
        if let Some(c) = self.cuda.take() {
            c.destroy(gl);
        }
        self.texture.destroy(gl);
    }
}
