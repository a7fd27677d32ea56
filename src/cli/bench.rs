//! `cudalens bench`: per-stage medians of the filters over many runs after warm-up (CUDA
//! events on the GPU, wall clock on the CPU), effective bandwidth as a fraction of the
//! device's measured device-to-device copy bandwidth, and with `--mandelbrot` the
//! explorer's frame. Public for `cudalens-bench` (tools/bench), which runs the same cases
//! with research work beside them ([`CaseHook`]: NPP's peers).

use super::args::BenchSampleType;
use super::{BenchArgs, CliError};
use crate::bench_stats::{median, stage_medians, INTEROP, WALL, WARM_UP};
use crate::cuda::CudaDevice;
use crate::filters::{Filter, FILTERS};
use crate::gl::{GlTexture, HeadlessGl};
use crate::pipeline::{stages_of, BackendKind, FrameRunner, GpuPixelFormat};
use crate::pixels::{PixelImage, SampleType};
use std::collections::BTreeMap;

/// Work run beside each filter case, in the same process on the same image right after the
/// case was timed (`cudalens-bench --peers`: NPP's nearest equivalents).
pub trait CaseHook {
    /// Once, before the first case: the device of the CUDA backend (None on another).
    fn start(&mut self, device: Option<&CudaDevice>, image: &image::RgbaImage, runs: usize);
    /// After each case, with its stage medians.
    fn case(
        &mut self,
        name: &str,
        filters: &[Filter],
        medians: &BTreeMap<String, f64>,
        image: &image::RgbaImage,
    );
    /// After the last case: prints its table and returns its JSON.
    fn finish(&mut self) -> serde_json::Value;
}

/// The stack of `--filter`, or else the copy case, every filter's benchmark specifications
/// (from the registry), and the frame of the interop goal: gaussian σ=2 → sobel →
/// box r=5 → transpose.
pub fn cases(args: &BenchArgs) -> Vec<(String, Vec<Filter>)> {
    if !args.filters.is_empty() {
        let names: Vec<String> = args.filters.iter().map(|f| f.to_string()).collect();
        return vec![(names.join(" → "), args.filters.clone())];
    }
    let mut cases = vec![("copy + histogram".to_string(), vec![])];
    let parse = |spec: &str| {
        spec.parse::<Filter>()
            .map_err(|e| log::error!("bench case '{spec}' does not parse: {e}"))
            .ok()
    };
    for def in FILTERS {
        cases.extend(
            def.bench_specs
                .iter()
                .filter_map(|s| parse(s))
                .map(|f| (f.to_string(), vec![f])),
        );
    }
    let chain = ["gaussian:sigma=2", "sobel", "box:radius=5", "transpose"];
    let chain: Vec<Filter> = chain.iter().filter_map(|s| parse(s)).collect();
    cases.push((
        "gaussian σ=2 → sobel → box r=5 → transpose".to_string(),
        chain,
    ));
    cases
}

/// Whether a stage is part of the GPU timeline (the total), not a derived line.
fn on_timeline(name: &str) -> bool {
    name != INTEROP && name != WALL && crate::pipeline::counts_in_total(name)
}

/// Checks the --json path and the host memory budget, before the image is made: what
/// every backend's bench needs.
pub fn check_bench_host(args: &BenchArgs) -> Result<(), CliError> {
    let (w, h) = args.size;
    if let Some(path) = &args.json {
        crate::image_io::check_output_path(path, true)?;
    }
    let sample_bytes = bench_sample_type(args.sample_type).bytes() as u64;
    let image = u64::from(w) * u64::from(h) * 4 * sample_bytes;
    crate::image_io::budget::check_host(&format!("bench at {w}x{h}"), 3 * image + (64 << 20))
        .map_err(CliError::usage)
}

/// Checks the size against the GPU's texture limit and memory, then the host's, all
/// before the image is made.
pub fn check_bench(gl: &glow::Context, args: &BenchArgs) -> Result<(), CliError> {
    let (w, h) = args.size;
    let max = crate::gl::max_texture_size(gl);
    if w > max || h > max {
        return Err(CliError::usage(format!(
            "bench size {w}x{h} is over this GPU's texture limit of {max}"
        )));
    }
    check_bench_host(args)?;
    // Every case's filters in one chain: an upper bound of any case's memory, in the
    // bench image's format.
    let worst: Vec<Filter> = cases(args).into_iter().flat_map(|(_, f)| f).collect();
    let format = GpuPixelFormat::stored(bench_sample_type(args.sample_type), 4);
    crate::pipeline::check_gpu_frame_as(gl, (w, h), format, &stages_of(&worst))?;
    Ok(())
}

/// The bench's random image at `args.size`, its GL texture and a frame runner for it (the
/// texture destroyed again when the runner cannot be made).
pub fn bench_frame(
    gl: &glow::Context,
    args: &BenchArgs,
) -> Result<(image::RgbaImage, GlTexture, FrameRunner), CliError> {
    let (w, h) = args.size;
    let image = crate::ops::random_image(w, h, 42);
    let source = GlTexture::new(gl, w, h, Some(image.as_raw())).map_err(CliError::internal)?;
    match FrameRunner::new(gl, args.backend, args.interop, w, h) {
        Ok(runner) => Ok((image, source, runner)),
        Err(e) => {
            source.destroy(gl);
            Err(e.into())
        }
    }
}

/// The sample type `--type` names.
pub fn bench_sample_type(t: BenchSampleType) -> SampleType {
    match t {
        BenchSampleType::U8 => SampleType::U8,
        BenchSampleType::U16 => SampleType::U16,
        BenchSampleType::F32 => SampleType::F32,
    }
}

/// The GPU bench (`--backend cuda` or `auto`; `auto` times the CPU backend's frames where
/// CUDA does not work).
pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    let (w, h) = args.size;
    let gl = headless_gl()?;
    let gl = &gl.gl;
    if let Some(path) = &args.video {
        let doc = super::bench_video::run(gl, args, path)?;
        if let Some(out) = &args.json {
            crate::image_io::write_bytes_atomically(out, doc.to_string().as_bytes())?;
        }
        return Ok(());
    }
    check_bench(gl, args)?;
    let (image, source, mut runner) = bench_frame(gl, args)?;
    let backend = runner.status.kind;
    println!("backend: {} — {}", backend, runner.status.reason);
    let interop = runner.interop.clone();
    if let Some(i) = &interop {
        println!("interop: {i}");
    }
    let measured = measure_cases(gl, args, &mut runner, &source, &image, None);
    runner.destroy(gl);
    source.destroy(gl);
    let Measured {
        mut json,
        peers: peer_json,
        copy_gbps,
    } = measured?;
    if args.mandelbrot {
        let frame = super::bench_explorer::run(gl, args)?;
        json.insert("mandelbrot".into(), frame);
    }
    if let Some(path) = &args.json {
        let interop = interop.map(|i| i.kind.to_string());
        let doc = serde_json::json!({ "backend": backend.to_string(), "interop": interop, "size": [w, h], "copy_gbps": copy_gbps, "cases": json, "peers": peer_json });
        crate::image_io::write_bytes_atomically(path, doc.to_string().as_bytes())?;
    }
    Ok(())
}

/// The bench's OpenGL context (headless EGL), or a usage error that says why not.
pub fn headless_gl() -> Result<HeadlessGl, CliError> {
    HeadlessGl::new().map_err(|e| CliError::usage(format!("bench needs OpenGL (EGL): {e}")))
}

/// What the cases measured: per case its stage medians, the hook's table, the copy
/// bandwidth.
pub struct Measured {
    pub json: serde_json::Map<String, serde_json::Value>,
    /// The hook's JSON.
    pub peers: Option<serde_json::Value>,
    pub copy_gbps: Option<f64>,
}

/// Runs every case of `args` with `runner` on `source` (and `hook` after each), printing
/// a line each.
pub fn measure_cases(
    gl: &glow::Context,
    args: &BenchArgs,
    runner: &mut FrameRunner,
    source: &GlTexture,
    image: &image::RgbaImage,
    mut hook: Option<&mut dyn CaseHook>,
) -> Result<Measured, CliError> {
    let (w, h) = args.size;
    let copy_gbps = match (runner.status.kind, runner.cuda_device()) {
        (BackendKind::Cuda, Some(d)) => Some(median(
            crate::cuda::copy_bandwidth_samples(d).map_err(CliError::internal)?,
        )),
        _ => None,
    };
    if let Some(bw) = copy_gbps {
        println!("device copy bandwidth (cuMemcpyDtoD, read + write): {bw:.0} GB/s");
    }
    // `--type u16|f32`: the same image as RGBA of that type through the typed kernels
    // (no peers: NPP's are timed on RGBA8).
    let typed = match bench_sample_type(args.sample_type) {
        SampleType::U8 => None,
        t => Some(PixelImage::from_rgba8(image.clone()).to_type(t)),
    };
    if let Some(typed) = &typed {
        runner.load_pixels(gl, typed)?;
        hook = None;
    }
    if let Some(hook) = hook.as_mut() {
        hook.start(runner.cuda_device(), image, args.runs);
    }
    let type_name = typed.as_ref().map_or("RGBA8".into(), |t| t.describe());
    println!(
        "image {w}×{h} {type_name}, {} runs after {WARM_UP} warm-up, medians in ms",
        args.runs
    );
    // Read once and written once: the pixel bytes of one pass.
    let pixel_bytes = match &typed {
        None => crate::cuda::rgba_pass_bytes(w, h),
        Some(t) => {
            2.0 * GpuPixelFormat::of(t).bytes_per_pixel() as f64 * f64::from(w) * f64::from(h)
        }
    };
    let mut json = serde_json::Map::new();
    for (name, filters) in cases(args) {
        let stages = stages_of(&filters);
        let medians = stage_medians(args.runs, || {
            let report = match &typed {
                None => runner.run(gl, source, image, &stages),
                Some(t) => runner.run_loaded_pixels(gl, t, &stages),
            };
            report.map(|r| r.stages).map_err(CliError::from)
        })?;
        if let Some(hook) = hook.as_mut() {
            hook.case(&name, &filters, &medians, image);
        }
        let kernel_ms: f64 = filters
            .first()
            .and_then(|f| medians.get(f.name()))
            .copied()
            .unwrap_or(f64::NAN);
        let total: f64 = medians
            .iter()
            .filter(|(k, _)| on_timeline(k))
            .map(|(_, v)| v)
            .sum();
        let line: Vec<String> = medians.iter().map(|(k, v)| format!("{k} {v:.3}")).collect();
        let bandwidth = if filters.is_empty() {
            None
        } else {
            Some(crate::cuda::gb_per_s(pixel_bytes, kernel_ms))
        };
        let fraction = bandwidth.zip(copy_gbps).map(|(b, c)| b / c);
        println!(
            "{name:<22} total {total:>8.3} | {}{}",
            line.join(", "),
            match (bandwidth, fraction) {
                (Some(b), Some(f)) =>
                    format!(" | effective {b:.0} GB/s = {:.0}% of copy", f * 100.0),
                (Some(b), None) => format!(" | effective {b:.1} GB/s"),
                _ => String::new(),
            }
        );
        json.insert(name, serde_json::json!({ "stages_ms": medians, "total_ms": total, "effective_gbps": bandwidth, "fraction_of_copy": fraction }));
    }
    Ok(Measured {
        json,
        peers: hook.map(|h| h.finish()),
        copy_gbps,
    })
}
