//! `cudalens apply`: filters headless, result saved atomically, never over the input.

use super::{ApplyArgs, CliError};
use crate::image_io::{load_image, save_image, SaveOptions};
use crate::pipeline::{cpu_filters, process_headless, BackendRequest, InteropRequest, Stage};
use std::path::Path;

pub fn run(args: &ApplyArgs) -> Result<(), CliError> {
    apply_file(
        &args.input,
        &args.output,
        &args.filters,
        args.backend,
        args.interop,
        args.force,
    )
}

/// One file: the output path checked first (before any work), the input loaded under
/// the memory budget, the filters run, the input released, the result saved atomically.
pub fn apply_file(
    input: &Path,
    output: &Path,
    filters: &[Stage],
    backend: BackendRequest,
    interop: InteropRequest,
    force: bool,
) -> Result<(), CliError> {
    let options = SaveOptions {
        overwrite: force,
        protected: vec![input.to_path_buf()],
    };
    // Refuse an impossible output before doing any work.
    crate::image_io::check_save_target(output, &options)?;
    if backend == BackendRequest::Cpu {
        cpu_filters(filters).map_err(CliError::usage)?;
    }
    let loaded = load_image(input)?;
    if let Some(note) = &loaded.conversion_note {
        eprintln!("note: {}: {note}", input.display());
    }
    let out = process_headless(&loaded.image, filters, backend, interop)?;
    drop(loaded); // the input is not needed while the result is encoded
    if out.status.kind == crate::pipeline::BackendKind::Cpu && backend == BackendRequest::Auto {
        eprintln!("note: CPU backend: {}", out.status.reason);
    }
    save_image(&out.image, output, &options)?;
    eprintln!(
        "{} → {} ({}×{}, {} backend, {:.2} ms: {})",
        input.display(),
        output.display(),
        out.image.width(),
        out.image.height(),
        out.status.kind,
        out.report.total_ms(),
        out.report
            .stages
            .iter()
            .map(|s| format!("{} {:.2}", s.name, s.ms))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}
