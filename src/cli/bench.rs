//! `cudalens bench`: per-stage medians over many runs after warm-up (CUDA events on the
//! GPU, wall clock on the CPU), effective bandwidth as a fraction of the device's measured
//! device-to-device copy bandwidth, and the Mandelbrot modes side by side.

use super::{BenchArgs, CliError};
use crate::gl::{GlTexture, HeadlessGl};
use crate::ops::Filter;
use crate::pipeline::{BackendKind, FrameRunner, StageTime};
use std::collections::BTreeMap;

const WARM_UP: usize = 3;

fn cases() -> Vec<(&'static str, Vec<Filter>)> {
    vec![
        ("copy + histogram", vec![]),
        ("sobel", vec![Filter::Sobel { scale: 1.0 }]),
        ("box r=5", vec![Filter::Box { radius: 5 }]),
        ("box r=64", vec![Filter::Box { radius: 64 }]),
        ("gaussian σ=2 (r=6)", vec![Filter::gaussian(2.0)]),
        ("gaussian σ=16 (r=48)", vec![Filter::gaussian(16.0)]),
        ("transpose", vec![Filter::Transpose]),
    ]
}

pub(super) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Medians per stage name over runs of `run`.
pub(super) fn stage_medians(
    runs: usize,
    mut run: impl FnMut() -> Result<Vec<StageTime>, CliError>,
) -> Result<BTreeMap<String, f64>, CliError> {
    for _ in 0..WARM_UP {
        run()?;
    }
    let mut samples: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for _ in 0..runs.max(1) {
        for s in run()? {
            samples.entry(s.name).or_default().push(s.ms);
        }
    }
    Ok(samples.into_iter().map(|(k, v)| (k, median(v))).collect())
}

pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    let (w, h) = args.size;
    let image = crate::ops::random_image(w, h, 42);
    let gl =
        HeadlessGl::new().map_err(|e| CliError::usage(format!("bench needs OpenGL (EGL): {e}")))?;
    let gl = &gl.gl;
    let source = GlTexture::new(gl, w, h, Some(image.as_raw())).map_err(CliError::internal)?;
    let mut runner = FrameRunner::new(gl, args.backend, w, h)?;
    let backend = runner.status.kind;
    println!("backend: {} — {}", backend, runner.status.reason);
    let copy_gbps = match (backend, runner.cuda_device()) {
        (BackendKind::Cuda, Some(d)) => Some(median(
            crate::cuda::copy_bandwidth_samples(d).map_err(CliError::internal)?,
        )),
        _ => None,
    };
    if let Some(bw) = copy_gbps {
        println!("device copy bandwidth (cuMemcpyDtoD, read + write): {bw:.0} GB/s");
    }
    println!(
        "image {w}×{h}, {} runs after {WARM_UP} warm-up, medians in ms",
        args.runs
    );
    let pixel_bytes = 8.0 * f64::from(w) * f64::from(h); // read RGBA8 once + write once
    let mut json = serde_json::Map::new();
    for (name, filters) in cases() {
        let medians = stage_medians(args.runs, || {
            runner
                .run(gl, &source, &image, &filters)
                .map(|r| r.stages)
                .map_err(CliError::from)
        })?;
        let kernel_ms: f64 = filters
            .first()
            .and_then(|f| medians.get(f.name()))
            .copied()
            .unwrap_or(f64::NAN);
        let total: f64 = medians.values().sum();
        let line: Vec<String> = medians.iter().map(|(k, v)| format!("{k} {v:.3}")).collect();
        let bandwidth = if filters.is_empty() {
            None
        } else {
            Some(pixel_bytes / (kernel_ms * 1e-3) / 1e9)
        };
        let fraction = bandwidth.zip(copy_gbps).map(|(b, c)| b / c);
        println!(
            "{name:<22} total {total:>8.3} | {}{}",
            line.join(", "),
            match (bandwidth, fraction) {
                (Some(b), Some(f)) =>
                    format!(" | effective {b:.0} GB/s = {:.0}% of copy", f * 100.0),
                (Some(b), None) => format!(" | effective {b:.1} GB/s"),
                _ => String::new(),
            }
        );
        json.insert(name.into(), serde_json::json!({ "stages_ms": medians, "total_ms": total, "effective_gbps": bandwidth, "fraction_of_copy": fraction }));
    }
    runner.destroy(gl);
    source.destroy(gl);
    if args.mandelbrot || args.ms_sweep {
        json.insert("mandelbrot".into(), super::bench_mandelbrot::run(gl, args)?);
    }
    if let Some(path) = &args.json {
        let doc = serde_json::json!({ "backend": backend.to_string(), "size": [w, h], "copy_gbps": copy_gbps, "cases": json });
        std::fs::write(path, doc.to_string()).map_err(CliError::internal)?;
    }
    Ok(())
}
