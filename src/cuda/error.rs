//! CUDA errors, with the call that failed.

use cudarc::driver::sys::CUresult;
use cudarc::driver::DriverError;

/// What went wrong in the CUDA layer.
#[derive(Debug, thiserror::Error)]
pub enum CudaError {
    #[error("no CUDA driver: {0}")]
    NoDriver(String),
    #[error("no CUDA device")]
    NoDevice,
    /// A buffer or table the caller should have prepared first is not there (a bug).
    #[error("internal error: the {0} is missing")]
    Missing(&'static str),
    #[error("the OpenGL context is not on an NVIDIA CUDA device ({0})")]
    GlNotOnCuda(String),
    #[error("out of GPU memory in {call}")]
    OutOfMemory { call: &'static str },
    #[error("{call} failed: {reason}")]
    Driver { call: &'static str, reason: String },
    #[error("kernel module '{name}': {reason}")]
    Module { name: String, reason: String },
    #[error("invalid launch of {kernel}: {reason}")]
    Launch {
        kernel: &'static str,
        reason: String,
    },
}

impl CudaError {
    /// Wraps a cudarc error with the call that produced it.
    pub fn driver(call: &'static str) -> impl FnOnce(DriverError) -> CudaError {
        move |e| {
            if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
                CudaError::OutOfMemory { call }
            } else {
                CudaError::Driver {
                    call,
                    reason: format!("{e:?}"),
                }
            }
        }
    }

    /// Wraps a failed kernel launch with the kernel's name.
    pub fn launch(kernel: &'static str) -> impl FnOnce(DriverError) -> CudaError {
        move |e| CudaError::Launch {
            kernel,
            reason: format!("{e:?}"),
        }
    }

    /// An error from a raw call that returned an integer status (our own FFI).
    pub fn raw(call: &'static str, code: i32) -> CudaError {
        match code {
            2 => CudaError::OutOfMemory { call },
            _ => CudaError::Driver {
                call,
                reason: format!("{} ({code})", raw_error_name(code)),
            },
        }
    }
}

/// Names of the status codes our raw FFI calls can return.
fn raw_error_name(code: i32) -> &'static str {
    match code {
        1 => "CUDA_ERROR_INVALID_VALUE",
        3 => "CUDA_ERROR_NOT_INITIALIZED",
        100 => "CUDA_ERROR_NO_DEVICE",
        201 => "CUDA_ERROR_INVALID_CONTEXT",
        219 => "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT",
        304 => "CUDA_ERROR_OPERATING_SYSTEM",
        400 => "CUDA_ERROR_INVALID_HANDLE",
        999 => "CUDA_ERROR_UNKNOWN (is the GL context on the NVIDIA GPU?)",
        _ => "CUDA error",
    }
}

/// Turns a cudarc `sys` status into a `Result`.
pub fn check(call: &'static str, status: CUresult) -> Result<(), CudaError> {
    if status == CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(CudaError::driver(call)(DriverError(status)))
    }
}

/// Releases a raw CUDA handle from `Drop`: binds the owner's context, runs `destroy`, and
/// logs (never panics) if either fails. `call` names the destroy call for the log.
pub fn release_in(
    ctx: &cudarc::driver::CudaContext,
    call: &'static str,
    destroy: impl FnOnce() -> CUresult,
) {
    if let Err(e) = ctx.bind_to_thread() {
        log::error!("{call}: cannot bind the owning context: {e:?}");
        return;
    }
    if let Err(e) = check(call, destroy()) {
        log::error!("{e}");
    }
}
