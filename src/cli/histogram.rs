//! `cudalens histogram`: the four histograms and their statistics.

use super::{CliError, HistogramArgs};
use crate::image_io::load_image;
use crate::ops::histogram::CHANNEL_NAMES;
use crate::pipeline::process_headless;

pub fn run(args: &HistogramArgs) -> Result<(), CliError> {
    let loaded = load_image(&args.input)?;
    let out = process_headless(&loaded.into_rgba8(), &[], args.backend, args.interop)?;
    let h = &out.report.histogram;
    if args.json {
        println!("{}", h.to_json());
        return Ok(());
    }
    println!(
        "{}: {}×{} ({} backend)",
        args.input.display(),
        h.width,
        h.height,
        out.status.kind
    );
    println!(
        "{:<6} {:>10} {:>4} {:>4} {:>8} {:>6} {:>8}",
        "", "count", "min", "max", "mean", "median", "std dev"
    );
    for (i, name) in CHANNEL_NAMES.iter().enumerate() {
        let s = h.stats(i);
        println!(
            "{:<6} {:>10} {:>4} {:>4} {:>8.2} {:>6} {:>8.2}",
            name, s.count, s.min, s.max, s.mean, s.median, s.std_dev
        );
    }
    Ok(())
}
