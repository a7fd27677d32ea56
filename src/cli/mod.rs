//! The command line (clap): the app by default, and headless subcommands, one file each.

mod apply;
mod args;
mod batch;
mod batch_engine;
pub mod bench;
mod bench_cpu;
pub mod bench_explorer;
mod bench_kernels;
mod bench_video;
mod doctor;
mod error;
mod histogram;
mod kernel_host;
mod mandelbrot;
mod notes;
mod progress;
mod video;

pub use crate::app::GuiArgs;
pub use crate::image_io::budget::MemoryArgs;
pub use args::{
    parse_size, ApplyArgs, BenchArgs, Cli, Command, CompletionsArgs, HistogramArgs, OutputFormat,
};
pub use error::{clap_error_line, CliError, EXIT_USAGE};
pub use mandelbrot::MandelbrotArgs;

use crate::pipeline::BackendRequest;
use clap::CommandFactory;
use std::path::Path;

/// The subcommands, for the message when a word is neither one of them nor a file.
const SUBCOMMANDS: &str = "apply, histogram, mandelbrot, doctor, bench";

/// Checks the app's arguments before any window exists: the file, and the screenshot
/// path under the same rules as `apply`'s output.
fn check_gui_args(file: Option<&Path>, gui: &GuiArgs) -> Result<(), CliError> {
    if let Some(f) = file {
        if let Err(e) = std::fs::metadata(f) {
            let word = f.to_string_lossy();
            let plain_word = !word.contains(['/', '.']);
            return Err(CliError::usage(match e.kind() {
                std::io::ErrorKind::NotFound if plain_word => {
                    format!("'{word}' is neither a command ({SUBCOMMANDS}) nor an existing file")
                }
                std::io::ErrorKind::NotFound => format!("{word}: no such file"),
                _ => format!("{word}: cannot read: {e}"),
            }));
        }
    }
    if let Some(shot) = &gui.screenshot {
        if gui.frames == 0 {
            return Err(CliError::usage(
                "--screenshot needs --frames N (the screenshot is taken after frame N)",
            ));
        }
        let input = file.map_or_else(crate::app::default_image_path, Path::to_path_buf);
        crate::image_io::check_save_target(
            shot,
            &crate::app::screenshot_options(&input, gui.force),
        )?;
    }
    Ok(())
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    notes::set_verbose(cli.verbose);
    let memory = match &cli.command {
        None => &cli.gui.memory,
        Some(Command::Apply(a)) => &a.memory,
        Some(Command::Histogram(a)) => &a.memory,
        Some(Command::Mandelbrot(a)) => &a.memory,
        Some(Command::Bench(a)) => &a.memory,
        Some(Command::Doctor | Command::Completions(_) | Command::KernelHost(_)) => {
            &MemoryArgs { max_memory: None }
        }
    };
    crate::image_io::budget::configure_max_memory(memory.max_memory);
    if !matches!(cli.command, Some(Command::KernelHost(_))) {
        // User kernels compile in a process that a compile bomb or an NVRTC crash can take.
        crate::user_kernel::sandbox::compiler::compile_in_own_process();
    }
    match cli.command {
        None => {
            check_gui_args(cli.file.as_deref(), &cli.gui)?;
            crate::app::run_app(cli.file, cli.gui).map_err(CliError::from_app)
        }
        Some(Command::Apply(mut a)) => {
            if let Some(name) = &a.preset {
                a.filters = crate::app::presets::load_preset(name)?.filters;
            }
            if batch::is_batch(&a) {
                batch::run(&a)
            } else if a.shard.is_some() {
                Err(CliError::usage(
                    "--shard splits a batch (a folder or several inputs) between jobs",
                ))
            } else {
                apply::run(&a)
            }
        }
        Some(Command::Histogram(a)) => histogram::run(&a),
        Some(Command::Mandelbrot(a)) => mandelbrot::run(&a),
        Some(Command::Doctor) => doctor::run(),
        Some(Command::KernelHost(a)) => kernel_host::run(&a),
        Some(Command::Bench(a)) => run_bench(&a),
        Some(Command::Completions(a)) => {
            let mut command = completion_command();
            clap_complete::generate(a.shell, &mut command, "cudalens", &mut std::io::stdout());
            Ok(())
        }
    }
}

/// The command line as shell completions offer it: the hidden subcommands (the kernel
/// host) left out, which clap_complete would list.
fn completion_command() -> clap::Command {
    let full = Cli::command();
    let mut visible = clap::Command::new(full.get_name().to_string())
        .args(full.get_arguments().cloned())
        .subcommands(full.get_subcommands().filter(|c| !c.is_hide_set()).cloned());
    if let Some(version) = full.get_version() {
        visible = visible.version(version.to_string());
    }
    visible
}

/// `cudalens bench`: the CPU table with `--backend cpu`, else the GPU cases.
pub fn run_bench(args: &BenchArgs) -> Result<(), CliError> {
    if args.kernels {
        if let Some(path) = &args.json {
            crate::image_io::check_output_path(path, true)?;
        }
        let json = bench_kernels::run(args.runs, &args.kernel_files)?;
        if let Some(path) = &args.json {
            crate::image_io::write_bytes_atomically(path, json.to_string().as_bytes())?;
        }
        return Ok(());
    }
    if args.backend == BackendRequest::Cpu {
        bench_cpu::run(args)
    } else {
        bench::run(args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_help(command: &clap::Command, path: &str) {
        for arg in command.get_arguments() {
            let id = arg.get_id().as_str();
            if !matches!(id, "help" | "version") {
                assert!(
                    arg.get_help().is_some(),
                    "`{path}` argument {id} has no help"
                );
            }
        }
        for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
            assert!(
                sub.get_about().is_some(),
                "`{path} {}` has no about",
                sub.get_name()
            );
            check_help(sub, &format!("{path} {}", sub.get_name()));
        }
    }

    #[test]
    fn completions_hide_internal_commands_and_offer_filter_names() {
        let mut command = completion_command();
        let mut script = Vec::new();
        clap_complete::generate(
            clap_complete::Shell::Bash,
            &mut command,
            "cudalens",
            &mut script,
        );
        let script = String::from_utf8(script).expect("utf-8");
        assert!(!script.contains("kernel-host"), "the kernel host is listed");
        let lines: Vec<&str> = script.lines().collect();
        for (i, _) in lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.contains("--filter)"))
        {
            assert!(lines[i + 1].contains("compgen -W"), "{}", lines[i + 1]);
        }
        assert!(script.contains("gaussian box sobel"), "no filter names");
        assert!(script.contains(" apply histogram mandelbrot doctor bench completions"));
    }

    #[test]
    fn every_argument_has_help() {
        let command = Cli::command();
        command.clone().debug_assert();
        check_help(&command, "cudalens");
    }
}
