//! One frame of the filter stack on the CPU reference backend.

use super::frame_targets::FrameTargets;
use crate::filters::Filter;
use crate::gl::GlError;
use crate::ops::{cpu, Histogram};
use crate::pipeline::report::{FrameReport, StageTime};
use crate::pipeline::{BackendKind, GpuPixelFormat, PipelineError};
use crate::pixels::PixelImage;
use image::RgbaImage;
use std::time::Instant;

fn timed<T>(stages: &mut Vec<StageTime>, name: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    stages.push(StageTime::since(name, start));
    out
}

/// Runs `filters` on the host: the result and the report (histogram of the result).
pub fn process_on_cpu(image: &RgbaImage, filters: &[Filter]) -> (RgbaImage, FrameReport) {
    let done = process_on_cpu_with(image, filters, &mut |_| true);
    done.unwrap_or_else(|| unreachable!("a run that is never stopped finishes"))
}

/// [`process_on_cpu`] that reports its progress (0..1) after each filter to `go_on`, and
/// stops with `None` as soon as `go_on` answers false (a background run made stale).
pub fn process_on_cpu_with(
    image: &RgbaImage,
    filters: &[Filter],
    go_on: &mut dyn FnMut(f32) -> bool,
) -> Option<(RgbaImage, FrameReport)> {
    let mut stages = Vec::new();
    let steps = filters.len() as f32 + 1.0;
    // No copy of the input: the first stage reads it, each later stage the one before.
    let mut current: Option<RgbaImage> = None;
    for (i, f) in filters.iter().enumerate() {
        let next = timed(&mut stages, f.name(), || {
            f.apply_cpu(current.as_ref().unwrap_or(image))
        });
        current = Some(next);
        if !go_on((i as f32 + 1.0) / steps) {
            return None;
        }
    }
    let current = current.unwrap_or_else(|| image.clone());
    let histogram = timed(&mut stages, "histogram", || cpu::histogram(&current));
    let report = FrameReport {
        backend: BackendKind::Cpu,
        width: current.width(),
        height: current.height(),
        histogram,
        stages,
    };
    Some((current, report))
}

/// Runs `filters` on an image of any sample type with their typed CPU references (an
/// RGBA8 image takes the fast path): the result and each stage's time.
pub fn process_typed_on_cpu(
    image: &PixelImage,
    filters: &[Filter],
) -> (PixelImage, Vec<StageTime>) {
    let mut stages = Vec::new();
    let mut current: Option<PixelImage> = None;
    for f in filters {
        let next = timed(&mut stages, f.name(), || {
            f.apply_cpu_typed(current.as_ref().unwrap_or(image))
        });
        current = Some(next);
    }
    (current.unwrap_or_else(|| image.clone()), stages)
}

/// [`process_typed_on_cpu`] as a frame: the result and its report, with empty bins (the
/// frame's histogram reads RGBA8; typed images have ranged ones).
pub fn typed_frame_on_cpu(image: &PixelImage, filters: &[Filter]) -> (PixelImage, FrameReport) {
    let (result, stages) = process_typed_on_cpu(image, filters);
    let (width, height) = result.dimensions();
    let report = FrameReport {
        backend: BackendKind::Cpu,
        width,
        height,
        histogram: Histogram::empty(width, height),
        stages,
    };
    (result, report)
}

/// Shows a CPU result: the pixels uploaded into the output texture (already of its size)
/// and the bins into their buffer, the upload's time added to `report`.
pub fn upload_cpu_result(
    gl: &glow::Context,
    targets: &mut FrameTargets,
    result: &RgbaImage,
    report: &mut FrameReport,
) -> Result<(), GlError> {
    let start = Instant::now();
    targets.output.upload(gl, result)?;
    upload_cpu_bins(gl, targets, report)?;
    report.stages.push(StageTime::since("upload", start));
    Ok(())
}

/// Writes the histogram of a CPU result into the bins buffer (the result's texels go up
/// separately, at once or band by band: `GlTexture::upload_rows`).
pub fn upload_cpu_bins(
    gl: &glow::Context,
    targets: &mut FrameTargets,
    report: &FrameReport,
) -> Result<(), GlError> {
    let bytes: Vec<u8> = report
        .histogram
        .flat()
        .iter()
        .flat_map(|c| c.to_ne_bytes())
        .collect();
    targets.bins.write(gl, &bytes)
}

/// The CPU frame for the window: process, then upload the result and the bins to GL.
pub fn run_cpu_frame(
    gl: &glow::Context,
    image: &RgbaImage,
    targets: &mut FrameTargets,
    filters: &[Filter],
) -> Result<FrameReport, GlError> {
    let (result, mut report) = process_on_cpu(image, filters);
    if let Some(selection) = targets.shown_selection {
        report.histogram = cpu::histogram_shown(image, &result, Some(selection));
    }
    upload_cpu_result(gl, targets, &result, &mut report)?;
    Ok(report)
}

/// The CPU frame of an image in any format: `filters` by their typed references, the
/// result's texels uploaded into the output texture (re-specified in its stored format)
/// and empty bins (the frame's histogram reads RGBA8; typed images have ranged ones).
pub fn run_cpu_typed(
    gl: &glow::Context,
    image: &PixelImage,
    targets: &mut FrameTargets,
    filters: &[Filter],
) -> Result<FrameReport, PipelineError> {
    let (result, mut report) = typed_frame_on_cpu(image, filters);
    let start = Instant::now();
    let format = GpuPixelFormat::of(&result);
    let texels = GpuPixelFormat::texels(&result)?;
    targets
        .output
        .upload_texels(gl, result.dimensions(), format.gl(), &texels)?;
    upload_cpu_bins(gl, targets, &report)?;
    report.stages.push(StageTime::since("upload", start));
    Ok(report)
}
