//! Which CUDA–OpenGL interop path a CUDA backend uses, and why: external memory shared for
//! the whole session (Vulkan-allocated, imported by GL and CUDA, ordered by semaphores) or
//! the classic per-frame map/unmap of registered GL objects.

use super::external::ExternalInterop;
use crate::cuda::CudaDevice;
use crate::pipeline::PipelineError;

/// The image pipeline's CUDA device and the interop path it chose, handed to the
/// Mandelbrot renderer of the same GL context: one CUDA context and one decision (and one
/// test share of external memory) per app, the same reason in the status bar on both tabs.
#[derive(Clone)]
pub struct CudaShare {
    pub(in crate::pipeline) device: CudaDevice,
    pub(in crate::pipeline) external: Option<ExternalInterop>,
    pub(in crate::pipeline) interop: InteropStatus,
}

/// What the user asked for (`--interop`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum InteropRequest {
    /// External memory when this driver offers it, otherwise map/unmap (and say why).
    #[default]
    Auto,
    /// Register GL objects and map/unmap them every frame.
    Classic,
    /// External memory and semaphores, or a clear error.
    External,
}

/// The path in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InteropKind {
    Classic,
    External,
}

impl std::fmt::Display for InteropKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            InteropKind::Classic => "map/unmap",
            InteropKind::External => "external memory",
        })
    }
}

/// The path in use and the reason, for `doctor` and the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InteropStatus {
    pub kind: InteropKind,
    pub reason: String,
}

impl std::fmt::Display for InteropStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} — {}", self.kind, self.reason)
    }
}

/// Opens the external path for `device` on the current GL context as `request` asks:
/// `classic` never tries, `external` makes a failure an error, `auto` keeps the failure as
/// the reason for map/unmap.
pub fn choose_interop(
    gl: &glow::Context,
    device: &CudaDevice,
    request: InteropRequest,
) -> Result<(Option<ExternalInterop>, InteropStatus), PipelineError> {
    let classic = |reason: String| InteropStatus {
        kind: InteropKind::Classic,
        reason,
    };
    if request == InteropRequest::Classic {
        return Ok((None, classic("requested with --interop classic".into())));
    }
    match ExternalInterop::open(gl, device) {
        Ok(external) => {
            let status = InteropStatus {
                kind: InteropKind::External,
                reason: external.description.clone(),
            };
            Ok((Some(external), status))
        }
        Err(reason) if request == InteropRequest::External => {
            Err(PipelineError::InteropUnavailable(reason))
        }
        Err(reason) => Ok((
            None,
            classic(format!("external memory unavailable: {reason}")),
        )),
    }
}
