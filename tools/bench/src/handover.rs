//! `cudalens-bench --handover-probe`: where the explorer's GPU-side hand-over wait comes
//! from. The filter frame's hand-over through the same kind of semaphores costs 2 µs on the
//! H200, the explorer's was 0.16 ms, with the GPU idle before both. One process runs filter
//! frames and explorer frames in turn, sharing one CUDA context, stream and interop path as
//! the app does; each phase prints its "interop in" and "interop out". The wait sat in the
//! explorer's own frames (not its texture, work, mode or interop path), and came and went
//! with a 32-byte read into pageable memory after a filter frame and with finishing GL
//! between explorer frames (docs/design/interop.md).

use cudalens::bench_stats::stage_medians;
use cudalens::cli::bench::bench_frame;
use cudalens::cli::bench_explorer::explorer_frames;
use cudalens::cli::{BenchArgs, CliError};
use cudalens::gl::GlTexture;
use cudalens::mandelbrot::{Fractal, MandelbrotSettings, Mode, Precision, View};
use cudalens::pipeline::{BackendKind, FrameRunner, MandelbrotRenderer};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// One step of the probe, in the order run.
struct Phase {
    label: &'static str,
    work: Work,
}

enum Work {
    /// Filter frames (the copy) at the bench size; with `pageable_read`, each followed by a
    /// 32-byte copy from the device into pageable host memory on the frame's stream.
    Filter { pageable_read: bool },
    /// Explorer frames of the whole set at max dwell 1024, GL finished after each unless
    /// `back_to_back`.
    Explorer {
        mode: Mode,
        size: (u32, u32),
        overlay: bool,
        back_to_back: bool,
    },
}

const fn filter(label: &'static str, pageable_read: bool) -> Phase {
    Phase {
        label,
        work: Work::Filter { pageable_read },
    }
}

/// An explorer phase (`mode`, size, overlay, back to back).
const fn explorer(
    label: &'static str,
    mode: Mode,
    size: (u32, u32),
    overlay: bool,
    back_to_back: bool,
) -> Phase {
    Phase {
        label,
        work: Work::Explorer {
            mode,
            size,
            overlay,
            back_to_back,
        },
    }
}

const PP: Mode = Mode::PerPixel;
const MS: Mode = Mode::MarianiSilver;
const FULL_HD: (u32, u32) = (1920, 1080);

const PHASES: &[Phase] = &[
    filter("filter: copy", false),
    filter("filter: copy, then 32 B into pageable memory", true),
    explorer("explorer: per-pixel", PP, FULL_HD, false, false),
    explorer(
        "explorer: per-pixel, back to back",
        PP,
        FULL_HD,
        false,
        true,
    ),
    explorer("explorer: per-pixel 64×64", PP, (64, 64), false, false),
    explorer("explorer: Mariani–Silver", MS, FULL_HD, false, false),
    explorer(
        "explorer: Mariani–Silver, overlay",
        MS,
        FULL_HD,
        true,
        false,
    ),
    filter("filter: copy, after the explorer", false),
];

fn explorer_settings(mode: Mode, size: (u32, u32), overlay: bool) -> MandelbrotSettings {
    MandelbrotSettings {
        view: View {
            center: (-0.5, 0.0),
            span: 3.0,
            width: size.0,
            height: size.1,
            max_dwell: 1024,
            fractal: Fractal::Mandelbrot,
        },
        mode,
        precision: Precision::Auto,
        overlay,
        ..MandelbrotSettings::default()
    }
}

/// The hand-over stages of one phase, for the line and the JSON.
fn handover_line(label: &str, stages: &BTreeMap<String, f64>) -> String {
    let get = |k: &str| stages.get(k).copied().unwrap_or(f64::NAN);
    format!(
        "{label:<48} interop in {:.3} (CPU {:.3}), out {:.3} (CPU {:.3}), wall {:.3} ms",
        get("interop in"),
        get("interop in (CPU)"),
        get("interop out"),
        get("interop out (CPU)"),
        get("wall clock"),
    )
}

/// Why the probe refuses the CPU backend.
pub const NEEDS_CUDA: &str =
    "--handover-probe times the hand-over between OpenGL and CUDA: it needs the CUDA backend";

/// Runs the phases with `runner`'s CUDA context and interop path shared by the explorer.
pub fn run(gl: &glow::Context, args: &BenchArgs) -> Result<Value, CliError> {
    let (w, h) = args.size;
    let (image, source, mut runner) = bench_frame(gl, args)?;
    if runner.status.kind != BackendKind::Cuda {
        let why = format!("{NEEDS_CUDA} ({})", runner.status.reason);
        runner.destroy(gl);
        source.destroy(gl);
        return Err(CliError::usage(why));
    }
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
        let measured = match phase.work {
            Work::Filter { pageable_read } => {
                filter_frames(gl, &mut runner, &source, &image, args.runs, pageable_read)
            }
            Work::Explorer {
                mode,
                size,
                overlay,
                back_to_back,
            } => explorer_frames(
                gl,
                &mut explorer,
                &explorer_settings(mode, size, overlay),
                !back_to_back,
            )
            .map(|(wall, mut stages)| {
                stages.insert("wall clock".into(), wall);
                stages
            }),
        }
        .map(|stages| (phase.label, stages));
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

/// The copy's filter frames (stage medians over `runs`), each followed by a small read into
/// pageable host memory on the frame's stream when `pageable_read` is set.
fn filter_frames(
    gl: &glow::Context,
    runner: &mut FrameRunner,
    source: &GlTexture,
    image: &image::RgbaImage,
    runs: usize,
    pageable_read: bool,
) -> Result<BTreeMap<String, f64>, CliError> {
    let small = match runner.cuda_device() {
        Some(d) if pageable_read => Some((
            d.stream.clone(),
            d.stream
                .alloc_zeros::<u32>(8)
                .map_err(|e| CliError::internal(format!("cuMemAlloc: {e:?}")))?,
        )),
        _ => None,
    };
    stage_medians(runs, || {
        let stages = runner.run(gl, source, image, &[])?.stages;
        if let Some((stream, buffer)) = &small {
            stream
                .clone_dtoh(buffer)
                .map_err(|e| CliError::internal(format!("cuMemcpyDtoH: {e:?}")))?;
        }
        Ok(stages)
    })
}
