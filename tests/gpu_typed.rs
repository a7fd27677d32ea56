//! Typed images (8-bit, 16-bit and float samples; grey, RGB and RGBA) through the frame's
//! GPU path: loaded as the source, copied by the identity frame (no filter), read back
//! through CUDA and through GL, on both interop paths (external memory and map/unmap).
//! Everything must come back bit for bit: integers, and floats with their sign, values
//! above 1 and below 0, zeros of both signs, the extremes and infinities; subnormals and
//! NaN payloads (quiet and signalling) have a test of their own, which names what changed
//! if a path does not keep them. Outputs and bins are poisoned first. A stack with a filter on a non-RGBA8 image is refused with a typed
//! error, on both backends.
//!
//! The GL-only tests run on any headless EGL (Mesa here and in CI); the CUDA tests print
//! "skipped: no CUDA device" without one and fail under `CUDALENS_REQUIRE_GPU=1`.

mod common;

use common::gpu::{cuda_gl, headless_gl};

use cudalens::filters::FILTERS;
use cudalens::gl::GlTexture;
use cudalens::pipeline::{
    BackendKind, BackendRequest, FrameRunner, GpuPixelFormat, InteropKind, InteropRequest,
    PipelineError, Stage,
};
use cudalens::pixels::{ImageBuf, PixelImage, SampleType};
use rand::{Rng, SeedableRng};

/// Both interop paths, each forced (a path that cannot open is an error, not a skip).
const PATHS: [(InteropRequest, InteropKind); 2] = [
    (InteropRequest::Classic, InteropKind::Classic),
    (InteropRequest::External, InteropKind::External),
];

/// Sizes that are not multiples of the copy kernel's blocks nor of 4 bytes a row.
const SIZES: [(u32, u32); 3] = [(1, 1), (37, 23), (130, 67)];

/// An ordinary float sample a file may hold: values of both signs, above 1 and far
/// above, zeros of both signs, the extremes (smallest normal too) and infinities.
fn float_sample(rng: &mut impl Rng) -> f32 {
    match rng.random_range(0..6) {
        0 => rng.random_range(1.0..1e30f32) * [1.0, -1.0][rng.random_range(0..2)],
        1 => [
            0.0,
            -0.0,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
        ][rng.random_range(0..6)],
        2 => [f32::INFINITY, f32::NEG_INFINITY][rng.random_range(0..2)],
        _ => rng.random_range(-2.0..2.0f32),
    }
}

/// The float samples whose bits a path might not keep: subnormals of both signs and NaNs
/// with payloads, quiet and signalling, of both signs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Special {
    Subnormal,
    QuietNan,
    SignallingNan,
}

impl Special {
    const ALL: [Special; 3] = [
        Special::Subnormal,
        Special::QuietNan,
        Special::SignallingNan,
    ];

    fn sample(self, rng: &mut impl Rng) -> f32 {
        let sign = [0, 0x8000_0000][rng.random_range(0..2)];
        let bits = match self {
            Special::Subnormal => rng.random_range(1..0x0080_0000),
            Special::QuietNan => 0x7fc0_0000 | rng.random_range(0..0x0040_0000),
            Special::SignallingNan => 0x7f80_0000 | rng.random_range(1..0x0040_0000),
        };
        f32::from_bits(sign | bits)
    }
}

/// A random, not all-zero image of `sample` × `channels`.
fn random_pixels(sample: SampleType, channels: u8, (w, h): (u32, u32), seed: u64) -> PixelImage {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let size = "a small image";
    let mut image = match sample {
        SampleType::U8 => PixelImage::U8(
            ImageBuf::from_fn(w, h, channels, |_, _, _| rng.random::<u8>()).expect(size),
        ),
        SampleType::U16 => PixelImage::U16(
            ImageBuf::from_fn(w, h, channels, |_, _, _| rng.random::<u16>()).expect(size),
        ),
        SampleType::F32 => PixelImage::F32(
            ImageBuf::from_fn(w, h, channels, |_, _, _| float_sample(&mut rng)).expect(size),
        ),
    };
    // Never all zero: the first sample is set.
    match &mut image {
        PixelImage::U8(b) => b.as_mut_slice()[0] = 200,
        PixelImage::U16(b) => b.as_mut_slice()[0] = 51_234,
        PixelImage::F32(b) => b.as_mut_slice()[0] = -3.25,
    }
    image
}

/// A photograph in `sample` × `channels` by the depth and channel rules.
fn photo_pixels(sample: SampleType, channels: u8) -> PixelImage {
    let photo = PixelImage::from_rgba8(common::photo("coffee.png"));
    photo
        .to_type(sample)
        .with_channels(channels)
        .expect("channels")
}

/// Every image of the tests: random at each size and a photograph, for each type ×
/// channels.
fn cases() -> Vec<(String, PixelImage)> {
    let mut cases = Vec::new();
    for sample in SampleType::ALL {
        for channels in [1u8, 3, 4] {
            for (i, &size) in SIZES.iter().enumerate() {
                let seed = 1000 * u64::from(channels) + 10 * i as u64 + sample.bytes() as u64;
                let image = random_pixels(sample, channels, size, seed);
                cases.push((format!("{} {}×{}", image.describe(), size.0, size.1), image));
            }
            let photo = photo_pixels(sample, channels);
            cases.push((format!("{} coffee", photo.describe()), photo));
        }
    }
    cases
}

/// The stored texels of `image` (RGB with its opaque alpha), for bit-for-bit comparison.
fn texels(image: &PixelImage) -> Vec<u8> {
    GpuPixelFormat::texels(image).expect("texels")
}

/// One texel of `format` that no test image holds at every pixel.
fn poison(format: GpuPixelFormat) -> Vec<u8> {
    let texel: Vec<u8> = [0xAB, 0xCD, 0xEF, 0x12].repeat(4);
    texel[..format.bytes_per_pixel()].to_vec()
}

/// Gives the output `size` and `format` and fills it with [`poison`].
fn poison_output(
    gl: &glow::Context,
    runner: &mut FrameRunner,
    size: (u32, u32),
    format: GpuPixelFormat,
) {
    runner.shape_output(gl, size, format).expect("shape output");
    runner
        .targets
        .output
        .fill_texel(gl, &poison(format))
        .expect("poison output");
}

/// Loads `image`, poisons the output (in the image's format and size) and the bins, runs
/// the identity frame and checks what comes back: through CUDA or the CPU's read-back, as
/// an image of the source's type and channels, and the output texture through GL.
fn check_identity(gl: &glow::Context, runner: &mut FrameRunner, label: &str, image: &PixelImage) {
    let format = GpuPixelFormat::of(image);
    let want = texels(image);
    runner.load_pixels(gl, image).expect("load");
    let source = runner.source().expect("a source");
    assert_eq!(source.format, format.gl(), "{label}: source format");
    assert!(
        source.read_texels(gl).expect("read source") == want,
        "{label}: the source as loaded"
    );
    poison_output(gl, runner, image.dimensions(), format);
    runner
        .targets
        .bins
        .write(gl, &[0x5A; 4096])
        .expect("poison bins");
    let report = runner
        .run_loaded_pixels(gl, image, &[])
        .unwrap_or_else(|e| panic!("{label}: frame: {e}"));
    assert_eq!(report.width, image.width());
    let back = runner.read_output_pixels(gl).expect("read output");
    assert_eq!(back.describe(), image.describe(), "{label}");
    assert!(texels(&back) == want, "{label}: read back");
    assert!(
        runner
            .targets
            .output
            .read_texels(gl)
            .expect("read through GL")
            == want,
        "{label}: read back through GL"
    );
}

#[test]
fn typed_textures_round_trip_in_gl() {
    let Some(ctx) = headless_gl() else { return };
    let gl = &ctx.gl;
    for (label, image) in cases() {
        let format = GpuPixelFormat::of(&image);
        let want = texels(&image);
        let (w, h) = image.dimensions();
        let mut texture =
            GlTexture::with_format(gl, w, h, format.gl(), Some(&want)).expect("texture");
        assert!(texture.read_texels(gl).expect("read") == want, "{label}");
        texture.fill_texel(gl, &poison(format)).expect("fill");
        let half = h.div_ceil(2);
        texture.upload_texel_rows(gl, &want, 0..half).expect("rows");
        if half < h {
            texture.upload_texel_rows(gl, &want, half..h).expect("rows");
        }
        assert!(
            texture.read_texels(gl).expect("read") == want,
            "{label}: bands"
        );
        let rgba = PixelImage::from_rgba8(cudalens::ops::random_image(w, h, 3));
        texture
            .upload_texels(gl, (w, h), GpuPixelFormat::RGBA8.gl(), &texels(&rgba))
            .expect("back to RGBA8");
        assert_eq!(texture.read(gl).expect("read"), rgba.clone().into_rgba8());
        texture.destroy(gl);
    }
}

#[test]
fn cpu_backend_copies_typed_images_exactly() {
    let Some(ctx) = headless_gl() else { return };
    let gl = &ctx.gl;
    let request = (BackendRequest::Cpu, InteropRequest::Auto);
    let mut runner = FrameRunner::new(gl, request.0, request.1, 8, 8).expect("CPU runner");
    for (label, image) in cases() {
        check_identity(gl, &mut runner, &format!("cpu: {label}"), &image);
    }
    runner.destroy(gl);
}

/// A user kernel (it reads and writes RGBA8) on a non-RGBA8 image is refused before any
/// work; on 8-bit RGB it runs, and the filters run on every type.
fn check_refusals(gl: &glow::Context, runner: &mut FrameRunner) {
    // The repository where the tests run (the GPU machine's copy, not the build's).
    let kernel = format!(
        "kernel:{}",
        common::repo_root()
            .join("assets/kernels/invert.cu")
            .display()
    );
    let stack = vec![
        "gaussian:sigma=2".parse::<Stage>().expect("spec"),
        kernel.parse::<Stage>().expect("kernel spec"),
    ];
    for (sample, channels, what) in [
        (SampleType::U16, 4, "16-bit"),
        (SampleType::U16, 1, "16-bit"),
        (SampleType::F32, 3, "32-bit float"),
        (SampleType::U8, 1, "8-bit grey"),
    ] {
        let image = random_pixels(sample, channels, (9, 7), 5);
        runner.load_pixels(gl, &image).expect("load");
        let refused = runner.run_loaded_pixels(gl, &image, &stack);
        let Err(e @ PipelineError::NoTypedKernel { .. }) = refused else {
            panic!("{}: {refused:?}", image.describe());
        };
        assert_eq!(
            e.to_string(),
            format!("kernel:invert.cu has no {what} kernel yet")
        );
        assert!(e.is_user_error());
        runner
            .run_loaded_pixels(gl, &image, &stack[..1])
            .unwrap_or_else(|e| panic!("{}: the filter alone: {e}", image.describe()));
    }
    let rgb = photo_pixels(SampleType::U8, 3);
    runner.load_pixels(gl, &rgb).expect("load");
    runner
        .run_loaded_pixels(gl, &rgb, &stack[..1])
        .expect("8-bit RGB runs the filters");
    let back = runner.read_output_pixels(gl).expect("read");
    assert_eq!(back.describe(), "8-bit RGB");
}

#[test]
fn cpu_backend_refuses_user_kernels_on_typed_images() {
    let Some(ctx) = headless_gl() else { return };
    let gl = &ctx.gl;
    let mut runner =
        FrameRunner::new(gl, BackendRequest::Cpu, InteropRequest::Auto, 8, 8).expect("runner");
    check_refusals(gl, &mut runner);
    runner.destroy(gl);
}

/// A CUDA frame runner on interop path `path` (checked to be the one in use).
fn cuda_runner(gl: &glow::Context, path: InteropRequest) -> FrameRunner {
    let runner = FrameRunner::new(gl, BackendRequest::Cuda, path, 8, 8).expect("CUDA backend");
    assert_eq!(runner.status.kind, BackendKind::Cuda);
    let want = PATHS.iter().find(|(r, _)| *r == path).map(|(_, k)| *k);
    assert_eq!(runner.interop.as_ref().map(|i| i.kind), want, "{path:?}");
    runner
}

#[test]
fn gpu_identity_frames_are_bit_exact_on_both_interop_paths() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let cases = cases();
    for (path, kind) in PATHS {
        let mut runner = cuda_runner(gl, path);
        // Every format after every other: re-specified, re-registered or re-imported.
        for (label, image) in &cases {
            check_identity(gl, &mut runner, &format!("{kind}: {label}"), image);
        }
        // RGBA8 still runs its histogram after typed frames.
        let rgba = PixelImage::from_rgba8(common::photo("coffee.png"));
        runner.load_pixels(gl, &rgba).expect("load");
        let report = runner.run_loaded_pixels(gl, &rgba, &[]).expect("frame");
        let total: u64 = report.histogram.flat().iter().map(|&c| u64::from(c)).sum();
        assert_eq!(total, 4 * u64::from(rgba.width() * rgba.height()), "{kind}");
        runner.destroy(gl);
        println!("ok {kind}: {} typed identity frames bit-exact", cases.len());
    }
}

#[test]
fn gpu_refuses_user_kernels_on_typed_images() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    for (path, _) in PATHS {
        let mut runner = cuda_runner(gl, path);
        check_refusals(gl, &mut runner);
        runner.destroy(gl);
    }
}

/// A float image of `channels` whose samples are all of `special`, but the first.
fn special_pixels(special: Special, channels: u8, seed: u64) -> PixelImage {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut b = ImageBuf::from_fn(45, 19, channels, |_, _, _| special.sample(&mut rng))
        .expect("a small image");
    b.as_mut_slice()[0] = 1.5;
    PixelImage::F32(b)
}

/// Subnormals and NaN payloads through the identity frame: the samples whose bits changed
/// are counted per kind, path and channel count, and the test fails naming them.
#[test]
fn gpu_float_subnormals_and_nan_payloads_survive_the_copy() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let mut changed = Vec::new();
    for (path, kind) in PATHS {
        let mut runner = cuda_runner(gl, path);
        for special in Special::ALL {
            for channels in [1u8, 4] {
                let image = special_pixels(special, channels, 77 + u64::from(channels));
                runner.load_pixels(gl, &image).expect("load");
                runner.run_loaded_pixels(gl, &image, &[]).expect("frame");
                let back = runner.read_output_pixels(gl).expect("read");
                let (PixelImage::F32(a), PixelImage::F32(b)) = (&image, &back) else {
                    panic!("{kind}: not float");
                };
                let differ = a
                    .as_slice()
                    .iter()
                    .zip(b.as_slice())
                    .filter(|(x, y)| x.to_bits() != y.to_bits())
                    .count();
                if differ > 0 {
                    changed.push(format!("{kind} {special:?} ×{channels}: {differ} changed"));
                }
            }
        }
        runner.destroy(gl);
    }
    assert!(changed.is_empty(), "float bits not kept: {changed:?}");
    println!("ok subnormals and NaN payloads kept on both paths");
}

/// The typed images the filter tests run on: random samples (floats in -0.25..1.25, as
/// real float images hold) at an odd size, and a photograph, in every stored format with
/// a typed kernel (8-bit grey; 16-bit and float grey, RGB, RGBA).
fn filter_cases() -> Vec<(String, PixelImage)> {
    let mut cases = Vec::new();
    for (sample, channels) in [
        (SampleType::U8, 1u8),
        (SampleType::U16, 1),
        (SampleType::U16, 3),
        (SampleType::U16, 4),
        (SampleType::F32, 1),
        (SampleType::F32, 3),
        (SampleType::F32, 4),
    ] {
        let seed = 31 * u64::from(channels) + sample.bytes() as u64;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let (w, h) = (131, 67);
        let image = match sample {
            SampleType::F32 => PixelImage::F32(
                ImageBuf::from_fn(w, h, channels, |_, _, _| rng.random_range(-0.25..1.25f32))
                    .expect("size"),
            ),
            _ => random_pixels(sample, channels, (w, h), seed),
        };
        cases.push((format!("{} random {w}×{h}", image.describe()), image));
        let photo = photo_pixels(sample, channels);
        cases.push((format!("{} coffee", photo.describe()), photo));
    }
    cases
}

/// How far `got` is from `want`: the largest difference in levels for integers, in units
/// of `max(1e-5 · |want|, 1e-6)` for floats (NaN equal to NaN); and where.
fn worst(got: &PixelImage, want: &PixelImage) -> (f64, usize) {
    let pairs: Vec<(f64, f64)> = match (got, want) {
        (PixelImage::U8(g), PixelImage::U8(w)) => g
            .as_slice()
            .iter()
            .zip(w.as_slice())
            .map(|(a, b)| (f64::from(*a), f64::from(*b)))
            .collect(),
        (PixelImage::U16(g), PixelImage::U16(w)) => g
            .as_slice()
            .iter()
            .zip(w.as_slice())
            .map(|(a, b)| (f64::from(*a), f64::from(*b)))
            .collect(),
        (PixelImage::F32(g), PixelImage::F32(w)) => g
            .as_slice()
            .iter()
            .zip(w.as_slice())
            .map(|(a, b)| (f64::from(*a), f64::from(*b)))
            .collect(),
        _ => return (f64::INFINITY, 0),
    };
    let float = matches!(want, PixelImage::F32(_));
    pairs
        .iter()
        .enumerate()
        .map(|(i, &(g, w))| {
            let d = match (float, g.is_nan() && w.is_nan()) {
                (_, true) => 0.0,
                (true, false) => (g - w).abs() / (1e-5 * w.abs()).max(1e-6),
                (false, false) => (g - w).abs(),
            };
            (if d.is_nan() { f64::INFINITY } else { d }, i)
        })
        .fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a })
}

/// Runs `stack` on `image` through the CUDA frame (output poisoned first) and compares
/// it with the typed CPU references run in order; a failure names the case.
fn check_typed_stack(
    gl: &glow::Context,
    runner: &mut FrameRunner,
    label: &str,
    image: &PixelImage,
    stack: &[Stage],
    failures: &mut Vec<String>,
) {
    let filters: Vec<_> = stack.iter().filter_map(|s| s.filter().copied()).collect();
    let mut want = image.clone();
    for f in &filters {
        want = f.apply_cpu_typed(&want);
    }
    runner.load_pixels(gl, image).expect("load");
    let format = GpuPixelFormat::of(image);
    poison_output(gl, runner, want.dimensions(), format);
    if let Err(e) = runner.run_loaded_pixels(gl, image, stack) {
        failures.push(format!("{label}: {e}"));
        return;
    }
    let got = runner.read_output_pixels(gl).expect("read output");
    let (worst, at) = worst(&got, &want);
    let tolerance = match image.sample_type() {
        SampleType::F32 => 1.0,
        _ => f64::from(cudalens::filters::gpu_tolerance(&filters)),
    };
    if got.describe() != want.describe() || worst > tolerance {
        failures.push(format!(
            "{label}: {} from the CPU reference at sample {at} (bound {tolerance})",
            worst
        ));
    }
}

/// Every filter's test specifications on every typed format through the CUDA frame (the
/// classic path; both paths for a chain of filters), against the typed CPU references:
/// integers within the filter's tolerance in levels (0 or 1), floats within 1e-5
/// relative (1e-6 absolute near 0).
#[test]
fn gpu_typed_filters_match_their_cpu_references() {
    let Some(ctx) = cuda_gl() else { return };
    let gl = &ctx.gl;
    let cases = filter_cases();
    let mut failures = Vec::new();
    let mut runs = 0;
    let mut runner = cuda_runner(gl, InteropRequest::Classic);
    for def in FILTERS {
        for spec in def.test_specs {
            let stack = vec![spec.parse::<Stage>().expect("spec")];
            for (label, image) in &cases {
                let label = format!("{spec} on {label}");
                check_typed_stack(gl, &mut runner, &label, image, &stack, &mut failures);
                runs += 1;
            }
        }
    }
    runner.destroy(gl);
    let chain: Vec<Stage> = [
        "gaussian:sigma=1.5",
        "sobel:scale=2",
        "transpose",
        "median:radius=2",
    ]
    .iter()
    .map(|s| s.parse().expect("spec"))
    .collect();
    for (path, kind) in PATHS {
        let mut runner = cuda_runner(gl, path);
        for (label, image) in &cases {
            let label = format!("{kind}: chain on {label}");
            check_typed_stack(gl, &mut runner, &label, image, &chain, &mut failures);
            runs += 1;
        }
        runner.destroy(gl);
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} typed frames differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!("ok {runs} typed filter frames equal to the CPU references");
}
