//! `cudalens kernel-host` (hidden): the process that runs user kernels for the app and
//! the CLI, on the socket its parent gives it (user_kernel::sandbox).

use super::CliError;

/// Serves on descriptor 3, running kernels on CUDA device `device`.
pub fn run(device: usize) -> Result<(), CliError> {
    use crate::user_kernel::sandbox::host;
    if !host::started_by_parent() {
        return Err(CliError::usage(format!(
            "kernel-host is started by cudalens itself (descriptor {} must be its socket)",
            host::HOST_FD
        )));
    }
    host::run_cuda_host(device).map_err(CliError::internal)
}
