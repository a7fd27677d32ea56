//! `cudalens bench --handover-probe`: where the explorer's GPU-side hand-over wait comes
//! from (issue 10). The filter frame's hand-over through the same kind of semaphores costs
//! 2 µs on the H200, the explorer's 0.16 ms, with the GPU idle before both. One process
//! runs filter frames and explorer frames in turn, sharing one CUDA context and one
//! interop path as the app does, so that each phase's "interop in" and "interop out" tell
//! whether the wait follows the explorer's work, its display texture's size, or state the
//! context keeps once the dwell kernels (dynamic parallelism) have run.

use super::bench::stage_medians;
use super::bench_mandelbrot::explorer_frames;
use super::{BenchArgs, CliError};
use crate::filters::Filter;
use crate::gl::GlTexture;
use crate::mandelbrot::{MandelbrotSettings, Mode, Precision, View};
use crate::pipeline::{FrameRunner, MandelbrotRenderer};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// One step of the probe, in the order run.
enum Phase {
    /// A filter frame at the bench size with this stack (empty: the copy).
    Filter(&'static str, &'static [&'static str]),
    /// Explorer frames (GL finished after each) of the whole set.
    Explorer {
        label: &'static str,
        mode: Mode,
        size: (u32, u32),
        max_dwell: u32,
    },
}

/// An explorer phase: whole set, centre (−0.5, 0), span 3.
const fn explorer(label: &'static str, mode: Mode, size: (u32, u32), max_dwell: u32) -> Phase {
    Phase::Explorer {
        label,
        mode,
        size,
        max_dwell,
    }
}

const FULL_HD: (u32, u32) = (1920, 1080);

const PHASES: &[Phase] = &[
    Phase::Filter("filter: copy", &[]),
    Phase::Filter(
        "filter: gaussian σ=16 (GPU busy 1 ms)",
        &["gaussian:sigma=16"],
    ),
    explorer(
        "explorer: per-pixel 1920×1080, max dwell 1024",
        Mode::PerPixel,
        FULL_HD,
        1024,
    ),
    explorer(
        "explorer: per-pixel 64×64, max dwell 1024 (small texture)",
        Mode::PerPixel,
        (64, 64),
        1024,
    ),
    explorer(
        "explorer: per-pixel 1920×1080, max dwell 16 (little work)",
        Mode::PerPixel,
        FULL_HD,
        16,
    ),
    Phase::Filter("filter: copy, after per-pixel dwells", &[]),
    explorer(
        "explorer: Mariani–Silver 1920×1080, max dwell 1024 (child grids)",
        Mode::MarianiSilver,
        FULL_HD,
        1024,
    ),
    Phase::Filter("filter: copy, after Mariani–Silver", &[]),
    explorer(
        "explorer: per-pixel 1920×1080, max dwell 1024, again",
        Mode::PerPixel,
        FULL_HD,
        1024,
    ),
];

fn explorer_settings(mode: Mode, size: (u32, u32), max_dwell: u32) -> MandelbrotSettings {
    MandelbrotSettings {
        view: View {
            center: (-0.5, 0.0),
            span: 3.0,
            width: size.0,
            height: size.1,
            max_dwell,
        },
        mode,
        precision: Precision::Auto,
        ..MandelbrotSettings::default()
    }
}

/// The hand-over stages of one phase, for the line and the JSON.
fn handover_line(label: &str, stages: &BTreeMap<String, f64>) -> String {
    let get = |k: &str| stages.get(k).copied().unwrap_or(f64::NAN);
    format!(
        "{label:<66} interop in {:.3} (CPU {:.3}), out {:.3} (CPU {:.3}) ms",
        get("interop in"),
        get("interop in (CPU)"),
        get("interop out"),
        get("interop out (CPU)"),
    )
}

/// Runs the phases with `runner`'s CUDA context and interop path shared by the explorer.
pub fn run(gl: &glow::Context, args: &BenchArgs) -> Result<Value, CliError> {
    let (w, h) = args.size;
    let image = crate::ops::random_image(w, h, 42);
    let source = GlTexture::new(gl, w, h, Some(image.as_raw())).map_err(CliError::internal)?;
    let mut runner = FrameRunner::new(gl, args.backend, args.interop, w, h)?;
    let share = runner.cuda_share();
    let mut explorer = match MandelbrotRenderer::new(gl, args.backend, share, args.interop) {
        Ok(r) => r,
        Err(e) => {
            runner.destroy(gl);
            source.destroy(gl);
            return Err(e.into());
        }
    };
    println!(
        "hand-over probe at {w}×{h}, interop {}: GPU stages, medians of {} (explorer: 30)",
        runner
            .interop
            .as_ref()
            .map_or("none".into(), |i| i.to_string()),
        args.runs
    );
    let mut out = Vec::new();
    let mut result = Ok(());
    for phase in PHASES {
        let measured = match phase {
            Phase::Filter(label, specs) => specs
                .iter()
                .map(|s| {
                    s.parse::<Filter>()
                        .map_err(|e| CliError::usage(e.to_string()))
                })
                .collect::<Result<Vec<_>, _>>()
                .and_then(|filters| {
                    stage_medians(args.runs, || {
                        runner
                            .run(gl, &source, &image, &filters)
                            .map(|r| r.stages)
                            .map_err(CliError::from)
                    })
                })
                .map(|stages| (*label, stages)),
            Phase::Explorer {
                label,
                mode,
                size,
                max_dwell,
            } => explorer_frames(
                gl,
                &mut explorer,
                &explorer_settings(*mode, *size, *max_dwell),
                true,
            )
            .map(|(_, stages)| (*label, stages)),
        };
        match measured {
            Ok((label, stages)) => {
                println!("{}", handover_line(label, &stages));
                out.push(json!({ "phase": label, "stages_ms": stages }));
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    explorer.destroy(gl);
    runner.destroy(gl);
    source.destroy(gl);
    result.map(|()| Value::Array(out))
}
