//! Errors of the Vulkan allocator, with the call that failed.

use ash::vk;

#[derive(Debug, thiserror::Error)]
pub enum VkError {
    #[error("no Vulkan loader: {0}")]
    NoLoader(String),
    #[error("no Vulkan device for the CUDA GPU: {0}")]
    NoDevice(String),
    #[error("{call} failed: {result:?}")]
    Call {
        call: &'static str,
        result: vk::Result,
    },
    #[error("{0}")]
    Unsupported(String),
}

impl VkError {
    /// Wraps a failed Vulkan call with its name.
    pub fn call(call: &'static str) -> impl FnOnce(vk::Result) -> VkError {
        move |result| VkError::Call { call, result }
    }
}
