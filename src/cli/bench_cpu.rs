//! `cudalens bench --backend cpu`: the CPU reference functions timed directly (no GL), on
//! the operations of the OpenCV comparison (`scripts/bench/opencv_cpu.py` runs OpenCV on
//! the same sizes and reads `--json`). Wall-clock medians after warm-up, on rayon's pool
//! (`RAYON_NUM_THREADS` sets its size).

use super::args::BenchSampleType;
use super::{BenchArgs, CliError};
use crate::bench_stats::{median, WARM_UP};
use crate::filters::Filter;
use crate::ops::cpu;
use crate::ops::histogram::{ranged_histogram, HistogramOptions};
use crate::pixels::{PixelImage, SampleType};
use image::RgbaImage;
use std::time::Instant;

/// The bench's image: RGBA8 for the fast paths, or RGBA in another sample type.
enum BenchImage {
    Rgba8(RgbaImage),
    Typed(PixelImage),
}

/// One timed operation: a stable id (the JSON key the OpenCV script matches), a label.
struct CpuCase {
    id: &'static str,
    label: &'static str,
    run: Box<dyn Fn(&BenchImage)>,
}

fn filter_case(id: &'static str, label: &'static str, spec: &str) -> Option<CpuCase> {
    let filter: Filter = spec
        .parse()
        .map_err(|e| log::error!("CPU bench case '{spec}' does not parse: {e}"))
        .ok()?;
    Some(CpuCase {
        id,
        label,
        run: Box::new(move |img: &BenchImage| match img {
            BenchImage::Rgba8(i) => {
                std::hint::black_box(filter.apply_cpu(i));
            }
            BenchImage::Typed(i) => {
                std::hint::black_box(filter.apply_cpu_typed(i));
            }
        }),
    })
}

/// The operations of the OpenCV comparison (ids matched by scripts/bench/opencv_cpu.py).
fn cases() -> Vec<CpuCase> {
    let filters = [
        ("box_r5", "box r=5", "box:radius=5"),
        ("box_r64", "box r=64", "box:radius=64"),
        ("gaussian_s2", "gaussian σ=2", "gaussian:sigma=2"),
        ("gaussian_s16", "gaussian σ=16", "gaussian:sigma=16"),
        ("sobel", "sobel (luma magnitude)", "sobel"),
        ("transpose", "transpose", "transpose"),
        ("median_r1", "median r=1", "median:radius=1"),
        ("median_r2", "median r=2", "median:radius=2"),
    ];
    let histogram = CpuCase {
        id: "histogram",
        label: "histogram, 4 channels",
        run: Box::new(|img: &BenchImage| match img {
            BenchImage::Rgba8(i) => {
                std::hint::black_box(cpu::histogram(i));
            }
            BenchImage::Typed(i) => {
                std::hint::black_box(ranged_histogram(i, &HistogramOptions::default()).ok());
            }
        }),
    };
    filters
        .into_iter()
        .filter_map(|(id, label, spec)| filter_case(id, label, spec))
        .chain(std::iter::once(histogram))
        .collect()
}

/// Wall-clock samples of `runs` calls after the warm-up, in ms.
fn samples(runs: usize, run: impl Fn()) -> Vec<f64> {
    (0..WARM_UP).for_each(|_| run());
    (0..runs.max(1))
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect()
}

pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    if !args.filters.is_empty() {
        return Err(CliError::usage(
            "bench --filter times a stack on the GPU; the CPU bench (--backend cpu) times its fixed table of operations",
        ));
    }
    super::bench::check_bench_host(args)?;
    let (w, h) = args.size;
    let rgba = crate::ops::random_image(w, h, 42);
    let (image, type_name) = match args.sample_type {
        BenchSampleType::U8 => (BenchImage::Rgba8(rgba), "RGBA8"),
        BenchSampleType::U16 => (
            BenchImage::Typed(PixelImage::from_rgba8(rgba).to_type(SampleType::U16)),
            "RGBA 16-bit",
        ),
        BenchSampleType::F32 => (
            BenchImage::Typed(PixelImage::from_rgba8(rgba).to_type(SampleType::F32)),
            "RGBA float",
        ),
    };
    let threads = rayon::current_num_threads();
    println!("backend: CPU — {threads} rayon threads (RAYON_NUM_THREADS)");
    println!(
        "image {w}×{h} {type_name}, {} runs after {WARM_UP} warm-up, medians",
        args.runs
    );
    println!("| op | cudalens CPU |\n|---|---|");
    let mut ops = serde_json::Map::new();
    for case in cases() {
        let times = samples(args.runs, || (case.run)(&image));
        let ms = median(times.clone());
        println!("| {} | {ms:.2} ms |", case.label);
        ops.insert(
            case.id.into(),
            serde_json::json!({ "label": case.label, "median_ms": ms, "samples_ms": times }),
        );
    }
    if let Some(path) = &args.json {
        let doc = serde_json::json!({
            "backend": "CPU", "threads": threads, "size": [w, h], "runs": args.runs,
            "type": type_name, "ops": ops,
        });
        std::fs::write(path, doc.to_string()).map_err(CliError::internal)?;
    }
    Ok(())
}
