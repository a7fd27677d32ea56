//! One frame of the filter stack on the CPU reference backend.

use super::frame_targets::FrameTargets;
use super::report::{FrameReport, StageTime};
use super::BackendKind;
use crate::filters::Filter;
use crate::gl::GlError;
use crate::ops::cpu;
use image::RgbaImage;
use std::time::Instant;

fn timed<T>(stages: &mut Vec<StageTime>, name: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    stages.push(StageTime {
        name: name.to_string(),
        ms: start.elapsed().as_secs_f64() * 1e3,
    });
    out
}

/// Runs `filters` on the host: the result and the report (histogram of the result).
pub fn process_on_cpu(image: &RgbaImage, filters: &[Filter]) -> (RgbaImage, FrameReport) {
    let mut stages = Vec::new();
    // No copy of the input: the first stage reads it, each later stage the one before.
    let mut current: Option<RgbaImage> = None;
    for f in filters {
        let next = timed(&mut stages, f.name(), || {
            f.apply_cpu(current.as_ref().unwrap_or(image))
        });
        current = Some(next);
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
    (current, report)
}

/// The CPU frame for the window: process, then upload the result and the bins to GL.
pub fn run_cpu_frame(
    gl: &glow::Context,
    image: &RgbaImage,
    targets: &mut FrameTargets,
    filters: &[Filter],
) -> Result<FrameReport, GlError> {
    let (result, mut report) = process_on_cpu(image, filters);
    let start = Instant::now();
    targets.output.upload(gl, &result)?;
    let bytes: Vec<u8> = report
        .histogram
        .flat()
        .iter()
        .flat_map(|c| c.to_ne_bytes())
        .collect();
    targets.bins.write(gl, &bytes)?;
    report.stages.push(StageTime {
        name: "upload".into(),
        ms: start.elapsed().as_secs_f64() * 1e3,
    });
    Ok(report)
}
