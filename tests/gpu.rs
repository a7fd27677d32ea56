//! GPU tests: every kernel against the CPU reference through the real CUDA–OpenGL interop
//! path (headless EGL context on the NVIDIA GPU → GL textures registered with CUDA →
//! kernels → GL texture and GL bin buffer read back from GL). Outputs are poisoned first.
//!
//! Without a CUDA device each test prints "skipped: no CUDA device" and passes.
//! `CUDALENS_GPU_QUICK=1` keeps only the small sizes (for compute-sanitizer runs).

mod common;

use common::{max_difference, photo};
use cudalens::cuda::CudaDevice;
use cudalens::gl::{GlTexture, HeadlessGl};
use cudalens::mandelbrot::deep::{
    direct_dwell, dwell_ext, dwell_f64, is_deep, offset_ext, offset_f64, sample_pixels,
    DeepLocation, ReferenceOrbit, DEEP_BOOKMARKS,
};
use cudalens::mandelbrot::{colorize, render_per_pixel, Mode, Precision, View, BOOKMARKS};
use cudalens::ops::random_image;
use cudalens::ops::{cpu, Filter, Histogram};
use cudalens::pipeline::{
    BackendKind, BackendRequest, FrameRunner, MandelbrotRenderer, MandelbrotSettings,
};
use image::RgbaImage;
use std::io::Write;
use std::time::Instant;

const POISON: [u8; 4] = [0xAB, 0xCD, 0xEF, 0x12];

fn quick() -> bool {
    std::env::var("CUDALENS_GPU_QUICK").is_ok_and(|v| v == "1")
}

/// A headless GL context with CUDA behind it, or None (with the skip message).
fn gpu() -> Option<HeadlessGl> {
    let reason = match CudaDevice::count() {
        Ok(0) => "no device".to_string(),
        Ok(_) => return Some(HeadlessGl::new().expect("a CUDA machine must offer headless EGL")),
        Err(e) => e.to_string(),
    };
    // Written to the process's stderr directly so that it shows through libtest's capture.
    let _ = writeln!(std::io::stderr(), "skipped: no CUDA device ({reason})");
    None
}

/// Runs `filters` on `image` through the CUDA frame pipeline with poisoned outputs; returns
/// the output read back from GL, the report's histogram and the GL bin buffer's contents.
fn run_cuda(
    gl: &glow::Context,
    image: &RgbaImage,
    filters: &[Filter],
) -> (RgbaImage, Histogram, Vec<u32>) {
    let (w, h) = filters
        .iter()
        .fold(image.dimensions(), |(w, h), f| f.output_size(w, h));
    let source = GlTexture::new(gl, image.width(), image.height(), Some(image.as_raw()))
        .expect("source texture");
    let mut runner = FrameRunner::new(gl, BackendRequest::Cuda, w, h).expect("CUDA backend");
    assert_eq!(runner.status.kind, BackendKind::Cuda);
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
    let report = runner.run(gl, &source, image, filters).expect("CUDA frame");
    assert_eq!(report.backend, BackendKind::Cuda);
    let out = runner.targets.output.read(gl).expect("read output");
    let gl_bins: Vec<u32> = runner
        .targets
        .bins
        .read(gl)
        .expect("read bins")
        .chunks_exact(4)
        .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    runner.destroy(gl);
    source.destroy(gl);
    (out, report.histogram, gl_bins)
}

fn exact(filters: &[Filter]) -> bool {
    filters
        .iter()
        .all(|f| matches!(f, Filter::Transpose | Filter::Box { .. }))
}

/// Compares one case; panics with a precise message on mismatch.
fn check_case(gl: &glow::Context, label: &str, image: &RgbaImage, filters: &[Filter]) {
    let start = Instant::now();
    let want = cpu::apply_filters(image, filters);
    let cpu_ms = start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    let (got, histogram, gl_bins) = run_cuda(gl, image, filters);
    let gpu_ms = start.elapsed().as_secs_f64() * 1e3;
    let (max, count) = max_difference(&got, &want);
    let tolerance = if exact(filters) { 0 } else { 1 };
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

fn all_filter_cases() -> Vec<Vec<Filter>> {
    vec![
        vec![],
        vec![Filter::Sobel { scale: 1.0 }],
        vec![Filter::Sobel { scale: 0.05 }],
        vec![Filter::Sobel { scale: 64.0 }],
        vec![Filter::Box { radius: 1 }],
        vec![Filter::Box { radius: 255 }],
        vec![Filter::Gaussian {
            sigma: 0.1,
            radius: 1,
        }],
        vec![Filter::gaussian(2.0)],
        vec![Filter::Gaussian {
            sigma: 32.0,
            radius: 96,
        }],
        vec![Filter::Transpose],
        vec![
            Filter::gaussian(1.5),
            Filter::Transpose,
            Filter::Sobel { scale: 2.0 },
            Filter::Box { radius: 3 },
        ],
    ]
}

#[test]
fn filters_match_the_cpu_reference_on_photographs() {
    let Some(ctx) = gpu() else { return };
    for name in ["astronaut.png", "coffee.png", "camera.png", "logo.png"] {
        let image = photo(name);
        for filters in all_filter_cases() {
            check_case(&ctx.gl, name, &image, &filters);
        }
    }
}

#[test]
fn filters_match_the_cpu_reference_on_random_images() {
    let Some(ctx) = gpu() else { return };
    let mut sizes = vec![(1, 1), (7, 3), (3, 7), (1917, 1081)];
    if !quick() {
        sizes.extend([(3840, 2160), (7680, 4320)]);
    }
    for (i, (w, h)) in sizes.into_iter().enumerate() {
        let image = random_image(w, h, 1000 + i as u64);
        let label = format!("random {w}x{h}");
        let cases = if w * h > 4_000_000 {
            // The CPU reference is the slow side here: the extremes only.
            vec![
                vec![],
                vec![Filter::Sobel { scale: 1.0 }],
                vec![Filter::Box { radius: 255 }],
                vec![Filter::Gaussian {
                    sigma: 32.0,
                    radius: 96,
                }],
                vec![Filter::Transpose],
            ]
        } else {
            all_filter_cases()
        };
        for filters in cases {
            check_case(&ctx.gl, &label, &image, &filters);
        }
    }
}

#[test]
fn histogram_and_transpose_are_exact() {
    let Some(ctx) = gpu() else { return };
    for (i, (w, h)) in [(1, 1), (7, 3), (257, 129), (1917, 1081)]
        .into_iter()
        .enumerate()
    {
        let image = random_image(w, h, 77 + i as u64);
        let (copy, histogram, _) = run_cuda(&ctx.gl, &image, &[]);
        assert_eq!(copy, image, "{w}x{h}: identity");
        assert_eq!(histogram, cpu::histogram(&image), "{w}x{h}: histogram");
        let (t, _, _) = run_cuda(&ctx.gl, &image, &[Filter::Transpose]);
        assert_eq!(t, cpu::transpose(&image), "{w}x{h}: transpose");
    }
}

fn share(mismatches: usize, total: usize) -> f64 {
    mismatches as f64 / total.max(1) as f64
}

#[test]
fn mandelbrot_matches_the_cpu_reference() {
    let Some(ctx) = gpu() else { return };
    let gl = &ctx.gl;
    let mut renderer =
        MandelbrotRenderer::new(gl, BackendRequest::Cuda, None).expect("CUDA Mandelbrot");
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
            };
            let reference = render_per_pixel(&view);
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
            for (what, bad) in [
                ("GPU f64 per-pixel vs CPU f64", a),
                ("GPU f64 Mariani–Silver vs per-pixel", b),
                ("GPU f32 Mariani–Silver vs per-pixel", c),
            ] {
                assert!(
                    share(bad, total) <= 0.001,
                    "{name} {width}x{height}: {what}: {bad} of {total} pixels differ"
                );
            }
        }
    }
    renderer.destroy(gl);
}

#[test]
fn mandelbrot_colours_reach_gl_through_the_pixel_buffer() {
    let Some(ctx) = gpu() else { return };
    let gl = &ctx.gl;
    let mut renderer =
        MandelbrotRenderer::new(gl, BackendRequest::Cuda, None).expect("CUDA Mandelbrot");
    for (mode, (w, h)) in [
        (Mode::PerPixel, (1, 1)),
        (Mode::MarianiSilver, (333, 222)),
        (Mode::PerPixel, (1024, 768)),
    ] {
        let s = MandelbrotSettings {
            view: View {
                width: w,
                height: h,
                ..View::default()
            },
            mode,
            ..MandelbrotSettings::default()
        };
        renderer.texture.resize(gl, w, h).expect("resize");
        renderer.texture.fill(gl, POISON).expect("poison");
        let frame = renderer.render(gl, &s).expect("render");
        assert_eq!(frame.backend, BackendKind::Cuda);
        let shown = renderer.texture.read(gl).expect("read texture");
        let (dwells, _) = renderer.dwells(&s).expect("dwells");
        let want = colorize(&dwells, &s.palette.lut(s.view.max_dwell, s.interior));
        assert_eq!(
            shown, want,
            "{mode:?} {w}x{h}: texture differs from LUT(dwells)"
        );
    }
    renderer.destroy(gl);
}

#[test]
fn a_new_image_in_the_same_texture_is_not_served_stale() {
    let Some(ctx) = gpu() else { return };
    let gl = &ctx.gl;
    let (a, b) = (random_image(640, 360, 1), random_image(640, 360, 2));
    let mut source = GlTexture::new(gl, 640, 360, Some(a.as_raw())).expect("source texture");
    let mut runner = FrameRunner::new(gl, BackendRequest::Cuda, 640, 360).expect("CUDA backend");
    let filters = [Filter::Box { radius: 2 }];
    runner.run(gl, &source, &a, &filters).expect("frame A");
    assert_eq!(
        runner.targets.output.read(gl).expect("read"),
        cpu::apply_filters(&a, &filters)
    );
    // What the app does on load: release CUDA's hold, then re-specify the same texture.
    runner.release_registrations();
    source.upload(gl, &b).expect("upload B");
    runner.run(gl, &source, &b, &filters).expect("frame B");
    assert_eq!(
        runner.targets.output.read(gl).expect("read"),
        cpu::apply_filters(&b, &filters)
    );
    runner.destroy(gl);
    source.destroy(gl);
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

#[test]
fn deep_views_match_arbitrary_precision_iteration() {
    use rayon::prelude::*;
    let Some(ctx) = gpu() else { return };
    let gl = &ctx.gl;
    let mut renderer =
        MandelbrotRenderer::new(gl, BackendRequest::Cuda, None).expect("CUDA Mandelbrot");
    let ((w, h), samples) = if quick() {
        ((96, 54), 200)
    } else {
        ((640, 360), 2500)
    };
    // Every view is checked and reported; the test fails at the end if any missed.
    let mut failures = Vec::new();
    for (name, location, max_dwell) in deep_views() {
        let max_dwell = if quick() {
            max_dwell.min(3000)
        } else {
            max_dwell
        };
        let mut s = MandelbrotSettings {
            view: View {
                width: w,
                height: h,
                max_dwell,
                ..View::default()
            },
            mode: Mode::PerPixel,
            ..MandelbrotSettings::default()
        };
        s.set_location(location);
        let view = s.deep_view().expect("deep view");
        let start = Instant::now();
        let (gpu, frame) = renderer.dwells(&s).expect("GPU dwells");
        let gpu_ms = start.elapsed().as_secs_f64() * 1e3;
        assert_eq!(frame.backend, BackendKind::Cuda, "{name}");
        assert!(is_deep(frame.precision), "{name}: {:?}", frame.precision);
        // The colours through the pixel buffer, into a poisoned texture.
        renderer.texture.resize(gl, w, h).expect("resize");
        renderer.texture.fill(gl, POISON).expect("poison");
        renderer.render(gl, &s).expect("render");
        let shown = renderer.texture.read(gl).expect("read texture");
        let lut = s.palette.lut(max_dwell, s.interior);
        assert_eq!(
            shown,
            colorize(&gpu, &lut),
            "{name}: texture vs LUT(dwells)"
        );
        let orbit = ReferenceOrbit::compute(&view);
        let points = orbit.f64_points();
        let step = view.location.pixel_size(w);
        let pixels = sample_pixels(w, h, samples, 13);
        let start = Instant::now();
        let checked: Vec<(u32, u32, u32, (u32, u32))> = pixels
            .par_iter()
            .map(|&(x, y)| {
                let cpu = if frame.precision == Precision::Extended {
                    dwell_ext(&orbit.points, offset_ext(x, y, w, h, step), max_dwell)
                } else {
                    dwell_f64(&points, offset_f64(x, y, w, h, step.to_f64()), max_dwell)
                };
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
