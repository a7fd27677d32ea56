//! Runs frames on the chosen backend and falls back to the CPU when CUDA fails (in
//! `auto` mode), keeping the reason for the status bar.

use super::backend::{choose_backend, fall_back_after};
use super::cpu_frame::run_cpu_frame;
use super::cuda_frame::CudaFrame;
use super::external::ExternalInterop;
use super::interop_mode::{choose_interop, CudaShare, InteropKind, InteropRequest, InteropStatus};
use super::{BackendRequest, BackendStatus, FrameReport, FrameTargets, PipelineError};
use crate::cuda::{kernel_build_description, CudaDevice};
use crate::filters::Filter;
use crate::gl::GlTexture;
use image::RgbaImage;

/// The frame pipeline of one GL context.
pub struct FrameRunner {
    pub targets: FrameTargets,
    pub status: BackendStatus,
    /// The interop path of the CUDA backend (None on the CPU).
    pub interop: Option<InteropStatus>,
    /// The external-memory interop the targets live on (None on map/unmap and the CPU).
    external: Option<ExternalInterop>,
    request: BackendRequest,
    cuda: Option<CudaFrame>,
}

/// Opens CUDA on the current GL context's device and loads the filter kernels.
fn open_cuda() -> Result<CudaFrame, String> {
    let device = CudaDevice::for_current_gl().map_err(|e| e.to_string())?;
    CudaFrame::new(device).map_err(|e| e.to_string())
}

impl FrameRunner {
    /// Creates the backend and the targets (`width × height`). With
    /// [`BackendRequest::Cuda`], CUDA not working is an error; with `Auto` it is a reason.
    /// `interop` chooses how CUDA reaches the GL objects (see [`choose_interop`]).
    pub fn new(
        gl: &glow::Context,
        request: BackendRequest,
        interop: InteropRequest,
        width: u32,
        height: u32,
    ) -> Result<Self, PipelineError> {
        let describe = |frame: &CudaFrame| {
            format!(
                "{}; kernels: {}",
                frame.device.info,
                kernel_build_description()
            )
        };
        let (frame, status) = choose_backend(request, open_cuda, describe)?;
        let Some(frame) = frame else {
            return Ok(Self {
                targets: FrameTargets::new(gl, width, height)?,
                status,
                interop: None,
                external: None,
                request,
                cuda: None,
            });
        };
        let (targets, interop, external) = cuda_targets(gl, &frame, interop, width, height)?;
        Ok(Self {
            targets,
            status,
            interop: Some(interop),
            external,
            request,
            cuda: Some(frame),
        })
    }

    /// Drops CUDA's registrations of GL objects (before the source texture is re-specified).
    pub fn release_registrations(&mut self) {
        if let Some(cuda) = self.cuda.as_mut() {
            cuda.release_registrations();
        }
    }

    /// Drops the registrations and frees the scratch and intermediates sized for earlier
    /// images (when a new image is loaded: memory follows the image, not the largest one
    /// seen).
    pub fn trim(&mut self) {
        if let Some(cuda) = self.cuda.as_mut() {
            cuda.trim();
        }
    }

    /// The CUDA device in use, if any.
    pub fn cuda_device(&self) -> Option<&CudaDevice> {
        self.cuda.as_ref().map(|c| &c.device)
    }

    /// The CUDA device and interop path in use, for the Mandelbrot renderer of the same
    /// context (None on the CPU).
    pub fn cuda_share(&self) -> Option<CudaShare> {
        Some(CudaShare {
            device: self.cuda.as_ref()?.device.clone(),
            external: self.external.clone(),
            interop: self.interop.clone()?,
        })
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
            self.targets.resize_output(gl, w, h)?;
        }
        if let Some(cuda) = self.cuda.as_mut() {
            match cuda.run(gl, source, &mut self.targets, filters) {
                Ok(report) => return Ok(report),
                Err(e) => {
                    self.status = fall_back_after(self.request, e)?;
                    self.cuda = None;
                    self.interop = None;
                    self.external = None;
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

/// The targets for a CUDA frame on the interop path `request` allows, that path, and the
/// external-memory interop the targets live on.
fn cuda_targets(
    gl: &glow::Context,
    frame: &CudaFrame,
    request: InteropRequest,
    width: u32,
    height: u32,
) -> Result<(FrameTargets, InteropStatus, Option<ExternalInterop>), PipelineError> {
    let (external, status) = choose_interop(gl, &frame.device, request)?;
    let Some(external) = external else {
        return Ok((FrameTargets::new(gl, width, height)?, status, None));
    };
    match FrameTargets::shared(gl, external.clone(), width, height) {
        Ok(targets) => Ok((targets, status, Some(external))),
        Err(e) if request == InteropRequest::External => {
            Err(PipelineError::InteropUnavailable(e.to_string()))
        }
        Err(e) => Ok((
            FrameTargets::new(gl, width, height)?,
            InteropStatus {
                kind: InteropKind::Classic,
                reason: format!("external memory failed ({e})"),
            },
            None,
        )),
    }
}
