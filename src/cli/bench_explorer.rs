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
        println!(
            "mandelbrot: the explorer frame is a GPU benchmark; on the CPU backend, its recolour"
        );
        renderer.destroy(gl);
        return Ok(json!({ "recolour_cpu": cpu_recolour(gl)? }));
    }
    let result = explorer_frame(gl, &mut renderer);
    renderer.destroy(gl);
    Ok(json!({ "explorer_frame": result? }))
}

/// The explorer's recolour on the CPU backend (a change of palette, density, offset or
/// smooth colour with the view kept): the kept dwells of a 1920×1080 view coloured and
/// uploaded into a texture, GL finished; medians of 30 after 3 of warm-up, per colouring.
fn cpu_recolour(gl: &glow::Context) -> Result<Value, CliError> {
    use glow::HasContext;
    let mut s = MandelbrotSettings {
        view: explorer_view(),
        ..MandelbrotSettings::default()
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let control = crate::pipeline::RenderControl::cancel_only(&never);
    let (_, _, dwells) = crate::pipeline::cpu_picture_keeping_dwells(&s, control);
    let mut texture = crate::gl::GlTexture::new(gl, s.view.width, s.view.height, None)
        .map_err(CliError::internal)?;
    let mut out = Vec::new();
    for smooth in [false, true] {
        s.coloring.smooth = smooth;
        let (mut colour, mut total) = (Vec::new(), Vec::new());
        for run in 0..33 {
            let start = std::time::Instant::now();
            let image = s.coloring.colorize(&dwells, s.view.max_dwell);
            let coloured = start.elapsed().as_secs_f64() * 1e3;
            let uploaded = texture.upload(gl, &image);
            // SAFETY: a plain GL call on this thread's current context.
            unsafe { gl.finish() };
            if let Err(e) = uploaded {
                texture.destroy(gl);
                return Err(CliError::internal(e));
            }
            if run >= 3 {
                colour.push(coloured);
                total.push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
        let (colour, total) = (median(colour), median(total));
        println!(
            "explorer recolour 1920×1080 (CPU backend, kept dwells), smooth {smooth}: {total:.2} ms (colour {colour:.2} ms + upload; medians of 30)"
        );
        out.push(json!({ "smooth": smooth, "total_ms": total, "colour_ms": colour }));
    }
    texture.destroy(gl);
    Ok(Value::Array(out))
}

/// The benchmark's view: 1920×1080, the whole set, max dwell 1024.
fn explorer_view() -> View {
    View {
        center: (-0.5, 0.0),
        span: 3.0,
        width: 1920,
        height: 1080,
        max_dwell: 1024,
        fractal: crate::mandelbrot::Fractal::Mandelbrot,
    }
}

/// The explorer's frame at 1920×1080, whole set, max dwell 1024, in both modes and both
/// colourings, and the median of each GPU stage (dwells, the hand-over to CUDA, colour, the
/// hand-back); twice: with GL finished after every frame (wall time per frame, the GPU idle
/// when the next one starts), and back to back as a frame loop runs (GL finished once at the
/// end; wall time per frame = total / frames), as the filter benchmark times its frames.
pub fn explorer_frame(gl: &glow::Context, r: &mut MandelbrotRenderer) -> Result<Value, CliError> {
    let view = explorer_view();
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
        // Each frame computes its dwells (a repeated view would only be recoloured).
        r.forget_dwells();
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
