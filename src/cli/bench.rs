//! `cudalens bench`: per-stage medians over many runs after warm-up (CUDA events on the
//! GPU, wall clock on the CPU), effective bandwidth as a fraction of the device's measured
//! device-to-device copy bandwidth, and the Mandelbrot modes side by side.

use super::{BenchArgs, CliError};
use crate::cuda::tiles::{MsTuning, MS_TUNING};
use crate::gl::{GlTexture, HeadlessGl};
use crate::mandelbrot::{Mode, Precision, View};
use crate::ops::Filter;
use crate::pipeline::{
    BackendKind, FrameRunner, MandelbrotRenderer, MandelbrotSettings, StageTime,
};
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
fn stage_medians(
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
    if args.deep {
        json.insert("deep".into(), super::bench_deep::bench_deep(gl, args.runs)?);
    }
    if args.mandelbrot || args.ms_sweep {
        json.insert("mandelbrot".into(), bench_mandelbrot(gl, args)?);
    }
    if let Some(path) = &args.json {
        let doc = serde_json::json!({ "backend": backend.to_string(), "size": [w, h], "copy_gbps": copy_gbps, "cases": json });
        std::fs::write(path, doc.to_string()).map_err(CliError::internal)?;
    }
    Ok(())
}

/// The four benchmark points of the explorer issue: 4096² and 16384², max dwell 512 and 2048.
const MANDEL_POINTS: [(u32, u32); 4] = [(4096, 512), (4096, 2048), (16384, 512), (16384, 2048)];

fn mandel_settings(size: u32, max_dwell: u32, mode: Mode, tuning: MsTuning) -> MandelbrotSettings {
    MandelbrotSettings {
        view: View {
            center: (-0.5, 0.0),
            span: 2.0,
            width: size,
            height: size,
            max_dwell,
        },
        mode,
        precision: Precision::Auto,
        tuning,
        ..MandelbrotSettings::default()
    }
}

/// Median dwell time of one configuration.
fn time_mandel(
    renderer: &mut MandelbrotRenderer,
    s: &MandelbrotSettings,
    runs: usize,
) -> Result<f64, CliError> {
    stage_medians(runs, || renderer.time_dwells(s).map_err(CliError::from))
        .map(|m| m.get("dwell").copied().unwrap_or(f64::NAN))
}

fn bench_mandelbrot(gl: &glow::Context, args: &BenchArgs) -> Result<serde_json::Value, CliError> {
    let mut renderer = MandelbrotRenderer::new(gl, args.backend, None)?;
    if renderer.status.kind != BackendKind::Cuda {
        println!("mandelbrot: skipped on the CPU backend (sizes up to 16384² are a GPU benchmark)");
        renderer.destroy(gl);
        return Ok(serde_json::Value::Null);
    }
    println!("mandelbrot dwell kernels, centre (-0.5, 0), span 2.0, f32 (auto), medians in ms:");
    let runs_for = |size: u32| if size > 8192 { 5 } else { args.runs.min(15) };
    let mut per_pixel = Vec::new();
    let mut out = Vec::new();
    for (size, max_dwell) in MANDEL_POINTS {
        let pp = time_mandel(
            &mut renderer,
            &mandel_settings(size, max_dwell, Mode::PerPixel, MS_TUNING),
            runs_for(size),
        )?;
        let ms = time_mandel(
            &mut renderer,
            &mandel_settings(size, max_dwell, Mode::MarianiSilver, MS_TUNING),
            runs_for(size),
        )?;
        println!("  {size}² max dwell {max_dwell:>5}: per-pixel {pp:>9.3}  Mariani–Silver {ms:>9.3}  speed-up {:.2}×", pp / ms);
        out.push(serde_json::json!({ "size": size, "max_dwell": max_dwell, "per_pixel_ms": pp, "mariani_silver_ms": ms, "speedup": pp / ms }));
        per_pixel.push(pp);
    }
    let mut result = serde_json::json!({ "tuned": out });
    if args.ms_sweep {
        result["sweep"] = ms_sweep(&mut renderer, &per_pixel)?;
    }
    renderer.destroy(gl);
    Ok(result)
}

/// Speed-ups over per-pixel for a grid of refinement parameters, best geometric mean first.
/// A configuration whose child launches fail (e.g. over the pending-launch limit) is
/// reported as failed, not timed.
fn ms_sweep(
    renderer: &mut MandelbrotRenderer,
    per_pixel: &[f64],
) -> Result<serde_json::Value, CliError> {
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for init_subdiv in [16, 32, 64] {
        for subdiv in [2, 4, 8] {
            for min_size in [8, 16, 32] {
                for launch_min_pixels in [4096, 16384, 65536] {
                    let tuning = MsTuning {
                        init_subdiv,
                        subdiv,
                        max_depth: 8,
                        min_size,
                        launch_min_pixels,
                    };
                    let mut speedups = Vec::new();
                    for (i, (size, max_dwell)) in MANDEL_POINTS.into_iter().enumerate() {
                        match time_mandel(
                            renderer,
                            &mandel_settings(size, max_dwell, Mode::MarianiSilver, tuning),
                            3,
                        ) {
                            Ok(ms) => speedups.push(per_pixel[i] / ms),
                            Err(e) => {
                                failed.push(format!("{tuning:?}: {}", e.message));
                                break;
                            }
                        }
                    }
                    if speedups.len() == MANDEL_POINTS.len() {
                        let geo =
                            speedups.iter().map(|s| s.ln()).sum::<f64>() / speedups.len() as f64;
                        rows.push((geo.exp(), tuning, speedups));
                    }
                }
            }
        }
    }
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("Mariani–Silver sweep (speed-up over per-pixel at 4096²/512, 4096²/2048, 16384²/512, 16384²/2048):");
    for (geo, t, s) in rows.iter().take(15) {
        println!(
            "  init {:>2} subdiv {} min {:>2} launch ≥{:>5} px: {:.2}× {:.2}× {:.2}× {:.2}×  (geo-mean {geo:.2}×)",
            t.init_subdiv, t.subdiv, t.min_size, t.launch_min_pixels, s[0], s[1], s[2], s[3]
        );
    }
    println!("  {} configurations failed", failed.len());
    for f in failed.iter().take(5) {
        println!("    {f}");
    }
    Ok(serde_json::json!({
        "results": rows.iter().map(|(geo, t, s)| serde_json::json!({ "tuning": format!("{t:?}"), "speedups": s, "geo_mean": geo })).collect::<Vec<_>>(),
        "failed": failed,
    }))
}
