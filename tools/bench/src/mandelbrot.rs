//! `cudalens-bench --mandelbrot` and `--ms-sweep`: Mariani–Silver against one thread per
//! pixel (dwell kernels, CUDA events, medians), the explorer's whole frame, and the sweep
//! that chooses `MS_TUNINGS`.
//!
//! --mandelbrot: the goal points ((−0.5, 0), span 2 at 4096² and 16384², max dwell 512 and
//! 2048), the six bookmarks at 1920×1080 and 2560×1440 with max dwell 1024 and 8192,
//! the explorer's nesting refinement presets on the same bookmarks, the latency of one
//! pixel at those max dwells, and the explorer frame at 1920×1080.
//! --ms-sweep: for each size class of `MS_TUNINGS` a grid of tunings on that class's points,
//! best first, then the full table with the measured tunings: sizes 1280×720 … 16384², the
//! six bookmarks, max dwell 256 … 16384, per size and view. `--ms-sweep-sizes` runs one
//! class's sweep alone, or `compare`: the finalists side by side from 1920×1080 to 16384²,
//! where the classes' borders are drawn.

use crate::{BenchCli, SweepSizes};
use cudalens::bench_stats::{geo_mean, stage_medians};
use cudalens::cli::bench_explorer::explorer_frame;
use cudalens::cli::CliError;
use cudalens::mandelbrot::{
    Fractal, MandelbrotSettings, Mode, MsTuning, Precision, Refinement, View, BOOKMARKS,
};
use cudalens::pipeline::{BackendKind, MandelbrotRenderer};
use serde_json::{json, Value};

/// A view to time: name, centre, span, size, max dwell.
#[derive(Debug, Clone, Copy)]
struct Point {
    name: &'static str,
    center: (f64, f64),
    span: f64,
    size: (u32, u32),
    max_dwell: u32,
}

impl Point {
    fn settings(&self, mode: Mode, tuning: Option<MsTuning>) -> MandelbrotSettings {
        MandelbrotSettings {
            view: View {
                center: self.center,
                span: self.span,
                width: self.size.0,
                height: self.size.1,
                max_dwell: self.max_dwell,
                fractal: Fractal::Mandelbrot,
            },
            mode,
            precision: Precision::Auto,
            tuning,
            ..MandelbrotSettings::default()
        }
    }

    fn label(&self) -> String {
        format!(
            "{}×{} {:>5} {}",
            self.size.0, self.size.1, self.max_dwell, self.name
        )
    }
}

/// The view of the goal points.
const GOAL_VIEW: &str = "(-0.5,0) span 2";

/// The goal view, (−0.5, 0) with span 2, at `size` and `max_dwell`.
fn goal_point(size: (u32, u32), max_dwell: u32) -> Point {
    Point {
        name: GOAL_VIEW,
        center: (-0.5, 0.0),
        span: 2.0,
        size,
        max_dwell,
    }
}

/// The four goal points.
fn goal_points() -> Vec<Point> {
    [(4096, 512), (4096, 2048), (16384, 512), (16384, 2048)]
        .map(|(s, d)| goal_point((s, s), d))
        .to_vec()
}

fn bookmark_points(sizes: &[(u32, u32)], dwells: &[u32]) -> Vec<Point> {
    let mut out = Vec::new();
    for &size in sizes {
        for &max_dwell in dwells {
            for (name, center, span, _) in BOOKMARKS {
                out.push(Point {
                    name,
                    center,
                    span,
                    size,
                    max_dwell,
                });
            }
        }
    }
    out
}

const WINDOW_SIZES: [(u32, u32); 2] = [(1920, 1080), (2560, 1440)];
const WINDOW_DWELLS: [u32; 2] = [1024, 8192];
/// Speed-ups the issue asks for at the goal points.
const GOALS: [f64; 4] = [3.0, 5.0, 8.0, 12.0];

/// Median dwell time of one configuration: fewer runs where one run is long.
pub fn time_dwell(
    r: &mut MandelbrotRenderer,
    s: &MandelbrotSettings,
    runs: usize,
) -> Result<f64, CliError> {
    let first = r.time_dwells(s).map_err(CliError::from)?;
    let ms: f64 = first
        .iter()
        .filter(|t| t.name == "dwell")
        .map(|t| t.ms)
        .sum();
    let runs = if ms > 50.0 { runs.min(3) } else { runs };
    stage_medians(runs, || r.time_dwells(s).map_err(CliError::from))
        .map(|m| m.get("dwell").copied().unwrap_or(f64::NAN))
}

/// Per-pixel medians of `points`.
fn per_pixel_times(
    r: &mut MandelbrotRenderer,
    points: &[Point],
    runs: usize,
) -> Result<Vec<f64>, CliError> {
    points
        .iter()
        .map(|p| time_dwell(r, &p.settings(Mode::PerPixel, None), runs))
        .collect()
}

/// Speed-ups of Mariani–Silver with `tuning` (None: the measured one) over `per_pixel`;
/// an error (e.g. failed child launches) is returned, not timed.
fn speedups(
    r: &mut MandelbrotRenderer,
    points: &[Point],
    per_pixel: &[f64],
    tuning: Option<MsTuning>,
    runs: usize,
) -> Result<Vec<(f64, f64)>, CliError> {
    points
        .iter()
        .zip(per_pixel)
        .map(|(p, pp)| {
            let ms = time_dwell(r, &p.settings(Mode::MarianiSilver, tuning), runs)?;
            Ok((ms, pp / ms))
        })
        .collect()
}

/// Prints and returns a per-point table.
fn table(title: &str, points: &[Point], per_pixel: &[f64], ms: &[(f64, f64)]) -> Value {
    println!("{title}");
    println!(
        "  {:<40} {:>10} {:>10} {:>8}",
        "size, max dwell, view", "per-pixel", "M–S", "speed-up"
    );
    let mut rows = Vec::new();
    for ((p, pp), (m, s)) in points.iter().zip(per_pixel).zip(ms) {
        println!("  {:<40} {pp:>10.3} {m:>10.3} {s:>7.2}×", p.label());
        rows.push(json!({ "view": p.name, "size": [p.size.0, p.size.1], "max_dwell": p.max_dwell, "per_pixel_ms": pp, "mariani_silver_ms": m, "speedup": s }));
    }
    Value::Array(rows)
}

/// Geometric mean and worst speed-up of the points that `keep` selects (None: no point).
fn group_summary(
    points: &[Point],
    ms: &[(f64, f64)],
    keep: impl Fn(&Point) -> bool,
) -> Option<(f64, f64)> {
    let group: Vec<f64> = points
        .iter()
        .zip(ms)
        .filter(|(p, _)| keep(p))
        .map(|(_, (_, s))| *s)
        .collect();
    let worst = group.iter().copied().fold(f64::INFINITY, f64::min);
    (!group.is_empty()).then(|| (geo_mean(group.into_iter()), worst))
}

/// Geometric mean and worst view per (size, max dwell) group of bookmark points.
fn window_summary(points: &[Point], ms: &[(f64, f64)]) -> Vec<((u32, u32), u32, f64, f64)> {
    let mut out = Vec::new();
    for size in WINDOW_SIZES {
        for dwell in WINDOW_DWELLS {
            let keep = |p: &Point| p.size == size && p.max_dwell == dwell;
            if let Some((geo, worst)) = group_summary(points, ms, keep) {
                out.push((size, dwell, geo, worst));
            }
        }
    }
    out
}

fn print_window_summary(points: &[Point], ms: &[(f64, f64)]) -> Vec<Value> {
    let mut rows = Vec::new();
    for (size, dwell, geo, worst) in window_summary(points, ms) {
        println!(
            "  {}×{} max dwell {dwell}: geometric mean {geo:.2}×, worst view {worst:.2}×",
            size.0, size.1
        );
        rows.push(json!({ "size": [size.0, size.1], "max_dwell": dwell, "geometric_mean": geo, "worst": worst }));
    }
    rows
}

/// The explorer's refinement presets that nest (`Refinement::Nested`, `ChildGrids`) on the
/// window bookmarks: what showing the recursion costs against per-pixel.
fn nesting_presets(
    r: &mut MandelbrotRenderer,
    window: &[Point],
    window_pp: &[f64],
    runs: usize,
) -> Result<Value, CliError> {
    let mut out = serde_json::Map::new();
    for preset in [Refinement::Nested, Refinement::ChildGrids] {
        let name = preset.label();
        println!("refinement \"{name}\" (explorer preset) over per-pixel at window sizes:");
        let tuning = preset.tuning(false, 0, 0); // the nesting presets take no size
        let ms = speedups(r, window, window_pp, Some(tuning), runs)?;
        out.insert(name.into(), Value::Array(print_window_summary(window, &ms)));
    }
    Ok(Value::Object(out))
}

pub fn run(gl: &glow::Context, cli: &BenchCli) -> Result<Value, CliError> {
    let args = &cli.common;
    let mut renderer = MandelbrotRenderer::new(gl, args.backend, None, args.interop)?;
    if renderer.status.kind != BackendKind::Cuda {
        println!("mandelbrot: skipped on the CPU backend (sizes up to 16384² are a GPU benchmark)");
        renderer.destroy(gl);
        return Ok(Value::Null);
    }
    let result = run_on(gl, &mut renderer, cli);
    renderer.destroy(gl);
    result
}

fn run_on(
    gl: &glow::Context,
    r: &mut MandelbrotRenderer,
    cli: &BenchCli,
) -> Result<Value, CliError> {
    let runs = cli.common.runs.clamp(3, 15);
    println!(
        "Mandelbrot dwell kernels, medians in ms (per-pixel vs Mariani–Silver, measured tunings):"
    );
    let goals = goal_points();
    let goal_pp = per_pixel_times(r, &goals, runs)?;
    let goal_ms = speedups(r, &goals, &goal_pp, None, runs)?;
    let mut out = json!({ "goals": table("goal points", &goals, &goal_pp, &goal_ms) });
    let window = bookmark_points(&WINDOW_SIZES, &WINDOW_DWELLS);
    let window_pp = per_pixel_times(r, &window, runs)?;
    let window_ms = speedups(r, &window, &window_pp, None, runs)?;
    out["window"] = table("bookmarks at window sizes", &window, &window_pp, &window_ms);
    print_window_summary(&window, &window_ms);
    out["presets"] = nesting_presets(r, &window, &window_pp, runs)?;
    out["slowest_pixel"] = slowest_pixel(r, runs)?;
    out["explorer_frame"] = explorer_frame(gl, r)?;
    if cli.ms_sweep {
        let sizes = cli.ms_sweep_sizes;
        if sizes == SweepSizes::All || sizes == SweepSizes::Window {
            out["sweep_window"] = sweep(r, &window, &window_pp, &window_candidates(), true)?;
        }
        if sizes == SweepSizes::All || sizes == SweepSizes::Large {
            out["sweep_large"] = sweep(r, &goals, &goal_pp, &large_candidates(), false)?;
        }
        if sizes == SweepSizes::All {
            out["full"] = full_table(r)?;
        }
        if sizes == SweepSizes::Compare {
            out["compare"] = compare_table(r)?;
        }
    }
    Ok(out)
}

/// The latency of one pixel at the max dwell: the per-pixel kernel on one block of 32×8
/// pixels inside the main cardioid (every pixel runs to the max dwell, in f64 as the
/// window bookmarks but the whole set), at the window max dwells. Every dependent pass of
/// the refinement that holds such a pixel lasts at least this long.
fn slowest_pixel(r: &mut MandelbrotRenderer, runs: usize) -> Result<Value, CliError> {
    let mut out = Vec::new();
    for max_dwell in WINDOW_DWELLS {
        let p = Point {
            name: "inside the cardioid",
            center: (-0.1, 0.0),
            span: 1e-4,
            size: (32, 8),
            max_dwell,
        };
        let ms = time_dwell(r, &p.settings(Mode::PerPixel, None), runs)?;
        println!("one pixel at max dwell {max_dwell} (f64, per-pixel kernel on 32×8 interior pixels): {ms:.3} ms");
        out.push(json!({ "max_dwell": max_dwell, "ms": ms }));
    }
    Ok(Value::Array(out))
}

pub fn tuning(
    init_size: u32,
    subdiv: u32,
    leaf_size: u32,
    launch_min_pixels: u32,
    lookahead: u32,
) -> MsTuning {
    MsTuning {
        init_size,
        subdiv,
        leaf_size,
        launch_min_pixels,
        lookahead,
    }
}

/// Candidates for window-sized images.
pub fn window_candidates() -> Vec<MsTuning> {
    let mut out = Vec::new();
    // One level (8, 16, 32): a cell's border, then its interior, two dependent passes; at
    // 16 px in one grid (the fused kernel, no pass waits for another).
    for size in [8, 16, 32] {
        out.push(tuning(size, 2, size, 1 << 30, 1));
    }
    for (init, subdiv, leaf) in [
        (8, 2, 4),
        (16, 2, 8),
        (16, 2, 4),
        (16, 4, 4),
        (32, 2, 4),
        (32, 2, 8),
        (32, 4, 8),
        (64, 2, 4),
        (64, 2, 8),
        (64, 4, 4),
        (128, 2, 8),
    ] {
        for lookahead in [1, 12] {
            out.push(tuning(init, subdiv, leaf, 1 << 30, lookahead));
        }
    }
    out.push(tuning(64, 2, 8, 64 * 64, 1));
    out.push(tuning(128, 2, 8, 128 * 128, 2));
    out
}

/// Candidates for 4096² and larger: child grids for the large cells, the window tuning
/// (one level of 16 px cells, the fused kernel), the partition of the first fixed
/// grid at 16384² and 4096² (512 → 64 and 128 → 16 px: few levels, large leaves) and
/// in-block nesting from 256 to 16 px, down to leaves of 16 or 8 px.
fn large_candidates() -> Vec<MsTuning> {
    let mut out = vec![tuning(16, 2, 16, 1 << 30, 1)];
    for (init, subdiv, leaf) in [(512, 8, 64), (256, 4, 64), (1024, 16, 64), (512, 16, 32)] {
        for launch in [128 * 128, 256 * 256] {
            out.push(tuning(init, subdiv, leaf, launch, 1));
        }
    }
    for (init, subdiv, leaf, lookahead) in [
        (128, 8, 16, 1),
        (64, 4, 16, 1),
        (64, 4, 16, 2),
        (64, 2, 16, 1),
        (64, 2, 16, 2),
        (128, 2, 16, 1),
        (128, 2, 16, 2),
        (128, 2, 16, 3),
        (128, 2, 8, 1),
        (128, 2, 8, 2),
        (256, 2, 16, 1),
        (256, 4, 16, 1),
        (256, 16, 16, 1),
        (32, 2, 16, 1),
        (32, 2, 16, 2),
        (16, 2, 8, 1),
        (32, 2, 8, 1),
        (32, 2, 8, 2),
        (32, 4, 8, 1),
        (64, 2, 8, 1),
        (64, 2, 8, 2),
        (64, 2, 8, 3),
        (64, 8, 8, 1),
    ] {
        out.push(tuning(init, subdiv, leaf, 1 << 30, lookahead));
    }
    for (init, subdiv, leaf) in [
        (256, 2, 8),
        (256, 4, 16),
        (512, 2, 16),
        (512, 4, 8),
        (512, 8, 8),
        (1024, 4, 16),
        (1024, 2, 16),
        (2048, 4, 8),
    ] {
        for lookahead in [1, 2] {
            for launch in [128 * 128, 256 * 256] {
                out.push(tuning(init, subdiv, leaf, launch, lookahead));
            }
        }
    }
    out
}

/// Times each candidate on `points`; ranks window tunings by (no view slower, smallest
/// group geometric mean) and large ones by the smallest fraction of its goal reached.
fn sweep(
    r: &mut MandelbrotRenderer,
    points: &[Point],
    per_pixel: &[f64],
    candidates: &[MsTuning],
    window: bool,
) -> Result<Value, CliError> {
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for t in candidates {
        match speedups(r, points, per_pixel, Some(*t), 3) {
            Ok(s) => {
                let score = if window {
                    let summary = window_summary(points, &s);
                    let worst = summary.iter().map(|g| g.3).fold(f64::INFINITY, f64::min);
                    let geo = summary.iter().map(|g| g.2).fold(f64::INFINITY, f64::min);
                    (worst >= 1.0, geo, worst)
                } else {
                    let frac = s
                        .iter()
                        .zip(GOALS)
                        .map(|((_, x), g)| x / g)
                        .fold(f64::INFINITY, f64::min);
                    (frac >= 1.0, frac, geo_mean(s.iter().map(|x| x.1)))
                };
                rows.push((score, *t, s));
            }
            Err(e) => failed.push(format!("{t:?}: {}", e.message)),
        }
    }
    rows.sort_by(|a, b| b.0 .0.cmp(&a.0 .0).then(b.0 .1.total_cmp(&a.0 .1)));
    let what = if window {
        "window sizes (score: smallest geometric mean of a size and max dwell, worst view)"
    } else {
        "4096² and 16384² goal points (score: smallest fraction of its goal, geometric mean)"
    };
    println!(
        "Mariani–Silver sweep, {what}, {} tunings, best first:",
        rows.len()
    );
    for ((_, a, b), t, s) in rows.iter().take(12) {
        let detail = if window {
            window_summary(points, s)
                .iter()
                .map(|(sz, d, g, w)| format!("{}p/{d}: {g:.2}× (min {w:.2}×)", sz.1))
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            s.iter()
                .map(|(_, x)| format!("{x:.2}×"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!(
            "  init {:>4} subdiv {:>2} leaf {:>2} launch ≥{:>10} lookahead {:>2}: {a:.2} / {b:.2} | {detail}",
            t.init_size, t.subdiv, t.leaf_size, t.launch_min_pixels, t.lookahead
        );
    }
    println!("  {} tunings failed", failed.len());
    for f in failed.iter().take(5) {
        println!("    {f}");
    }
    Ok(json!({
        "results": rows.iter().map(|((_, a, b), t, s)| json!({ "tuning": t, "score": [a, b], "ms_and_speedups": s })).collect::<Vec<_>>(),
        "failed": failed,
    }))
}

/// Sizes 1280×720 … 16384², the six bookmarks, max dwell 256 … 16384, with the measured
/// tunings: per size and view.
fn full_table(r: &mut MandelbrotRenderer) -> Result<Value, CliError> {
    let sizes = [
        (1280, 720),
        (1920, 1080),
        (2560, 1440),
        (3840, 2160),
        (4096, 4096),
        (16384, 16384),
    ];
    let mut out = Vec::new();
    for size in sizes {
        let dwells: &[u32] = if size.0 >= 16384 {
            &[256, 1024, 4096]
        } else {
            &[256, 1024, 8192, 16384]
        };
        let points = bookmark_points(&[size], dwells);
        let runs = if size.0 >= 4096 { 3 } else { 5 };
        let pp = per_pixel_times(r, &points, runs)?;
        let ms = speedups(r, &points, &pp, None, runs)?;
        let title = format!(
            "{}×{} ({:?})",
            size.0,
            size.1,
            MsTuning::for_size(size.0, size.1)
        );
        out.push(table(&title, &points, &pp, &ms));
        for &d in dwells {
            if let Some((geo, worst)) = group_summary(&points, &ms, |p| p.max_dwell == d) {
                println!("  max dwell {d}: geometric mean {geo:.2}×, worst view {worst:.2}×");
            }
        }
    }
    Ok(Value::Array(out))
}

/// The finalists of both sweeps side by side from window sizes to 16384²: the six bookmarks
/// and the goal view ((−0.5, 0), span 2), geometric mean and worst view per size and max
/// dwell, so that the size classes of `MS_TUNINGS` can be drawn where they cross.
fn compare_table(r: &mut MandelbrotRenderer) -> Result<Value, CliError> {
    let finalists = [
        tuning(16, 2, 16, 1 << 30, 1),
        tuning(32, 2, 16, 1 << 30, 1),
        tuning(32, 4, 8, 1 << 30, 1),
        tuning(64, 2, 8, 1 << 30, 2),
        tuning(64, 2, 16, 1 << 30, 2),
        tuning(64, 4, 16, 1 << 30, 1),
        tuning(128, 2, 16, 1 << 30, 1),
        tuning(256, 4, 16, 65536, 1),
    ];
    let sizes = [
        (1920, 1080),
        (3840, 2160),
        (4096, 4096),
        (8192, 8192),
        (16384, 16384),
    ];
    let mut out = Vec::new();
    for size in sizes {
        let dwells: &[u32] = if size.0 >= 8192 {
            &[256, 1024, 4096]
        } else {
            &[1024, 8192]
        };
        let mut points = bookmark_points(&[size], dwells);
        points.extend([512, 2048].map(|d| goal_point(size, d)));
        let runs = if size.0 >= 8192 { 3 } else { 7 };
        let pp = per_pixel_times(r, &points, runs)?;
        println!("{}×{}: geometric mean (worst view) of the bookmarks per max dwell; goal view at 512 / 2048", size.0, size.1);
        for t in finalists {
            let ms = speedups(r, &points, &pp, Some(t), runs)?;
            let mut parts = Vec::new();
            for &d in dwells {
                let bookmark = |p: &Point| p.max_dwell == d && p.name != GOAL_VIEW;
                if let Some((geo, worst)) = group_summary(&points, &ms, bookmark) {
                    parts.push(format!("{d}: {geo:.2}× ({worst:.2}×)"));
                }
            }
            let goal: Vec<String> = ms[ms.len() - 2..]
                .iter()
                .map(|m| format!("{:.2}×", m.1))
                .collect();
            println!(
                "  init {:>4} subdiv {:>2} leaf {:>2} launch ≥{:>10}: {} | goal view {}",
                t.init_size,
                t.subdiv,
                t.leaf_size,
                t.launch_min_pixels,
                parts.join(", "),
                goal.join(" / ")
            );
            let rows: Vec<Value> = points
                .iter()
                .zip(&pp)
                .zip(&ms)
                .map(|((p, pp), (m, s))| json!({ "view": p.name, "max_dwell": p.max_dwell, "per_pixel_ms": pp, "mariani_silver_ms": m, "speedup": s }))
                .collect();
            out.push(json!({ "size": [size.0, size.1], "tuning": t, "points": rows }));
        }
    }
    Ok(Value::Array(out))
}
