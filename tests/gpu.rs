//! GPU tests: every kernel against the CPU reference through the real CUDA–OpenGL interop
//! paths (headless EGL context on the NVIDIA GPU → GL textures reached by CUDA through
//! external memory or through registration and map/unmap → kernels → GL texture and GL bin
//! buffer read back from GL). Outputs are poisoned first; both paths must agree bit for bit.
//!
//! Without a CUDA device each test prints "skipped: no CUDA device" and passes, or fails
//! under `CUDALENS_REQUIRE_GPU=1` (the GPU harness sets it).
//! `CUDALENS_GPU_QUICK=1` keeps only the small sizes (for compute-sanitizer runs).
//! `external_path_leaks_no_gpu_memory` is ignored by default (10 000 frames): run it with
//! `--ignored`. Tests that fault on purpose carry `faults_on_purpose` in their names: the
//! sanitizer steps of `scripts/gpu/verify.sh` leave them out, and prove with the ignored
//! `sanitizer_planted_write_past_an_allocation` that they still catch a real error.

mod common;

use common::gpu::cuda_gl;
use common::{mapping_count, max_difference, photo};
use cudalens::cuda::CudaDevice;
use cudalens::filters::{apply_cpu, gpu_tolerance, Filter, BOX_SMALL_MAX_RADIUS, FILTERS};
use cudalens::gl::GlTexture;
use cudalens::mandelbrot::deep::{
    direct_dwell, is_deep, sample_pixels, DeepLocation, Perturbation, ReferenceOrbit,
    DEEP_BOOKMARKS,
};
use cudalens::mandelbrot::{
    render_per_pixel, Coloring, DwellSource, MandelbrotSettings, Mode, MsTuning, Palette,
    Precision, Refinement, View, BOOKMARKS, CHILD_GRIDS_TUNING, MS_TUNINGS, NESTED_TUNING,
};
use cudalens::ops::random_image;
use cudalens::ops::{cpu, Histogram};
use cudalens::pipeline::{
    cpu_dwells, stages_of, BackendKind, BackendRequest, FrameRunner, InteropKind, InteropRequest,
    MandelbrotRenderer,
};
use image::RgbaImage;
use std::time::Instant;

const POISON: [u8; 4] = [0xAB, 0xCD, 0xEF, 0x12];

/// Both interop paths, each forced (a path that cannot open is an error, not a skip).
const PATHS: [(InteropRequest, InteropKind); 2] = [
    (InteropRequest::Classic, InteropKind::Classic),
    (InteropRequest::External, InteropKind::External),
];

/// Whether environment variable `name` is set to 1.
fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == "1")
}

fn quick() -> bool {
    env_flag("CUDALENS_GPU_QUICK")
}

/// Small images only (`CUDALENS_GPU_SANITIZE=1`): for racecheck, which runs the
/// shared-memory kernels hundreds of times slower; the last size still spans several blocks
/// and partial tiles of every kernel.
fn sanitize() -> bool {
    env_flag("CUDALENS_GPU_SANITIZE")
}

/// No child grids (`CUDALENS_GPU_NO_CHILD_GRIDS=1`): the refinement's tests leave out the
/// tuning that launches them, for racecheck, initcheck and synccheck, which do not support
/// dynamic parallelism. Every other path (the fused kernel, in-block refinement,
/// per-pixel, colours) still runs.
fn no_child_grids() -> bool {
    env_flag("CUDALENS_GPU_NO_CHILD_GRIDS")
}

/// Whether `t` launches child grids where this run cannot (`no_child_grids`).
fn needs_child_grids_here(t: &MsTuning) -> bool {
    no_child_grids() && t.launch_min_pixels < 1 << 30
}

/// A CUDA frame runner on interop path `path` (checked to be the one in use).
fn cuda_runner(gl: &glow::Context, path: InteropRequest, w: u32, h: u32) -> FrameRunner {
    let runner = FrameRunner::new(gl, BackendRequest::Cuda, path, w, h).expect("CUDA backend");
    assert_eq!(runner.status.kind, BackendKind::Cuda);
    let want = PATHS.iter().find(|(r, _)| *r == path).map(|(_, k)| *k);
    assert_eq!(runner.interop.as_ref().map(|i| i.kind), want, "{path:?}");
    runner
}

/// Runs `filters` on `image` through the CUDA frame pipeline on interop path `path` with
/// poisoned outputs; returns the output read back from GL, the report's histogram and the
/// GL bin buffer's contents.
fn run_cuda(
    gl: &glow::Context,
    path: InteropRequest,
    image: &RgbaImage,
    filters: &[Filter],
) -> (RgbaImage, Histogram, Vec<u32>) {
    let (w, h) = filters
        .iter()
        .fold(image.dimensions(), |(w, h), f| f.output_size(w, h));
    let source = GlTexture::new(gl, image.width(), image.height(), Some(image.as_raw()))
        .expect("source texture");
    let mut runner = cuda_runner(gl, path, w, h);
    runner
        .targets
        .output
        .fill(gl, POISON)
        .expect("poison output");
    runner
        .targets
        .bins
        .write(gl, &[0x5A; 4096])
        .expect("poison bins");
    let report = runner
        .run(gl, &source, image, &stages_of(filters))
        .expect("CUDA frame");
    assert_eq!(report.backend, BackendKind::Cuda);
    let out = runner.targets.output.read(gl).expect("read output");
    let gl_bins = gl_bins(gl, &runner);
    runner.destroy(gl);
    source.destroy(gl);
    (out, report.histogram, gl_bins)
}

/// The runner's GL bin buffer, read back.
fn gl_bins(gl: &glow::Context, runner: &FrameRunner) -> Vec<u32> {
    runner
        .targets
        .bins
        .read(gl)
        .expect("read bins")
        .chunks_exact(4)
        .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// With filters on a selection only, the bins count what is shown: the result inside the
/// selection, the source outside, on both interop paths and with a user kernel in the
/// stack (whose frame then counts its bins in this process rather than whole in the kernel
/// host): GL's bins and the report equal the CPU's count of the composite, which is not the
/// result's own histogram.
#[test]
fn gpu_bins_count_what_is_shown_with_filters_on_a_selection() {
    use cudalens::ops::ShownSelection;
    use cudalens::pipeline::{Stage, KERNEL_HOST_STAGE};
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let check = |runner: &mut FrameRunner, image: &RgbaImage, stack: &[Stage], label: &str| {
        let (w, h) = image.dimensions();
        let selection = ShownSelection {
            x: w / 5,
            y: h / 4,
            width: w / 2,
            height: h / 3,
        };
        let source = GlTexture::new(gl, w, h, Some(image.as_raw())).expect("source texture");
        runner.targets.shown_selection = Some(selection);
        runner
            .targets
            .bins
            .write(gl, &[0x5A; 4096])
            .expect("poison bins");
        let report = runner.run(gl, &source, image, stack).expect("frame");
        let out = runner.targets.output.read(gl).expect("read output");
        let want = cpu::histogram_shown(image, &out, Some(selection));
        assert_ne!(
            want,
            cpu::histogram(&out),
            "{label}: a selection that shows nothing"
        );
        assert_eq!(report.histogram, want, "{label}: report");
        assert_eq!(gl_bins(gl, runner), want.flat(), "{label}: GL bins");
        source.destroy(gl);
        report
    };
    let image = photo("astronaut.png");
    let (w, h) = image.dimensions();
    let sobel: Filter = "sobel".parse().expect("sobel");
    for (path, kind) in PATHS {
        let mut runner = cuda_runner(gl, path, w, h);
        check(
            &mut runner,
            &image,
            &stages_of(&[sobel]),
            &format!("{kind:?}"),
        );
        runner.destroy(gl);
    }
    let Some(stacks) = user_kernel_stacks() else {
        return;
    };
    let (w, h) = stacks.image.dimensions();
    let mut runner = hosted_runner(gl, InteropRequest::External, w, h);
    let report = check(&mut runner, &stacks.image, &stacks.good, "user kernel");
    let names: Vec<&str> = report.stages.iter().map(|s| s.name.as_str()).collect();
    assert!(!names.contains(&KERNEL_HOST_STAGE), "{names:?}");
    runner.destroy(gl);
}

/// Compares one case; panics with a precise message on mismatch.
fn check_case(gl: &glow::Context, label: &str, image: &RgbaImage, filters: &[Filter]) {
    let start = Instant::now();
    let want = apply_cpu(image, filters);
    let cpu_ms = start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    let (got, histogram, gl_bins) = run_cuda(gl, InteropRequest::Classic, image, filters);
    let gpu_ms = start.elapsed().as_secs_f64() * 1e3;
    let (external, external_histogram, external_bins) =
        run_cuda(gl, InteropRequest::External, image, filters);
    assert!(
        external == got && external_histogram == histogram && external_bins == gl_bins,
        "{label}: the external-memory path differs from map/unmap"
    );
    let (max, count) = max_difference(&got, &want);
    let tolerance = gpu_tolerance(filters);
    let specs: Vec<String> = filters.iter().map(|f| f.to_string()).collect();
    assert!(
        max <= tolerance,
        "{label} [{}]: max difference {max} (> {tolerance}) in {count} channel values",
        specs.join(" → ")
    );
    // Alpha is never filtered, only moved: it must match exactly.
    assert!(
        got.pixels()
            .zip(want.pixels())
            .all(|(a, b)| a.0[3] == b.0[3]),
        "{label}: alpha differs"
    );
    // The histogram kernel counts exactly what the GPU produced, and the GL buffer holds it.
    assert_eq!(
        histogram,
        cpu::histogram(&got),
        "{label}: histogram of the GPU output"
    );
    assert_eq!(gl_bins, histogram.flat(), "{label}: GL bin buffer");
    println!(
        "ok {label:<28} {:<40} max diff {max} ({count} values) cpu {cpu_ms:8.1} ms, gpu round trip {gpu_ms:8.1} ms",
        specs.join(" → ")
    );
}

fn parse(specs: &[&str]) -> Vec<Filter> {
    specs
        .iter()
        .map(|s| s.parse().expect("test spec parses"))
        .collect()
}

/// No filter, every filter's test specifications (its parameter extremes) alone, and two
/// chains.
fn all_filter_cases() -> Vec<Vec<Filter>> {
    let mut cases = vec![vec![]];
    for def in FILTERS {
        cases.extend(def.test_specs.iter().map(|s| parse(&[s])));
    }
    cases.push(parse(&[
        "gaussian:sigma=1.5",
        "transpose",
        "sobel:scale=2",
        "box:radius=3",
    ]));
    // Exact filters chained stay exact. (An exact but non-linear stage after one that is
    // within 1, e.g. equalize after unsharp, may turn a difference of 1 into several: a
    // chain's tolerance holds when its inexact stages come last.)
    cases.push(parse(&[
        "median:radius=2",
        "transpose",
        "equalize",
        "box:radius=2",
    ]));
    cases.push(parse(&[
        "equalize",
        "median:radius=1",
        "unsharp:sigma=1,amount=2",
    ]));
    // A level computed on the device from a stage's output.
    cases.push(parse(&[
        "levels:black=16,white=235,gamma=2.2",
        "threshold:method=otsu",
        "median:radius=1",
    ]));
    cases
}

/// No filter and each filter's last (most extreme) test specification.
fn extreme_filter_cases() -> Vec<Vec<Filter>> {
    let mut cases = vec![vec![]];
    for def in FILTERS {
        cases.extend(def.test_specs.last().map(|s| parse(&[s])));
    }
    cases
}

#[test]
fn filters_match_the_cpu_reference_on_photographs() {
    let Some(ctx) = cuda_gl() else { return };
    for name in ["astronaut.png", "coffee.png", "camera.png", "logo.png"] {
        let image = photo(name);
        for filters in all_filter_cases() {
            check_case(&ctx.gl, name, &image, &filters);
        }
    }
}

#[test]
fn filters_match_the_cpu_reference_on_random_images() {
    let Some(ctx) = cuda_gl() else { return };
    let mut sizes = vec![(1, 1), (7, 3), (3, 7), (1917, 1081)];
    if sanitize() {
        sizes[3] = (321, 173);
    } else if !quick() {
        sizes.extend([(3840, 2160), (7680, 4320)]);
    }
    for (i, (w, h)) in sizes.into_iter().enumerate() {
        let image = random_image(w, h, 1000 + i as u64);
        let label = format!("random {w}x{h}");
        let cases = if w * h > 4_000_000 {
            // The CPU reference is the slow side here: the extremes only.
            extreme_filter_cases()
        } else {
            all_filter_cases()
        };
        for filters in cases {
            check_case(&ctx.gl, &label, &image, &filters);
        }
    }
}

/// Random image sizes around a kernel's edges: one pixel, narrower and shorter than a tile
/// or strip, and several tiles with partial ones at the borders.
const EDGE_SIZES: [(u32, u32); 5] = [(1, 1), (7, 3), (33, 1), (1, 70), (1917, 1081)];

/// The photographs `photos`, then random images of `sizes` (seeds from `seed` on), each with
/// its label for the messages.
fn labelled_images(photos: &[&str], sizes: &[(u32, u32)], seed: u64) -> Vec<(String, RgbaImage)> {
    let photos = photos.iter().map(|n| (n.to_string(), photo(n)));
    let random = sizes.iter().enumerate().map(|(i, &(w, h))| {
        (
            format!("random {w}x{h}"),
            random_image(w, h, seed + i as u64),
        )
    });
    photos.chain(random).collect()
}

/// Every radius the warp kernel (`box_small_R`) is built for and the first of the strip
/// kernel, on photographs (alpha too) and random images narrower and shorter than a strip.
#[test]
fn box_is_exact_at_every_small_radius() {
    let Some(ctx) = cuda_gl() else { return };
    let images = labelled_images(&["camera.png", "logo.png"], &EDGE_SIZES, 500);
    for radius in 1..=BOX_SMALL_MAX_RADIUS + 1 {
        let filters = parse(&[&format!("box:radius={radius}")]);
        for (label, image) in &images {
            check_case(&ctx.gl, label, image, &filters);
        }
    }
}

/// The Gaussian on both sides of the switch from the fused f32 pass (radius ≤ 9) to the
/// tensor cores, and on the tensor cores at every step count the app uses,
/// J = ⌈2R / 16⌉ + 1 = 3 … 13 (the largest radius of each), with σ = R / 3 and a near-delta
/// σ = 0.5, on photographs (alpha too) and random images narrower and shorter than a tile.
/// Under the sanitizers (`CUDALENS_GPU_SANITIZE=1`, racecheck runs these kernels hundreds
/// of times slower): every radius, σ = R / 3, on two random images, one of several tiles.
#[test]
fn gaussian_is_within_one_at_every_step_count() {
    let Some(ctx) = cuda_gl() else { return };
    let images = if sanitize() {
        labelled_images(&[], &[(7, 3), (321, 173)], 700)
    } else {
        labelled_images(&["coffee.png", "logo.png"], &EDGE_SIZES, 700)
    };
    let radii = [1, 9, 10]
        .into_iter()
        .chain((3..=13).map(|steps| 8 * (steps - 1)));
    for radius in radii {
        let sigma = radius as f32 / 3.0;
        let mut specs = vec![format!("gaussian:sigma={sigma},radius={radius}")];
        if !sanitize() {
            specs.push(format!("gaussian:sigma=0.5,radius={radius}"));
        }
        for spec in specs {
            let filters = parse(&[&spec]);
            for (label, image) in &images {
                check_case(&ctx.gl, label, image, &filters);
            }
        }
    }
}

#[test]
fn histogram_and_transpose_are_exact() {
    let Some(ctx) = cuda_gl() else { return };
    for (i, (w, h)) in [(1, 1), (7, 3), (257, 129), (1917, 1081)]
        .into_iter()
        .enumerate()
    {
        let image = random_image(w, h, 77 + i as u64);
        for (path, _) in PATHS {
            let (copy, histogram, _) = run_cuda(&ctx.gl, path, &image, &[]);
            assert_eq!(copy, image, "{w}x{h} {path:?}: identity");
            assert_eq!(
                histogram,
                cpu::histogram(&image),
                "{w}x{h} {path:?}: histogram"
            );
            let transpose = parse(&["transpose"]);
            let (t, _, _) = run_cuda(&ctx.gl, path, &image, &transpose);
            assert_eq!(
                t,
                apply_cpu(&image, &transpose),
                "{w}x{h} {path:?}: transpose"
            );
        }
    }
}

/// The Mandelbrot renderer on CUDA. Its dwells never cross the interop (they are copied to
/// the host), so the interop path is left to `auto`.
fn cuda_mandelbrot(gl: &glow::Context) -> MandelbrotRenderer {
    MandelbrotRenderer::new(gl, BackendRequest::Cuda, None, InteropRequest::Auto)
        .expect("CUDA Mandelbrot")
}

fn share(mismatches: usize, total: usize) -> f64 {
    mismatches as f64 / total.max(1) as f64
}

/// Tunings that take the kernel's other paths: child grids for every split (launch_min 1),
/// and in-block refinement of all levels in one pass or level by level; the explorer's
/// refinement presets that nest; and the measured tunings above 3840×2160 (nested in-block).
fn path_tunings() -> Vec<(String, MsTuning)> {
    let paths = [
        (
            "child grids everywhere",
            MsTuning {
                init_size: 64,
                subdiv: 2,
                leaf_size: 4,
                launch_min_pixels: 1,
                lookahead: 1,
            },
        ),
        (
            "in-block, all levels per pass",
            MsTuning {
                init_size: 128,
                subdiv: 2,
                leaf_size: 8,
                launch_min_pixels: 1 << 30,
                lookahead: 12,
            },
        ),
        (
            "in-block, level by level",
            MsTuning {
                init_size: 16,
                subdiv: 2,
                leaf_size: 4,
                launch_min_pixels: 1 << 30,
                lookahead: 1,
            },
        ),
        ("preset nested", NESTED_TUNING),
        ("preset child grids", CHILD_GRIDS_TUNING),
    ];
    let classes = MS_TUNINGS.iter().enumerate().skip(1);
    paths
        .map(|(what, t)| (what.to_string(), t))
        .into_iter()
        .chain(classes.map(|(class, (_, t))| (format!("measured, size class {class}"), *t)))
        .collect()
}

/// The GPU's Mariani–Silver f64 dwells, continuous values (when `smooth`), records and
/// statistics equal the CPU reference's with the same tuning.
fn check_refinement(
    renderer: &mut MandelbrotRenderer,
    view: View,
    tuning: Option<MsTuning>,
    smooth: bool,
    label: &str,
) {
    let s = MandelbrotSettings {
        view,
        mode: Mode::MarianiSilver,
        precision: Precision::F64,
        overlay: true,
        tuning,
        coloring: Coloring {
            smooth,
            ..Coloring::default()
        },
        ..MandelbrotSettings::default()
    };
    check_refinement_of(renderer, &s, label);
}

/// The GPU's continuous values (when it has them) are the CPU's within 1e-5 relative.
fn assert_continuous_values_close(
    gpu: &cudalens::mandelbrot::Dwells,
    cpu: &cudalens::mandelbrot::Dwells,
    label: &str,
) {
    assert_eq!(gpu.smooth.is_some(), cpu.smooth.is_some(), "{label}");
    if let (Some(g), Some(c)) = (&gpu.smooth, &cpu.smooth) {
        let worst = g
            .iter()
            .zip(c)
            .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
            .fold(0.0f32, f32::max);
        assert!(
            worst < 1e-5,
            "{label}: continuous values differ by {worst} (relative)"
        );
    }
}

/// The GPU's Mariani–Silver dwells, continuous values (where the view has them), records
/// and statistics for `s` (overlay on) equal the CPU reference's (`cpu_dwells`: the same
/// tuning, plain or perturbation dwells). Returns the GPU's dwells and dwell time.
fn check_refinement_of(
    renderer: &mut MandelbrotRenderer,
    s: &MandelbrotSettings,
    label: &str,
) -> (cudalens::mandelbrot::Dwells, f64) {
    let (gpu, frame) = renderer.dwells(s).expect("GPU dwells");
    let (cpu, cpu_frame) = cpu_dwells(s);
    assert_eq!(
        gpu.mismatches(&cpu),
        0,
        "{label}: GPU Mariani–Silver vs CPU Mariani–Silver"
    );
    assert_continuous_values_close(&gpu, &cpu, label);
    let (mut want, mut got) = (cpu_frame.records.clone(), frame.records.clone());
    want.sort();
    got.sort();
    assert_eq!(got, want, "{label}: rectangles");
    let mut stats = frame.stats.expect("GPU statistics");
    let cpu_stats = cpu_frame.stats.expect("CPU statistics");
    assert!(stats.child_grids.is_some(), "{label}");
    assert!(
        stats.evaluated_pixels >= cpu_stats.evaluated_pixels,
        "{label}: evaluated pixels"
    );
    (stats.child_grids, stats.evaluated_pixels) = (None, cpu_stats.evaluated_pixels);
    assert_eq!(stats, cpu_stats, "{label}: statistics");
    (gpu, frame.dwell_ms())
}

#[test]
fn mandelbrot_matches_the_cpu_reference() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let mut renderer = cuda_mandelbrot(gl);
    let sizes: &[(u32, u32)] = if quick() {
        &[(1, 1), (7, 3), (97, 61)]
    } else {
        &[(1, 1), (7, 3), (317, 211), (640, 480), (1920, 1080)]
    };
    for (name, center, span, max_dwell) in BOOKMARKS {
        for &(width, height) in sizes {
            let view = View {
                center,
                span,
                width,
                height,
                max_dwell,
                fractal: cudalens::mandelbrot::Fractal::Mandelbrot,
            };
            let reference = render_per_pixel(&view, false);
            let total = reference.values.len();
            let mut dwells = |mode, precision| {
                let s = MandelbrotSettings {
                    view,
                    mode,
                    precision,
                    overlay: mode == Mode::MarianiSilver,
                    ..MandelbrotSettings::default()
                };
                renderer.dwells(&s).expect("GPU dwells").0
            };
            let pp64 = dwells(Mode::PerPixel, Precision::F64);
            let ms64 = dwells(Mode::MarianiSilver, Precision::F64);
            let pp32 = dwells(Mode::PerPixel, Precision::F32);
            let ms32 = dwells(Mode::MarianiSilver, Precision::F32);
            let (a, b, c) = (
                pp64.mismatches(&reference),
                ms64.mismatches(&pp64),
                ms32.mismatches(&pp32),
            );
            println!("ok {name:<16} {width}x{height}: f64 per-pixel vs CPU {a}/{total}, f64 M-S vs per-pixel {b}/{total}, f32 M-S vs per-pixel {c}/{total}");
            assert_eq!(
                a, 0,
                "{name} {width}x{height}: GPU f64 per-pixel vs CPU f64"
            );
            for (what, bad) in [
                ("GPU f64 Mariani–Silver vs per-pixel", b),
                ("GPU f32 Mariani–Silver vs per-pixel", c),
            ] {
                assert!(
                    share(bad, total) <= 1e-4 || bad <= 1,
                    "{name} {width}x{height}: {what}: {bad} of {total} pixels differ"
                );
            }
            let label = format!("{name} {width}x{height}");
            check_refinement(&mut renderer, view, None, true, &label);
            if width == 640 || (quick() && width == 97) {
                for (what, t) in path_tunings() {
                    if needs_child_grids_here(&t) {
                        continue;
                    }
                    // Fills store continuous values (Coons patches) or dwells only: both.
                    for smooth in [true, false] {
                        let label = format!("{label} {what} smooth {smooth}");
                        check_refinement(&mut renderer, view, Some(t), smooth, &label);
                    }
                }
            }
        }
    }
    renderer.destroy(gl);
}

/// Above 3840×2160 plain views refine in one grid (line tiles, then a block per level-0 cell
/// that waits for its border's units): dwells, continuous values, rectangles and statistics
/// equal the CPU reference's on every bookmark with the measured tuning for the size, and
/// on the first with dwells only and with both refinement presets.
#[test]
fn mandelbrot_refines_in_one_grid_above_3840x2160() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let mut renderer = cuda_mandelbrot(gl);
    // 8 388 608 pixels, the fewest above 3840 × 2160 with power-of-two sides.
    let (width, height) = (4096, 2048);
    let bookmarks = if quick() {
        &BOOKMARKS[..1]
    } else {
        &BOOKMARKS[..]
    };
    for (k, &(name, center, span, max_dwell)) in bookmarks.iter().enumerate() {
        let view = View {
            center,
            span,
            width,
            height,
            max_dwell,
            fractal: cudalens::mandelbrot::Fractal::Mandelbrot,
        };
        let label = format!("{name} {width}x{height}");
        check_refinement(&mut renderer, view, None, true, &label);
        println!("ok {label}: measured tuning");
        if k > 0 {
            continue;
        }
        check_refinement(
            &mut renderer,
            view,
            None,
            false,
            &format!("{label}, dwells"),
        );
        for (what, t) in [
            ("nested", NESTED_TUNING),
            ("child grids", CHILD_GRIDS_TUNING),
        ] {
            if !needs_child_grids_here(&t) {
                check_refinement(
                    &mut renderer,
                    view,
                    Some(t),
                    true,
                    &format!("{label}, {what}"),
                );
            }
        }
        println!("ok {label}: dwells only, both presets");
    }
    renderer.destroy(gl);
}

/// On both interop paths (the display texture shared as external memory and written by
/// CUDA, or a pixel buffer mapped each frame and copied into the texture), the colours in
/// the GL texture are the GPU's colours of its dwells and the CPU's, at each size in turn
/// (the shared texture is re-made on every change of size).
#[test]
fn mandelbrot_colours_reach_gl_on_both_interop_paths() {
    let Some(ctx) = cuda_gl() else { return };
    for (request, kind) in PATHS {
        let mut renderer = MandelbrotRenderer::new(&ctx.gl, BackendRequest::Cuda, None, request)
            .expect("CUDA Mandelbrot");
        assert_eq!(renderer.interop().map(|i| i.kind), Some(kind));
        println!("explorer interop path: {kind}");
        mandelbrot_colours_on(&ctx.gl, &mut renderer);
        renderer.destroy(&ctx.gl);
    }
}

fn mandelbrot_colours_on(gl: &glow::Context, renderer: &mut MandelbrotRenderer) {
    let smooth = Coloring {
        smooth: true,
        density: 1.7,
        offset: 0.3,
        palette: Palette::Fire.into(),
        ..Coloring::default()
    };
    // A user palette goes through the same tables (a Fractint map of 3 colours).
    let map =
        cudalens::mandelbrot::parse_map("t.map", "t", b"255 0 0\n0 255 0\n0 0 255\n").expect("map");
    let user = Coloring {
        palette: cudalens::mandelbrot::PaletteChoice::User(map),
        density: 2.5,
        ..Coloring::default()
    };
    for (mode, (w, h), coloring) in [
        (Mode::PerPixel, (1, 1), Coloring::default()),
        (Mode::MarianiSilver, (333, 222), Coloring::default()),
        (Mode::PerPixel, (1024, 768), Coloring::default()),
        (Mode::PerPixel, (640, 480), smooth.clone()),
        (Mode::MarianiSilver, (640, 480), smooth),
        (Mode::MarianiSilver, (640, 480), user.clone()),
        (
            Mode::PerPixel,
            (640, 480),
            Coloring {
                smooth: true,
                ..user
            },
        ),
    ] {
        let s = MandelbrotSettings {
            view: View {
                width: w,
                height: h,
                ..View::default()
            },
            mode,
            precision: Precision::F64,
            coloring: coloring.clone(),
            ..MandelbrotSettings::default()
        };
        let label = format!("{mode:?} {w}x{h} smooth {}", coloring.smooth);
        if coloring.smooth {
            texture_shows_smooth_colours(gl, renderer, &s, &label);
            continue;
        }
        let target = renderer.texture_for(gl, w, h).expect("texture");
        target.fill(gl, POISON).expect("poison");
        let frame = renderer.render(gl, &s).expect("render");
        assert_eq!(frame.backend, BackendKind::Cuda);
        let shown = renderer.texture().read(gl).expect("read texture");
        // The GPU's colours of the GPU's dwells, and the CPU's colours of the CPU's dwells.
        let (dwells, _) = renderer.dwells(&s).expect("dwells");
        let of_gpu_dwells = s.coloring.colorize(&dwells, s.view.max_dwell);
        let of_cpu = s.coloring.colorize(&cpu_dwells(&s).0, s.view.max_dwell);
        assert_eq!(
            shown, of_gpu_dwells,
            "{label}: texture differs from LUT(dwells)"
        );
        assert_eq!(
            shown, of_cpu,
            "{label}: texture differs from the CPU's colours"
        );
    }
}

/// Renders `s` (smooth colouring) into a poisoned texture: it shows the colours of the
/// GPU's continuous values and of the CPU reference's, each within one level per channel.
fn texture_shows_smooth_colours(
    gl: &glow::Context,
    renderer: &mut MandelbrotRenderer,
    s: &MandelbrotSettings,
    label: &str,
) {
    let (w, h) = (s.view.width, s.view.height);
    let target = renderer.texture_for(gl, w, h).expect("texture");
    target.fill(gl, POISON).expect("poison");
    let frame = renderer.render(gl, s).expect("render");
    assert_eq!(frame.backend, BackendKind::Cuda);
    let shown = renderer.texture().read(gl).expect("read texture");
    let (dwells, _) = renderer.dwells(s).expect("dwells");
    let of_gpu_dwells = s.coloring.colorize(&dwells, s.view.max_dwell);
    let of_cpu = s.coloring.colorize(&cpu_dwells(s).0, s.view.max_dwell);
    for (what, want) in [("GPU dwells", &of_gpu_dwells), ("CPU reference", &of_cpu)] {
        let (max, n) = max_difference(&shown, want);
        println!("ok {label}: colours vs {what}: max difference {max} ({n} channel values)");
        assert!(max <= 1, "{label}: colours vs {what} differ by {max}");
    }
}

/// A change of colour alone (palette, density, offset, smooth when the kept frame had its
/// continuous values) recolours the kept dwells: the frame runs no dwell stage, and the
/// texture holds the new colouring of the same dwells, on a deep view too. A change of
/// view, mode or max dwell computes again.
#[test]
fn a_colour_change_recolours_the_kept_dwells() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let mut renderer = cuda_mandelbrot(gl);
    let (w, h) = if quick() { (640, 360) } else { (1920, 1080) };
    let plain = MandelbrotSettings {
        view: View {
            width: w,
            height: h,
            ..View::default()
        },
        coloring: Coloring {
            smooth: true,
            ..Coloring::default()
        },
        precision: Precision::F64,
        ..MandelbrotSettings::default()
    };
    let (name, location, dwell) = deep_views().swap_remove(0);
    let deep = deep_settings(location, dwell, (w, h));
    let names = |frame: &cudalens::pipeline::MandelbrotFrame| -> Vec<String> {
        frame.stages.iter().map(|s| s.name.clone()).collect()
    };
    for (label, first) in [("whole set", plain), (name.as_str(), deep)] {
        renderer.texture_for(gl, w, h).expect("texture");
        let computed = renderer.render(gl, &first).expect("render");
        assert!(
            names(&computed).iter().any(|n| n == "dwell"),
            "{label}: {:?}",
            names(&computed)
        );
        let (dwells, _) = renderer.dwells(&first).expect("dwells");
        for (i, coloring) in [
            Coloring {
                palette: Palette::Ocean.into(),
                density: 3.0,
                offset: 0.6,
                ..first.coloring.clone()
            },
            Coloring {
                smooth: false,
                palette: Palette::Fire.into(),
                ..first.coloring.clone()
            },
        ]
        .into_iter()
        .enumerate()
        {
            let s = MandelbrotSettings {
                coloring,
                ..first.clone()
            };
            let target = renderer.texture_for(gl, w, h).expect("texture");
            target.fill(gl, POISON).expect("poison");
            let frame = renderer.render(gl, &s).expect("recolour");
            let stages = names(&frame);
            assert!(
                !stages
                    .iter()
                    .any(|n| n == "dwell" || n == "reference orbit"),
                "{label} recolour {i}: dwell work in {stages:?}"
            );
            let shown = renderer.texture().read(gl).expect("read texture");
            let want = s.coloring.colorize(&dwells, s.view.max_dwell);
            let (max, n) = max_difference(&shown, &want);
            println!(
                "ok {label} {w}x{h} recolour {i}: {:.3} ms of GPU stages {stages:?}, max difference {max} ({n} values)",
                cudalens::pipeline::total_of(&frame.stages)
            );
            assert!(max <= 1, "{label} recolour {i}: colours differ by {max}");
        }
        let moved = MandelbrotSettings {
            view: View {
                max_dwell: first.view.max_dwell + 1,
                ..first.view
            },
            ..first.clone()
        };
        let again = renderer.render(gl, &moved).expect("render");
        assert!(
            names(&again).iter().any(|n| n == "dwell"),
            "{label}: another max dwell reused the dwells"
        );
    }
    renderer.destroy(gl);
}

/// The explorer's display follows the window's size; on the external path its semaphores
/// stay through each change. Made anew per size they cost the drivers a small mapping
/// each, given back only in batches of 512, so host memory cycled by 2–3 MiB in the soak.
#[test]
fn explorer_display_resizes_keep_the_drivers_mappings() {
    let Some(ctx) = cuda_gl() else { return };
    let mut renderer = MandelbrotRenderer::new(
        &ctx.gl,
        BackendRequest::Cuda,
        None,
        InteropRequest::External,
    )
    .expect("CUDA Mandelbrot on external memory");
    let mut render = |i: u32| {
        let (w, h) = (8 + i % 7, 8 + i % 5); // a new size every frame
        let s = MandelbrotSettings {
            view: View {
                width: w,
                height: h,
                ..View::default()
            },
            ..MandelbrotSettings::default()
        };
        renderer.texture_for(&ctx.gl, w, h).expect("texture");
        renderer.render(&ctx.gl, &s).expect("render");
    };
    (0..16).for_each(&mut render);
    let before = mapping_count();
    (16..216).for_each(&mut render);
    let after = mapping_count();
    println!("mappings: {before} before 200 resizes, {after} after");
    assert!(
        after <= before + 32,
        "200 resizes added {} mappings",
        after.saturating_sub(before)
    );
    renderer.destroy(&ctx.gl);
}

#[test]
fn a_new_image_in_the_same_texture_is_not_served_stale() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    for (path, _) in PATHS {
        let (a, b) = (random_image(640, 360, 1), random_image(640, 360, 2));
        let mut source = GlTexture::new(gl, 640, 360, Some(a.as_raw())).expect("source texture");
        let mut runner = cuda_runner(gl, path, 640, 360);
        let filters = parse(&["box:radius=2"]);
        runner
            .run(gl, &source, &a, &stages_of(&filters))
            .expect("frame A");
        assert_eq!(
            runner.targets.output.read(gl).expect("read"),
            apply_cpu(&a, &filters),
            "{path:?}: frame A"
        );
        // What the app does on load: release CUDA's hold, then re-specify the same texture.
        runner.release_registrations();
        source.upload(gl, &b).expect("upload B");
        runner
            .run(gl, &source, &b, &stages_of(&filters))
            .expect("frame B");
        assert_eq!(
            runner.targets.output.read(gl).expect("read"),
            apply_cpu(&b, &filters),
            "{path:?}: frame B"
        );
        runner.destroy(gl);
        source.destroy(gl);
    }
}

/// Images loaded into the runner's own source (`load_source`: on the external path the
/// shared memory itself), of one size, another and the first again, each under stacks
/// that turn the image and stacks that do not: the source shows the loaded pixels, and
/// the buffers kept for the other shape (output, source, intermediates) never serve an
/// earlier frame's pixels, read through GL or CUDA.
#[test]
fn loaded_sources_and_kept_buffers_serve_no_stale_pixels() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let stacks = [
        &["transpose"][..],
        &["box:radius=2"],
        &["transpose", "box:radius=1"],
        &["box:radius=3", "transpose", "median:radius=1"],
        &[],
        &["transpose", "transpose"],
        &["transpose"],
    ]
    .map(parse);
    let images = [
        random_image(640, 360, 3),
        random_image(640, 360, 4),
        random_image(200, 300, 5),
        random_image(640, 360, 6),
    ];
    for (path, _) in PATHS {
        let mut runner = cuda_runner(gl, path, 640, 360);
        for (i, image) in images.iter().enumerate() {
            runner.load_source(gl, image).expect("load");
            let source = runner.source().expect("a source").read(gl).expect("read");
            assert!(source == *image, "{path:?}: image {i} as loaded");
            for filters in stacks.iter().chain(&stacks) {
                runner
                    .run_loaded(gl, image, &stages_of(filters))
                    .expect("frame");
                let want = apply_cpu(image, filters);
                let label = format!("{path:?}: image {i}, {filters:?}");
                assert_eq!(
                    runner.targets.output.read(gl).expect("read"),
                    want,
                    "{label}"
                );
                // The read-back through CUDA (apply, saving) gives the same pixels.
                let through_cuda = runner.read_output(gl).expect("read through CUDA");
                assert_eq!(through_cuda, want, "{label}, read through CUDA");
            }
        }
        runner.destroy(gl);
    }
}

#[test]
fn auto_prefers_external_memory_and_says_why() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let runner = FrameRunner::new(gl, BackendRequest::Cuda, InteropRequest::Auto, 64, 64)
        .expect("CUDA backend");
    let interop = runner.interop.clone().expect("an interop path on CUDA");
    println!("auto: {interop}");
    assert_eq!(interop.kind, InteropKind::External, "{}", interop.reason);
    assert!(!interop.reason.is_empty());
    runner.destroy(gl);
}

/// A reproducible random filter stack of up to four stages.
fn random_stack(rng: &mut impl rand::Rng) -> Vec<Filter> {
    (0..rng.random_range(0..=4))
        .map(|_| {
            let spec = match rng.random_range(0..4) {
                0 => format!("sobel:scale={:.2}", rng.random_range(0.1..4.0f32)),
                1 => format!("box:radius={}", rng.random_range(1..=32)),
                2 => format!("gaussian:sigma={:.2}", rng.random_range(0.5..6.0f32)),
                _ => "transpose".to_string(),
            };
            spec.parse().expect("valid spec")
        })
        .collect()
}

#[test]
#[ignore = "10 000 frames: run on the GPU machine with --ignored"]
fn external_path_leaks_no_gpu_memory() {
    use rand::SeedableRng;
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let frames: usize = std::env::var("CUDALENS_SOAK_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let device = CudaDevice::new(0).expect("device 0");
    let free = || device.memory_info().expect("cuMemGetInfo").0 as i64;
    let mib = |b: i64| b as f64 / (1 << 20) as f64;
    let (w, h) = (1024, 768);
    let images = [random_image(w, h, 5), random_image(w, h, 6)];
    // One pass through every stage kind first, on a runner made and released, so that what
    // the context keeps once (kernel modules, local-memory reservations, the process's
    // Vulkan device) is in "before".
    let mut source = GlTexture::new(gl, w, h, Some(images[0].as_raw())).expect("source");
    let mut runner = cuda_runner(gl, InteropRequest::External, w, h);
    for filters in all_filter_cases() {
        runner
            .run(gl, &source, &images[0], &stages_of(&filters))
            .expect("warm-up");
    }
    runner.destroy(gl);
    let before = free();
    let mut runner = cuda_runner(gl, InteropRequest::External, w, h);
    let mut rng = rand::rngs::StdRng::seed_from_u64(10);
    let mut warm = 0;
    let start = Instant::now();
    for frame in 0..frames {
        if frame % 500 == 250 {
            runner.release_registrations();
            source
                .upload(gl, &images[(frame / 500) % 2])
                .expect("new source");
        }
        let filters = random_stack(&mut rng);
        runner
            .run(gl, &source, &images[0], &stages_of(&filters))
            .unwrap_or_else(|e| panic!("frame {frame} {filters:?}: {e}"));
        if frame == 199 {
            warm = free();
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let after_frames = free();
    runner.destroy(gl);
    source.destroy(gl);
    let after = free();
    println!(
        "{frames} frames in {elapsed:.1} s; free device memory: before {:.1} MiB, after 200 frames {:.1} MiB, after {frames} frames {:.1} MiB, after release {:.1} MiB",
        mib(before), mib(warm), mib(after_frames), mib(after)
    );
    // The driver hands out device memory in 2 MiB pages: allow one.
    assert!(
        warm - after_frames <= 2 << 20,
        "{:.1} MiB lost over the frames",
        mib(warm - after_frames)
    );
    assert!(
        before - after <= 2 << 20,
        "{:.1} MiB not returned after release",
        mib(before - after)
    );
}

/// The deep views checked on the GPU: every deep bookmark plus the views of `EXTRA_DEEP`.
fn deep_views() -> Vec<(String, DeepLocation, u32)> {
    let mut views: Vec<_> = DEEP_BOOKMARKS
        .iter()
        .map(|b| {
            let loc = b.location().expect("bookmark parses");
            (format!("{} {}", b.name, b.span), loc, b.max_dwell)
        })
        .collect();
    for (name, center, span, max_dwell) in EXTRA_DEEP {
        let loc = DeepLocation::parse(center, span).expect("view parses");
        views.push((format!("{name} {span}"), loc, max_dwell));
    }
    views
}

/// Views beyond the bookmarks: the edge of f64 and the f64 perturbation path's deep end.
const EXTRA_DEEP: [(&str, &str, &str, u32); 2] = [
    (
        "Seahorse valley (Wikipedia's zoom)",
        "-0.743643887037158704752191506114774,0.131825904205311970493132056385139",
        "1e-14",
        5000,
    ),
    ("Misiurewicz point i", "0,1", "1e-280", 20_000),
];

/// A deep view at `w`×`h`, per pixel (max dwell at most 3000 in quick runs), every step
/// iterated (BLA off: `deep_bla_dwells_match_the_cpu` checks BLA).
fn deep_settings(location: DeepLocation, max_dwell: u32, (w, h): (u32, u32)) -> MandelbrotSettings {
    let mut s = MandelbrotSettings {
        view: View {
            width: w,
            height: h,
            max_dwell: if quick() {
                max_dwell.min(3000)
            } else {
                max_dwell
            },
            ..View::default()
        },
        mode: Mode::PerPixel,
        bla: false,
        ..MandelbrotSettings::default()
    };
    s.set_location(location);
    s
}

/// BLA on the GPU, on the bookmarks 1e-100 wide (double-double) and 1e-300 wide
/// (extended): the GPU's BLA dwells equal the CPU's BLA dwells on every pixel, per pixel
/// and refined by Mariani–Silver (dwells, rectangles, statistics), and ≥ 99.9 % of them
/// equal the dwells without BLA. Prints the dwell kernels' times with and without.
#[test]
fn deep_bla_dwells_match_the_cpu() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let mut renderer = cuda_mandelbrot(gl);
    let (w, h) = if quick() { (96, 54) } else { (320, 180) };
    let mut failures = Vec::new();
    for span in ["1e-100", "1e-300"] {
        let b = DEEP_BOOKMARKS
            .iter()
            .find(|b| b.span == span)
            .expect("bookmark");
        let name = format!("{} {span}", b.name);
        let mut s = deep_settings(b.location().expect("location"), b.max_dwell, (w, h));
        let (plain, off) = renderer.dwells(&s).expect("GPU dwells without BLA");
        s.bla = true;
        let (gpu, on) = renderer.dwells(&s).expect("GPU BLA dwells");
        assert!(is_deep(on.precision), "{name}: {:?}", on.precision);
        let (cpu, _) = cpu_dwells(&s);
        let vs_cpu = gpu.mismatches(&cpu);
        let vs_plain = gpu.mismatches(&plain);
        texture_shows_the_dwells(gl, &mut renderer, &s, &gpu, &name);
        s.mode = Mode::MarianiSilver;
        s.overlay = true;
        check_refinement_of(&mut renderer, &s, &format!("{name}, BLA, Mariani–Silver"));
        let total = gpu.values.len();
        println!(
            "ok {name}: {w}x{h} max dwell {}, {:?}: GPU BLA vs CPU BLA {vs_cpu}/{total}, \
             BLA vs without {vs_plain}/{total}; dwell kernels: without BLA {:.2} ms, BLA {:.2} ms",
            s.view.max_dwell,
            on.precision,
            off.dwell_ms(),
            on.dwell_ms()
        );
        if vs_cpu != 0 {
            failures.push(format!("{name}: GPU and CPU BLA differ on {vs_cpu}"));
        }
        if share(vs_plain, total) > 1e-3 {
            failures.push(format!("{name}: BLA changes {vs_plain} of {total} dwells"));
        }
    }
    renderer.destroy(gl);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Renders `s` into a poisoned display texture: it shows LUT(`dwells`).
fn texture_shows_the_dwells(
    gl: &glow::Context,
    renderer: &mut MandelbrotRenderer,
    s: &MandelbrotSettings,
    dwells: &cudalens::mandelbrot::Dwells,
    name: &str,
) {
    let (w, h) = (s.view.width, s.view.height);
    let target = renderer.texture_for(gl, w, h).expect("texture");
    target.fill(gl, POISON).expect("poison");
    renderer.render(gl, s).expect("render");
    let shown = renderer.texture().read(gl).expect("read texture");
    assert_eq!(
        shown,
        s.coloring.colorize(dwells, s.view.max_dwell),
        "{name}: texture vs LUT(dwells)"
    );
}

#[test]
fn deep_views_match_arbitrary_precision_iteration() {
    use rayon::prelude::*;
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let mut renderer = cuda_mandelbrot(gl);
    let ((w, h), samples) = if quick() {
        ((96, 54), 200)
    } else {
        ((640, 360), 2500)
    };
    // Every view is checked and reported; the test fails at the end if any missed.
    let mut failures = Vec::new();
    for (name, location, max_dwell) in deep_views() {
        let s = deep_settings(location, max_dwell, (w, h));
        let max_dwell = s.view.max_dwell;
        let view = s.deep_view().expect("deep view");
        let start = Instant::now();
        let (gpu, frame) = renderer.dwells(&s).expect("GPU dwells");
        let gpu_ms = start.elapsed().as_secs_f64() * 1e3;
        assert_eq!(frame.backend, BackendKind::Cuda, "{name}");
        assert!(is_deep(frame.precision), "{name}: {:?}", frame.precision);
        texture_shows_the_dwells(gl, &mut renderer, &s, &gpu, &name);
        let orbit = ReferenceOrbit::compute(&view);
        let perturbation = Perturbation::new(&view, &orbit, frame.precision);
        let pixels = sample_pixels(w, h, samples, 13);
        let start = Instant::now();
        let checked: Vec<(u32, u32, u32, (u32, u32))> = pixels
            .par_iter()
            .map(|&(x, y)| {
                let cpu = perturbation.pixel(x, y, false).0;
                let i = (y * w + x) as usize;
                (cpu, direct_dwell(&view, x, y, 64), gpu.values[i], (x, y))
            })
            .collect();
        let cpu_ms = start.elapsed().as_secs_f64() * 1e3;
        let gpu_vs_cpu = checked.iter().filter(|(c, _, g, _)| c != g).count();
        let vs_direct = checked.iter().filter(|(_, d, g, _)| d != g).count();
        for (_, d, g, (x, y)) in checked.iter().filter(|(_, d, g, _)| d != g).take(20) {
            println!("  {name}: pixel ({x}, {y}) perturbation {g}, direct {d}");
        }
        let dwells: Vec<u32> = checked.iter().map(|t| t.1).collect();
        println!(
            "ok {name}: {w}x{h} max dwell {max_dwell}, {:?}, reference dwell {}, sampled dwells {}..{}: \
             GPU vs CPU perturbation {gpu_vs_cpu}/{}, GPU vs arbitrary-precision direct {vs_direct}/{} \
             (GPU {gpu_ms:.0} ms, CPU check {cpu_ms:.0} ms)",
            frame.precision,
            orbit.dwell(),
            dwells.iter().min().unwrap_or(&0),
            dwells.iter().max().unwrap_or(&0),
            checked.len(),
            checked.len()
        );
        if gpu_vs_cpu != 0 {
            failures.push(format!(
                "{name}: GPU and CPU perturbation differ on {gpu_vs_cpu}"
            ));
        }
        if share(vs_direct, checked.len()) > 0.001 {
            failures.push(format!(
                "{name}: {vs_direct} of {} sampled pixels differ from direct iteration",
                checked.len()
            ));
        }
    }
    renderer.destroy(gl);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Mariani–Silver on perturbation dwells: on every deep view the GPU's
/// refinement equals the CPU's (dwells, rectangles, statistics) with the deep tuning, the
/// window tuning (in-block, all levels per pass), child grids for every split and the
/// explorer's nesting refinements (chosen through `refinement`); it differs from per-pixel perturbation only where
/// a uniform border is filled across a feature; the colours reach GL through the pixel
/// buffer. Prints both modes' dwell kernel times.
#[test]
fn deep_views_refine_as_the_cpu_reference() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let mut renderer = cuda_mandelbrot(gl);
    let (w, h) = if quick() { (96, 54) } else { (256, 144) };
    let mut failures = Vec::new();
    for (name, location, max_dwell) in deep_views() {
        let mut s = deep_settings(location, max_dwell, (w, h));
        s.overlay = true;
        let max_dwell = s.view.max_dwell;
        let (per_pixel, frame) = renderer.dwells(&s).expect("GPU per-pixel dwells");
        assert!(is_deep(frame.precision), "{name}: {:?}", frame.precision);
        let pp_ms = frame.dwell_ms();
        s.mode = Mode::MarianiSilver;
        let (refined, ms_ms) = check_refinement_of(&mut renderer, &s, &name);
        s.tuning = Some(MS_TUNINGS[0].1);
        check_refinement_of(&mut renderer, &s, &format!("{name}, in-block"));
        let (what, child) = path_tunings().swap_remove(0);
        assert_eq!(what, "child grids everywhere");
        s.tuning = Some(child);
        check_refinement_of(
            &mut renderer,
            &s,
            &format!("{name}, child grids everywhere"),
        );
        s.tuning = None;
        for r in [Refinement::Nested, Refinement::ChildGrids] {
            s.refinement = r;
            check_refinement_of(&mut renderer, &s, &format!("{name}, {}", r.label()));
        }
        s.refinement = Refinement::Measured;
        texture_shows_the_dwells(gl, &mut renderer, &s, &refined, &name);
        let bad = refined.mismatches(&per_pixel);
        println!(
            "ok {name}: {w}x{h} max dwell {max_dwell}, {:?}: GPU Mariani-Silver = CPU Mariani-Silver \
             (dwells, rectangles, statistics; deep tuning, window tuning, child grids everywhere, \
             the nested and child-grids refinements); \
             vs per-pixel {bad}/{}; dwell kernels: per-pixel {pp_ms:.2} ms, Mariani-Silver {ms_ms:.2} ms",
            frame.precision,
            refined.values.len()
        );
        if share(bad, refined.values.len()) > 1e-3 {
            failures.push(format!(
                "{name}: Mariani–Silver differs from per-pixel on {bad} pixels"
            ));
        }
    }
    renderer.destroy(gl);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Julia views checked on the GPU: c, centre, span, max dwell. The rabbit's filled set is
/// connected (Mariani–Silver exact); −0.8 + 0.156i and −0.75 + 0.1i lie just outside the
/// Mandelbrot set.
const JULIA_VIEWS: [(&str, (f64, f64), f64, u32); 4] = [
    ("-0.123,0.745", (0.0, 0.0), 3.2, 500),
    ("-0.123,0.745", (-0.05, 0.43), 0.02, 1500),
    ("-0.8,0.156", (0.0, 0.0), 4.0, 400),
    ("-0.75,0.1", (0.3, 0.6), 0.1, 1000),
];

/// Julia sets on the GPU: f64 per-pixel equals the CPU reference exactly; Mariani–Silver
/// equals the CPU's refinement (dwells, continuous values, rectangles, statistics) and
/// per-pixel within the Mandelbrot tests' bounds, in f64 and f32.
#[test]
fn julia_sets_match_the_cpu_reference() {
    use cudalens::mandelbrot::{Fractal, JuliaC};
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let mut renderer = cuda_mandelbrot(gl);
    let sizes: &[(u32, u32)] = if quick() {
        &[(1, 1), (7, 3), (97, 61)]
    } else {
        &[(1, 1), (7, 3), (317, 211), (640, 480), (1920, 1080)]
    };
    for (c, center, span, max_dwell) in JULIA_VIEWS {
        let fractal = Fractal::Julia {
            c: JuliaC::parse(c).expect("c parses"),
        };
        for &(width, height) in sizes {
            let view = View {
                center,
                span,
                width,
                height,
                max_dwell,
                fractal,
            };
            let name = format!("Julia {c} at {center:?} span {span} {width}x{height}");
            let reference = render_per_pixel(&view, true);
            let total = reference.values.len();
            let mut dwells = |mode, precision| {
                let s = MandelbrotSettings {
                    view,
                    mode,
                    precision,
                    overlay: mode == Mode::MarianiSilver,
                    ..MandelbrotSettings::default()
                };
                renderer.dwells(&s).expect("GPU dwells").0
            };
            let pp64 = dwells(Mode::PerPixel, Precision::F64);
            let ms64 = dwells(Mode::MarianiSilver, Precision::F64);
            let pp32 = dwells(Mode::PerPixel, Precision::F32);
            let ms32 = dwells(Mode::MarianiSilver, Precision::F32);
            let (a, b, c32) = (
                pp64.mismatches(&reference),
                ms64.mismatches(&pp64),
                ms32.mismatches(&pp32),
            );
            println!("ok {name}: f64 per-pixel vs CPU {a}/{total}, f64 M-S vs per-pixel {b}/{total}, f32 M-S vs per-pixel {c32}/{total}");
            assert_eq!(a, 0, "{name}: GPU f64 per-pixel vs CPU f64");
            for (what, bad) in [
                ("GPU f64 Mariani–Silver vs per-pixel", b),
                ("GPU f32 Mariani–Silver vs per-pixel", c32),
            ] {
                assert!(
                    share(bad, total) <= 1e-4 || bad <= 1,
                    "{name}: {what}: {bad} of {total} pixels differ"
                );
            }
            check_refinement(&mut renderer, view, None, true, &name);
        }
    }
    renderer.destroy(gl);
}

/// The `views` of a committed JSON reference in tests/data.
fn json_views(name: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(common::data_dir().join(name)).expect("the committed JSON");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    json["views"].as_array().expect("views").clone()
}

/// A JSON view's string and number fields.
fn json_fields<'a>(
    v: &'a serde_json::Value,
) -> (impl Fn(&str) -> &'a str + 'a, impl Fn(&str) -> u32 + 'a) {
    (
        move |k: &str| v[k].as_str().expect("a string field"),
        move |k: &str| v[k].as_u64().expect("a number field") as u32,
    )
}

/// Deep Julia views (c = −0.75 + 0.1i at spans 1e-30 and 1e-100, `tests/data/
/// julia_deep_dwells.json`): the GPU's perturbation dwells, double-double and extended,
/// per pixel and refined, equal the CPU's perturbation, and the mpmath dwells of the JSON.
#[test]
fn deep_julia_views_match_the_cpu_and_mpmath() {
    use cudalens::mandelbrot::{Fractal, JuliaC};
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let mut renderer = cuda_mandelbrot(gl);
    for v in &json_views("julia_deep_dwells.json") {
        let (field, number) = json_fields(v);
        let location = DeepLocation::parse(field("center"), field("span")).expect("location");
        let (w, h) = (number("width"), number("height"));
        let mut s = deep_settings(location, number("max_dwell"), (w, h));
        s.view.fractal = Fractal::Julia {
            c: JuliaC::parse(field("c")).expect("c"),
        };
        for precision in [Precision::Perturbation, Precision::Extended] {
            s.precision = precision;
            s.mode = Mode::PerPixel;
            s.overlay = false;
            let name = format!("Julia {} {precision:?}", field("span"));
            let view = s.deep_view().expect("deep view");
            let (gpu, frame) = renderer.dwells(&s).expect("GPU dwells");
            assert_eq!(frame.precision, precision, "{name}");
            let orbit = ReferenceOrbit::compute(&view);
            let cpu = cudalens::mandelbrot::deep::render_perturbation(&view, &orbit, precision);
            assert_eq!(gpu.mismatches(&cpu), 0, "{name}: GPU vs CPU perturbation");
            for p in v["pixels"].as_array().expect("pixels") {
                let at = |i: usize| p[i].as_u64().expect("x, y, dwell") as u32;
                let (x, y, want) = (at(0), at(1), at(2));
                assert_eq!(
                    gpu.values[(y * w + x) as usize],
                    want,
                    "{name} ({x}, {y}) vs mpmath"
                );
            }
            texture_shows_the_dwells(gl, &mut renderer, &s, &gpu, &name);
            s.mode = Mode::MarianiSilver;
            s.overlay = true;
            check_refinement_of(&mut renderer, &s, &format!("{name}, Mariani–Silver"));
            println!("ok {name}: GPU = CPU perturbation, = mpmath on the JSON's pixels, Mariani–Silver = CPU");
        }
    }
    renderer.destroy(gl);
}

/// The deep view of one entry of `deep_smooth_mpmath.json` (centre, span, size, max dwell,
/// a Julia set's c), per pixel.
fn settings_of_json_view(v: &serde_json::Value) -> MandelbrotSettings {
    use cudalens::mandelbrot::{Fractal, JuliaC};
    let (field, number) = json_fields(v);
    let location = DeepLocation::parse(field("center"), field("span")).expect("location");
    let mut s = deep_settings(location, 1, (number("width"), number("height")));
    s.view.max_dwell = number("max_dwell");
    if let Some(c) = v["julia_c"].as_str() {
        s.view.fractal = Fractal::Julia {
            c: JuliaC::parse(c).expect("c"),
        };
    }
    s
}

/// Smooth colouring of deep views (`tests/data/deep_smooth_mpmath.json`: the period-8007
/// minibrot at 1e-31, the period-137 one at 1e-100, the period-403 one at 1e-300, a Julia
/// set at 1e-30), each at its own size and max dwell: the GPU's dwells and continuous
/// values equal the CPU's (within 1e-5) per pixel, with and without BLA, and refined by
/// Mariani–Silver; at the JSON's pixels they are mpmath's; the texture shows their colours
/// within one level.
#[test]
fn deep_smooth_colouring_matches_the_cpu_and_mpmath() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let mut renderer = cuda_mandelbrot(gl);
    for v in &json_views("deep_smooth_mpmath.json") {
        let (field, _) = json_fields(v);
        let mut s = settings_of_json_view(v);
        s.coloring = Coloring {
            smooth: true,
            density: 1.7,
            offset: 0.3,
            palette: Palette::Fire.into(),
            ..Coloring::default()
        };
        for bla in [false, true] {
            s.bla = bla;
            s.mode = Mode::PerPixel;
            s.overlay = false;
            let name = format!("{} BLA {bla}", field("name"));
            let (gpu, frame) = renderer.dwells(&s).expect("GPU dwells");
            assert!(is_deep(frame.precision), "{name}: {:?}", frame.precision);
            let (cpu, _) = cpu_dwells(&s);
            assert_eq!(gpu.mismatches(&cpu), 0, "{name}: GPU vs CPU perturbation");
            assert_continuous_values_close(&gpu, &cpu, &name);
            let smooth = gpu.smooth.as_ref().expect("continuous values");
            for p in v["pixels"].as_array().expect("pixels") {
                let at = |i: usize| p[i].as_u64().expect("x, y, dwell") as u32;
                let (x, y, want) = (at(0), at(1), at(2));
                let nu = p[3].as_f64().expect("nu") as f32;
                let i = (y * s.view.width + x) as usize;
                assert_eq!(gpu.values[i], want, "{name} ({x}, {y}) vs mpmath");
                let tolerance = 2.0 * f32::EPSILON * nu.abs() + 1e-5;
                assert!(
                    (smooth[i] - nu).abs() <= tolerance,
                    "{name} ({x}, {y}): {} vs mpmath {nu}",
                    smooth[i]
                );
            }
            texture_shows_smooth_colours(gl, &mut renderer, &s, &name);
            s.mode = Mode::MarianiSilver;
            s.overlay = true;
            check_refinement_of(&mut renderer, &s, &format!("{name}, Mariani–Silver"));
            println!(
                "ok {name}: {:?}, GPU = CPU (dwells, continuous values), = mpmath at the JSON's \
                 pixels, Mariani–Silver = CPU",
                frame.precision
            );
        }
    }
    renderer.destroy(gl);
}

/// Smooth colour in the fire palette with distance shading `width` pixels wide.
fn smooth_and_shaded(width: f32) -> Coloring {
    Coloring {
        smooth: true,
        distance: Some(width),
        palette: Palette::Fire.into(),
        ..Coloring::default()
    }
}

/// The distance estimates of two renders of one view agree (relative 1e-5) wherever their
/// dwells do.
fn assert_distances_close(
    gpu: &cudalens::mandelbrot::Dwells,
    cpu: &cudalens::mandelbrot::Dwells,
    label: &str,
) {
    let (g, c) = (
        gpu.distance.as_ref().expect("GPU distance estimates"),
        cpu.distance.as_ref().expect("CPU distance estimates"),
    );
    let mut worst = 0.0f32;
    for i in 0..c.len() {
        if gpu.values[i] == cpu.values[i] {
            worst = worst.max((g[i] - c[i]).abs() / c[i].abs().max(f32::MIN_POSITIVE));
        }
    }
    assert!(
        worst <= 1e-5,
        "{label}: distances differ by {worst} (relative)"
    );
    assert!(c.iter().any(|&d| d > 0.0), "{label}: escaped pixels");
}

/// Distance estimates: on a plain view, a plain Julia set and the deep views of
/// `tests/data/deep_smooth_mpmath.json` (1e-30 to 1e-300), per pixel and refined, with and
/// without BLA, the GPU's estimates (a pass of their own after the dwells) equal the CPU's;
/// at the JSON's pixels they are mpmath's (relative 1e-4); the texture shows the shaded
/// colours.
#[test]
fn deep_and_plain_distance_estimates_match_the_cpu_and_mpmath() {
    use cudalens::mandelbrot::{Fractal, JuliaC};
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let mut renderer = cuda_mandelbrot(gl);
    let coloring = smooth_and_shaded(2.0);
    let mut views: Vec<(String, MandelbrotSettings, Vec<serde_json::Value>)> = Vec::new();
    for fractal in [
        Fractal::Mandelbrot,
        Fractal::Julia {
            c: JuliaC::from_f64(-0.75, 0.1).expect("c"),
        },
    ] {
        let s = MandelbrotSettings {
            view: View {
                center: (-0.74, 0.12),
                span: 0.05,
                width: 320,
                height: 180,
                max_dwell: 2000,
                fractal,
            },
            precision: Precision::F64,
            coloring: coloring.clone(),
            ..MandelbrotSettings::default()
        };
        views.push((format!("plain {fractal:?}"), s, Vec::new()));
    }
    for v in &json_views("deep_smooth_mpmath.json") {
        let (field, _) = json_fields(v);
        let mut s = settings_of_json_view(v);
        s.coloring = coloring.clone();
        let pixels = v["pixels"].as_array().expect("pixels").clone();
        views.push((field("name").to_string(), s, pixels));
    }
    for (name, mut s, pixels) in views {
        for (mode, bla) in [
            (Mode::PerPixel, false),
            (Mode::PerPixel, true),
            (Mode::MarianiSilver, true),
        ] {
            (s.mode, s.bla, s.overlay) = (mode, bla, false);
            let name = format!("{name} {mode:?} BLA {bla}");
            let (gpu, _) = renderer.dwells(&s).expect("GPU dwells");
            let (cpu, _) = cpu_dwells(&s);
            assert_eq!(gpu.mismatches(&cpu), 0, "{name}: GPU vs CPU");
            assert_distances_close(&gpu, &cpu, &name);
            let de = gpu.distance.as_ref().expect("distance estimates");
            for p in &pixels {
                let (x, y) = (
                    p[0].as_u64().expect("x") as u32,
                    p[1].as_u64().expect("y") as u32,
                );
                let want = p[4].as_f64().expect("distance");
                let got = f64::from(de[(y * s.view.width + x) as usize]);
                assert!(
                    (got - want).abs() <= 1e-4 * want,
                    "{name} ({x}, {y}): distance {got} vs mpmath {want}"
                );
            }
            texture_shows_smooth_colours(gl, &mut renderer, &s, &name);
            println!("ok {name}: GPU distances = CPU's, = mpmath at the JSON's pixels");
        }
    }
    renderer.destroy(gl);
}

/// Pans on CUDA (a plain view and the 1e-100 bookmark, smooth colour and distance shading
/// on): two pans in a row move the kept values on the device and compute only the exposed
/// strips (a "pan" stage, no dwell stage, and for the deep view no new reference orbit: its
/// strips iterate around the orbit kept from the first view), and the picture is a fresh
/// render's but at one pixel in a thousand at most (a kept pixel's point was computed from
/// the old centre).
#[test]
fn explorer_pans_on_cuda_reuse_the_kept_pixels() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let mut renderer = cuda_mandelbrot(gl);
    let coloring = smooth_and_shaded(1.5);
    let plain = MandelbrotSettings {
        view: View {
            center: (-0.74, 0.12),
            span: 0.05,
            width: 320,
            height: 180,
            max_dwell: 2000,
            ..View::default()
        },
        precision: Precision::F64,
        coloring: coloring.clone(),
        ..MandelbrotSettings::default()
    };
    let bookmark = DEEP_BOOKMARKS
        .iter()
        .find(|b| b.span == "1e-100")
        .expect("the 1e-100 bookmark");
    let mut deep = deep_settings(bookmark.location().expect("location"), 3000, (320, 180));
    (deep.mode, deep.bla, deep.coloring) = (Mode::MarianiSilver, true, coloring);
    for (name, start) in [("plain", plain), ("deep 1e-100", deep)] {
        let mut s = start;
        renderer.forget_dwells();
        renderer.render(gl, &s).expect("first render");
        for moves in [[(32.0, 0.0), (-20.0, 14.0)], [(5.0, -9.0), (-40.0, -30.0)]] {
            for (mx, my) in moves {
                s.pan_pixels(mx, my);
                let frame = renderer.render(gl, &s).expect("pan");
                let names: Vec<&str> = frame.stages.iter().map(|t| t.name.as_str()).collect();
                let pan_only = names.contains(&"pan")
                    && !names.contains(&"dwell")
                    && !names.contains(&"reference orbit");
                assert!(pan_only, "{name} by ({mx}, {my}): {names:?}");
            }
            let panned = renderer.texture().read(gl).expect("read texture");
            renderer.forget_dwells();
            let frame = renderer.render(gl, &s).expect("fresh render");
            assert!(
                frame.stages.iter().any(|t| t.name == "dwell"),
                "{name}: fresh"
            );
            let fresh = renderer.texture().read(gl).expect("read texture");
            let n = fresh.pixels().len();
            let differ = panned
                .pixels()
                .zip(fresh.pixels())
                .filter(|(a, b)| a.0.iter().zip(b.0).any(|(&x, y)| x.abs_diff(y) > 1))
                .count();
            println!("ok {name}: two pans then a fresh render: {differ} of {n} pixels differ");
            assert!(differ * 1000 <= n, "{name}: {differ} of {n} pixels differ");
        }
    }
    renderer.destroy(gl);
}

/// `CUDALENS_REQUIRE_GPU=1` turns the skip of a machine without CUDA into a failure that
/// says why: this binary runs one GPU test again in a child, with and without it.
#[test]
fn require_gpu_turns_a_skip_into_a_failure() {
    if CudaDevice::count().is_ok_and(|n| n > 0) {
        println!("not applicable: a CUDA device is present (no test skips here)");
        return;
    }
    let child = |require: &str| {
        std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "histogram_and_transpose_are_exact",
                "--test-threads=1",
            ])
            .env(common::REQUIRE_GPU, require)
            .output()
            .expect("test binary runs")
    };
    let text = |out: &std::process::Output| {
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
    };
    let skipped = child("0");
    assert!(skipped.status.success(), "{}", text(&skipped));
    assert!(
        text(&skipped).contains("skipped: no CUDA device"),
        "{}",
        text(&skipped)
    );
    let failed = child("1");
    assert!(!failed.status.success(), "{}", text(&failed));
    assert!(
        text(&failed)
            .contains("CUDALENS_REQUIRE_GPU=1 but this GPU test cannot run: no CUDA device"),
        "{}",
        text(&failed)
    );
}

/// Every file of the fidelity corpus, loaded as the window loads it (`load_source`: on the
/// external path the shared memory itself), through an identity stack on both interop
/// paths: the GPU sees exactly the CPU-loaded pixels, upright and in sRGB, read back
/// through GL and through CUDA.
#[test]
fn fidelity_corpus_reaches_the_gpu_unchanged() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let dir = common::data("fidelity");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| !n.ends_with(".ref.png") && !n.ends_with(".json"))
        .collect();
    names.sort();
    let identity = parse(&["transpose", "transpose"]);
    let mut loaded_count = 0;
    for (path, _) in PATHS {
        let mut runner = cuda_runner(gl, path, 64, 64);
        for name in &names {
            // The truncated and corrupt-scan files are refused on the CPU already.
            let Ok(loaded) = cudalens::image_io::load_image(&dir.join(name)) else {
                continue;
            };
            loaded_count += 1;
            let image = &loaded.into_rgba8();
            runner.load_source(gl, image).expect("load");
            let source = runner.source().expect("a source").read(gl).expect("read");
            assert!(source == *image, "{path:?}: {name} as loaded");
            runner
                .run_loaded(gl, image, &stages_of(&identity))
                .expect("frame");
            let label = format!("{path:?}: {name}");
            assert!(
                runner.targets.output.read(gl).expect("read") == *image,
                "{label}"
            );
            let through_cuda = runner.read_output(gl).expect("read through CUDA");
            assert!(through_cuda == *image, "{label}, read through CUDA");
        }
        runner.destroy(gl);
    }
    assert!(loaded_count >= 2 * 30, "{loaded_count} files");
    println!("ok {loaded_count} corpus loads identical on the GPU");
}

/// The user-kernel frames of the tests below: a stack with a built-in stage on each side
/// of a user kernel, and one whose kernel writes to a wild address.
struct UserKernelStacks {
    _dir: tempfile::TempDir,
    good: Vec<cudalens::pipeline::Stage>,
    faulting: Vec<cudalens::pipeline::Stage>,
    image: RgbaImage,
    want: RgbaImage,
    tolerance: u8,
}

/// The stacks, or None (with the skip message) without NVRTC.
fn user_kernel_stacks() -> Option<UserKernelStacks> {
    use cudalens::pipeline::Stage;
    if !cudalens::user_kernel::nvrtc_available() {
        common::skip_gpu_test("no NVRTC");
        return None;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let invert = dir.path().join("invert.cu");
    let text = cudalens::user_kernel::examples::example("invert.cu")
        .expect("example")
        .source;
    std::fs::write(&invert, text).expect("write invert.cu");
    let wild = dir.path().join("wild.cu");
    std::fs::write(
        &wild,
        "uchar4 pixel(int x, int y, Image src, Params p)\n{\n    if (x == 7 && y == 3) *(volatile int*)0x10 = x;\n    return read(src, x, y);\n}\n",
    )
    .expect("write wild.cu");
    let stage = |spec: String| spec.parse::<Stage>().expect("stage spec");
    let (before, after): (Filter, Filter) = (
        "box:radius=2".parse().expect("spec"),
        "gaussian:sigma=1.5".parse().expect("spec"),
    );
    let image = photo("coffee.png");
    let mut want = apply_cpu(&image, std::slice::from_ref(&before));
    for p in want.pixels_mut() {
        p.0 = [255 - p.0[0], 255 - p.0[1], 255 - p.0[2], p.0[3]];
    }
    let want = apply_cpu(&want, std::slice::from_ref(&after));
    Some(UserKernelStacks {
        good: vec![
            Stage::Filter(before),
            stage(format!("kernel:{}", invert.display())),
            Stage::Filter(after),
        ],
        faulting: vec![
            Stage::Filter(before),
            stage(format!("kernel:{}", wild.display())),
        ],
        _dir: dir,
        image,
        want,
        tolerance: gpu_tolerance(&[before, after]),
    })
}

/// A CUDA runner on `path` whose kernel host is the built program (this test binary is
/// not cudalens), with poisoned output and bins.
fn hosted_runner(gl: &glow::Context, path: InteropRequest, w: u32, h: u32) -> FrameRunner {
    use cudalens::user_kernel::sandbox::HostCommand;
    let mut runner = cuda_runner(gl, path, w, h);
    runner.use_kernel_host(
        HostCommand::kernel_host(common::cudalens_bin())
            .arg("--device")
            .arg("0"),
    );
    runner.targets.output.fill(gl, POISON).expect("poison");
    runner
        .targets
        .bins
        .write(gl, &[0x5A; 4096])
        .expect("poison bins");
    runner
}

/// Runs the good stack on `runner` and checks it against the CPU reference, the GL bins
/// and where it ran; returns the output.
fn check_user_kernel_frame(
    gl: &glow::Context,
    runner: &mut FrameRunner,
    kind: InteropKind,
    source: &GlTexture,
    stacks: &UserKernelStacks,
) -> RgbaImage {
    use cudalens::pipeline::{hand_over_stage, KERNEL_HOST_STAGE};
    let report = runner
        .run(gl, source, &stacks.image, &stacks.good)
        .expect("frame");
    let out = runner.targets.output.read(gl).expect("read output");
    // GL sees the bins the frame counted (the window draws them from its buffer).
    let bins = gl_bins(gl, runner);
    assert_eq!(bins, report.histogram.flat(), "{kind:?}: GL bin buffer");
    assert_eq!(
        report.histogram,
        cpu::histogram(&out),
        "{kind:?}: histogram"
    );
    let (diff, count) = max_difference(&out, &stacks.want);
    assert!(
        diff <= stacks.tolerance,
        "{kind:?}: differs by {diff} in {count} values"
    );
    let names: Vec<&str> = report.stages.iter().map(|s| s.name.as_str()).collect();
    let per_stage = hand_over_stage("kernel:invert.cu");
    match kind {
        InteropKind::External => assert!(
            names.contains(&KERNEL_HOST_STAGE) && !names.contains(&per_stage.as_str()),
            "{names:?}"
        ),
        InteropKind::Classic => assert!(names.contains(&per_stage.as_str()), "{names:?}"),
    }
    assert!(names.contains(&"kernel:invert.cu"), "{names:?}");
    out
}

/// Runs `check` on a hosted runner of each interop path, with the stacks and their source
/// texture (nothing without NVRTC or a GPU: the skip message).
fn on_hosted_paths(
    mut check: impl FnMut(&glow::Context, &mut FrameRunner, InteropKind, &GlTexture, &UserKernelStacks),
) {
    let Some(stacks) = user_kernel_stacks() else {
        return;
    };
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let (w, h) = stacks.image.dimensions();
    let source = GlTexture::new(gl, w, h, Some(stacks.image.as_raw())).expect("source texture");
    for (path, kind) in PATHS {
        let mut runner = hosted_runner(gl, path, w, h);
        check(gl, &mut runner, kind, &source, &stacks);
        runner.destroy(gl);
    }
    source.destroy(gl);
}

/// A stack with a user kernel on both paths: whole frames in the kernel host on the
/// external-memory path (one hand-over stage for the frame), stage by stage on map/unmap
/// (a hand-over beside the kernel's stage). Both equal the CPU reference with built-in
/// stages around the kernel, twice in a row. Well-behaved kernels only: the sanitizer steps
/// run this one (and follow the kernel host) to check hosted frames.
#[test]
fn gpu_user_kernel_frames_match_the_cpu_on_both_paths() {
    on_hosted_paths(|gl, runner, kind, source, stacks| {
        let out = check_user_kernel_frame(gl, runner, kind, source, stacks);
        let again = check_user_kernel_frame(gl, runner, kind, source, stacks);
        assert!(again == out, "{kind:?}: the second frame differs");
    });
}

/// A kernel that faults fails its frame with one line and leaves the last output as it
/// was, and the next frame is exact, on both paths. It writes to a wild address on
/// purpose, so the sanitizer steps leave it out (the `faults_on_purpose` in its name).
#[test]
fn gpu_a_faulting_user_kernel_keeps_the_last_output_faults_on_purpose() {
    use cudalens::pipeline::PipelineError;
    on_hosted_paths(|gl, runner, kind, source, stacks| {
        let out = check_user_kernel_frame(gl, runner, kind, source, stacks);
        let e = runner
            .run(gl, source, &stacks.image, &stacks.faulting)
            .expect_err("a wild write fails its frame");
        assert!(matches!(e, PipelineError::Kernel(_)), "{kind:?}: {e}");
        assert!(!e.to_string().contains('\n'), "{e}");
        println!("{kind:?}: {e}");
        let kept = runner.targets.output.read(gl).expect("read output");
        assert!(kept == out, "{kind:?}: the failed frame changed the output");
        let again = check_user_kernel_frame(gl, runner, kind, source, stacks);
        assert!(again == out, "{kind:?}: the next frame differs");
    });
}

/// The sanitizer steps' planted error: one 4-byte write just past the end of a 1000-byte
/// device allocation. Without a sanitizer the write lands in the allocation's rounding and
/// the test passes; memcheck must report it. Ignored: `scripts/gpu/verify.sh memcheck`
/// runs it through the sanitizer step's own command line and requires that to fail, so
/// that the step's exclusions cannot hide every error.
#[test]
#[ignore = "a planted error for the sanitizer steps (scripts/gpu/verify.sh memcheck)"]
fn sanitizer_planted_write_past_an_allocation() {
    use cudarc::driver::{LaunchConfig, PushKernelArg};
    if !cudalens::user_kernel::nvrtc_available() {
        common::skip_gpu_test("no NVRTC");
        return;
    }
    if !CudaDevice::count().is_ok_and(|n| n > 0) {
        common::skip_gpu_test("no CUDA device");
        return;
    }
    let device = CudaDevice::new(0).expect("device 0");
    device.bind().expect("bind");
    let ptx = cudarc::nvrtc::compile_ptx(
        "extern \"C\" __global__ void past_the_end(int* p, int n) { p[n] = 0x5EED; }",
    )
    .expect("NVRTC compiles the planted kernel");
    let module = device
        .ctx
        .load_module(ptx)
        .expect("load the planted kernel");
    let kernel = module
        .load_function("past_the_end")
        .expect("planted kernel");
    const INTS: i32 = 250;
    // SAFETY: a plain device allocation of 1000 bytes, freed below; the kernel writes the
    // 4 bytes after it, inside the driver's rounding of the allocation (that is the error).
    let ptr =
        unsafe { cudarc::driver::result::malloc_sync(4 * INTS as usize) }.expect("cuMemAlloc");
    let mut launch = device.stream.launch_builder(&kernel);
    launch.arg(&ptr).arg(&INTS);
    // SAFETY: the kernel takes (int*, int) as pushed; its write past the end is the planted
    // error, inside the allocation's rounding, so it does not fault without a sanitizer.
    unsafe { launch.launch(LaunchConfig::for_num_elems(1)) }.expect("launch");
    device
        .synchronize()
        .expect("the planted write does not fault");
    // SAFETY: the allocation made above, no longer used by any queued work.
    unsafe { cudarc::driver::result::free_sync(ptr) }.expect("cuMemFree");
}
