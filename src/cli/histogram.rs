//! `cudalens histogram`: each channel's histogram (any bin count over a chosen or the
//! data's range) and its statistics, as a table or as JSON.

use super::{CliError, HistogramArgs};
use crate::image_io::load_image;
use crate::ops::histogram::{
    document_of, histogram_of_value_counts, integer_value_counts, ranged_histogram, resolve_range,
    HistogramOptions, RangedHistogram,
};
use crate::pipeline::process_headless;
use crate::pixels::{PixelImage, SampleType};

pub fn run(args: &HistogramArgs) -> Result<(), CliError> {
    if args.per_frame && !args.json {
        return Err(CliError::usage(
            "--per-frame lists each frame's histogram in the JSON: it needs --json",
        ));
    }
    if crate::video::is_video_path(&args.input) {
        return video(args);
    }
    if args.per_frame {
        return Err(CliError::usage(format!(
            "--per-frame is for videos, and {} is a still",
            args.input.display()
        )));
    }
    let image = load_image(&args.input)?.pixels;
    // An 8-bit image runs the frame on the requested backend, whose bins are these counts;
    // other types are counted here, from their own samples.
    let counted_by = if image.sample_type() == SampleType::U8 {
        let rgba = image.clone().into_rgba8();
        let out = process_headless(&rgba, &[], args.backend, args.interop)?;
        format!("{} backend", out.status.kind)
    } else {
        "counted on the CPU".to_string()
    };
    let options = HistogramOptions {
        bins: args.bins,
        range: args.range,
    };
    let h = histogram_of(&image, &options)?;
    if args.json {
        println!("{}", document_of(&h));
        return Ok(());
    }
    println!(
        "{}: {}×{} {} ({counted_by})",
        args.input.display(),
        h.width,
        h.height,
        image.describe(),
    );
    print!("{}", table(&h));
    Ok(())
}

/// Every frame of a video counted (on the CPU): the histogram of all their pixels, and
/// with `--per-frame` each frame's. Frames are decoded as `apply` decodes them (NVDEC on
/// CUDA with external memory, else ffmpeg) and read back through the identity frame.
fn video(args: &HistogramArgs) -> Result<(), CliError> {
    let options = HistogramOptions {
        bins: args.bins,
        range: args.range,
    };
    // The options are checked once, before any frame is decoded (frames are 8-bit).
    resolve_range(SampleType::U8, &options, None).map_err(|e| CliError::usage(e.to_string()))?;
    let mut video = crate::video::VideoFile::open(&args.input)?;
    let size = (video.info.width, video.info.height);
    let histogram_of_counts = |counts: &[Vec<u64>]| {
        histogram_of_value_counts(SampleType::U8, 4, size, counts, &options)
            .map_err(|e| CliError::usage(e.to_string()))
    };
    let mut sum: Option<Vec<Vec<u64>>> = None;
    let (mut frames, mut per_frame) = (0u64, Vec::new());
    let decoder = crate::pipeline::process_video_headless(
        &mut video,
        &[],
        args.backend,
        args.interop,
        |out| {
            // Each frame counted once: its own histogram (--per-frame) and the sum.
            let counts = integer_value_counts(&PixelImage::from_rgba8(out.image))
                .ok_or_else(|| CliError::internal("a video frame is not an integer image"))?;
            if args.per_frame {
                per_frame.push(document_of(&histogram_of_counts(&counts)?));
            }
            match &mut sum {
                None => sum = Some(counts),
                Some(sum) => {
                    for (x, y) in sum.iter_mut().zip(&counts) {
                        x.iter_mut().zip(y).for_each(|(x, y)| *x += y);
                    }
                }
            }
            frames += 1;
            Ok::<(), CliError>(())
        },
    )?;
    let sum = sum.ok_or_else(|| CliError::internal("a video without frames"))?;
    let h = histogram_of_counts(&sum)?;
    if args.json {
        let mut doc = document_of(&h);
        doc["frames"] = frames.into();
        if args.per_frame {
            doc["per_frame"] = per_frame.into();
        }
        println!("{doc}");
        return Ok(());
    }
    println!(
        "{}: {frames} frames of {}×{} (8-bit RGB, decoded by {decoder}, counted on the CPU)",
        args.input.display(),
        h.width,
        h.height
    );
    print!("{}", table(&h));
    Ok(())
}

/// The ranged histogram of `image`; bad options are usage errors.
pub fn histogram_of(
    image: &PixelImage,
    options: &HistogramOptions,
) -> Result<RangedHistogram, CliError> {
    ranged_histogram(image, options).map_err(|e| CliError::usage(e.to_string()))
}

/// A value in the image's units: whole for integer images.
fn unit_text(v: f64, sample_type: SampleType) -> String {
    match sample_type {
        _ if v.is_nan() => "-".to_string(),
        SampleType::F32 => format!("{v:.6}"),
        _ => format!("{v:.0}"),
    }
}

/// The statistics table, one line per channel, with the range and counts kept apart.
pub fn table(h: &RangedHistogram) -> String {
    let t = h.sample_type;
    let mut text = format!(
        "{} bins over [{}, {}]\n{:<6} {:>10} {:>10} {:>10} {:>12} {:>10} {:>12} {:>8} {:>8} {:>8}\n",
        h.range.bins(),
        h.range.lo(),
        h.range.hi(),
        "",
        "count",
        "min",
        "max",
        "mean",
        "median",
        "std dev",
        "below",
        "above",
        "NaN"
    );
    for c in &h.channels {
        let s = &c.stats;
        text.push_str(&format!(
            "{:<6} {:>10} {:>10} {:>10} {:>12.4} {:>10} {:>12.4} {:>8} {:>8} {:>8}\n",
            c.name,
            s.count,
            unit_text(s.min, t),
            unit_text(s.max, t),
            s.mean,
            unit_text(s.median, t),
            s.std_dev,
            c.below,
            c.above,
            c.nan
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_every_channel() {
        let image = PixelImage::from_rgba8(crate::ops::random_image(8, 8, 2));
        let h = histogram_of(&image, &HistogramOptions::default()).expect("defaults");
        let text = table(&h);
        for name in ["r", "g", "b", "luma", "median", "below"] {
            assert!(text.contains(name), "{text}");
        }
    }
}
