//! The command line (clap): the app by default, and headless subcommands, one file each.

mod apply;
mod bench;
mod bench_deep;
mod doctor;
mod error;
mod histogram;
mod mandelbrot;

pub use error::CliError;

use crate::mandelbrot::{Mode, Palette, Precision};
use crate::ops::Filter;
use crate::pipeline::BackendRequest;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Live GPU image processing and Mandelbrot exploration (CUDA–OpenGL interop, CPU fallback).
#[derive(Debug, Parser)]
#[command(name = "cudalens", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// Image to open in the app (default: the shipped sample image).
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub gui: GuiArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Options of the app window.
#[derive(Debug, Args, Clone, Default)]
pub struct GuiArgs {
    /// Backend: auto (CUDA if it works here, else CPU), cpu, or cuda.
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendRequest,
    /// Filters enabled at start, in order (same syntax as `apply --filter`).
    #[arg(long = "filter", value_name = "SPEC")]
    pub filters: Vec<Filter>,
    /// Start in the Mandelbrot explorer.
    #[arg(long)]
    pub mandelbrot: bool,
    /// Draw the Mariani–Silver rectangles at start.
    #[arg(long)]
    pub overlay: bool,
    /// Start the explorer at a deep bookmark (a prefix of its name).
    #[arg(long, value_name = "NAME", value_parser = crate::mandelbrot::deep::parse_bookmark_name)]
    pub bookmark: Option<String>,
    /// Start with the before/after split view.
    #[arg(long)]
    pub split: bool,
    /// Write a screenshot of the window after the last frame (PNG).
    #[arg(long, value_name = "PATH")]
    pub screenshot: Option<PathBuf>,
    /// Quit after this many frames (0: run until closed).
    #[arg(long, default_value_t = 0)]
    pub frames: u32,
    /// Window size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1400x900", value_parser = parse_size)]
    pub size: (u32, u32),
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
}

#[derive(Debug, Args)]
pub struct ApplyArgs {
    pub input: PathBuf,
    #[arg(short, long)]
    pub output: PathBuf,
    /// sobel[:scale=S] | box:radius=R | gaussian:sigma=S[,radius=R] | transpose; repeatable, applied in order.
    #[arg(long = "filter", value_name = "SPEC", required = true)]
    pub filters: Vec<Filter>,
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendRequest,
    /// Replace OUTPUT if it exists (never the input).
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct HistogramArgs {
    pub input: PathBuf,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendRequest,
}

#[derive(Debug, Args)]
pub struct MandelbrotArgs {
    #[arg(short, long)]
    pub output: PathBuf,
    #[arg(long, default_value_t = 1024)]
    pub width: u32,
    #[arg(long, default_value_t = 768)]
    pub height: u32,
    /// Centre of the view, RE,IM: decimals of any length (deep views need one digit per
    /// digit of zoom).
    #[arg(long, default_value = "-0.5,0", allow_hyphen_values = true)]
    pub center: String,
    /// Width of the view on the real axis, a decimal down to 1e-1000 (e.g. 1e-250).
    #[arg(long, default_value = "3", allow_hyphen_values = true)]
    pub span: String,
    #[arg(long, default_value_t = 1024)]
    pub max_dwell: u32,
    #[arg(long, value_enum, default_value_t = Mode::MarianiSilver)]
    pub mode: Mode,
    #[arg(long, value_enum, default_value_t = Precision::Auto)]
    pub precision: Precision,
    #[arg(long, value_enum, default_value_t)]
    pub palette: Palette,
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendRequest,
    /// Write the dwells as a 16-bit greyscale PNG instead of colours.
    #[arg(long)]
    pub dwell: bool,
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Image size, WIDTHxHEIGHT (random image).
    #[arg(long, default_value = "3840x2160", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Timed runs per case (after warm-up).
    #[arg(long, default_value_t = 30)]
    pub runs: usize,
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendRequest,
    /// Also benchmark the Mandelbrot modes.
    #[arg(long)]
    pub mandelbrot: bool,
    /// Time Mariani–Silver over a grid of refinement parameters (implies --mandelbrot).
    #[arg(long)]
    pub ms_sweep: bool,
    /// Also time a deep view (perturbation, 1920×1080 at span 1e-100, on CUDA).
    #[arg(long)]
    pub deep: bool,
    /// Write the results as JSON here too.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Parses WIDTHxHEIGHT.
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{text}': expected WIDTHxHEIGHT"))?;
    let parse = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("'{s}' is not a size"))
    };
    let (w, h) = (parse(w)?, parse(h)?);
    if w == 0 || h == 0 || w > 65536 || h > 65536 {
        return Err(format!("'{text}': sizes must be 1..=65536"));
    }
    Ok((w, h))
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        None => crate::app::run_app(cli.file, cli.gui).map_err(CliError::internal),
        Some(Command::Apply(a)) => apply::run(&a),
        Some(Command::Histogram(a)) => histogram::run(&a),
        Some(Command::Mandelbrot(a)) => mandelbrot::run(&a),
        Some(Command::Doctor) => doctor::run(),
        Some(Command::Bench(a)) => bench::run(&a),
    }
}
