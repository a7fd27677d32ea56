//! Pipeline errors.

use crate::cuda::CudaError;
use crate::gl::GlError;

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// `--backend cuda` where CUDA cannot work: a usage error, not a crash.
    #[error("the CUDA backend is not available: {0}")]
    CudaUnavailable(String),
    /// The work does not fit the memory budget (the message says how much and why).
    #[error("{0}")]
    OverBudget(String),
    /// `--interop external` where the driver does not offer it.
    #[error("the external-memory interop path is not available: {0}")]
    InteropUnavailable(String),
    /// A user kernel failed to compile or load (one line, at the user's line): the
    /// backend works, the kernel does not.
    #[error("{0}")]
    Kernel(String),
    /// A user kernel on the CPU backend.
    #[error("{0}")]
    KernelNeedsCuda(String),
    #[error(transparent)]
    Cuda(#[from] CudaError),
    #[error(transparent)]
    Gl(#[from] GlError),
    #[error("Vulkan: {0}")]
    Vk(#[from] crate::vk::VkError),
    #[error(transparent)]
    Format(#[from] crate::pipeline::GpuFormatError),
    /// A stage of the stack on an image its kernels do not take yet ("gaussian has no
    /// 16-bit kernel yet"): refused before any work, never a wrong picture.
    #[error("{stage} has no {format} kernel yet")]
    NoTypedKernel { stage: String, format: String },
    /// `--devices` names a device this host lacks.
    #[error("--devices: {0}")]
    Devices(String),
    /// Work spread over devices stopped without a worker's own error (a bug).
    #[error("internal error: {0}")]
    Spread(String),
}

impl PipelineError {
    /// Whether the cause is the input or the request (exit code 2) rather than an
    /// internal failure (exit code 1). A CUDA failure reaches the user only with
    /// `--backend cuda` (`auto` falls back to the CPU): the requested backend cannot do
    /// this work here (out of GPU memory, a failed launch or registration), exit 2.
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            PipelineError::CudaUnavailable(_)
                | PipelineError::OverBudget(_)
                | PipelineError::Cuda(_)
                | PipelineError::InteropUnavailable(_)
                | PipelineError::Kernel(_)
                | PipelineError::KernelNeedsCuda(_)
                | PipelineError::NoTypedKernel { .. }
                | PipelineError::Devices(_)
                | PipelineError::Gl(GlError::TooLarge { .. })
        )
    }
}
