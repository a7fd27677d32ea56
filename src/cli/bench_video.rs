//! `cudalens bench --video FILE`: NVDEC's frames through the stack on CUDA with external
//! memory, never read back. Two modes over the whole clip: decode (NVDEC, conversion into
//! the frame's source) and decode → stack (the `--filter` stack, by default gaussian σ=2 →
//! sobel → box r=5, with the frame's histogram). Frames a second per pass, the median of
//! five passes after one of warm-up; the stack's GPU time per frame (its stages, hand-overs
//! left out), median over the frames. Then exact seeks to frames spread over the clip, each
//! timed from the request to the frame in the source: median and longest. Last, four
//! decoders at once, each on its own thread and stream into device frames (as the window's
//! player decodes): their frames a second together.

use super::{BenchArgs, CliError};
use crate::bench_stats::median;
use crate::cuda::CudaDevice;
use crate::filters::Filter;
use crate::pipeline::{stages_of, BackendRequest, FrameRunner, InteropRequest, Stage};
use crate::video::nvdec::NvdecReader;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// Passes over the clip per mode (after one of warm-up).
const PASSES: usize = 5;
/// Seeks timed (after one of warm-up).
const SEEKS: u64 = 40;
/// Streams decoded at once in the last mode.
const STREAMS: usize = 4;

/// The stack `bench --video` runs without `--filter`.
fn default_stack() -> Result<Vec<Filter>, CliError> {
    ["gaussian:sigma=2", "sobel", "box:radius=5"]
        .iter()
        .map(|s| s.parse::<Filter>().map_err(CliError::internal))
        .collect()
}

/// The device of `runner`, which the bench needs.
fn device_of(runner: &FrameRunner) -> Result<CudaDevice, CliError> {
    runner
        .cuda_device()
        .cloned()
        .ok_or_else(|| CliError::usage("bench --video needs CUDA"))
}

/// One pass over `path`: frames decoded and (with `stack`) run; the stack's GPU
/// milliseconds per frame.
fn pass(
    gl: &glow::Context,
    runner: &mut FrameRunner,
    path: &Path,
    stack: Option<&[Stage]>,
) -> Result<(usize, f64, Vec<f64>), CliError> {
    let mut reader = NvdecReader::open(path, &device_of(runner)?)?;
    let mut frames = 0;
    let mut gpu_ms = Vec::new();
    let start = Instant::now();
    while let Some(frame) = reader.next_frame()? {
        runner.load_video_frame(gl, &frame)?;
        drop(frame);
        if let Some(filters) = stack {
            let report = runner.run_loaded_on_device(gl, filters)?;
            gpu_ms.push(
                report
                    .stages
                    .iter()
                    .filter(|s| !s.name.starts_with("interop"))
                    .map(|s| s.ms)
                    .sum(),
            );
        }
        frames += 1;
    }
    Ok((frames, start.elapsed().as_secs_f64(), gpu_ms))
}

/// Exact seeks to frames spread over `path` (a fixed scramble of the frame numbers, so
/// that every run seeks the same frames), each from the request to the frame in the
/// source; milliseconds, in order, and the most frames between keyframes (None where the
/// container does not say).
fn seeks(
    gl: &glow::Context,
    runner: &mut FrameRunner,
    path: &Path,
    frames: u64,
) -> Result<(Vec<f64>, Option<usize>), CliError> {
    let mut reader = NvdecReader::open(path, &device_of(runner)?)?;
    let mut times = Vec::new();
    for i in 0..=SEEKS {
        // Golden-ratio steps: spread over the clip, forwards and backwards.
        let target = (i * 40_503 + 7) % frames.max(1);
        let start = Instant::now();
        reader.seek(target)?;
        let frame = reader
            .next_frame()?
            .ok_or_else(|| CliError::internal(format!("no frame {target} after seeking to it")))?;
        if frame.index() != target {
            return Err(CliError::internal(format!(
                "seeking to frame {target} gave frame {}",
                frame.index()
            )));
        }
        runner.load_video_frame(gl, &frame)?;
        drop(frame);
        if i > 0 {
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    Ok((times, reader.demuxer().longest_gop()))
}

/// [`STREAMS`] decoders on the clip at once, each on its own thread and stream converting
/// into device frames (the window's player's path): frames a second, all streams together,
/// over one pass each after one of warm-up.
fn streams(device: &CudaDevice, path: &Path) -> Result<f64, CliError> {
    use crate::video::nvdec::FramePool;
    let decode_all = || -> Result<usize, crate::video::VideoError> {
        let mut reader = NvdecReader::open_on_own_stream(path, device)?;
        let pool = FramePool::new(device);
        let mut frames = 0;
        while reader.next_device_frame(&pool)?.is_some() {
            frames += 1;
        }
        Ok(frames)
    };
    let mut fps = 0.0;
    for _ in 0..2 {
        let start = Instant::now();
        let frames: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..STREAMS).map(|_| s.spawn(decode_all)).collect();
            handles.into_iter().map(|h| h.join()).collect()
        });
        let mut total = 0;
        for f in frames {
            total += f.map_err(|_| CliError::internal("a decoder thread panicked"))??;
        }
        fps = total as f64 / start.elapsed().as_secs_f64().max(1e-9);
    }
    Ok(fps)
}

/// Times the clip `path` (see the module).
pub fn run(gl: &glow::Context, args: &BenchArgs, path: &Path) -> Result<Value, CliError> {
    let info = crate::video::describe(path)?;
    let filters = if args.filters.is_empty() {
        default_stack()?
    } else {
        args.filters.clone()
    };
    let stack = stages_of(&filters);
    let (w, h) = (info.width, info.height);
    // Both requests are errors, not fallbacks, where CUDA or external memory is missing.
    let mut runner = FrameRunner::new(gl, BackendRequest::Cuda, InteropRequest::External, w, h)?;
    let measured = (|| {
        let mut modes = serde_json::Map::new();
        let mut fps_of = Vec::new();
        for (name, stack) in [("decode", None), ("decode_stack", Some(stack.as_slice()))] {
            pass(gl, &mut runner, path, stack)?;
            let mut fps = Vec::new();
            let mut gpu: Vec<f64> = Vec::new();
            let mut frames = 0;
            for _ in 0..PASSES {
                let (n, secs, ms) = pass(gl, &mut runner, path, stack)?;
                frames = n;
                fps.push(n as f64 / secs.max(1e-9));
                gpu.extend(ms);
            }
            let fps = median(fps);
            println!(
                "video {name}: {fps:.1} fps ({frames} frames of {w}×{h} {}){}",
                info.codec,
                if gpu.is_empty() {
                    String::new()
                } else {
                    format!(", stack {:.3} ms of GPU a frame", median(gpu.clone()))
                }
            );
            fps_of.push(fps);
            let gpu_ms = (!gpu.is_empty()).then(|| median(gpu));
            modes.insert(
                name.into(),
                json!({ "fps": fps, "frames": frames, "stack_gpu_ms": gpu_ms }),
            );
        }
        let share = fps_of[1] / fps_of[0].max(1e-9);
        println!(
            "video: decode → stack at {:.0} % of decode alone",
            100.0 * share
        );
        let frames = modes["decode"]["frames"].as_u64().unwrap_or(0);
        let (times, gop) = seeks(gl, &mut runner, path, frames)?;
        let longest = times.iter().copied().fold(0.0, f64::max);
        let seek_median = median(times);
        println!(
            "video seek: median {seek_median:.1} ms, longest {longest:.1} ms over {SEEKS} exact seeks \
             ({frames} frames, keyframes up to {} apart)",
            gop.map_or_else(|| "?".into(), |g| g.to_string())
        );
        let together = streams(&device_of(&runner)?, path)?;
        println!(
            "video: {STREAMS} streams at once {together:.1} fps together ({:.1} each; one alone {:.1})",
            together / STREAMS as f64,
            fps_of[0]
        );
        let stack_text: Vec<String> = filters.iter().map(ToString::to_string).collect();
        Ok::<Value, CliError>(json!({
            "clip": path.display().to_string(),
            "size": [w, h],
            "codec": info.codec,
            "pixel_format": info.pixel_format,
            "stack": stack_text,
            "modes": modes,
            "stack_share_of_decode": share,
            "streams": { "count": STREAMS, "fps_together": together },
            "seek": { "median_ms": seek_median, "longest_ms": longest, "seeks": SEEKS, "longest_gop": gop },
        }))
    })();
    runner.destroy(gl);
    measured
}
