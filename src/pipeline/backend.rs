//! Which backend runs the work, and why.

/// What the user asked for (`--backend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum BackendRequest {
    /// CUDA when it works here, otherwise the CPU (and say why).
    #[default]
    Auto,
    Cpu,
    /// CUDA or a clear error.
    Cuda,
}

/// The backend actually in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendKind {
    Cpu,
    Cuda,
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BackendKind::Cpu => "CPU",
            BackendKind::Cuda => "CUDA",
        })
    }
}

/// The backend in use and the reason, shown in the status bar and by `doctor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendStatus {
    pub kind: BackendKind,
    pub reason: String,
}

impl BackendStatus {
    /// The CPU backend, for `reason`.
    pub fn cpu(reason: impl Into<String>) -> Self {
        Self {
            kind: BackendKind::Cpu,
            reason: reason.into(),
        }
    }
}

/// The one backend policy, used by the window's frames, the Mandelbrot renderer and the
/// headless entry points. `Cpu`: no CUDA. `Cuda`: `open_cuda` or
/// [`PipelineError::CudaUnavailable`]. `Auto`: `open_cuda` when it works, otherwise the CPU
/// with the reason. `describe` words the CUDA status.
pub fn choose_backend<T>(
    request: BackendRequest,
    open_cuda: impl FnOnce() -> Result<T, String>,
    describe: impl FnOnce(&T) -> String,
) -> Result<(Option<T>, BackendStatus), super::PipelineError> {
    if request == BackendRequest::Cpu {
        return Ok((None, BackendStatus::cpu("the CPU backend was requested")));
    }
    match open_cuda() {
        Ok(cuda) => {
            let status = BackendStatus {
                kind: BackendKind::Cuda,
                reason: describe(&cuda),
            };
            Ok((Some(cuda), status))
        }
        Err(reason) if request == BackendRequest::Cuda => {
            Err(super::PipelineError::CudaUnavailable(reason))
        }
        Err(reason) => Ok((
            None,
            BackendStatus::cpu(format!("CUDA unavailable: {reason}")),
        )),
    }
}

/// What follows a failed CUDA run: with `Auto` the CPU takes over (the returned status says
/// why), otherwise the error stands.
pub fn fall_back_after(
    request: BackendRequest,
    error: impl std::fmt::Display + Into<super::PipelineError>,
) -> Result<BackendStatus, super::PipelineError> {
    if request == BackendRequest::Auto {
        log::error!("CUDA failed, falling back to the CPU: {error}");
        Ok(BackendStatus::cpu(format!(
            "CUDA failed ({error}); switched to the CPU"
        )))
    } else {
        Err(error.into())
    }
}
