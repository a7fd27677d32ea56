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
