//! Runs frames on the chosen backend and falls back to the CPU when CUDA fails (in
//! `auto` mode), keeping the reason for the status bar.

use super::backend::{choose_backend, fall_back_after};
use super::cpu_frame::run_cpu_frame;
use super::cuda_frame::CudaFrame;
use super::{BackendRequest, BackendStatus, FrameReport, FrameTargets, PipelineError};
use crate::cuda::{kernel_build_description, CudaDevice};
use crate::filters::Filter;
use crate::gl::GlTexture;
use image::RgbaImage;

/// The frame pipeline of one GL context.
pub struct FrameRunner {
    pub targets: FrameTargets,
    pub status: BackendStatus,
    request: BackendRequest,
    cuda: Option<CudaFrame>,
}

/// Opens CUDA on the current GL context's device and loads the filter kernels.
fn open_cuda() -> Result<CudaFrame, String> {
    let device = CudaDevice::for_current_gl().map_err(|e| e.to_string())?;
    CudaFrame::new(device).map_err(|e| e.to_string())
}

impl FrameRunner {
    /// Creates the targets (`width × height`) and the backend. With
    /// [`BackendRequest::Cuda`], CUDA not working is an error; with `Auto` it is a reason.
    pub fn new(
        gl: &glow::Context,
        request: BackendRequest,
        width: u32,
        height: u32,
    ) -> Result<Self, PipelineError> {
        let targets = FrameTargets::new(gl, width, height)?;
        let describe = |frame: &CudaFrame| {
            format!(
                "{}; kernels: {}",
                frame.device.info,
                kernel_build_description()
            )
        };
        let (cuda, status) = match choose_backend(request, open_cuda, describe) {
            Ok(chosen) => chosen,
            Err(e) => {
                targets.destroy(gl);
                return Err(e);
            }
        };
        Ok(Self {
            targets,
            status,
            request,
            cuda,
        })
    }

    /// Drops CUDA's registrations of GL objects (before the source texture is re-specified).
    pub fn release_registrations(&mut self) {
        if let Some(cuda) = self.cuda.as_mut() {
            cuda.release_registrations();
        }
    }

    /// The CUDA device in use, if any (shared with the Mandelbrot renderer).
    pub fn cuda_device(&self) -> Option<&CudaDevice> {
        self.cuda.as_ref().map(|c| &c.device)
    }

    /// Runs `filters` on `source` (its GL texture and host pixels) into the targets.
    pub fn run(
        &mut self,
        gl: &glow::Context,
        source: &GlTexture,
        image: &RgbaImage,
        filters: &[Filter],
    ) -> Result<FrameReport, PipelineError> {
        let (w, h) = filters
            .iter()
            .fold((source.width, source.height), |(w, h), f| {
                f.output_size(w, h)
            });
        if (self.targets.output.width, self.targets.output.height) != (w, h) {
            if let Some(cuda) = self.cuda.as_mut() {
                cuda.release_registrations();
            }
            self.targets.output.resize(gl, w, h)?;
        }
        if let Some(cuda) = self.cuda.as_mut() {
            match cuda.run(source, &self.targets, filters) {
                Ok(report) => return Ok(report),
                Err(e) => {
                    self.status = fall_back_after(self.request, e)?;
                    self.cuda = None;
                }
            }
        }
        Ok(run_cpu_frame(gl, image, &mut self.targets, filters)?)
    }

    /// Releases the GL objects (CUDA registrations first).
    pub fn destroy(mut self, gl: &glow::Context) {
        self.cuda = None;
        self.targets.destroy(gl);
    }
}
