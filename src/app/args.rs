//! The app window's command-line options (`cudalens [FILE] ...`), parsed by the CLI and
//! owned here, so the app does not depend on the command line.

use crate::image_io::budget::MemoryArgs;
use crate::pipeline::Stage;
use crate::pipeline::{BackendRequest, InteropRequest};
use clap::Args;
use std::path::{Path, PathBuf};

/// Options of the app window.
#[derive(Debug, Args, Clone, Default)]
pub struct GuiArgs {
    /// Backend: auto (CUDA if it works here, else CPU), cpu, or cuda.
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendRequest,
    /// CUDA–OpenGL interop: auto (external memory when the driver offers it, else
    /// map/unmap), classic (map/unmap every frame) or external (or an error).
    #[arg(long, value_enum, default_value_t)]
    pub interop: InteropRequest,
    /// Filters enabled at start, in order (same syntax as `apply --filter`).
    #[arg(
        long = "filter",
        value_name = "SPEC",
        value_parser = crate::pipeline::stage_parser(),
        hide_possible_values = true,
        long_help = crate::pipeline::stage_spec_help()
    )]
    pub filters: Vec<Stage>,
    /// Start in the Mandelbrot explorer.
    #[arg(long)]
    pub mandelbrot: bool,
    /// Draw the Mariani–Silver rectangles at start.
    #[arg(long)]
    pub overlay: bool,
    /// How Mariani–Silver cuts the picture at start (default: as saved, else measured).
    #[arg(long, value_enum)]
    pub refinement: Option<crate::mandelbrot::Refinement>,
    /// Start the explorer at a deep bookmark (a prefix of its name).
    #[arg(long, value_name = "NAME", value_parser = crate::mandelbrot::deep::parse_bookmark_name)]
    pub bookmark: Option<String>,
    /// Start the explorer with smooth colouring.
    #[arg(long)]
    pub smooth: bool,
    /// Start the explorer with distance shading PX pixels wide.
    #[arg(long, value_name = "PX")]
    pub distance: Option<f32>,
    /// Start the explorer at the Julia set of c = RE,IM (decimals of any length).
    #[arg(long, value_name = "RE,IM", value_parser = parse_julia, allow_hyphen_values = true)]
    pub julia: Option<String>,
    /// Start with the before/after split view.
    #[arg(long)]
    pub split: bool,
    /// Start with a selection of the image, X,Y,W,H in image pixels.
    #[arg(long, value_name = "X,Y,W,H", value_parser = parse_selection)]
    pub selection: Option<(u32, u32, u32, u32)>,
    /// Show the filters' result inside the selection only.
    #[arg(long, requires = "selection")]
    pub selection_only: bool,
    /// Start playing a video given on the command line (the window opens it paused).
    #[arg(long)]
    pub play: bool,
    /// A video's playback speed (0.0625 to 16; 1: the stream's frame rate).
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    pub speed: f64,
    /// Open Brightness/Contrast over a 16-bit or float image and press its Auto once the
    /// first result shows.
    #[arg(long)]
    pub auto_contrast: bool,
    /// Open the kernel editor on the stack's first kernel stage with FILE's text, as if it
    /// were typed there: the stage keeps its last good build until the text compiles.
    #[arg(long, value_name = "FILE")]
    pub kernel_editor: Option<PathBuf>,
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
    /// Start from the default settings, ignoring the saved ones (they are replaced on exit).
    #[arg(long)]
    pub reset_settings: bool,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

/// Largest window side accepted on the command line (X11 windows stop at 32767, and GL
/// implementations guarantee viewports of 16384 at least); the display and the GPU are
/// checked too when the window opens.
pub const MAX_WINDOW_SIDE: u32 = 16384;

/// Parses WIDTHxHEIGHT for a window.
pub fn parse_window_size(text: &str) -> Result<(u32, u32), String> {
    parse_size_up_to(text, MAX_WINDOW_SIDE)
}

/// Two numbers of a command-line value, split from `text` as `parts` (None: the separator
/// is missing, and the message shows `expected`); a part that does not parse is "not
/// `noun`". Command-line parsers answer clap in text.
pub fn parse_pair<T: std::str::FromStr>(
    text: &str,
    parts: Option<(&str, &str)>,
    expected: &str,
    noun: &str,
) -> Result<(T, T), String> {
    let (a, b) = parts.ok_or_else(|| format!("'{text}': expected {expected}"))?;
    let one = |s: &str| {
        s.trim()
            .parse::<T>()
            .map_err(|_| format!("'{s}' is not {noun}"))
    };
    Ok((one(a)?, one(b)?))
}

pub fn parse_size_up_to(text: &str, max: u32) -> Result<(u32, u32), String> {
    let (w, h): (u32, u32) =
        parse_pair(text, text.split_once(['x', 'X']), "WIDTHxHEIGHT", "a size")?;
    if w == 0 || h == 0 || w > max || h > max {
        return Err(format!("'{text}': width and height must be 1..={max}"));
    }
    Ok((w, h))
}

/// How a screenshot is saved: never over `input`, over an existing file only with --force.
pub fn screenshot_options(input: &Path, force: bool) -> crate::image_io::SaveOptions {
    crate::image_io::SaveOptions {
        overwrite: force,
        protected: vec![input.to_path_buf()],
        ..Default::default()
    }
}

/// A selection "X,Y,W,H" in image pixels (W and H above 0).
pub fn parse_selection(text: &str) -> Result<(u32, u32, u32, u32), String> {
    let numbers: Vec<u32> = text
        .split(',')
        .map(|s| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("'{s}' is not a pixel count"))
        })
        .collect::<Result<_, _>>()?;
    match numbers[..] {
        [x, y, w, h] if w > 0 && h > 0 => Ok((x, y, w, h)),
        [_, _, _, _] => Err(format!("'{text}': the width and height must be above 0")),
        _ => Err(format!("'{text}': expected X,Y,W,H")),
    }
}

/// Checks --julia's "RE,IM" (kept as text: the parsed c is large).
fn parse_julia(text: &str) -> Result<String, String> {
    crate::mandelbrot::JuliaC::parse(text)
        .map(|_| text.to_string())
        .map_err(|e| e.to_string())
}
