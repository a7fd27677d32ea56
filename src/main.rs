//! The `cudalens` binary: parses the command line and maps every failure to one line on
//! stderr and an exit code (2: bad input or usage, 1: internal failure).

use clap::Parser;
use std::process::ExitCode;

/// Restores the default SIGPIPE action, so that `cudalens doctor | head` ends quietly
/// like any Unix tool instead of failing on a closed pipe.
fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first in main, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    default_sigpipe();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    // A panic is a bug; it still must not reach a user as a backtrace.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("cudalens: internal error: {info}");
    }));
    let cli = cudalens::cli::Cli::parse();
    match std::panic::catch_unwind(|| cudalens::cli::run(cli)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("cudalens: {}", e.message);
            ExitCode::from(e.code)
        }
        Err(_) => ExitCode::from(1),
    }
}
