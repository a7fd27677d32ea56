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

/// A clap error: help and version go to stdout as clap prints them; anything else is one
/// line on stderr and exit code 2.
fn parse_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            ExitCode::from(cudalens::cli::EXIT_USAGE)
        }
        _ => {
            eprintln!("cudalens: {}", cudalens::cli::clap_error_line(e));
            ExitCode::from(cudalens::cli::EXIT_USAGE)
        }
    }
}

/// Warnings by default, but not winit's notes about the X server (XSETTINGS, a screen of
/// 0 mm under Xvfb), which a user can do nothing about and which would break the
/// one-line error contract.
const LOG_DEFAULT: &str = "warn,winit=error";

fn main() -> ExitCode {
    default_sigpipe();
    // A half-written output is removed if the process is interrupted.
    cudalens::image_io::install_interrupt_cleanup();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(LOG_DEFAULT)).init();
    // A panic is a bug; it still must not reach a user as a backtrace. (A container
    // parser's panic on a damaged video is caught and reported as the file's error.)
    std::panic::set_hook(Box::new(|info| {
        if !cudalens::video::demux::in_container_parser() {
            eprintln!("cudalens: internal error: {info}");
        }
    }));
    let cli = match cudalens::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return parse_error(&e),
    };
    match std::panic::catch_unwind(|| cudalens::cli::run(cli)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("cudalens: {}", e.message);
            ExitCode::from(e.code)
        }
        Err(_) => ExitCode::from(1),
    }
}
