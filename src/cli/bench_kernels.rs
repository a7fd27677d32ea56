//! `cudalens bench --kernels`: the user kernel goals, on the device directly (no GL).
//!
//! - edit → first frame: a 20-line kernel compiled (NVRTC), loaded and launched once on a
//!   1920×1080 image, wall clock, each run a new source (no cache), median of the runs;
//! - the per-pixel copy kernel against the built-in copy at 4K and 8K, CUDA events, as
//!   a fraction of the device's copy bandwidth;
//! - the shipped tiled Sobel (`sobel_tiles.cu`) against the built-in Sobel at 4K: ratio;
//! - the kernel host's cost: a stage run there (no GL), and a whole frame run there on
//!   the external-memory path (headless GL), each against the kernel in this process.

use super::CliError;
use crate::bench_stats::{median, WARM_UP};
use crate::cuda::{
    copy_bandwidth_samples, gb_per_s, memory, rgba_pass_bytes, CudaDevice, CudaError, GpuTimeline,
    ImageArray, KernelSet, SurfaceObject, TextureObject,
};
use crate::filters::{kernel_modules, launch_copy, Filter, GpuStage};
use crate::gl::GlTexture;
use crate::pipeline::{cuda_headless_gl, BackendRequest, FrameRunner, InteropRequest, Stage};
use crate::user_kernel::compile::CompileOptions;
use crate::user_kernel::device::{arch_for, LoadedKernel};
use crate::user_kernel::examples::example;
use crate::user_kernel::sandbox::compiler::compile;
use crate::user_kernel::sandbox::{FrameSandbox, StageRun};
use crate::user_kernel::{KernelSource, KernelStage, ParamBlock};
use glow::HasContext;
use std::time::Instant;

/// A 20-line per-pixel kernel: the edit → first frame goal's source.
const TWENTY_LINES: &str = "// @param float gain 0..4 = 1.2
// @param float lift 0..1 = 0.05
// @param bool mono = false
uchar4 pixel(int x, int y, Image src, Params p)
{
    const uchar4 c = read(src, x, y);
    float4 f = to_float4(c);
    f.x = f.x * p.gain + p.lift * 255.0f;
    f.y = f.y * p.gain + p.lift * 255.0f;
    f.z = f.z * p.gain + p.lift * 255.0f;
    if (p.mono) {
        const float l = 0.299f * f.x + 0.587f * f.y + 0.114f * f.z;
        f.x = l;
        f.y = l;
        f.z = l;
    }
    const float u = (float)x / (float)src.width;
    f.x = lerpf(f.x, f.z, 0.1f * u);
    return from_float4(f);
}
";

/// The per-pixel copy: the least a user kernel can do.
const COPY_KERNEL: &str =
    "uchar4 pixel(int x, int y, Image src, Params p)\n{\n    return read(src, x, y);\n}\n";

fn internal(e: impl std::fmt::Display) -> CliError {
    CliError::internal(e)
}

/// Source and destination arrays of `w × h` with their texture and surface (random
/// pixels in the source).
struct Pair {
    input: ImageArray,
    output: ImageArray,
    w: u32,
    h: u32,
}

impl Pair {
    fn new(device: &CudaDevice, w: u32, h: u32) -> Result<Self, CudaError> {
        let input = ImageArray::new(&device.ctx, w, h)?;
        let output = ImageArray::new(&device.ctx, w, h)?;
        let image = crate::ops::random_image(w, h, 7);
        let raw = input.array().view().raw();
        // SAFETY: `input` is a live w × h RGBA8 array; the copy is waited for.
        unsafe { memory::write_array(raw, w, h, image.as_raw(), &device.stream)? };
        Ok(Self {
            input,
            output,
            w,
            h,
        })
    }

    fn tex(&self) -> &TextureObject<'_> {
        self.input.texture()
    }

    fn surf(&self) -> &SurfaceObject<'_> {
        self.output.surface()
    }

    /// Queues `kernel` from the input to the output on the device's stream.
    ///
    /// # Safety
    /// The stream must have run the kernel before the pair is dropped (the callers'
    /// timings wait for it).
    unsafe fn launch(
        &self,
        device: &CudaDevice,
        kernel: &LoadedKernel,
        params: &ParamBlock,
    ) -> Result<(), CliError> {
        // SAFETY: the objects are over this pair's live w × h RGBA8 arrays, kept until the
        // stream has run the kernel (the caller's contract).
        unsafe {
            kernel.launch(
                &device.stream,
                self.tex().handle(),
                self.surf().handle(),
                self.w,
                self.h,
                params,
            )
        }
        .map_err(internal)
    }
}

/// The `Params` block of `source`'s parameters at their defaults.
fn default_params(source: &KernelSource) -> ParamBlock {
    crate::user_kernel::ParamValues::defaults(&source.params).pack(&source.params)
}

fn load(device: &CudaDevice, text: &str) -> Result<(KernelSource, LoadedKernel), CliError> {
    load_source(device, KernelSource::parse(text).map_err(internal)?)
}

fn load_source(
    device: &CudaDevice,
    source: KernelSource,
) -> Result<(KernelSource, LoadedKernel), CliError> {
    let arch = arch_for(device.info.compute_capability);
    let compiled = compile(&source, &CompileOptions::for_arch(&arch)).map_err(internal)?;
    let loaded = LoadedKernel::load(device, &source, &compiled).map_err(internal)?;
    Ok((source, loaded))
}

/// Median milliseconds of `launch` over `runs` after warm-up, timed with CUDA events.
fn timed(
    device: &CudaDevice,
    runs: usize,
    mut launch: impl FnMut() -> Result<(), CliError>,
) -> Result<f64, CliError> {
    let stream = &device.stream;
    let mut timeline = GpuTimeline::start(&device.ctx, stream).map_err(internal)?;
    for i in 0..runs.max(1) + WARM_UP {
        launch()?;
        timeline
            .mark(if i < WARM_UP { "warm-up" } else { "run" }, stream)
            .map_err(internal)?;
    }
    let times = timeline.stage_times().map_err(internal)?;
    Ok(median(
        times
            .into_iter()
            .filter(|(n, _)| n == "run")
            .map(|(_, ms)| ms)
            .collect(),
    ))
}

/// Edit → first frame: compile, load, launch and wait, each run a new source.
fn edit_to_frame_ms(device: &CudaDevice, runs: usize) -> Result<f64, CliError> {
    let pair = Pair::new(device, 1920, 1080).map_err(internal)?;
    let mut samples = Vec::new();
    for i in 0..runs.max(1) + WARM_UP {
        // A new comment makes a new source, as an edit does (no cache can answer).
        let text = format!("{TWENTY_LINES}// edit {i}\n");
        let start = Instant::now();
        let (source, kernel) = load(device, &text)?;
        let block = default_params(&source);
        // SAFETY: the pair's objects are live over w × h RGBA8 arrays until the
        // synchronize below.
        unsafe {
            kernel.launch(
                &device.stream,
                pair.tex().handle(),
                pair.surf().handle(),
                pair.w,
                pair.h,
                &block,
            )
        }
        .map_err(internal)?;
        device.synchronize().map_err(internal)?;
        if i >= WARM_UP {
            samples.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    Ok(median(samples))
}

/// Median wall milliseconds of `run` then `settle` (which waits for its work), over `runs`
/// after warm-up.
fn wall_ms(
    runs: usize,
    mut run: impl FnMut() -> Result<(), CliError>,
    mut settle: impl FnMut() -> Result<(), CliError>,
) -> Result<f64, CliError> {
    let mut samples = Vec::new();
    for i in 0..runs.max(1) + WARM_UP {
        let start = Instant::now();
        run()?;
        settle()?;
        if i >= WARM_UP {
            samples.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    Ok(median(samples))
}

/// A stage's cost in the kernel host over the same launch in this process (the copy
/// kernel, wall time to the end of the stream's work): the frame's real path, the copies
/// into and out of the shared device frame included.
fn sandbox_overhead(
    device: &CudaDevice,
    runs: usize,
    text: &str,
) -> Result<Vec<serde_json::Value>, CliError> {
    let (source, kernel) = load(device, text)?;
    let arch = arch_for(device.info.compute_capability);
    let compiled = compile(&source, &CompileOptions::for_arch(&arch)).map_err(internal)?;
    let block = default_params(&source);
    let mut host = FrameSandbox::new(device.info.ordinal).map_err(internal)?;
    let mut rows = Vec::new();
    for (label, w, h) in [("1080p", 1920, 1080), ("4K", 3840, 2160)] {
        let pair = Pair::new(device, w, h).map_err(internal)?;
        let synced = || device.synchronize().map_err(internal);
        // SAFETY: wall_ms synchronizes after each run, before the pair is dropped.
        let here = wall_ms(
            runs,
            || unsafe { pair.launch(device, &kernel, &block) },
            synced,
        )?;
        let mut kernel_in_host = Vec::new();
        let there = wall_ms(
            runs,
            || {
                let run = StageRun {
                    ctx: &device.ctx,
                    stream: &device.stream,
                    hash: 1,
                    source: &source,
                    compiled: &compiled,
                    params: &block,
                    input: pair.input.array().view(),
                    output: pair.output.array().view(),
                    width: w,
                    height: h,
                };
                let kernel_ms = host.run(&run).map_err(internal)?;
                kernel_in_host.extend(kernel_ms);
                Ok(())
            },
            synced,
        )?;
        let kernel_ms = (!kernel_in_host.is_empty()).then(|| median(kernel_in_host));
        let path = host
            .host_memory_reason()
            .map_or("device frame", |_| "host memory");
        let kernel_there = kernel_ms.map_or("not measured".into(), |ms| format!("{ms:.3} ms"));
        println!(
            "kernel host {label} ({path}): {there:.3} ms, in-process {here:.3} ms: overhead {:.3} ms (the kernel itself in the host: {kernel_there})",
            there - here
        );
        rows.push(serde_json::json!({ "size": label, "path": path, "sandbox_ms": there, "in_process_ms": here, "overhead_ms": there - here, "kernel_in_host_ms": kernel_ms }));
    }
    Ok(rows)
}

/// A frame whose stack is the kernel `text`, on the external-memory path through headless
/// GL: run wholly in the kernel host against the same frame with the kernel in this
/// process, and the frame of the built-in copy (the empty stack) beside them; wall time of
/// the frame's call with GL finished after it, as the window waits for a frame.
fn frame_overhead(runs: usize, text: &str) -> Result<Vec<serde_json::Value>, CliError> {
    let headless = cuda_headless_gl().map_err(internal)?;
    let gl = &headless.gl;
    let source = KernelSource::parse(text).map_err(internal)?;
    let stages = [Stage::Kernel(KernelStage::from_source(
        std::path::Path::new("copy.cu"),
        source,
    ))];
    let mut rows = Vec::new();
    for (label, w, h) in [("1080p", 1920, 1080), ("4K", 3840, 2160)] {
        let image = crate::ops::random_image(w, h, 11);
        let texture = GlTexture::new(gl, w, h, Some(image.as_raw())).map_err(internal)?;
        let time = |runner: &mut FrameRunner,
                    in_process: bool,
                    stages: &[Stage]|
         -> Result<f64, CliError> {
            runner.set_user_kernels_in_process(in_process);
            wall_ms(
                runs,
                || {
                    runner
                        .run(gl, &texture, &image, stages)
                        .map(|_| ())
                        .map_err(internal)
                },
                || {
                    // SAFETY: glFinish has no preconditions.
                    unsafe { gl.finish() };
                    Ok(())
                },
            )
        };
        let timed = FrameRunner::new(gl, BackendRequest::Cuda, InteropRequest::External, w, h)
            .map_err(internal)
            .and_then(|mut runner| {
                let there = time(&mut runner, false, &stages);
                let here = time(&mut runner, true, &stages);
                let built_in = time(&mut runner, true, &[]);
                runner.destroy(gl);
                Ok((there?, here?, built_in?))
            });
        texture.destroy(gl);
        let (there, here, built_in) = timed?;
        println!(
            "whole frame in the kernel host {label}: {there:.3} ms, in-process {here:.3} ms: overhead {:.3} ms (the built-in copy's frame: {built_in:.3} ms)",
            there - here
        );
        rows.push(serde_json::json!({ "size": label, "host_frame_ms": there, "in_process_ms": here, "overhead_ms": there - here, "builtin_copy_frame_ms": built_in }));
    }
    Ok(rows)
}

/// Median milliseconds of `kernel` (its parameters' defaults) on `pair`.
fn time_user_kernel(
    device: &CudaDevice,
    runs: usize,
    source: &KernelSource,
    kernel: &LoadedKernel,
    pair: &Pair,
) -> Result<f64, CliError> {
    let params = default_params(source);
    // SAFETY: timed reads the timeline's events, which waits for the stream, before the
    // pair can be dropped.
    timed(device, runs, || unsafe {
        pair.launch(device, kernel, &params)
    })
}

/// The sources of `files`, read and checked before anything is timed.
fn read_files(
    files: &[std::path::PathBuf],
) -> Result<Vec<(&std::path::PathBuf, KernelSource)>, CliError> {
    files
        .iter()
        .map(|path| {
            KernelSource::load(path)
                .map(|source| (path, source))
                .map_err(|e| CliError::usage(format!("{}: {e}", path.display())))
        })
        .collect()
}

/// `files` timed at 4K, one line each.
fn time_files(
    device: &CudaDevice,
    runs: usize,
    files: Vec<(&std::path::PathBuf, KernelSource)>,
    copy_gbps: f64,
) -> Result<Vec<serde_json::Value>, CliError> {
    let (w, h) = (3840, 2160);
    let pair = Pair::new(device, w, h).map_err(internal)?;
    let mut rows = Vec::new();
    for (path, source) in files {
        let (source, kernel) = load_source(device, source)?;
        let ms = time_user_kernel(device, runs, &source, &kernel, &pair)?;
        let gbps = gb_per_s(rgba_pass_bytes(w, h), ms);
        let occupancy = kernel.occupancy_at(w, h);
        println!(
            "{} 4K: {ms:.4} ms = {:.0}% of copy bandwidth ({} registers, occupancy {:.0}% over the grid)",
            path.display(),
            100.0 * gbps / copy_gbps,
            kernel.attributes.registers,
            100.0 * occupancy.unwrap_or(0.0)
        );
        rows.push(serde_json::json!({ "file": path.display().to_string(), "ms": ms, "fraction_of_copy": gbps / copy_gbps, "registers": kernel.attributes.registers, "grid_occupancy": occupancy }));
    }
    Ok(rows)
}

/// Runs the kernel goals (and times `files`) and prints them; the JSON of the results.
pub fn run(runs: usize, files: &[std::path::PathBuf]) -> Result<serde_json::Value, CliError> {
    let files = read_files(files)?;
    if !crate::user_kernel::nvrtc_available() {
        return Err(CliError::usage(
            crate::user_kernel::CompileError::NvrtcMissing.to_string(),
        ));
    }
    let device = CudaDevice::new(0)
        .map_err(|e| CliError::usage(format!("bench --kernels needs a CUDA device: {e}")))?;
    device.bind().map_err(internal)?;
    let kernels = KernelSet::load(&device, kernel_modules()).map_err(internal)?;
    let copy_gbps = median(copy_bandwidth_samples(&device).map_err(internal)?);
    println!(
        "user kernels: {} runs after {WARM_UP} warm-up, medians",
        runs
    );
    let edit_ms = edit_to_frame_ms(&device, runs)?;
    println!("edit → first frame (20-line kernel, 1920×1080): {edit_ms:.1} ms");
    let (copy_source, copy_kernel) = load(&device, COPY_KERNEL)?;
    let mut copies = Vec::new();
    for (label, w, h) in [("4K", 3840, 2160), ("8K", 7680, 4320)] {
        let pair = Pair::new(&device, w, h).map_err(internal)?;
        let stream = &device.stream;
        let user_ms = time_user_kernel(&device, runs, &copy_source, &copy_kernel, &pair)?;
        let builtin_ms = timed(&device, runs, || {
            launch_copy(&kernels, stream, pair.tex(), pair.surf(), w, h).map_err(internal)
        })?;
        let gbps = |ms: f64| gb_per_s(rgba_pass_bytes(w, h), ms);
        let (u, b) = (gbps(user_ms), gbps(builtin_ms));
        let occupancy = copy_kernel.occupancy_at(w, h);
        println!(
            "copy {label}: user kernel {user_ms:.3} ms = {:.0}% of copy bandwidth ({} registers, occupancy {:.0}% over the grid), built-in {builtin_ms:.3} ms = {:.0}%",
            100.0 * u / copy_gbps,
            copy_kernel.attributes.registers,
            100.0 * occupancy.unwrap_or(0.0),
            100.0 * b / copy_gbps
        );
        copies.push(serde_json::json!({ "size": label, "user_ms": user_ms, "builtin_ms": builtin_ms, "user_fraction_of_copy": u / copy_gbps, "builtin_fraction_of_copy": b / copy_gbps, "user_ms_over_builtin": user_ms / builtin_ms, "user_registers": copy_kernel.attributes.registers, "user_grid_occupancy": occupancy }));
    }
    let sobel_text = example("sobel_tiles.cu")
        .map(|e| e.source)
        .ok_or_else(|| internal("sobel_tiles.cu is not a shipped example"))?;
    let (sobel_source, sobel_kernel) = load(&device, sobel_text)?;
    let builtin: Filter = "sobel".parse().map_err(internal)?;
    let (w, h) = (3840, 2160);
    let pair = Pair::new(&device, w, h).map_err(internal)?;
    let stream = &device.stream;
    let mut scratch = stream
        .alloc_zeros::<u8>(
            builtin
                .def()
                .ops
                .scratch_bytes(w, h, crate::filters::RGBA8, builtin.params())
                .max(1),
        )
        .map_err(|e| internal(format!("cuMemAlloc: {e:?}")))?;
    let tiles_ms = time_user_kernel(&device, runs, &sobel_source, &sobel_kernel, &pair)?;
    let builtin_ms = timed(&device, runs, || {
        let mut stage = GpuStage {
            kernels: &kernels,
            stream,
            input: pair.tex(),
            output: pair.surf(),
            width: w,
            height: h,
            layout: crate::filters::RGBA8,
            scratch: &mut scratch,
        };
        builtin
            .def()
            .ops
            .launch(&mut stage, builtin.params())
            .map_err(internal)
    })?;
    println!(
        "sobel 4K: sobel_tiles.cu {tiles_ms:.3} ms, built-in {builtin_ms:.3} ms: ratio {:.2}",
        tiles_ms / builtin_ms
    );
    let sandbox = sandbox_overhead(&device, runs, COPY_KERNEL)?;
    let frames = frame_overhead(runs, COPY_KERNEL)?;
    let files = time_files(&device, runs, files, copy_gbps)?;
    Ok(serde_json::json!({
        "files": files,
        "sandbox": sandbox,
        "host_frames": frames,
        "copy_gbps": copy_gbps,
        "edit_to_first_frame_ms": edit_ms,
        "copy": copies,
        "sobel_4k": { "tiles_ms": tiles_ms, "builtin_ms": builtin_ms, "ratio": tiles_ms / builtin_ms },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bench_kernels_are_what_they_say() {
        assert_eq!(TWENTY_LINES.lines().count(), 20);
        for text in [TWENTY_LINES, COPY_KERNEL] {
            KernelSource::parse(text).expect("parses");
        }
        assert!(example("sobel_tiles.cu").is_some());
        if !crate::user_kernel::nvrtc_available() {
            return;
        }
        for text in [TWENTY_LINES, COPY_KERNEL] {
            let s = KernelSource::parse(text).expect("parses");
            compile(&s, &CompileOptions::default()).expect("compiles");
        }
    }
}
