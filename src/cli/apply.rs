//! `cudalens apply`: filters headless, result saved atomically, never over the input.

use super::{ApplyArgs, CliError};
use crate::image_io::{load_image, save_image, SaveOptions};
use crate::pipeline::process_headless;

pub fn run(args: &ApplyArgs) -> Result<(), CliError> {
    let options = SaveOptions {
        overwrite: args.force,
        protected: vec![args.input.clone()],
    };
    // Refuse an impossible output before doing any work.
    crate::image_io::check_save_target(&args.output, &options)?;
    let loaded = load_image(&args.input)?;
    if let Some(note) = &loaded.conversion_note {
        eprintln!("note: {}: {note}", args.input.display());
    }
    let out = process_headless(&loaded.image, &args.filters, args.backend, args.interop)?;
    save_image(&out.image, &args.output, &options)?;
    eprintln!(
        "{} → {} ({}×{}, {} backend, {:.2} ms: {})",
        args.input.display(),
        args.output.display(),
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
