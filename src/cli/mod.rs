//! The command line (clap): the app by default, and headless subcommands, one file each.

mod apply;
mod batch;
mod batch_engine;
mod bench;
mod bench_cpu;
mod bench_deep;
mod bench_handover;
mod bench_mandelbrot;
mod bench_peers;
mod doctor;
mod error;
mod histogram;
mod mandelbrot;
mod peer_bench;
mod progress;

pub use crate::app::GuiArgs;
pub use crate::image_io::budget::MemoryArgs;
pub use batch::OutputFormat;
pub use error::{clap_error_line, CliError, EXIT_USAGE};
pub use mandelbrot::MandelbrotArgs;

use crate::filters::Filter;
use crate::pipeline::{BackendRequest, InteropRequest};
use clap::{Args, CommandFactory, Parser, Subcommand};
use std::path::{Path, PathBuf};

/// Examples shown at the end of `cudalens --help`.
const EXAMPLES: &str = "\
Examples:
  cudalens photo.jpg --filter gaussian:sigma=2        open the app with a blur switched on
  cudalens apply in.png -o out.png --filter box:radius=5 --filter sobel
  cudalens apply photos/*.jpg -o out/ --filter gaussian:sigma=1.5 --format png
  cudalens apply photos/ -o out/ --preset 'soft edges' --backend cuda
  cudalens histogram photo.jpg --json
  cudalens mandelbrot -o set.png --width 2048 --height 1536 --center -0.745,0.113 --span 0.01
  cudalens bench --backend cpu --size 1920x1080
  cudalens completions bash > ~/.local/share/bash-completion/completions/cudalens

Filter specifications: `cudalens apply --help` lists every filter's syntax.
Settings and presets live in the platform config folder (CUDALENS_CONFIG_DIR overrides it).";

/// Live GPU image processing and Mandelbrot exploration (CUDA–OpenGL interop, CPU fallback).
#[derive(Debug, Parser)]
#[command(
    name = "cudalens",
    version,
    args_conflicts_with_subcommands = true,
    after_help = EXAMPLES
)]
pub struct Cli {
    /// Image to open in the app (default: the shipped sample image).
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub gui: GuiArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply filters to an image headless and save the result.
    Apply(ApplyArgs),
    /// Print the R, G, B and luma histograms of an image and their statistics.
    Histogram(HistogramArgs),
    /// Render a view of the Mandelbrot set to a PNG.
    Mandelbrot(MandelbrotArgs),
    /// Report what this machine offers: OpenGL, CUDA devices, the backend that would run.
    Doctor,
    /// Time the filters and the Mandelbrot modes (median of many runs).
    Bench(BenchArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions(CompletionsArgs),
}

#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// Image to process (PNG, JPEG, TIFF, BMP, WebP, GIF), or a folder of them.
    pub input: PathBuf,
    /// More images or folders: a batch, written into the folder OUTPUT.
    #[arg(value_name = "MORE")]
    pub more_inputs: Vec<PathBuf>,
    /// Output file (format from its extension: png, jpg, tif, bmp, webp); for a batch, the
    /// output folder (created if missing), where each result is named <stem>.<ext>.
    #[arg(short, long)]
    pub output: PathBuf,
    /// A filter specification (see --help for all); repeatable, applied in order.
    #[arg(
        long = "filter",
        value_name = "SPEC",
        required_unless_present = "preset",
        long_help = crate::filters::spec_help()
    )]
    pub filters: Vec<Filter>,
    /// Use the filters of a preset saved in the app (Presets menu) instead of --filter.
    #[arg(long, value_name = "NAME", conflicts_with = "filters")]
    pub preset: Option<String>,
    /// Backend: auto (CUDA if it works here, else CPU), cpu, or cuda (an error without CUDA).
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendRequest,
    /// CUDA–OpenGL interop: auto (external memory when the driver offers it, else
    /// map/unmap), classic (map/unmap every frame) or external (or an error).
    #[arg(long, value_enum, default_value_t)]
    pub interop: InteropRequest,
    /// Replace existing output files (never an input).
    #[arg(long)]
    pub force: bool,
    /// Batch: threads decoding and threads encoding images (default: the number of CPUs).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: Option<u32>,
    /// Batch: write this format instead of each input's own.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<OutputFormat>,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

#[derive(Debug, Args)]
pub struct HistogramArgs {
    /// Image to measure (PNG, JPEG, TIFF, BMP, WebP, GIF).
    pub input: PathBuf,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    /// Backend: auto (CUDA if it works here, else CPU), cpu, or cuda (an error without CUDA).
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendRequest,
    /// CUDA–OpenGL interop: auto (external memory when the driver offers it, else
    /// map/unmap), classic (map/unmap every frame) or external (or an error).
    #[arg(long, value_enum, default_value_t)]
    pub interop: InteropRequest,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Image size, WIDTHxHEIGHT (random image).
    #[arg(long, default_value = "3840x2160", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Timed runs per case (after warm-up).
    #[arg(long, default_value_t = 30)]
    pub runs: usize,
    /// Backend: auto, cuda, or cpu (the CPU functions timed directly, as a table).
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendRequest,
    /// CUDA–OpenGL interop: auto (external memory when the driver offers it, else
    /// map/unmap), classic (map/unmap every frame) or external (or an error).
    #[arg(long, value_enum, default_value_t)]
    pub interop: InteropRequest,
    /// Also benchmark the Mandelbrot modes.
    #[arg(long)]
    pub mandelbrot: bool,
    /// Time Mariani–Silver over a grid of refinement parameters (implies --mandelbrot).
    #[arg(long)]
    pub ms_sweep: bool,
    /// What --ms-sweep times: both size classes and the full table (all), one class, or
    /// the finalists side by side (compare).
    #[arg(long, value_enum, default_value_t)]
    pub ms_sweep_sizes: SweepSizes,
    /// Also time a deep view (perturbation, 1920×1080 at span 1e-100, on CUDA).
    #[arg(long)]
    pub deep: bool,
    /// Write the results as JSON here too.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Also run NPP's nearest equivalent of each kernel (when NPP is installed).
    #[arg(long)]
    pub peers: bool,
    /// Time this filter stack (repeatable, applied in order) as the only case instead of
    /// the built-in ones; GPU only.
    #[arg(long = "filter", value_name = "SPEC")]
    pub filters: Vec<Filter>,
    /// Instead of the cases: filter frames and Mandelbrot explorer frames in turn in one
    /// process, printing each phase's GPU-side hand-over (issue 10's explorer wait).
    #[arg(long)]
    pub handover_probe: bool,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

/// The size classes of `bench --ms-sweep`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SweepSizes {
    /// Window sizes and 4096² / 16384², then the full table with the measured tunings.
    #[default]
    All,
    /// The window bookmarks only.
    Window,
    /// The goal points at 4096² and 16384² only.
    Large,
    /// No sweep: the finalists of both side by side over sizes 1920×1080 … 16384².
    Compare,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Parses WIDTHxHEIGHT for an image (1 to the image side limit).
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    crate::app::parse_size_up_to(text, crate::image_io::MAX_IMAGE_SIDE)
}

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
    let memory = match &cli.command {
        None => &cli.gui.memory,
        Some(Command::Apply(a)) => &a.memory,
        Some(Command::Histogram(a)) => &a.memory,
        Some(Command::Mandelbrot(a)) => &a.memory,
        Some(Command::Bench(a)) => &a.memory,
        Some(Command::Doctor | Command::Completions(_)) => &MemoryArgs { max_memory: None },
    };
    crate::image_io::budget::configure_max_memory(memory.max_memory);
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
            } else {
                apply::run(&a)
            }
        }
        Some(Command::Histogram(a)) => histogram::run(&a),
        Some(Command::Mandelbrot(a)) => mandelbrot::run(&a),
        Some(Command::Doctor) => doctor::run(),
        Some(Command::Bench(a)) => bench::run(&a),
        Some(Command::Completions(a)) => {
            let mut command = Cli::command();
            clap_complete::generate(a.shell, &mut command, "cudalens", &mut std::io::stdout());
            Ok(())
        }
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
    fn every_argument_has_help() {
        let command = Cli::command();
        command.clone().debug_assert();
        check_help(&command, "cudalens");
    }
}
