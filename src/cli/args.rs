//! The command line's arguments (clap): the app by default, and the headless subcommands.

use super::mandelbrot::MandelbrotArgs;
use crate::app::GuiArgs;
use crate::edit::ImageEdit;
use crate::filters::Filter;
use crate::image_io::budget::MemoryArgs;
use crate::pipeline::Stage;
use crate::pipeline::{BackendRequest, InteropRequest};
use crate::pixels::SampleType;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Examples shown at the end of `cudalens --help`.
const EXAMPLES: &str = "\
Examples:
  cudalens photo.jpg --filter gaussian:sigma=2        open the app with a blur switched on
  cudalens apply in.png -o out.png --filter box:radius=5 --filter sobel
  cudalens apply in.png -o out.png --edit rotate:90 --edit resize:800x600,filter=lanczos3
  cudalens apply photos/*.jpg -o out/ --filter gaussian:sigma=1.5 --format png
  cudalens apply photos/ -o out/ --preset 'soft edges' --backend cuda
  cudalens histogram photo.jpg --json
  cudalens mandelbrot -o set.png --width 2048 --height 1536 --center -0.745,0.113 --span 0.01
  cudalens bench --backend cpu --size 1920x1080
  cudalens completions bash > ~/.local/share/bash-completion/completions/cudalens

Filter and edit specifications: `cudalens apply --help` lists every one's syntax.
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
    /// Print notes too (the backend a run fell back to, conversions on load).
    #[arg(short, long, global = true)]
    pub verbose: bool,
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
    /// Time the filters and the explorer's frame (median of many runs).
    Bench(BenchArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions(CompletionsArgs),
    /// Internal: runs user kernels in a process of their own (started by cudalens).
    #[command(hide = true)]
    KernelHost(KernelHostArgs),
}

#[derive(Debug, Args)]
pub struct KernelHostArgs {
    /// The CUDA device (ordinal) the parent's frames are on.
    #[arg(long, default_value_t = 0)]
    pub device: usize,
    /// Compile with NVRTC only (no GPU).
    #[arg(long, conflicts_with = "device")]
    pub compile: bool,
}

#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// Image to process (PNG, JPEG, TIFF, EXR, PGM/PPM, BMP, WebP, GIF), or a folder of them,
    /// or a video (MP4/MOV, MKV, WebM, AVI; read by the ffmpeg program).
    pub input: PathBuf,
    /// More images or folders: a batch, written into the folder OUTPUT.
    #[arg(value_name = "MORE")]
    pub more_inputs: Vec<PathBuf>,
    /// Output file (format from its extension: png, jpg, tif, exr, pgm, ppm, pnm, bmp,
    /// webp); for a batch, the output folder (created if missing), where each result is
    /// named <stem>.<ext>; for a video, a video (mp4, mov, mkv, webm) or numbered images
    /// (frames/%06d.png, from 0).
    #[arg(short, long)]
    pub output: PathBuf,
    /// A filter specification (see --help for all); repeatable, applied in order. With no
    /// filter and no edit, apply converts the format.
    #[arg(
        long = "filter",
        value_name = "SPEC",
        value_parser = crate::pipeline::stage_parser(),
        hide_possible_values = true,
        long_help = crate::pipeline::stage_spec_help()
    )]
    pub filters: Vec<Stage>,
    /// An image edit: rotate:90, flip:h, resize:WxH[,filter=F], crop:X,Y,W,H (see --help);
    /// repeatable, run in order before the filters.
    #[arg(long = "edit", value_name = "SPEC", long_help = crate::edit::spec_help())]
    pub edits: Vec<ImageEdit>,
    /// Filter inside this rectangle only (X,Y,W,H of the image after its edits): outside
    /// it the result keeps the image's pixels, as the app's "Filters on Selection Only".
    #[arg(long, value_name = "X,Y,W,H", value_parser = crate::app::parse_selection, value_hint = clap::ValueHint::Other)]
    pub selection: Option<(u32, u32, u32, u32)>,
    /// A batch: take only files K, K+N, K+2N, … (0 ≤ K < N) of its sorted list, so that N
    /// jobs of a job runner (a Slurm array, GNU parallel) split one folder between them.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Use the filters of a preset saved in the app (Presets menu) instead of --filter.
    #[arg(long, value_name = "NAME", conflicts_with = "filters", value_parser = crate::filters::SpecParser::<String>::new(preset_names), hide_possible_values = true)]
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
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256), value_hint = clap::ValueHint::Other)]
    pub jobs: Option<u32>,
    /// Batch: write this format instead of each input's own.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<OutputFormat>,
    /// Sample type to save: 8, 16 or 32f (float). Default: the image's own (8-bit after
    /// filters or edits). A format that cannot hold it gets the nearest it holds, said on
    /// stderr.
    #[arg(long, value_name = "8|16|32f", value_parser = parse_depth)]
    pub depth: Option<SampleType>,
    /// JPEG quality, 1 (smallest) to 100 (best).
    #[arg(long, value_name = "1..100", value_parser = clap::value_parser!(u8).range(1..=100), default_value_t = crate::image_io::DEFAULT_JPEG_QUALITY, value_hint = clap::ValueHint::Other)]
    pub quality: u8,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

#[derive(Debug, Args)]
pub struct HistogramArgs {
    /// Image to measure (PNG, JPEG, TIFF, EXR, PGM/PPM, BMP, WebP, GIF), or a video (every
    /// frame counted; read by the ffmpeg program).
    pub input: PathBuf,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
    /// A video: each frame's histogram too, under "per_frame" (needs --json).
    #[arg(long)]
    pub per_frame: bool,
    /// Bins per channel, 1 to 65536 (default 256).
    #[arg(long, value_parser = crate::ops::histogram::parse_bins)]
    pub bins: Option<usize>,
    /// The values counted in bins, LO,HI (default: 0,256 for 8-bit images, the data's
    /// range for others); values outside are counted apart.
    #[arg(long, value_parser = crate::ops::histogram::parse_range, allow_hyphen_values = true)]
    pub range: Option<(f64, f64)>,
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

/// `bench --type`: the sample type of the bench's image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum BenchSampleType {
    #[default]
    U8,
    U16,
    F32,
}

/// Parses `--shard K/N` (0 ≤ K < N).
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (k, n): (usize, usize) = crate::app::parse_pair(
        text,
        text.split_once('/'),
        "K/N, e.g. 0/4",
        "a whole number",
    )?;
    if n == 0 || k >= n {
        return Err(format!("{k}/{n}: K must be 0..N−1 with N ≥ 1"));
    }
    Ok((k, n))
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
    /// Also time the Mandelbrot explorer's frame (1920×1080, both modes and colourings).
    #[arg(long)]
    pub mandelbrot: bool,
    /// Time the user kernel goals instead: edit → first frame of a 20-line kernel, the
    /// per-pixel copy kernel against the built-in copy (4K, 8K), sobel_tiles.cu against
    /// the built-in Sobel. Needs CUDA and NVRTC.
    #[arg(long)]
    pub kernels: bool,
    /// With --kernels: also time this user kernel (repeatable) on a 4K image, with its
    /// parameters' defaults: GPU time, share of copy bandwidth, registers, occupancy.
    #[arg(long = "kernel", value_name = "FILE.cu", requires = "kernels")]
    pub kernel_files: Vec<PathBuf>,
    /// Time this video instead (MP4/MOV, Matroska, WebM): NVDEC decoding into the frame's
    /// source alone, then with the stack (--filter, else gaussian σ=2 → sobel → box r=5),
    /// frames a second over the clip, median of five passes. Needs CUDA with external memory.
    #[arg(long, value_name = "FILE")]
    pub video: Option<PathBuf>,
    /// Write the results as JSON here too.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// The sample type of the RGBA image the operations run on: 8-bit through the RGBA8
    /// fast paths, 16-bit and float through the typed kernels (or, with --backend cpu,
    /// the typed references).
    #[arg(long = "type", value_enum, default_value_t)]
    pub sample_type: BenchSampleType,
    /// Time this filter stack (repeatable, applied in order) as the only case instead of
    /// the built-in ones; GPU only.
    #[arg(long = "filter", value_name = "SPEC", value_parser = crate::filters::SpecParser::<Filter>::new(crate::filters::filter_names), hide_possible_values = true)]
    pub filters: Vec<Filter>,
    #[command(flatten)]
    pub memory: MemoryArgs,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Parses WIDTHxHEIGHT for an image (1 to the image side limit).
/// A `--depth` value: 8, 16 or 32f.
fn parse_depth(text: &str) -> Result<SampleType, String> {
    SampleType::from_depth_name(text).ok_or_else(|| format!("'{text}': expected 8, 16 or 32f"))
}

pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    crate::app::parse_size_up_to(text, crate::image_io::MAX_IMAGE_SIDE)
}

/// `--format`: the output format of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Png,
    #[value(alias = "jpg")]
    Jpeg,
    #[value(alias = "tif")]
    Tiff,
    Bmp,
    Webp,
    Exr,
    Pgm,
    Ppm,
}

impl OutputFormat {
    pub(super) fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Jpeg => "jpg",
            Self::Tiff => "tiff",
            Self::Bmp => "bmp",
            Self::Webp => "webp",
            Self::Exr => "exr",
            Self::Pgm => "pgm",
            Self::Ppm => "ppm",
        }
    }
}

/// The presets saved now, which completions offer for `--preset` (any name parses: the
/// preset is looked up when the command runs).
fn preset_names() -> Vec<String> {
    use crate::app::presets::{list_presets_in, presets_dir};
    presets_dir().map_or_else(|_| Vec::new(), |d| list_presets_in(&d))
}
