//! `cudalens mandelbrot`: one view to a PNG (coloured, or 16-bit dwells with --dwell).

use super::{CliError, MandelbrotArgs};
use crate::image_io::{check_save_target, SaveOptions};
use crate::mandelbrot::deep::{DeepError, DeepLocation};
use crate::mandelbrot::{View, MAX_DWELL_16_BIT, MAX_DWELL_LIMIT};
use crate::pipeline::{render_mandelbrot_headless, MandelbrotSettings};

/// The exact location from `--center` and `--span` (decimal strings of any depth).
fn location(args: &MandelbrotArgs) -> Result<DeepLocation, CliError> {
    DeepLocation::parse(&args.center, &args.span).map_err(|e| match e {
        DeepError::Span(_) => CliError::usage(e.to_string()),
        _ => CliError::usage(format!(
            "--center {} / --span {}: {e}",
            args.center, args.span
        )),
    })
}

fn validate(args: &MandelbrotArgs) -> Result<(), CliError> {
    if args.width == 0 || args.height == 0 || args.width > 32768 || args.height > 32768 {
        return Err(CliError::usage(format!(
            "size {}×{}: width and height must be 1..=32768",
            args.width, args.height
        )));
    }
    let limit = if args.dwell {
        MAX_DWELL_16_BIT
    } else {
        MAX_DWELL_LIMIT
    };
    if args.max_dwell == 0 || args.max_dwell > limit {
        let why = if args.dwell {
            " (a 16-bit dwell PNG)"
        } else {
            ""
        };
        return Err(CliError::usage(format!(
            "max dwell {}: must be 1..={limit}{why}",
            args.max_dwell
        )));
    }
    Ok(())
}

pub fn run(args: &MandelbrotArgs) -> Result<(), CliError> {
    validate(args)?;
    let location = location(args)?;
    let options = SaveOptions {
        overwrite: args.force,
        protected: Vec::new(),
    };
    check_save_target(&args.output, &options)?;
    if !args
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"))
    {
        return Err(CliError::usage(format!(
            "{}: the Mandelbrot output is PNG (.png)",
            args.output.display()
        )));
    }
    let mut settings = MandelbrotSettings {
        view: View {
            width: args.width,
            height: args.height,
            max_dwell: args.max_dwell,
            ..View::default()
        },
        mode: args.mode,
        precision: args.precision,
        palette: args.palette,
        ..MandelbrotSettings::default()
    };
    settings.set_location(location);
    let out = render_mandelbrot_headless(&settings, args.backend, args.dwell)?;
    match (out.dwells, out.image) {
        (Some(d), _) => {
            let gray = d
                .to_gray16()
                .ok_or_else(|| CliError::internal("dwell buffer size mismatch"))?;
            crate::image_io::save_dynamic(
                &image::DynamicImage::ImageLuma16(gray),
                &args.output,
                &options,
            )?
        }
        (None, Some(img)) => crate::image_io::save_image(&img, &args.output, &options)?,
        (None, None) => return Err(CliError::internal("renderer returned nothing")),
    }
    eprintln!(
        "{} ({}×{}, {:?}, {} backend, precision {:?}, dwell {:.2} ms)",
        args.output.display(),
        args.width,
        args.height,
        args.mode,
        out.status.kind,
        out.frame.precision,
        out.frame.dwell_ms()
    );
    Ok(())
}
