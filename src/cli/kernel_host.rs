//! `cudalens kernel-host` (hidden): the process that runs user kernels for the app and
//! the CLI, on the socket its parent gives it (user_kernel::sandbox).

use super::CliError;

/// Serves on descriptor 3: running kernels on CUDA device `--device`, or compiling them
/// (`--compile`).
pub fn run(args: &super::args::KernelHostArgs) -> Result<(), CliError> {
    use crate::user_kernel::sandbox::host;
    if !host::started_by_parent() {
        return Err(CliError::usage(format!(
            "kernel-host is started by cudalens itself (descriptor {} must be its socket)",
            host::HOST_FD
        )));
    }
    if args.compile {
        host::run_compile_host()
    } else {
        host::run_cuda_host(args.device, Some(crate::pipeline::frame_work()))
    }
    .map_err(CliError::internal)
}
