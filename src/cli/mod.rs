//! The command line (clap): the app by default, and headless subcommands, one file each.

mod apply;
mod bench;
mod doctor;
mod error;
mod histogram;
mod mandelbrot;

pub use error::{clap_error_line, CliError, EXIT_USAGE};

use crate::mandelbrot::{Mode, Palette, Precision};
use crate::ops::Filter;
use crate::pipeline::BackendRequest;
use clap::{Args, Parser, Subcommand};
use std::path::{Path, PathBuf};

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
    /// Start with the before/after split view.
    #[arg(long)]
    pub split: bool,
    /// Write a screenshot of the window after the last frame (needs --frames; never over
    /// the input, an existing file only with --force).
    #[arg(long, value_name = "PATH")]
    pub screenshot: Option<PathBuf>,
    /// Replace the --screenshot file if it exists (never the input).
    #[arg(long)]
    pub force: bool,
    /// Quit after this many frames (0: run until closed).
    #[arg(long, default_value_t = 0)]
    pub frames: u32,
    /// Window size, WIDTHxHEIGHT (default 1400x900, shrunk to fit the display; an explicit
    /// size must fit the display and the GPU).
    #[arg(long, value_parser = parse_window_size)]
    pub size: Option<(u32, u32)>,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

/// The memory budget option shared by every command that loads or makes images.
#[derive(Debug, Args, Clone, Default)]
pub struct MemoryArgs {
    /// Most memory (host, and GPU) one image's work may take, e.g. 2G or 512M (default:
    /// 3/4 of the available host memory, 9/10 of the free GPU memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::image_io::budget::parse_memory_size)]
    pub max_memory: Option<u64>,
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
    #[command(flatten)]
    pub memory: MemoryArgs,
}

#[derive(Debug, Args)]
pub struct HistogramArgs {
    pub input: PathBuf,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendRequest,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

#[derive(Debug, Args)]
pub struct MandelbrotArgs {
    #[arg(short, long)]
    pub output: PathBuf,
    #[arg(long, default_value_t = 1024)]
    pub width: u32,
    #[arg(long, default_value_t = 768)]
    pub height: u32,
    /// Centre of the view, RE,IM.
    #[arg(long, default_value = "-0.5,0", value_parser = crate::mandelbrot::parse_center_arg, allow_hyphen_values = true)]
    pub center: (f64, f64),
    /// Width of the view on the real axis.
    #[arg(long, default_value_t = 3.0, allow_negative_numbers = true)]
    pub span: f64,
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
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendRequest,
    /// Also benchmark the Mandelbrot modes.
    #[arg(long)]
    pub mandelbrot: bool,
    /// Time Mariani–Silver over a grid of refinement parameters (implies --mandelbrot).
    #[arg(long)]
    pub ms_sweep: bool,
    /// Write the results as JSON here too.
    #[arg(long)]
    pub json: Option<PathBuf>,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

/// Largest window side accepted on the command line (X11 windows stop at 32767, and GL
/// implementations guarantee viewports of 16384 at least); the display and the GPU are
/// checked too when the window opens.
pub const MAX_WINDOW_SIDE: u32 = 16384;

/// Parses WIDTHxHEIGHT for an image (1 to the image side limit).
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    parse_size_up_to(text, crate::image_io::MAX_IMAGE_SIDE)
}

/// Parses WIDTHxHEIGHT for a window.
pub fn parse_window_size(text: &str) -> Result<(u32, u32), String> {
    parse_size_up_to(text, MAX_WINDOW_SIDE)
}

fn parse_size_up_to(text: &str, max: u32) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{text}': expected WIDTHxHEIGHT"))?;
    let parse = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("'{s}' is not a size"))
    };
    let (w, h) = (parse(w)?, parse(h)?);
    if w == 0 || h == 0 || w > max || h > max {
        return Err(format!("'{text}': width and height must be 1..={max}"));
    }
    Ok((w, h))
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
        crate::image_io::check_save_target(shot, &screenshot_options(&input, gui.force))?;
    }
    Ok(())
}

/// How a screenshot is saved: never over `input`, over an existing file only with --force.
pub fn screenshot_options(input: &Path, force: bool) -> crate::image_io::SaveOptions {
    crate::image_io::SaveOptions {
        overwrite: force,
        protected: vec![input.to_path_buf()],
    }
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    let memory = match &cli.command {
        None => &cli.gui.memory,
        Some(Command::Apply(a)) => &a.memory,
        Some(Command::Histogram(a)) => &a.memory,
        Some(Command::Mandelbrot(a)) => &a.memory,
        Some(Command::Bench(a)) => &a.memory,
        Some(Command::Doctor) => &MemoryArgs { max_memory: None },
    };
    crate::image_io::budget::configure_max_memory(memory.max_memory);
    match cli.command {
        None => {
            check_gui_args(cli.file.as_deref(), &cli.gui)?;
            crate::app::run_app(cli.file, cli.gui).map_err(CliError::from_app)
        }
        Some(Command::Apply(a)) => apply::run(&a),
        Some(Command::Histogram(a)) => histogram::run(&a),
        Some(Command::Mandelbrot(a)) => mandelbrot::run(&a),
        Some(Command::Doctor) => doctor::run(),
        Some(Command::Bench(a)) => bench::run(&a),
    }
}
