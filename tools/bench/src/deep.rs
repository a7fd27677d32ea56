//! `cudalens-bench --deep`: a 1920×1080 view 1e-100 wide, max dwell 10 000, rendered by
//! perturbation, per pixel and refined by Mariani–Silver, each with BLA on and off: the
//! whole re-render (reference orbit and BLA table included: the centre moves by a pixel
//! between runs, so both are recomputed every time), the re-render with the orbit kept
//! (palette change), the orbit and the BLA table alone on the host, and the CPU backend's
//! per-pixel dwells with BLA on and off; with distance shading (Mariani–Silver, BLA on), the
//! distance pass after the dwells; a pan by a tenth of the width (the kept pixels moved, the
//! exposed strip computed around the kept orbit). Medians after warm-up.

use cudalens::bench_stats::{median, stage_medians_of};
use cudalens::cli::CliError;
use cudalens::mandelbrot::deep::{
    choose_precision, BlaTable, DeepBookmark, DeepView, ReferenceOrbit, DEEP_BOOKMARKS,
};
use cudalens::mandelbrot::{Fractal, MandelbrotSettings, Mode, MsTuning, Palette, Precision, View};
use cudalens::pipeline::MandelbrotRenderer;
use std::collections::BTreeMap;
use std::time::Instant;

/// The benchmark's place: the deep bookmark 1e-100 wide.
pub fn bench_bookmark() -> Option<&'static DeepBookmark> {
    DEEP_BOOKMARKS.iter().find(|b| b.span == "1e-100")
}

fn print(what: &str, m: &BTreeMap<String, f64>) {
    let parts: Vec<String> = m.iter().map(|(k, v)| format!("{k} {v:.3}")).collect();
    println!("  {what}: {}", parts.join(", "));
}

type Timings = (
    BTreeMap<String, f64>,
    BTreeMap<String, f64>,
    Option<Precision>,
);

/// Renders `runs` times (after 3 warm-ups) with a new centre each time, and again with the
/// reference orbit kept (only the palette changed, the dwells computed again); the stage
/// medians of both.
fn time_renders(
    gl: &glow::Context,
    renderer: &mut MandelbrotRenderer,
    s: &mut MandelbrotSettings,
    runs: usize,
) -> Result<Timings, CliError> {
    let (mut moving, mut kept) = (Vec::new(), Vec::new());
    let mut precision = None;
    for i in 0..runs + 3 {
        // ±1 pixel: a new centre, so a new reference orbit (and the whole view computed,
        // not panned: the kept dwells are forgotten).
        s.pan_pixels(if i % 2 == 0 { 1.0 } else { -1.0 }, 0.0);
        renderer.forget_dwells();
        let frame = renderer.render(gl, s)?;
        s.coloring.palette = if i % 2 == 0 {
            Palette::Fire.into()
        } else {
            Palette::Classic.into()
        };
        renderer.forget_dwells(); // else a palette change only recolours
        let cached = renderer.render(gl, s)?;
        precision = Some(frame.precision);
        if i >= 3 {
            moving.push(frame.stages);
            kept.push(cached.stages);
        }
    }
    Ok((stage_medians_of(moving), stage_medians_of(kept), precision))
}

/// Renders `s` once, then `runs` pans (after 3 warm-ups) by 192 pixels to and fro, each
/// reusing the pixels kept from the frame before: the stage medians.
fn time_pans(
    gl: &glow::Context,
    renderer: &mut MandelbrotRenderer,
    s: &mut MandelbrotSettings,
    runs: usize,
) -> Result<BTreeMap<String, f64>, CliError> {
    (s.mode, s.bla, s.overlay) = (Mode::MarianiSilver, true, false);
    renderer.forget_dwells();
    renderer.render(gl, s)?;
    let mut pans = Vec::new();
    for i in 0..runs + 3 {
        s.pan_pixels(if i % 2 == 0 { 192.0 } else { -192.0 }, 0.0);
        let frame = renderer.render(gl, s)?;
        if !frame.stages.iter().any(|t| t.name == "pan") {
            return Err(CliError::internal("a pan computed the whole view"));
        }
        if i >= 3 {
            pans.push(frame.stages);
        }
    }
    Ok(stage_medians_of(pans))
}

pub fn bench_deep(
    gl: &glow::Context,
    runs: usize,
    sweep: bool,
) -> Result<serde_json::Value, CliError> {
    let bookmark = bench_bookmark().ok_or_else(|| CliError::internal("no 1e-100 bookmark"))?;
    let mut s = MandelbrotSettings {
        view: View {
            width: 1920,
            height: 1080,
            max_dwell: 10_000,
            ..View::default()
        },
        ..MandelbrotSettings::default()
    };
    s.set_location(bookmark.location().map_err(CliError::internal)?);
    let mut renderer = MandelbrotRenderer::new(
        gl,
        cudalens::pipeline::BackendRequest::Cuda,
        None,
        cudalens::pipeline::InteropRequest::Auto,
    )?;
    let runs = runs.max(1);
    let mut modes = Vec::new();
    let mut swept = serde_json::Value::Null;
    for bla in [true, false] {
        for mode in Mode::ALL {
            s.mode = mode;
            s.bla = bla;
            match time_renders(gl, &mut renderer, &mut s, runs) {
                Ok(t) => modes.push(((mode, bla), t)),
                Err(e) => {
                    renderer.destroy(gl);
                    return Err(e);
                }
            }
        }
    }
    // Distance shading: the estimates' own pass after the dwells (stage "distance").
    (s.mode, s.bla, s.coloring.distance) = (Mode::MarianiSilver, true, Some(1.5));
    let shaded = time_renders(gl, &mut renderer, &mut s, runs);
    s.coloring.distance = None;
    let shaded = match shaded {
        Ok((_, kept, _)) => kept,
        Err(e) => {
            renderer.destroy(gl);
            return Err(e);
        }
    };
    // Pans by a tenth of the width, to and fro (Mariani–Silver, BLA on): stage "pan".
    let pans = match time_pans(gl, &mut renderer, &mut s.clone(), runs) {
        Ok(p) => p,
        Err(e) => {
            renderer.destroy(gl);
            return Err(e);
        }
    };
    if sweep {
        match deep_sweep(&mut renderer) {
            Ok(v) => swept = v,
            Err(e) => {
                renderer.destroy(gl);
                return Err(e);
            }
        }
    }
    renderer.destroy(gl);
    let view = DeepView {
        location: s.location().map_err(CliError::internal)?,
        width: 1920,
        height: 1080,
        max_dwell: 10_000,
        fractal: Fractal::Mandelbrot,
    };
    let orbit_ms = median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                let orbit = ReferenceOrbit::compute(&view);
                std::hint::black_box(orbit);
                start.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    );
    let precision = modes.iter().find_map(|(_, t)| t.2);
    let table_precision = choose_precision(Precision::Auto, &view.location, view.width);
    let orbit = ReferenceOrbit::compute(&view);
    let table_ms = median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(BlaTable::build(&view, &orbit, table_precision));
                start.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    );
    let (levels, entries, valid) = BlaTable::build(&view, &orbit, table_precision).counts();
    println!(
        "deep view '{}' 1920×1080, span 1e-100, max dwell 10000 ({precision:?}), medians of {runs} in ms:",
        bookmark.name,
    );
    let mut json = serde_json::Map::new();
    for ((mode, bla), (moving, kept, _)) in &modes {
        let name = format!("{}, BLA {}", mode.name(), if *bla { "on" } else { "off" });
        print(&format!("{name}, re-render, new orbit"), moving);
        print(&format!("{name}, re-render, orbit kept"), kept);
        json.insert(
            name,
            serde_json::json!({
                "rerender_new_orbit_ms": moving,
                "rerender_orbit_kept_ms": kept,
            }),
        );
    }
    let dwell = |mode: Mode, bla: bool| {
        modes
            .iter()
            .find(|(k, _)| *k == (mode, bla))
            .and_then(|(_, t)| t.1.get("dwell").copied())
    };
    for bla in [true, false] {
        if let (Some(pp), Some(ms)) = (dwell(Mode::PerPixel, bla), dwell(Mode::MarianiSilver, bla))
        {
            println!(
                "  dwell kernels, BLA {}: Mariani–Silver {:.2}× per-pixel",
                if bla { "on" } else { "off" },
                pp / ms
            );
        }
    }
    for mode in Mode::ALL {
        if let (Some(on), Some(off)) = (dwell(mode, true), dwell(mode, false)) {
            println!(
                "  dwell kernels, {}: BLA {:.2}× faster ({off:.3} → {on:.3})",
                mode.name(),
                off / on
            );
        }
    }
    print(
        "distance shading, Mariani–Silver, BLA on, orbit kept",
        &shaded,
    );
    print("pan by 192 px, Mariani–Silver, BLA on", &pans);
    println!("  reference orbit alone (host): {orbit_ms:.3}");
    println!("  BLA table alone (host): {table_ms:.3} ({levels} levels, {entries} entries, {valid} valid)");
    let cpu = cpu_backend(&s, runs.min(3))?;
    Ok(serde_json::json!({
        "view": bookmark.name,
        "modes": json,
        "distance_shading_orbit_kept_ms": shaded,
        "pan_192_px_ms": pans,
        "orbit_host_ms": orbit_ms,
        "bla_table_host_ms": table_ms,
        "bla_table": { "levels": levels, "entries": entries, "valid": valid },
        "cpu": cpu,
        "ms_sweep": swept,
    }))
}

/// The CPU backend's per-pixel dwells of the view (orbit kept out: the "dwell" stage),
/// BLA on and off, medians of `runs` after one warm-up.
fn cpu_backend(s: &MandelbrotSettings, runs: usize) -> Result<serde_json::Value, CliError> {
    let mut out = serde_json::Map::new();
    let mut medians = Vec::new();
    for bla in [true, false] {
        let mut s = s.clone();
        (s.mode, s.bla) = (Mode::PerPixel, bla);
        let precision = s
            .deep_precision()
            .ok_or_else(|| CliError::internal("not a deep view"))?;
        let mut times = Vec::new();
        for i in 0..runs + 1 {
            let (_, frame) =
                cudalens::pipeline::cpu_deep_dwells(&s, precision).map_err(CliError::internal)?;
            if i > 0 {
                times.push(frame.stages);
            }
        }
        let m = stage_medians_of(times);
        let name = if bla { "BLA on" } else { "BLA off" };
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        print(
            &format!("CPU backend ({threads} threads), per-pixel, {name}"),
            &m,
        );
        medians.push(m.get("dwell").copied());
        out.insert(name.into(), serde_json::json!(m));
    }
    if let [Some(on), Some(off)] = medians[..] {
        println!("  CPU dwells: BLA {:.2}× faster", off / on);
    }
    Ok(serde_json::Value::Object(out))
}

/// Candidates for deep views, whose pixels cost hundreds of times a plain one's: the
/// window tunings, larger first cells whose splits and fills run as child grids, and one
/// or two levels only (a cell's border decides between a fill and evaluating the whole
/// interior in one pass, so no pass waits for another's slowest pixel).
fn deep_candidates() -> Vec<MsTuning> {
    use crate::mandelbrot::{tuning, window_candidates};
    let mut out = window_candidates();
    for size in [8, 16, 32, 64, 128] {
        out.push(tuning(size, 2, size, 1 << 30, 1));
    }
    for size in [32, 64, 128] {
        out.push(tuning(size, 2, size, 32 * 32, 1));
    }
    for (init, subdiv, leaf) in [(64, 2, 32), (64, 4, 16), (128, 4, 32), (32, 2, 16)] {
        out.push(tuning(init, subdiv, leaf, 1 << 30, 1));
    }
    for (init, subdiv, leaf) in [
        (64, 2, 4),
        (64, 2, 8),
        (128, 2, 4),
        (128, 2, 8),
        (128, 4, 8),
        (256, 2, 8),
        (256, 4, 4),
        (512, 2, 8),
    ] {
        for launch in [1, 32 * 32, 64 * 64] {
            out.push(tuning(init, subdiv, leaf, launch, 1));
        }
    }
    out
}

/// `bench --deep --ms-sweep`: Mariani–Silver's dwell kernels over per-pixel on the deep
/// bookmarks with max dwell up to 20 000 at 1920×1080, for every candidate tuning, best
/// first (score: geometric mean of the speed-ups, then the worst view).
fn deep_sweep(r: &mut MandelbrotRenderer) -> Result<serde_json::Value, CliError> {
    use crate::mandelbrot::time_dwell;
    use cudalens::bench_stats::geo_mean;
    let mut views = Vec::new();
    for b in DEEP_BOOKMARKS.iter().filter(|b| b.max_dwell <= 20_000) {
        let mut s = MandelbrotSettings {
            view: View {
                width: 1920,
                height: 1080,
                max_dwell: b.max_dwell,
                ..View::default()
            },
            mode: Mode::PerPixel,
            ..MandelbrotSettings::default()
        };
        s.set_location(b.location().map_err(CliError::internal)?);
        let pp = time_dwell(r, &s, 5)?;
        views.push((b, s, pp));
    }
    println!("Mariani–Silver on deep views, 1920×1080, speed-up over per-pixel (dwell kernels):");
    for (b, _, pp) in &views {
        println!(
            "  {} {} max dwell {}: per-pixel {pp:.3} ms",
            b.name, b.span, b.max_dwell
        );
    }
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for t in deep_candidates() {
        let timed: Result<Vec<f64>, CliError> = views
            .iter()
            .map(|(_, s, pp)| {
                let mut s = s.clone();
                s.mode = Mode::MarianiSilver;
                s.tuning = Some(t);
                Ok(pp / time_dwell(r, &s, 3)?)
            })
            .collect();
        match timed {
            Ok(speedups) => {
                let geo = geo_mean(speedups.iter().copied());
                let worst = speedups.iter().copied().fold(f64::INFINITY, f64::min);
                rows.push((geo, worst, t, speedups));
            }
            Err(e) => failed.push(format!("{t:?}: {}", e.message)),
        }
    }
    rows.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.total_cmp(&a.1)));
    for (geo, worst, t, s) in rows.iter().take(12) {
        let each: Vec<String> = s.iter().map(|x| format!("{x:.2}×")).collect();
        println!(
            "  init {:>4} subdiv {:>2} leaf {:>2} launch ≥{:>10} lookahead {:>2}: {geo:.2}× (worst {worst:.2}×) | {}",
            t.init_size, t.subdiv, t.leaf_size, t.launch_min_pixels, t.lookahead, each.join(" ")
        );
    }
    println!("  {} tunings failed", failed.len());
    for f in failed.iter().take(5) {
        println!("    {f}");
    }
    Ok(serde_json::json!({
        "results": rows
            .iter()
            .map(|(g, w, t, s)| serde_json::json!({ "tuning": t, "geo_mean": g, "worst": w, "speedups": s }))
            .collect::<Vec<_>>(),
        "failed": failed,
    }))
}
