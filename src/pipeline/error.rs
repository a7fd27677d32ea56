//! Pipeline errors.

use crate::cuda::CudaError;
use crate::gl::GlError;

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// `--backend cuda` where CUDA cannot work: a usage error, not a crash.
    #[error("the CUDA backend is not available: {0}")]
    CudaUnavailable(String),
    /// `--interop external` where the driver does not offer it.
    #[error("the external-memory interop path is not available: {0}")]
    InteropUnavailable(String),
    #[error(transparent)]
    Cuda(#[from] CudaError),
    #[error(transparent)]
    Gl(#[from] GlError),
    #[error("Vulkan: {0}")]
    Vk(#[from] crate::vk::VkError),
}

impl PipelineError {
    /// Whether the cause is the input or the request (exit code 2) rather than an
    /// internal failure (exit code 1).
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            PipelineError::CudaUnavailable(_)
                | PipelineError::InteropUnavailable(_)
                | PipelineError::Gl(GlError::TooLarge { .. })
        )
    }
}
