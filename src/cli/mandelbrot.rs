//! `cudalens mandelbrot`: one view to a PNG (coloured, smooth, with the Mariani–Silver
//! rectangles drawn over it, or 16-bit dwells with --dwell), or a zoom sequence of
//! numbered PNGs with --frames N --zoom-to RE,IM,SPAN. --center and --span are exact
//! decimals of any depth: views below f64's precision render by perturbation. --julia RE,IM
//! renders the Julia set of that c (exact decimals too) instead of the Mandelbrot set.
//! A coloured PNG carries its view as text (`cudalens-view`), which --view reads back.

use super::progress::Progress;
use super::CliError;
use crate::image_io::{
    check_save_target, read_png_text, save_png_with_text, SaveOptions, VIEW_KEYWORD,
};
use crate::mandelbrot::deep::{DeepError, DeepLocation};
use crate::mandelbrot::{
    draw_overlay, load_map, Coloring, Fractal, JuliaC, MandelbrotSettings, Mode, Palette,
    PaletteChoice, Precision, Refinement, View, DENSITY_RANGE, MAX_DWELL_16_BIT, MAX_DWELL_LIMIT,
    MAX_RENDER_SIDE,
};
use crate::pipeline::{render_mandelbrot_frames, BackendRequest, MandelbrotOutput};
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
    /// Output PNG; with --frames, numbered files next to it (out-0000.png, …).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Image width in pixels.
    #[arg(long, default_value_t = 1024)]
    pub width: u32,
    /// Image height in pixels.
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

fn usage(message: String) -> Result<(), CliError> {
    Err(CliError::usage(message))
}

/// Max dwell when neither --max-dwell nor --view gives one.
const DEFAULT_MAX_DWELL: u32 = 1024;

/// Where to render, what and how deep, from `--view` or from `--center`, `--span`,
/// `--julia` and `--max-dwell` (the default: the whole Mandelbrot set).
struct Target {
    location: DeepLocation,
    fractal: Fractal,
    max_dwell: u32,
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
        return Ok(Target {
            location: view.location,
            fractal: view.fractal,
            max_dwell: args
                .max_dwell
                .or(view.max_dwell)
                .unwrap_or(DEFAULT_MAX_DWELL),
        });
    }
    Ok(Target {
        location: location(args)?,
        fractal: fractal(args)?,
        max_dwell: args.max_dwell.unwrap_or(DEFAULT_MAX_DWELL),
    })
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

fn validate(args: &MandelbrotArgs, max_dwell: u32) -> Result<(), CliError> {
    let side = 1..=MAX_RENDER_SIDE;
    if !side.contains(&args.width) || !side.contains(&args.height) {
        return usage(format!(
            "size {}×{}: width and height must be 1..={MAX_RENDER_SIDE}",
            args.width, args.height
        ));
    }
    let limit = if args.dwell {
        MAX_DWELL_16_BIT
    } else {
        MAX_DWELL_LIMIT
    };
    if max_dwell == 0 || max_dwell > limit {
        let why = if args.dwell {
            " (a 16-bit dwell PNG)"
        } else {
            ""
        };
        return usage(format!("max dwell {max_dwell}: must be 1..={limit}{why}"));
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

/// The output files: `output` itself for one frame, else `stem-0000.png`, … beside it.
fn output_paths(output: &Path, frames: u32) -> Vec<PathBuf> {
    if frames == 1 {
        return vec![output.to_path_buf()];
    }
    let stem = output
        .file_stem()
        .map_or("frame".into(), |s| s.to_string_lossy().into_owned());
    let digits = (frames - 1).to_string().len().max(4);
    (0..frames)
        .map(|i| output.with_file_name(format!("{stem}-{i:0digits$}.png")))
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
            max_dwell: target.max_dwell,
            fractal: target.fractal,
            ..View::default()
        },
        mode: args.mode,
        precision: args.precision,
        coloring: Coloring {
            palette,
            density: args.density,
            offset: args.offset,
            smooth: args.smooth,
            ..Coloring::default()
        },
        overlay: args.overlay,
        refinement: args.refinement,
        tuning: None,
        deep: None,
        bla: args.bla == OnOff::On,
    };
    first.set_location(target.location);
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

fn save(
    out: MandelbrotOutput,
    s: &MandelbrotSettings,
    path: &Path,
    options: &SaveOptions,
) -> Result<(), CliError> {
    let image = match (out.dwells, out.image) {
        (Some(d), _) => image::DynamicImage::ImageLuma16(
            d.to_gray16()
                .ok_or_else(|| CliError::internal("dwell buffer size mismatch"))?,
        ),
        (None, Some(mut img)) => {
            if !out.frame.records.is_empty() {
                draw_overlay(&mut img, &out.frame.records);
            }
            image::DynamicImage::ImageRgba8(img)
        }
        (None, None) => return Err(CliError::internal("renderer returned nothing")),
    };
    let chunks = crate::app::view_chunks(s);
    let texts: Vec<(&str, &str)> = chunks.iter().map(|(k, t)| (*k, t.as_str())).collect();
    save_png_with_text(&image, path, options, &texts)?;
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
    validate(args, target.max_dwell)?;
    let options = SaveOptions {
        overwrite: args.force,
        ..Default::default()
    };
    let paths = output_paths(&args.output, args.frames);
    for path in &paths {
        check_save_target(path, &options)?;
        if !path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"))
        {
            return usage(format!(
                "{}: the Mandelbrot output is PNG (.png)",
                path.display()
            ));
        }
    }
    let frames = settings(args, target, palette(args)?);
    let progress = Progress::new(frames.len(), "frames");
    let mut last = None;
    let mut dwell_ms = 0.0;
    render_mandelbrot_frames(&frames, args.backend, args.dwell, |i, out| {
        dwell_ms += out.frame.dwell_ms();
        let summary = (out.status.kind, out.frame.precision, out.frame.stats);
        save(out, &frames[i], &paths[i], &options)?;
        progress.update(i + 1);
        last = Some(summary);
        Ok::<(), CliError>(())
    })??;
    let (backend, precision, stats) =
        last.ok_or_else(|| CliError::internal("no frame rendered"))?;
    let what = match paths.as_slice() {
        [one] => one.display().to_string(),
        [first, .., end] => format!("{} … {}", first.display(), end.display()),
        [] => String::new(),
    };
    eprintln!(
        "{what} ({}×{}, {:?}, {backend} backend, precision {precision:?}, dwell {dwell_ms:.2} ms)",
        args.width, args.height, args.mode
    );
    if let Some(s) = stats {
        eprintln!(
            "Mariani–Silver: {}",
            s.summary(u64::from(args.width) * u64::from(args.height))
        );
    }
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
    fn zoom_targets_parse() {
        assert_eq!(parse_zoom_target("-0.5,0.1,1e-3"), Ok((-0.5, 0.1, 1e-3)));
        assert!(parse_zoom_target("-0.5,0.1").is_err());
        assert!(parse_zoom_target("-0.5,0.1,0").is_err());
        assert!(parse_zoom_target("x,0.1,1").is_err());
    }
}
