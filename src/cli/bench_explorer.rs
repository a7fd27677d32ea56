//! `cudalens bench --mandelbrot`: the explorer's frame at 1920×1080 in both modes and
//! both colourings, wall time and GPU stages. Public for `cudalens-bench`, whose
//! Mandelbrot benches and hand-over probe time the same frames.

use super::{BenchArgs, CliError};
use crate::bench_stats::{median, stage_medians_of};
use crate::mandelbrot::{MandelbrotSettings, Mode, Precision, View};
use crate::pipeline::{BackendKind, MandelbrotRenderer};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The explorer frame on `args`'s backend and interop path (skipped without CUDA).
pub fn run(gl: &glow::Context, args: &BenchArgs) -> Result<Value, CliError> {
    let mut renderer = MandelbrotRenderer::new(gl, args.backend, None, args.interop)?;
    if renderer.status.kind != BackendKind::Cuda {
        println!("mandelbrot: skipped on the CPU backend (the explorer frame is a GPU benchmark)");
        renderer.destroy(gl);
        return Ok(Value::Null);
    }
    let result = explorer_frame(gl, &mut renderer);
    renderer.destroy(gl);
    Ok(json!({ "explorer_frame": result? }))
}

/// The explorer's frame at 1920×1080, whole set, max dwell 1024, in both modes and both
/// colourings, and the median of each GPU stage (dwells, the hand-over to CUDA, colour, the
/// hand-back); twice: with GL finished after every frame (wall time per frame, the GPU idle
/// when the next one starts), and back to back as a frame loop runs (GL finished once at the
/// end; wall time per frame = total / frames), as the filter benchmark times its frames.
pub fn explorer_frame(gl: &glow::Context, r: &mut MandelbrotRenderer) -> Result<Value, CliError> {
    let view = View {
        center: (-0.5, 0.0),
        span: 3.0,
        width: 1920,
        height: 1080,
        max_dwell: 1024,
        fractal: crate::mandelbrot::Fractal::Mandelbrot,
    };
    let interop = r.interop().map(|i| i.kind.to_string());
    let mut out = Vec::new();
    for mode in Mode::ALL {
        for smooth in [false, true] {
            for finish_each in [true, false] {
                let mut s = MandelbrotSettings {
                    view,
                    mode,
                    precision: Precision::Auto,
                    ..MandelbrotSettings::default()
                };
                s.coloring.smooth = smooth;
                let (wall, stages) = explorer_frames(gl, r, &s, finish_each)?;
                let parts: Vec<String> =
                    stages.iter().map(|(k, v)| format!("{k} {v:.3}")).collect();
                let timing = if finish_each {
                    "GL finished each frame"
                } else {
                    "back to back"
                };
                println!(
                    "explorer frame 1920×1080 whole set max dwell 1024, {mode:?}, smooth {smooth}, interop {}, {timing}: \
                     {wall:.3} ms wall; GPU stages (medians of 30, ms): {}",
                    interop.as_deref().unwrap_or("none"),
                    parts.join(", ")
                );
                out.push(json!({ "mode": format!("{mode:?}"), "smooth": smooth, "interop": interop, "finish_each_frame": finish_each, "wall_ms": wall, "gpu_stages_ms": stages }));
            }
        }
    }
    Ok(Value::Array(out))
}

/// 30 explorer frames of `s` after 3 of warm-up: the wall time per frame (median with GL
/// finished after each, else the mean of the back-to-back run) and the stage medians.
pub fn explorer_frames(
    gl: &glow::Context,
    r: &mut MandelbrotRenderer,
    s: &MandelbrotSettings,
    finish_each: bool,
) -> Result<(f64, BTreeMap<String, f64>), CliError> {
    use glow::HasContext;
    let (mut walls, mut frames) = (Vec::new(), Vec::new());
    let mut run_start = std::time::Instant::now();
    for i in 0..33 {
        if i == 3 {
            run_start = std::time::Instant::now();
        }
        let start = std::time::Instant::now();
        let frame = r.render(gl, s).map_err(CliError::from)?;
        if finish_each {
            // SAFETY: glFinish on the current context; no pointers involved.
            unsafe { gl.finish() };
        }
        if i >= 3 {
            walls.push(start.elapsed().as_secs_f64() * 1e3);
            frames.push(frame.stages);
        }
    }
    // SAFETY: as above.
    unsafe { gl.finish() };
    let wall = if finish_each {
        median(walls)
    } else {
        run_start.elapsed().as_secs_f64() * 1e3 / walls.len() as f64
    };
    Ok((wall, stage_medians_of(frames)))
}
