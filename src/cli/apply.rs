//! `cudalens apply`: edits and filters headless, result saved atomically, never over the
//! input.

use super::{ApplyArgs, CliError};
use crate::cuda::CudaDevice;
use crate::edit::ImageEdit;
use crate::image_io::{load_image, save_pixels, SaveOptions};
use crate::pipeline::{
    cpu_filters, process_headless, process_pixels_headless, BackendRequest, StageTime,
};
use crate::pixels::{PixelImage, SampleType};
use std::path::Path;

pub fn run(args: &ApplyArgs) -> Result<(), CliError> {
    let options = SaveOptions {
        overwrite: args.force,
        protected: vec![args.input.clone()],
        jpeg_quality: Some(args.quality),
        depth: args.depth,
    };
    if crate::video::is_video_path(&args.input) {
        return super::video::apply_video(args, &options);
    }
    apply_file(args, &options)
}

/// One file: the output path checked first (before any work), the input loaded under
/// the memory budget, the edits then the filters run, the input released, the result
/// saved atomically in the input's type and channels. No edit and no filter: the format
/// is converted.
fn apply_file(args: &ApplyArgs, options: &SaveOptions) -> Result<(), CliError> {
    let (input, output) = (&args.input, &args.output);
    // Refuse an impossible output before doing any work.
    crate::image_io::check_save_target(output, options)?;
    if args.backend == BackendRequest::Cpu {
        cpu_filters(&args.filters).map_err(CliError::usage)?;
    }
    let loaded = load_image(input)?;
    if let Some(note) = &loaded.conversion_note {
        super::notes::note(&format!("{}: {note}", input.display()));
    }
    let (w, h) = loaded.pixels.dimensions();
    if args.edits.is_empty() && args.filters.is_empty() {
        // A plain conversion keeps the file's own samples.
        save_checked(&loaded.pixels, output, options)?;
        eprintln!(
            "{} → {} ({w}×{h}, converted)",
            input.display(),
            output.display()
        );
        return Ok(());
    }
    ImageEdit::chain_size(&args.edits, w, h)?;
    let (image, how) = if loaded.pixels.sample_type() == SampleType::U8 {
        process_8bit(loaded.pixels, args)?
    } else {
        process_typed(loaded.pixels, args)?
    };
    save_checked(&image, output, options)?;
    eprintln!(
        "{} → {} ({}×{}, {how})",
        input.display(),
        output.display(),
        image.width(),
        image.height()
    );
    Ok(())
}

/// An 8-bit image of any channel count runs as RGBA8 on the requested backend; the result
/// takes back the input's channels where nothing is lost. Returns the result and what ran.
fn process_8bit(source: PixelImage, args: &ApplyArgs) -> Result<(PixelImage, String), CliError> {
    let channels = source.channels();
    let edited = run_edits(source.into_rgba8(), &args.edits, args.backend)?;
    if args.filters.is_empty() {
        return Ok((
            PixelImage::from_rgba8_as(edited, channels),
            "edits only".into(),
        ));
    }
    let mut out = process_headless(&edited, &args.filters, args.backend, args.interop)?;
    if let Some(rect) = args.selection {
        check_selection(rect, edited.dimensions(), out.image.dimensions())?;
        crate::edit::keep_outside(&mut out.image, &edited, rect);
    }
    drop(edited); // the input is not needed while the result is encoded
    let how = ran_on(&out.status, &out.report, args.backend);
    Ok((PixelImage::from_rgba8_as(out.image, channels), how))
}

/// A 16-bit or float image keeps its type: the edits run by their typed CPU references,
/// the filters on the requested backend (CUDA's typed kernels or the typed CPU
/// references). User kernels read RGBA8 and are refused for these types.
pub(super) fn process_typed(
    source: PixelImage,
    args: &ApplyArgs,
) -> Result<(PixelImage, String), CliError> {
    let edited = crate::edit::typed::apply_edits_typed(&source, &args.edits)?;
    drop(source);
    if args.filters.is_empty() {
        return Ok((edited, "edits only".into()));
    }
    let out = process_pixels_headless(&edited, &args.filters, args.backend, args.interop)?;
    let mut image = out.image;
    if let Some(rect) = args.selection {
        check_selection(rect, edited.dimensions(), image.dimensions())?;
        crate::edit::typed::keep_outside_typed(&mut image, &edited, rect);
    }
    let how = ran_on(&out.status, &out.report, args.backend);
    Ok((image, how))
}

/// What ran, for the summary line ("CUDA backend, 1.20 ms: gaussian 1.20"); with `auto`
/// on the CPU backend, a note of why.
fn ran_on(
    status: &crate::pipeline::BackendStatus,
    report: &crate::pipeline::FrameReport,
    request: BackendRequest,
) -> String {
    if status.kind == crate::pipeline::BackendKind::Cpu && request == BackendRequest::Auto {
        super::notes::note(&format!("CPU backend: {}", status.reason));
    }
    format!(
        "{} backend, {:.2} ms: {}",
        status.kind,
        report.total_ms(),
        stage_times(&report.stages)
    )
}

/// "gaussian 1.20, sobel 0.40".
fn stage_times(stages: &[StageTime]) -> String {
    stages
        .iter()
        .map(|s| format!("{} {:.2}", s.name, s.ms))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A selection lies within the (edited) image, and the filters keep its size.
fn check_selection(
    (x, y, w, h): (u32, u32, u32, u32),
    (iw, ih): (u32, u32),
    (rw, rh): (u32, u32),
) -> Result<(), CliError> {
    if u64::from(x) + u64::from(w) > u64::from(iw) || u64::from(y) + u64::from(h) > u64::from(ih) {
        return Err(CliError::usage(format!(
            "--selection {x},{y},{w},{h} reaches past the {iw}×{ih} image"
        )));
    }
    if (rw, rh) != (iw, ih) {
        return Err(CliError::usage(format!(
            "--selection needs filters that keep the image's size ({iw}×{ih} became {rw}×{rh})"
        )));
    }
    Ok(())
}

/// Saves `image`, then says on stderr, one line each, what the format made it change
/// (a warning when the transparency is dropped).
pub(super) fn save_checked(
    image: &PixelImage,
    path: &Path,
    options: &SaveOptions,
) -> Result<(), crate::image_io::SaveError> {
    for conversion in save_pixels(image, path, options)? {
        let warning = if conversion.is_warning() {
            "warning: "
        } else {
            ""
        };
        eprintln!("cudalens: {warning}{}: {conversion}", path.display());
    }
    Ok(())
}

/// Runs `edits` on `image` with the requested backend: CUDA for `cuda` (an error without
/// it) and for `auto` where a device opens (else, or on a device failure, the CPU, with a
/// note), the CPU reference for `cpu`.
pub(super) fn run_edits(
    image: image::RgbaImage,
    edits: &[ImageEdit],
    backend: BackendRequest,
) -> Result<image::RgbaImage, CliError> {
    if edits.is_empty() {
        return Ok(image);
    }
    let on_cuda = || -> Result<image::RgbaImage, crate::edit::EditError> {
        let device = CudaDevice::new(0)?;
        crate::edit::cuda::apply_edits(&device, &image, edits)
    };
    match backend {
        BackendRequest::Cpu => Ok(crate::edit::cpu::apply_edits(&image, edits)?),
        BackendRequest::Cuda => on_cuda().map_err(|e| match e {
            crate::edit::EditError::Device(reason) => CliError::usage(format!(
                "--backend cuda: the edits cannot run on CUDA: {reason}"
            )),
            e => e.into(),
        }),
        BackendRequest::Auto => {
            if matches!(CudaDevice::count(), Ok(n) if n > 0) {
                match on_cuda() {
                    Ok(out) => return Ok(out),
                    Err(crate::edit::EditError::Device(reason)) => {
                        super::notes::note(&format!("edits on the CPU: {reason}"));
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            Ok(crate::edit::cpu::apply_edits(&image, edits)?)
        }
    }
}
