//! The processing engine of a batch `apply`: one headless GL context, one CUDA context and
//! one frame runner for every image (its source re-used while sizes repeat), or the CPU
//! reference. It lives on the thread that opened it (GL and CUDA stay there).

use super::CliError;
use crate::edit::{EditError, ImageEdit};
use crate::gl::HeadlessGl;
use crate::pipeline::{
    choose_backend, cpu_filters, cuda_headless_gl, BackendKind, BackendRequest, FrameRunner,
    InteropRequest, PipelineError, Stage,
};
use image::RgbaImage;

/// The GPU side: context and runner (which holds the last image's source).
pub struct GpuEngine {
    gl: HeadlessGl,
    runner: FrameRunner,
}

pub enum BatchEngine {
    Cpu { reason: String },
    Gpu(Box<GpuEngine>),
}

impl BatchEngine {
    /// Opens the backend once for the whole batch, with the policy of `apply`: `cuda`
    /// without CUDA is a usage error, `auto` falls back to the CPU and says why.
    pub fn open(request: BackendRequest, interop: InteropRequest) -> Result<Self, CliError> {
        let (gl, status) = choose_backend(request, cuda_headless_gl, |gl| gl.renderer.clone())?;
        let Some(gl) = gl else {
            return Ok(Self::Cpu {
                reason: status.reason,
            });
        };
        let runner = FrameRunner::new(&gl.gl, request, interop, 1, 1)?;
        if runner.status.kind == BackendKind::Cuda {
            return Ok(Self::Gpu(Box::new(GpuEngine { gl, runner })));
        }
        let reason = runner.status.reason.clone();
        runner.destroy(&gl.gl);
        Ok(Self::Cpu { reason })
    }

    /// The backend in use and why.
    pub fn describe(&self) -> String {
        match self {
            Self::Cpu { reason } => format!("CPU backend ({reason})"),
            Self::Gpu(g) => format!("CUDA backend ({})", g.runner.status.reason),
        }
    }

    /// Checks before the first image that the backend can run `filters`: on the CPU no user
    /// kernel, on CUDA every user kernel compiled and loaded (one error for the batch, not
    /// one per image).
    pub fn prepare(&mut self, filters: &[Stage]) -> Result<(), PipelineError> {
        match self {
            Self::Cpu { reason } => cpu_filters(filters)
                .map(|_| ())
                .map_err(|e| PipelineError::KernelNeedsCuda(format!("{e} ({reason})"))),
            Self::Gpu(g) => g.runner.prepare(filters),
        }
    }

    /// Runs `filters` on `image`. On the GPU a failure is the image's error; the runner
    /// itself falls back to the CPU under `auto` as in the window.
    pub fn process(
        &mut self,
        image: &RgbaImage,
        filters: &[Stage],
    ) -> Result<RgbaImage, PipelineError> {
        match self {
            Self::Cpu { .. } => {
                let filters = cpu_filters(filters).map_err(PipelineError::KernelNeedsCuda)?;
                Ok(crate::filters::apply_cpu(image, &filters))
            }
            Self::Gpu(g) => g.process(image, filters),
        }
    }

    /// Runs `edits` on `image`, on the engine's CUDA device or the CPU reference.
    pub fn edit(&mut self, image: RgbaImage, edits: &[ImageEdit]) -> Result<RgbaImage, EditError> {
        if edits.is_empty() {
            return Ok(image);
        }
        match self {
            Self::Gpu(g) => match g.runner.cuda_device() {
                Some(device) => crate::edit::cuda::apply_edits(device, &image, edits),
                None => crate::edit::cpu::apply_edits(&image, edits),
            },
            Self::Cpu { .. } => crate::edit::cpu::apply_edits(&image, edits),
        }
    }

    /// Releases the GL objects.
    pub fn destroy(self) {
        if let Self::Gpu(g) = self {
            let gl = &g.gl.gl;
            g.runner.destroy(gl);
        }
    }
}

impl GpuEngine {
    fn process(
        &mut self,
        image: &RgbaImage,
        filters: &[Stage],
    ) -> Result<RgbaImage, PipelineError> {
        let gl = &self.gl.gl;
        self.runner.load_source(gl, image)?;
        self.runner
            .run_loaded(gl, image, filters)
            .and_then(|_| self.runner.read_output(gl))
    }
}
