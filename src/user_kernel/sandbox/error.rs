//! What can go wrong when a user kernel runs in the kernel host, in words a user
//! understands, one line each.

use super::protocol::{FailStage, Failure};
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("the kernel ran past {:.1} s and was stopped", .0.as_secs_f64())]
    Timeout(Duration),
    #[error("loading the kernel took longer than {:.1} s and was stopped", .0.as_secs_f64())]
    LoadTimeout(Duration),
    #[error("the compilation took longer than {:.1} s and was stopped", .0.as_secs_f64())]
    CompileTimeout(Duration),
    #[error("the kernel host did not start within {:.1} s", .0.as_secs_f64())]
    StartTimeout(Duration),
    #[error("the kernel read or wrote outside memory ({0})")]
    OutOfBounds(String),
    #[error("the kernel accessed memory at a misaligned address ({0})")]
    Misaligned(String),
    #[error("the kernel trapped ({0})")]
    Trapped(String),
    #[error("an assert failed in the kernel ({0})")]
    Assert(String),
    #[error("the kernel ran out of stack, e.g. by deep recursion ({0})")]
    StackOverflow(String),
    /// Any other fault while the kernel ran.
    #[error("the kernel failed on the GPU ({name}: {message})")]
    Fault { name: String, message: String },
    /// `cuLaunchKernel` refused the launch (resources, block, shared memory).
    #[error("the GPU refused to launch the kernel ({name}: {message})")]
    LaunchRefused { name: String, message: String },
    /// The source or PTX could not be loaded (the host stays up).
    #[error("loading the kernel: {0}")]
    Load(String),
    #[error("no CUDA device for user kernels: {0}")]
    NoDevice(String),
    #[error("the kernel host crashed ({0})")]
    HostCrashed(String),
    #[error("the kernel host exited with status {0}")]
    HostExited(i32),
    #[error("cannot start the kernel host: {0}")]
    Spawn(String),
    #[error("the kernel host broke the protocol: {0}")]
    Protocol(String),
    #[error("the kernel host: {0}")]
    Host(String),
    /// Device memory cannot be shared with the host here (use the host-memory path).
    #[error("device memory for the kernel host: {0}")]
    DeviceMemory(String),
    #[error("the image is empty")]
    EmptyImage,
    #[error("the image is too large for the kernel host ({width}×{height})")]
    ImageTooLarge { width: u32, height: u32 },
    #[error("shared memory for the image: {0}")]
    SharedMemory(String),
}

/// The kinds of [`SandboxError`] that callers and tests tell apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// The kernel ran past its deadline and its host was killed.
    Timeout,
    /// The kernel faulted while running; its host exited (its context was poisoned).
    Fault,
    /// Refused before it ran (load, launch): the host may stay up.
    Refused,
    /// The host itself failed: crash, early exit, broken protocol, no start.
    Host,
    /// The request was wrong (empty or too large image).
    Input,
}

impl SandboxError {
    pub fn class(&self) -> ErrorClass {
        use SandboxError::*;
        match self {
            Timeout(_) => ErrorClass::Timeout,
            OutOfBounds(_)
            | Misaligned(_)
            | Trapped(_)
            | Assert(_)
            | StackOverflow(_)
            | Fault { .. } => ErrorClass::Fault,
            LaunchRefused { .. }
            | Load(_)
            | LoadTimeout(_)
            | CompileTimeout(_)
            | DeviceMemory(_) => ErrorClass::Refused,
            StartTimeout(_) | NoDevice(_) | HostCrashed(_) | HostExited(_) | Spawn(_)
            | Protocol(_) | Host(_) => ErrorClass::Host,
            EmptyImage | ImageTooLarge { .. } | SharedMemory(_) => ErrorClass::Input,
        }
    }

    /// The error for a failure the host reported.
    pub fn from_failure(f: &Failure) -> Self {
        let name = f.name.clone();
        match f.stage {
            FailStage::Start => Self::NoDevice(f.message.clone()),
            FailStage::Load => Self::Load(f.message.clone()),
            FailStage::Launch => Self::LaunchRefused {
                name,
                message: f.message.clone(),
            },
            FailStage::Request => Self::Host(f.message.clone()),
            FailStage::Run => match f.name.as_str() {
                "CUDA_ERROR_ILLEGAL_ADDRESS" => Self::OutOfBounds(name),
                "CUDA_ERROR_MISALIGNED_ADDRESS" => Self::Misaligned(name),
                "CUDA_ERROR_ILLEGAL_INSTRUCTION" | "CUDA_ERROR_LAUNCH_FAILED" => {
                    Self::Trapped(name)
                }
                "CUDA_ERROR_ASSERT" => Self::Assert(name),
                "CUDA_ERROR_HARDWARE_STACK_ERROR" => Self::StackOverflow(name),
                _ => Self::Fault {
                    name,
                    message: f.message.clone(),
                },
            },
        }
    }
}

/// A signal's name (`SIGSEGV`), for "the kernel host crashed (SIGSEGV)".
pub fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGTRAP => "SIGTRAP",
        _ => return format!("signal {signal}"),
    };
    name.to_string()
}

/// The `CUDA_ERROR_...` name inside a message (cudarc's `DriverError(CUDA_ERROR_X, ..)`
/// text), if any.
pub fn cuda_error_name(text: &str) -> Option<&str> {
    let start = text.find("CUDA_ERROR_")?;
    let rest = &text[start..];
    let end = rest
        .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_failure(name: &str) -> SandboxError {
        SandboxError::from_failure(&Failure {
            stage: FailStage::Run,
            code: 0,
            fatal: true,
            name: name.into(),
            message: "m".into(),
        })
    }

    #[test]
    fn messages_are_the_ones_users_read() {
        assert_eq!(
            SandboxError::Timeout(Duration::from_secs(1)).to_string(),
            "the kernel ran past 1.0 s and was stopped"
        );
        assert_eq!(
            run_failure("CUDA_ERROR_ILLEGAL_ADDRESS").to_string(),
            "the kernel read or wrote outside memory (CUDA_ERROR_ILLEGAL_ADDRESS)"
        );
        assert_eq!(
            run_failure("CUDA_ERROR_ILLEGAL_INSTRUCTION").to_string(),
            "the kernel trapped (CUDA_ERROR_ILLEGAL_INSTRUCTION)"
        );
        assert_eq!(
            SandboxError::HostCrashed(signal_name(libc::SIGSEGV)).to_string(),
            "the kernel host crashed (SIGSEGV)"
        );
        assert_eq!(signal_name(99), "signal 99");
        for e in [
            run_failure("CUDA_ERROR_ASSERT"),
            run_failure("CUDA_ERROR_MISALIGNED_ADDRESS"),
            run_failure("CUDA_ERROR_HARDWARE_STACK_ERROR"),
            run_failure("CUDA_ERROR_UNKNOWN"),
        ] {
            assert_eq!(e.class(), ErrorClass::Fault, "{e}");
            assert!(!e.to_string().contains('\n'));
        }
    }

    #[test]
    fn cuda_names_are_found_in_cudarc_text() {
        assert_eq!(
            cuda_error_name("DriverError(CUDA_ERROR_INVALID_VALUE, \"invalid argument\")"),
            Some("CUDA_ERROR_INVALID_VALUE")
        );
        assert_eq!(cuda_error_name("no error here"), None);
    }
}
