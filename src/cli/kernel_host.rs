//! `cudalens kernel-host` (hidden): the process that runs user kernels for the app and
//! the CLI, on the socket its parent gives it (user_kernel::sandbox).

use super::CliError;

pub fn run() -> Result<(), CliError> {
    crate::user_kernel::sandbox::host::run_cuda_host().map_err(CliError::internal)
}
