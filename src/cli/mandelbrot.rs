//! `cudalens mandelbrot`: one view to a PNG (coloured, smooth, with the Mariani–Silver
//! rectangles drawn over it, or 16-bit dwells with --dwell), or a zoom sequence of
//! numbered PNGs with --frames N --zoom-to RE,IM,SPAN. --center and --span are exact
//! decimals of any depth: views below f64's precision render by perturbation. --julia RE,IM
//! renders the Julia set of that c (exact decimals too) instead of the Mandelbrot set.
//! A coloured PNG carries its view as text (`cudalens-view`), which --view reads back.
//! Posters (a side over 32768, up to 1048576) render in bands of tiles streamed into the
//! PNG; --devices spreads a poster's tiles or a sequence's frames over the host's GPUs,
//! and --frame-range renders one slice of a sequence (a job of a job runner).

use super::progress::Progress;
use super::CliError;
use crate::image_io::{
    check_save_target, read_png_text, write_file_atomically, PngStream, PngStreamKind, SaveError,
    SaveOptions, VIEW_KEYWORD,
};
use crate::mandelbrot::deep::{DeepError, DeepLocation};
use crate::mandelbrot::{
    draw_overlay, load_map, Coloring, Fractal, JuliaC, MandelbrotSettings, Mode, Palette,
    PaletteChoice, Place, PosterPlan, Precision, Refinement, View, DENSITY_RANGE,
    DISTANCE_WIDTH_RANGE, MAX_DWELL_16_BIT, MAX_POSTER_SIDE, MAX_RENDER_SIDE,
};
use crate::pipeline::{
    render_frames_spread, render_mandelbrot_frames, render_poster, BackendRequest, DeviceChoice,
    MandelbrotOutput, PosterPixels, WorkerReport, Workers,
};
use clap::Args;
use std::path::{Path, PathBuf};

/// `--bla`: on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

#[derive(Debug, Args)]
pub struct MandelbrotArgs {
    /// Output PNG, or EXR for the raw data (channels `dwell`, u32, and `nu`, the continuous
    /// escape value, f32); with --frames, numbered files next to it (out-0000.png, …).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Image width in pixels (over 32768: a poster, rendered in tiles and streamed to the
    /// file; up to 1048576).
    #[arg(long, default_value_t = 1024)]
    pub width: u32,
    /// Image height in pixels (as --width).
    #[arg(long, default_value_t = 768)]
    pub height: u32,
    /// Centre of the view, RE,IM: decimals of any length (deep views need one digit per
    /// digit of zoom). Default: -0.5,0 (with --julia: 0,0).
    #[arg(long, allow_hyphen_values = true)]
    pub center: Option<String>,
    /// Width of the view on the real axis, a decimal down to 1e-1000 (e.g. 1e-250).
    /// Default: 3 (with --julia: 4).
    #[arg(long, allow_hyphen_values = true)]
    pub span: Option<String>,
    /// Render the Julia set of c = RE,IM (decimals of any length) instead of the
    /// Mandelbrot set: z starts at the pixel and c stays fixed.
    #[arg(long, value_name = "RE,IM", allow_hyphen_values = true)]
    pub julia: Option<String>,
    /// The exact view as the explorer's "Copy view" gives it: re=…, im=…, span=…
    /// [, dwell=…][, julia_re=…, julia_im=…], or a PNG saved with its view (by this
    /// command or the explorer) (instead of --center, --span and --julia).
    #[arg(long, value_name = "TEXT|FILE.png", allow_hyphen_values = true, conflicts_with_all = ["center", "span", "julia"])]
    pub view: Option<String>,
    /// Iterations before a point counts as inside the set (default: the dwell of --view,
    /// else 1024).
    #[arg(long)]
    pub max_dwell: Option<u32>,
    /// per-pixel escape time, or Mariani–Silver refinement of uniform rectangles.
    #[arg(long, value_enum, default_value_t = Mode::MarianiSilver)]
    pub mode: Mode,
    /// How Mariani–Silver cuts the picture: the fastest measured tuning for its size, or one
    /// that shows the recursion at any size.
    #[arg(long, value_enum, default_value_t)]
    pub refinement: Refinement,
    /// Arithmetic of the iteration: f32, f64, perturbation (f64 differences from an
    /// arbitrary-precision reference orbit), extended (perturbation with a separate
    /// exponent), or auto (chosen by the zoom depth).
    #[arg(long, value_enum, default_value_t = Precision::Auto)]
    pub precision: Precision,
    /// Deep views: skip iterations by bivariate linear approximation (on) or iterate
    /// every step (off).
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    pub bla: OnOff,
    /// Colour scheme.
    #[arg(long, value_enum, default_value_t)]
    pub palette: Palette,
    /// A Fractint palette map (256 lines of R G B, 0–255) instead of --palette.
    #[arg(long, value_name = "FILE.map", conflicts_with = "palette")]
    pub palette_file: Option<PathBuf>,
    /// Colour by the continuous escape value (no bands).
    #[arg(long)]
    pub smooth: bool,
    /// Distance shading: pixels nearer the set than PX pixels (by the distance estimate)
    /// blend toward the interior colour, drawing the boundary and its filaments.
    #[arg(long, value_name = "PX")]
    pub distance: Option<f32>,
    /// Palette cycles per unit of √dwell / 8.
    #[arg(long, default_value_t = 1.0)]
    pub density: f32,
    /// Shift along the palette's cycle, 0..1.
    #[arg(long, default_value_t = 0.0)]
    pub offset: f32,
    /// Draw the Mariani–Silver rectangles over the picture and print their statistics.
    #[arg(long)]
    pub overlay: bool,
    /// Render a zoom sequence of this many frames (needs --zoom-to).
    #[arg(long, default_value_t = 1)]
    pub frames: u32,
    /// End of the zoom sequence: RE,IM,SPAN.
    #[arg(long, value_parser = parse_zoom_target, allow_hyphen_values = true)]
    pub zoom_to: Option<(f64, f64, f64)>,
    /// Render only frames A..B of the zoom sequence (A up to B, B not included); the files
    /// keep their numbers in the whole sequence, so jobs of a job runner split a sequence.
    #[arg(long, value_parser = parse_frame_range)]
    pub frame_range: Option<(u32, u32)>,
    /// Spread a poster's tiles or a sequence's frames over these GPUs, each with its own
    /// CUDA context and no OpenGL: `all`, or device numbers such as 0,2 (a poster uses
    /// device 0 without it).
    #[arg(long)]
    pub devices: Option<DeviceChoice>,
    /// Backend: auto (CUDA if it works here, else CPU), cpu, or cuda (an error without CUDA).
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendRequest,
    /// Write the dwells as a 16-bit greyscale PNG instead of colours.
    #[arg(long)]
    pub dwell: bool,
    /// Replace existing output files.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub memory: crate::image_io::budget::MemoryArgs,
}

/// Parses "RE,IM,SPAN".
fn parse_zoom_target(text: &str) -> Result<(f64, f64, f64), String> {
    let (center, span) = text
        .rsplit_once(',')
        .ok_or_else(|| format!("'{text}': expected RE,IM,SPAN"))?;
    let c = crate::mandelbrot::parse_center_arg(center)?;
    let s: f64 = span
        .trim()
        .parse()
        .map_err(|_| format!("'{span}' is not a number"))?;
    if !(s.is_finite() && s > 0.0) {
        return Err(format!("span {s}: must be a positive number"));
    }
    Ok((c.0, c.1, s))
}

/// Parses "A..B" (A < B).
fn parse_frame_range(text: &str) -> Result<(u32, u32), String> {
    let (a, b): (u32, u32) = crate::app::parse_pair(
        text,
        text.split_once(".."),
        "A..B, e.g. 0..100",
        "a frame number",
    )?;
    if a >= b {
        return Err(format!("{a}..{b}: the range is empty (A must be below B)"));
    }
    Ok((a, b))
}

fn usage(message: String) -> Result<(), CliError> {
    Err(CliError::usage(message))
}

/// Max dwell when neither --max-dwell nor --view gives one.
const DEFAULT_MAX_DWELL: u32 = 1024;

/// Where to render, what and how deep, from `--view` or from `--center`, `--span`,
/// `--julia` and `--max-dwell` (the default: the whole Mandelbrot set).
struct Target {
    place: Place,
    fractal: Fractal,
}

impl Target {
    /// The target at `location` with `max_dwell`, checked by the explorer's one rule.
    fn new(location: DeepLocation, fractal: Fractal, max_dwell: u32) -> Result<Self, CliError> {
        let place = Place::new(location, max_dwell).map_err(|e| CliError::usage(e.to_string()))?;
        Ok(Self { place, fractal })
    }
}

/// The text of `--view`: itself, or the view a PNG it names carries.
fn view_text(arg: &str) -> Result<String, CliError> {
    let path = Path::new(arg);
    let png = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !png || !path.is_file() {
        return Ok(arg.to_string());
    }
    match read_png_text(path, VIEW_KEYWORD) {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err(CliError::usage(format!(
            "--view {arg}: this PNG carries no cudalens view"
        ))),
        Err(e) => Err(CliError::usage(format!("--view: {e}"))),
    }
}

fn target(args: &MandelbrotArgs) -> Result<Target, CliError> {
    if let Some(arg) = &args.view {
        let text = view_text(arg)?;
        let view = crate::app::view_from_text(&text)
            .map_err(|e| CliError::usage(format!("--view: {e}")))?;
        let max_dwell = args.max_dwell.or(view.max_dwell);
        return Target::new(
            view.location,
            view.fractal,
            max_dwell.unwrap_or(DEFAULT_MAX_DWELL),
        );
    }
    Target::new(
        location(args)?,
        fractal(args)?,
        args.max_dwell.unwrap_or(DEFAULT_MAX_DWELL),
    )
}

/// The exact location from `--center` and `--span` (decimal strings of any depth), by
/// default the whole set (the Mandelbrot set's, or a Julia set's).
fn location(args: &MandelbrotArgs) -> Result<DeepLocation, CliError> {
    let (center, span) = match args.julia {
        None => ("-0.5,0", "3"),
        Some(_) => ("0,0", "4"),
    };
    let center = args.center.as_deref().unwrap_or(center);
    let span = args.span.as_deref().unwrap_or(span);
    DeepLocation::parse(center, span).map_err(|e| match e {
        DeepError::Span(_) => CliError::usage(e.to_string()),
        _ => CliError::usage(format!("--center {center} / --span {span}: {e}")),
    })
}

/// The fractal of `--julia`, or the Mandelbrot set.
fn fractal(args: &MandelbrotArgs) -> Result<Fractal, CliError> {
    match &args.julia {
        None => Ok(Fractal::Mandelbrot),
        Some(text) => JuliaC::parse(text)
            .map(|c| Fractal::Julia { c })
            .map_err(|e| CliError::usage(format!("--julia {text}: {e}"))),
    }
}

/// Whether the picture renders as a poster: a side past one render's, or one picture
/// spread over devices.
/// Whether the output is EXR (raw dwells and continuous values) rather than PNG.
fn is_exr(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("exr"))
}

fn is_poster(args: &MandelbrotArgs) -> bool {
    args.width > MAX_RENDER_SIDE
        || args.height > MAX_RENDER_SIDE
        || (args.frames == 1 && args.devices.is_some())
}

fn validate(args: &MandelbrotArgs, max_dwell: u32) -> Result<(), CliError> {
    let side = 1..=MAX_POSTER_SIDE;
    if !side.contains(&args.width) || !side.contains(&args.height) {
        return usage(format!(
            "size {}×{}: width and height must be 1..={MAX_POSTER_SIDE}",
            args.width, args.height
        ));
    }
    let big = args.width > MAX_RENDER_SIDE || args.height > MAX_RENDER_SIDE;
    if big && args.frames > 1 {
        return usage(format!(
            "size {}×{}: a zoom sequence's frames are at most {MAX_RENDER_SIDE} a side",
            args.width, args.height
        ));
    }
    if is_poster(args) && args.overlay {
        return usage("--overlay draws on a picture held whole: not on a poster (a side over 32768, or --devices)".into());
    }
    let exr = is_exr(&args.output);
    if is_poster(args) && exr {
        return usage("a poster (a side over 32768, or --devices with one frame) streams PNG rows: EXR output is for views and sequences".into());
    }
    if exr && args.overlay {
        return usage("--overlay draws over colours: an EXR holds the raw dwells".into());
    }
    if let Some((_, b)) = args.frame_range {
        if args.frames < 2 {
            return usage(
                "--frame-range picks frames of a zoom sequence: it needs --frames N".into(),
            );
        }
        if b > args.frames {
            return usage(format!(
                "--frame-range ends at {b}: the sequence has frames 0..{}",
                args.frames
            ));
        }
    }
    if args.dwell && !exr && max_dwell > MAX_DWELL_16_BIT {
        return usage(format!(
            "max dwell {max_dwell}: a 16-bit dwell PNG holds 1..={MAX_DWELL_16_BIT} (or write .exr)"
        ));
    }
    if let Some(d) = args.distance.filter(|d| !DISTANCE_WIDTH_RANGE.contains(d)) {
        return usage(format!(
            "distance {d}: must be {}..={} pixels",
            DISTANCE_WIDTH_RANGE.start(),
            DISTANCE_WIDTH_RANGE.end()
        ));
    }
    if !DENSITY_RANGE.contains(&args.density) {
        return usage(format!(
            "density {}: must be {}..={}",
            args.density,
            DENSITY_RANGE.start(),
            DENSITY_RANGE.end()
        ));
    }
    if !(0.0..=1.0).contains(&args.offset) {
        return usage(format!("offset {}: must be 0..=1", args.offset));
    }
    if args.refinement != Refinement::Measured && args.mode != Mode::MarianiSilver {
        return usage("--refinement chooses how Mariani–Silver cuts the picture: it needs --mode mariani-silver".into());
    }
    if args.overlay && (args.dwell || args.mode != Mode::MarianiSilver) {
        return usage("--overlay draws the Mariani–Silver rectangles over colours: it needs --mode mariani-silver and no --dwell".into());
    }
    match (args.frames, args.zoom_to) {
        (0, _) | (100_001.., _) => usage(format!("frames {}: must be 1..=100000", args.frames)),
        (2.., None) => usage("--frames N needs --zoom-to RE,IM,SPAN".into()),
        (1, Some(_)) => usage("--zoom-to needs --frames N with N ≥ 2".into()),
        _ => Ok(()),
    }
}

/// The output files: `output` itself for one frame, else `stem-0000.png` (or `.exr`), …
/// beside it.
fn output_paths(output: &Path, frames: u32) -> Vec<PathBuf> {
    if frames == 1 {
        return vec![output.to_path_buf()];
    }
    let stem = output
        .file_stem()
        .map_or("frame".into(), |s| s.to_string_lossy().into_owned());
    let extension = if is_exr(output) { "exr" } else { "png" };
    let digits = (frames - 1).to_string().len().max(4);
    (0..frames)
        .map(|i| output.with_file_name(format!("{stem}-{i:0digits$}.{extension}")))
        .collect()
}

/// The frames' settings: the first at the exact location; a zoom sequence's frames after
/// it follow the f64 path to --zoom-to.
fn settings(
    args: &MandelbrotArgs,
    target: Target,
    palette: PaletteChoice,
) -> Vec<MandelbrotSettings> {
    let mut first = MandelbrotSettings {
        view: View {
            width: args.width,
            height: args.height,
            fractal: target.fractal,
            ..View::default()
        },
        mode: args.mode,
        precision: args.precision,
        coloring: Coloring {
            palette,
            density: args.density,
            offset: args.offset,
            // An EXR holds the continuous values and the distance estimates.
            smooth: args.smooth || is_exr(&args.output),
            distance: match args.distance {
                None if is_exr(&args.output) => Some(1.0),
                d => d,
            },
            ..Coloring::default()
        },
        overlay: args.overlay,
        refinement: args.refinement,
        tuning: None,
        deep: None,
        bla: args.bla == OnOff::On,
    };
    first.set_place(&target.place);
    let Some((re, im, span)) = args.zoom_to else {
        return vec![first];
    };
    let last = f64::from(args.frames - 1);
    (0..args.frames)
        .map(|i| MandelbrotSettings {
            view: first.view.zoom_toward((re, im), span, f64::from(i) / last),
            ..first.clone()
        })
        .collect()
}

/// Saves a frame as PNG with its view in a text chunk, deflated on every core, or its
/// dwells and continuous values as EXR with the view in text attributes.
fn save(
    out: MandelbrotOutput,
    s: &MandelbrotSettings,
    path: &Path,
    options: &SaveOptions,
) -> Result<(), CliError> {
    if is_exr(path) {
        let dwells = out
            .dwells
            .ok_or_else(|| CliError::internal("renderer returned no dwells"))?;
        return Ok(crate::app::save_view_exr(&dwells, s, path, options)?);
    }
    let io = |e: std::io::Error| SaveError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let chunks = crate::app::view_chunks(s);
    let texts: Vec<(&str, &str)> = chunks.iter().map(|(k, t)| (*k, t.as_str())).collect();
    let (kind, width, height, bytes) = match (out.dwells, out.image) {
        (Some(d), _) => (PngStreamKind::Gray16, d.width, d.height, d.to_be16_bytes()),
        (None, Some(mut img)) => {
            if !out.frame.records.is_empty() {
                draw_overlay(&mut img, &out.frame.records);
            }
            (
                PngStreamKind::Rgba8,
                img.width(),
                img.height(),
                img.into_raw(),
            )
        }
        (None, None) => return Err(CliError::internal("renderer returned nothing")),
    };
    check_save_target(path, options)?;
    write_file_atomically(path, |file| {
        let mut png = PngStream::new(file, width, height, kind, &texts)?;
        png.write_rows(&bytes)?;
        png.finish().map(|_| ())
    })?
    .map_err(io)?;
    Ok(())
}

/// The palette of `--palette-file`, else `--palette`.
fn palette(args: &MandelbrotArgs) -> Result<PaletteChoice, CliError> {
    match &args.palette_file {
        Some(path) => load_map(path)
            .map(PaletteChoice::User)
            .map_err(|e| CliError::usage(format!("--palette-file: {e}"))),
        None => Ok(args.palette.into()),
    }
}

pub fn run(args: &MandelbrotArgs) -> Result<(), CliError> {
    let target = target(args)?;
    validate(args, target.place.max_dwell())?;
    let options = SaveOptions {
        overwrite: args.force,
        ..Default::default()
    };
    let paths = output_paths(&args.output, args.frames);
    let (first, end) = args.frame_range.unwrap_or((0, args.frames));
    let range = first as usize..end as usize;
    for path in &paths[range.clone()] {
        check_save_target(path, &options)?;
        let png = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"));
        if !png && !is_exr(path) {
            return usage(format!(
                "{}: the Mandelbrot output is PNG (.png), or EXR (.exr) for the raw dwells",
                path.display()
            ));
        }
    }
    let frames = settings(args, target, palette(args)?);
    if is_poster(args) {
        return run_poster(args, &frames[0]);
    }
    if let Some(devices) = &args.devices {
        return run_spread(args, &frames, range, &paths, &options, devices);
    }
    let progress = Progress::new(range.len(), "frames");
    let mut last = None;
    let mut dwell_ms = 0.0;
    let raw = args.dwell || is_exr(&args.output);
    render_mandelbrot_frames(&frames[range.clone()], args.backend, raw, |i, out| {
        let k = range.start + i;
        dwell_ms += out.frame.dwell_ms();
        let summary = (out.status.kind, out.frame.precision, out.frame.stats);
        save(out, &frames[k], &paths[k], &options)?;
        progress.update(i + 1);
        last = Some(summary);
        Ok::<(), CliError>(())
    })??;
    let (backend, precision, stats) =
        last.ok_or_else(|| CliError::internal("no frame rendered"))?;
    eprintln!(
        "{} ({}×{}, {:?}, {backend} backend, precision {precision:?}, dwell {dwell_ms:.2} ms)",
        paths_text(&paths[range]),
        args.width,
        args.height,
        args.mode
    );
    if let Some(s) = stats {
        eprintln!(
            "Mariani–Silver: {}",
            s.summary(u64::from(args.width) * u64::from(args.height))
        );
    }
    Ok(())
}

/// "a.png", or "a-0000.png … a-0099.png".
fn paths_text(paths: &[PathBuf]) -> String {
    match paths {
        [one] => one.display().to_string(),
        [first, .., end] => format!("{} … {}", first.display(), end.display()),
        [] => String::new(),
    }
}

/// One line per worker: what it computed and how long it was busy.
fn print_workers(reports: &[WorkerReport], what: &str, seconds: f64) {
    for r in reports {
        let saving = if r.sink_s > 0.0 {
            format!(", saving {:.2} s", r.sink_s)
        } else {
            String::new()
        };
        let gpu = if r.gpu_s > 0.0 {
            format!(" (GPU kernels {:.2} s)", r.gpu_s)
        } else {
            String::new()
        };
        eprintln!(
            "  {}: {} {what}, busy {:.2} s of {seconds:.2} s ({:.0} %){gpu}{saving}",
            r.name,
            r.pieces,
            r.busy_s,
            100.0 * r.busy_s / seconds.max(1e-9)
        );
    }
}

/// A sequence's frames spread over `devices`, each saved by the worker that made it.
fn run_spread(
    args: &MandelbrotArgs,
    frames: &[MandelbrotSettings],
    range: std::ops::Range<usize>,
    paths: &[PathBuf],
    options: &SaveOptions,
    devices: &DeviceChoice,
) -> Result<(), CliError> {
    let workers = Workers::choose(args.backend, devices)?;
    if let Workers::Cpu(why) = &workers {
        eprintln!("note: on the CPU ({why})");
    }
    let progress = Progress::new(range.len(), "frames");
    let done = std::sync::atomic::AtomicUsize::new(0);
    let start = std::time::Instant::now();
    let raw = args.dwell || is_exr(&args.output);
    let reports = render_frames_spread(frames, range.clone(), &workers, raw, |k, out| {
        save(out, &frames[k], &paths[k], options)?;
        progress.update(done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1);
        Ok::<(), CliError>(())
    })??;
    let seconds = start.elapsed().as_secs_f64();
    eprintln!(
        "{} ({}×{}, {:?}, {} frames in {seconds:.2} s, {:.1} frames/s on {} worker(s))",
        paths_text(&paths[range.clone()]),
        args.width,
        args.height,
        args.mode,
        range.len(),
        range.len() as f64 / seconds.max(1e-9),
        workers.len()
    );
    print_workers(&reports, "frames", seconds);
    Ok(())
}

/// A poster: bands of tiles over the devices, streamed into the PNG as they come (host
/// memory: a few bands, whatever the size).
fn run_poster(args: &MandelbrotArgs, s: &MandelbrotSettings) -> Result<(), CliError> {
    let devices = args.devices.clone().unwrap_or(DeviceChoice::List(vec![0]));
    let workers = Workers::choose(args.backend, &devices)?;
    if let Workers::Cpu(why) = &workers {
        eprintln!("note: the poster renders on the CPU ({why})");
    }
    let plan = PosterPlan::new(args.width, args.height);
    let (pixels, kind) = if args.dwell {
        (PosterPixels::Dwell16, PngStreamKind::Gray16)
    } else {
        (PosterPixels::Rgb8, PngStreamKind::Rgb8)
    };
    let chunks = crate::app::view_chunks(s);
    let texts: Vec<(&str, &str)> = chunks.iter().map(|(k, t)| (*k, t.as_str())).collect();
    let path = &args.output;
    let io = |e: std::io::Error| {
        CliError::from(SaveError::Io {
            path: path.clone(),
            reason: e.to_string(),
        })
    };
    let progress = Progress::new(args.height as usize, "rows");
    let start = std::time::Instant::now();
    let mut reports = Vec::new();
    let mut writing_s = 0.0;
    write_file_atomically(path, |file| {
        let mut png = PngStream::new(file, args.width, args.height, kind, &texts).map_err(io)?;
        let mut rows_done = 0;
        reports = render_poster(s, &plan, pixels, &workers, |band, rows| {
            let start = std::time::Instant::now();
            png.write_rows(rows)?;
            writing_s += start.elapsed().as_secs_f64();
            rows_done += plan.band(band).1 as usize;
            progress.update(rows_done);
            Ok::<(), std::io::Error>(())
        })?
        .map_err(io)?;
        png.finish().map_err(io)?;
        Ok::<(), CliError>(())
    })??;
    let seconds = start.elapsed().as_secs_f64();
    eprintln!(
        "{} ({}×{} poster in {} band(s) of {} rows, {seconds:.2} s on {} worker(s); \
         compressing and writing {writing_s:.2} s)",
        path.display(),
        args.width,
        args.height,
        plan.bands(),
        plan.band_rows,
        workers.len()
    );
    print_workers(&reports, "tiles", seconds);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_are_numbered_beside_the_output() {
        let p = output_paths(Path::new("/tmp/z/zoom.png"), 3);
        assert_eq!(p[0], Path::new("/tmp/z/zoom-0000.png"));
        assert_eq!(p[2], Path::new("/tmp/z/zoom-0002.png"));
        assert_eq!(
            output_paths(Path::new("a.png"), 12345)[12344],
            Path::new("a-12344.png")
        );
        assert_eq!(output_paths(Path::new("a.png"), 1), [Path::new("a.png")]);
    }

    #[test]
    fn frame_ranges_parse() {
        assert_eq!(parse_frame_range("0..100"), Ok((0, 100)));
        assert_eq!(parse_frame_range(" 5 .. 6"), Ok((5, 6)));
        assert!(parse_frame_range("6..6").is_err());
        assert!(parse_frame_range("7..3").is_err());
        assert!(parse_frame_range("0-3").is_err());
        assert!(parse_frame_range("a..3").is_err());
    }

    #[test]
    fn zoom_targets_parse() {
        assert_eq!(parse_zoom_target("-0.5,0.1,1e-3"), Ok((-0.5, 0.1, 1e-3)));
        assert!(parse_zoom_target("-0.5,0.1").is_err());
        assert!(parse_zoom_target("-0.5,0.1,0").is_err());
        assert!(parse_zoom_target("x,0.1,1").is_err());
    }
}
