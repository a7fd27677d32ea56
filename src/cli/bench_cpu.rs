//! `cudalens bench --backend cpu`: the CPU reference functions timed directly (no GL), on
//! the operations of the OpenCV comparison (`scripts/bench/opencv_cpu.py` runs OpenCV on
//! the same sizes and reads `--json`). Wall-clock medians after warm-up, on rayon's pool
//! (`RAYON_NUM_THREADS` sets its size).

use super::bench::{median, WARM_UP};
use super::{BenchArgs, CliError};
use crate::ops::{cpu, Filter};
use image::RgbaImage;
use std::time::Instant;

/// One timed operation: a stable id (the JSON key the OpenCV script matches), a label.
struct CpuCase {
    id: &'static str,
    label: &'static str,
    run: Box<dyn Fn(&RgbaImage)>,
}

fn filter_case(id: &'static str, label: &'static str, filter: Filter) -> CpuCase {
    CpuCase {
        id,
        label,
        run: Box::new(move |img: &RgbaImage| drop(cpu::apply_filter(img, &filter))),
    }
}

fn cases() -> Vec<CpuCase> {
    vec![
        filter_case("box_r5", "box r=5", Filter::Box { radius: 5 }),
        filter_case("box_r64", "box r=64", Filter::Box { radius: 64 }),
        filter_case("gaussian_s2", "gaussian σ=2", Filter::gaussian(2.0)),
        filter_case("gaussian_s16", "gaussian σ=16", Filter::gaussian(16.0)),
        filter_case("sobel", "sobel (luma magnitude)", Filter::Sobel { scale: 1.0 }),
        filter_case("transpose", "transpose", Filter::Transpose),
        CpuCase {
            id: "histogram",
            label: "histogram, 4 channels",
            run: Box::new(|img: &RgbaImage| drop(cpu::histogram(img))),
        },
    ]
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
    let (w, h) = args.size;
    let image = crate::ops::random_image(w, h, 42);
    let threads = rayon::current_num_threads();
    println!("backend: CPU — {threads} rayon threads (RAYON_NUM_THREADS)");
    println!(
        "image {w}×{h} RGBA8, {} runs after {WARM_UP} warm-up, medians",
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
            "backend": "CPU", "threads": threads, "size": [w, h], "runs": args.runs, "ops": ops,
        });
        std::fs::write(path, doc.to_string()).map_err(CliError::internal)?;
    }
    Ok(())
}
