//! `cudalens bench --deep`: a 1920×1080 view 1e-100 wide, max dwell 10 000, rendered by
//! perturbation, per pixel and refined by Mariani–Silver: the whole re-render (reference
//! orbit included: the centre moves by a pixel between runs, so the orbit is recomputed
//! every time), the re-render with the orbit kept (palette change), and the orbit alone on
//! the host. Medians after warm-up.

use super::bench::{median, stage_medians_of};
use super::CliError;
use crate::mandelbrot::deep::{DeepBookmark, DeepView, ReferenceOrbit, DEEP_BOOKMARKS};
use crate::mandelbrot::{MandelbrotSettings, Mode, Palette, Precision, View};
use crate::pipeline::MandelbrotRenderer;
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

/// Renders `runs` times (after 3 warm-ups) with a new centre each time, and again with only
/// the palette changed; the stage medians of both.
fn time_renders(
    gl: &glow::Context,
    renderer: &mut MandelbrotRenderer,
    s: &mut MandelbrotSettings,
    runs: usize,
) -> Result<Timings, CliError> {
    let (mut moving, mut kept) = (Vec::new(), Vec::new());
    let mut precision = None;
    for i in 0..runs + 3 {
        // ±1 pixel: a new centre, so a new reference orbit.
        s.pan_pixels(if i % 2 == 0 { 1.0 } else { -1.0 }, 0.0);
        let frame = renderer.render(gl, s)?;
        s.coloring.palette = if i % 2 == 0 {
            Palette::Fire
        } else {
            Palette::Classic
        };
        let cached = renderer.render(gl, s)?;
        precision = Some(frame.precision);
        if i >= 3 {
            moving.push(frame.stages);
            kept.push(cached.stages);
        }
    }
    Ok((stage_medians_of(moving), stage_medians_of(kept), precision))
}

pub fn bench_deep(gl: &glow::Context, runs: usize) -> Result<serde_json::Value, CliError> {
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
        crate::pipeline::BackendRequest::Cuda,
        None,
        crate::pipeline::InteropRequest::Auto,
    )?;
    let runs = runs.max(1);
    let mut modes = Vec::new();
    for mode in [Mode::PerPixel, Mode::MarianiSilver] {
        s.mode = mode;
        match time_renders(gl, &mut renderer, &mut s, runs) {
            Ok(t) => modes.push((mode, t)),
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
    println!(
        "deep view '{}' 1920×1080, span 1e-100, max dwell 10000 ({precision:?}), medians of {runs} in ms:",
        bookmark.name,
    );
    let mut json = serde_json::Map::new();
    for (mode, (moving, kept, _)) in &modes {
        let name = mode_name(*mode);
        print(&format!("{name}, re-render, new orbit"), moving);
        print(&format!("{name}, re-render, orbit kept"), kept);
        json.insert(
            name.into(),
            serde_json::json!({
                "rerender_new_orbit_ms": moving,
                "rerender_orbit_kept_ms": kept,
            }),
        );
    }
    let dwell = |i: usize| modes.get(i).and_then(|(_, t)| t.1.get("dwell").copied());
    if let (Some(pp), Some(ms)) = (dwell(0), dwell(1)) {
        println!("  dwell kernels: Mariani–Silver {:.2}× per-pixel", pp / ms);
    }
    println!("  reference orbit alone (host): {orbit_ms:.3}");
    Ok(serde_json::json!({
        "view": bookmark.name,
        "modes": json,
        "orbit_host_ms": orbit_ms,
    }))
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::PerPixel => "per-pixel",
        Mode::MarianiSilver => "mariani-silver",
    }
}
