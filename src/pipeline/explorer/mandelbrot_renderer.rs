//! The Mandelbrot view's renderer: CUDA when available, the CPU reference otherwise.

use super::cpu_mandelbrot::CpuExplorer;
use super::cuda_mandelbrot::CudaMandelbrot;
use super::explorer_backend::ExplorerBackend;
use super::mandelbrot_frame::MandelbrotFrame;
use crate::cuda::{kernel_build_description, CudaDevice};
use crate::gl::GlTexture;
use crate::mandelbrot::{Dwells, MandelbrotSettings};
use crate::pipeline::backend::{choose_backend, fall_back_after};
use crate::pipeline::interop::{choose_interop, CudaShare};
use crate::pipeline::{
    BackendRequest, BackendStatus, InteropRequest, InteropStatus, PipelineError, StageTime,
};

/// CUDA on the current GL context's device, with the interop path `interop` asks for.
fn own_share(gl: &glow::Context, interop: InteropRequest) -> Result<CudaShare, String> {
    let device = CudaDevice::for_current_gl().map_err(|e| e.to_string())?;
    let (external, status) = choose_interop(gl, &device, interop).map_err(|e| e.to_string())?;
    Ok(CudaShare {
        device,
        external,
        interop: status,
    })
}

/// The backend chosen for the explorer: CUDA, or the CPU reference (also after CUDA failed).
enum Backend {
    Cpu(CpuExplorer),
    Cuda(Box<CudaMandelbrot>),
}

impl Backend {
    fn cuda(&self) -> Option<&CudaMandelbrot> {
        match self {
            Backend::Cuda(c) => Some(c),
            Backend::Cpu(_) => None,
        }
    }

    fn cuda_mut(&mut self) -> Option<&mut CudaMandelbrot> {
        match self {
            Backend::Cuda(c) => Some(c),
            Backend::Cpu(_) => None,
        }
    }
}

impl ExplorerBackend for Backend {
    fn render(
        &mut self,
        gl: &glow::Context,
        texture: &mut GlTexture,
        s: &MandelbrotSettings,
    ) -> Result<MandelbrotFrame, PipelineError> {
        match self {
            Backend::Cpu(c) => c.render(gl, texture, s),
            Backend::Cuda(c) => c.render(gl, texture, s),
        }
    }

    fn dwells(
        &mut self,
        s: &MandelbrotSettings,
    ) -> Result<(Dwells, MandelbrotFrame), PipelineError> {
        match self {
            Backend::Cpu(c) => c.dwells(s),
            Backend::Cuda(c) => c.dwells(s),
        }
    }

    fn time_dwells(&mut self, s: &MandelbrotSettings) -> Result<Vec<StageTime>, PipelineError> {
        match self {
            Backend::Cpu(c) => c.time_dwells(s),
            Backend::Cuda(c) => c.time_dwells(s),
        }
    }

    fn trim(&mut self, gl: &glow::Context) -> Result<(), PipelineError> {
        match self {
            Backend::Cpu(c) => c.trim(gl),
            Backend::Cuda(c) => c.trim(gl),
        }
    }

    fn destroy(self, gl: &glow::Context) {
        match self {
            Backend::Cpu(c) => c.destroy(gl),
            Backend::Cuda(c) => c.destroy(gl),
        }
    }
}

/// Display texture plus backend. Release with [`MandelbrotRenderer::destroy`].
pub struct MandelbrotRenderer {
    /// The picture on the CPU backend and the map/unmap path (the external path draws into
    /// a texture shared with CUDA instead; [`MandelbrotRenderer::texture`] says which).
    texture: GlTexture,
    pub status: BackendStatus,
    request: BackendRequest,
    backend: Backend,
}

impl MandelbrotRenderer {
    /// `share`: the image pipeline's CUDA device and interop path when it has them (one
    /// context and one interop decision per app); without, the renderer opens CUDA on the
    /// current GL context and chooses its pixel buffer's path as `interop` asks.
    pub fn new(
        gl: &glow::Context,
        request: BackendRequest,
        share: Option<CudaShare>,
        interop: InteropRequest,
    ) -> Result<Self, PipelineError> {
        let texture = GlTexture::new(gl, 16, 16, None)?;
        let open_cuda = || {
            let share = match share {
                Some(s) => s,
                None => own_share(gl, interop)?,
            };
            CudaMandelbrot::new(share).map_err(|e| e.to_string())
        };
        let describe = |c: &CudaMandelbrot| {
            format!("{}; kernels: {}", c.device.info, kernel_build_description())
        };
        let (cuda, status) = match choose_backend(request, open_cuda, describe) {
            Ok(chosen) => chosen,
            Err(e) => {
                texture.destroy(gl);
                return Err(e);
            }
        };
        let backend = match cuda {
            Some(c) => Backend::Cuda(Box::new(c)),
            None => Backend::Cpu(CpuExplorer),
        };
        Ok(Self {
            texture,
            status,
            request,
            backend,
        })
    }

    /// The CUDA backend's interop path and why (None on the CPU).
    pub fn interop(&self) -> Option<&InteropStatus> {
        self.backend.cuda().map(|c| &c.interop)
    }

    /// The texture showing the last view rendered: on the external-memory path the display
    /// texture CUDA writes, else the renderer's own. On the external path a new size makes
    /// a new texture, so the UI looks this up every frame.
    pub fn texture(&self) -> &GlTexture {
        self.backend
            .cuda()
            .and_then(CudaMandelbrot::display_texture)
            .unwrap_or(&self.texture)
    }

    /// The texture that a render of a `width × height` view will draw into, made that size
    /// now (tests poison it before rendering).
    pub fn texture_for(
        &mut self,
        gl: &glow::Context,
        width: u32,
        height: u32,
    ) -> Result<&GlTexture, PipelineError> {
        if !self.shares_display() {
            self.own_texture(gl, width, height)?;
            return Ok(&self.texture);
        }
        match &mut self.backend {
            Backend::Cuda(cuda) => cuda.ensure_display(gl, width, height)?,
            Backend::Cpu(_) => None,
        }
        .ok_or(PipelineError::Cuda(crate::cuda::CudaError::Missing(
            "CUDA display texture",
        )))
    }

    /// Whether the CUDA backend draws into a texture shared with CUDA rather than into the
    /// renderer's own.
    fn shares_display(&self) -> bool {
        self.backend
            .cuda()
            .is_some_and(CudaMandelbrot::shares_display)
    }

    /// Resizes the renderer's own texture to the view.
    fn own_texture(
        &mut self,
        gl: &glow::Context,
        width: u32,
        height: u32,
    ) -> Result<(), PipelineError> {
        if (self.texture.width, self.texture.height) != (width, height) {
            self.texture.resize(gl, width, height)?;
        }
        Ok(())
    }

    /// Renders the view into [`MandelbrotRenderer::texture`] (sized to the view). A CUDA
    /// error hands the view to the CPU with `auto` (and stands otherwise).
    pub fn render(
        &mut self,
        gl: &glow::Context,
        s: &MandelbrotSettings,
    ) -> Result<MandelbrotFrame, PipelineError> {
        let (w, h) = (s.view.width, s.view.height);
        if !self.shares_display() {
            self.own_texture(gl, w, h)?;
        }
        if let Backend::Cuda(cuda) = &mut self.backend {
            match cuda.render(gl, &mut self.texture, s) {
                Ok(frame) => return Ok(frame),
                Err(e) => {
                    self.status = fall_back_after(self.request, e)?;
                    std::mem::replace(&mut self.backend, Backend::Cpu(CpuExplorer)).destroy(gl);
                }
            }
        }
        self.own_texture(gl, w, h)?;
        self.backend.render(gl, &mut self.texture, s)
    }

    /// The dwell at pixel (x, y) of the picture shown, where the backend keeps its dwells
    /// on the device (CUDA) and they are of `s`.
    pub fn dwell_at(&self, s: &MandelbrotSettings, x: u32, y: u32) -> Option<u32> {
        self.backend.cuda()?.dwell_at(s, x, y)
    }

    /// The next render computes its dwells even when they are those of the last frame
    /// (benchmarks of a repeated view; else a change of colour alone only recolours).
    pub fn forget_dwells(&mut self) {
        if let Some(c) = self.backend.cuda_mut() {
            c.forget_dwells();
        }
    }

    /// The dwells of a view on this renderer's backend.
    pub fn dwells(
        &mut self,
        s: &MandelbrotSettings,
    ) -> Result<(Dwells, MandelbrotFrame), PipelineError> {
        self.backend.dwells(s)
    }

    /// Times the dwell computation of a view (benchmarks).
    pub fn time_dwells(&mut self, s: &MandelbrotSettings) -> Result<Vec<StageTime>, PipelineError> {
        self.backend.time_dwells(s)
    }

    /// Frees the buffers kept from earlier views (see `CudaMandelbrot`'s `trim`).
    pub fn trim(&mut self, gl: &glow::Context) -> Result<(), PipelineError> {
        self.backend.trim(gl)
    }

    pub fn destroy(self, gl: &glow::Context) {
        self.backend.destroy(gl);
        self.texture.destroy(gl);
    }
}
