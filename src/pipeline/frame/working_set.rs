//! GPU memory one filter frame needs, reckoned from the image size before anything is
//! allocated, and the check against the GPU budget (`image_io::budget`).

use super::stage::Stage;
use crate::image_io::budget::{format_bytes, gpu_budget};
use crate::pipeline::{GpuPixelFormat, PipelineError};

/// Bytes on the GPU for `filters` on a `width × height` RGBA8 image (see
/// [`gpu_frame_bytes_as`]).
pub fn gpu_frame_bytes(width: u32, height: u32, filters: &[Stage]) -> u64 {
    gpu_frame_bytes_as(width, height, GpuPixelFormat::RGBA8, filters)
}

/// Bytes on the GPU for `filters` on a `width × height` image stored as `format`: the
/// source and output textures, the read-back buffer, up to two intermediate arrays
/// (ping-pong), each at the format's bytes per pixel, and the largest scratch a stage
/// needs (as `cuda_frame` allocates them).
pub fn gpu_frame_bytes_as(
    width: u32,
    height: u32,
    format: GpuPixelFormat,
    filters: &[Stage],
) -> u64 {
    let image = format.bytes_per_pixel() as u64 * u64::from(width) * u64::from(height);
    let intermediates = filters.len().saturating_sub(1).min(2) as u64 * image;
    let (mut w, mut h, mut scratch) = (width, height, 0u64);
    for f in filters {
        scratch = scratch.max(f.scratch_bytes(w, h, format.layout()) as u64);
        (w, h) = f.output_size(w, h);
    }
    3 * image + intermediates + scratch
}

/// Refuses a frame that does not fit the GPU budget, when the driver says how much
/// memory is free (NVIDIA's GL does; others are not checked here and fail, if at all, at
/// allocation, which falls back like any GPU failure).
pub fn check_gpu_frame(
    gl: &glow::Context,
    width: u32,
    height: u32,
    filters: &[Stage],
) -> Result<(), PipelineError> {
    check_gpu_frame_as(gl, (width, height), GpuPixelFormat::RGBA8, filters)
}

/// [`check_gpu_frame`] for an image stored as `format`.
pub fn check_gpu_frame_as(
    gl: &glow::Context,
    (width, height): (u32, u32),
    format: GpuPixelFormat,
    filters: &[Stage],
) -> Result<(), PipelineError> {
    let Some(free) = crate::gl::free_video_memory(gl) else {
        return Ok(());
    };
    let need = gpu_frame_bytes_as(width, height, format, filters);
    let (budget, how) = gpu_budget(free);
    if need <= budget {
        return Ok(());
    }
    Err(PipelineError::OverBudget(format!(
        "a {width}×{height} frame needs about {} of GPU memory, over the GPU budget of {} ({how}); use --max-memory to change it",
        format_bytes(need),
        format_bytes(budget)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_textures_intermediates_and_scratch() {
        let px = 100u64 * 50;
        assert_eq!(gpu_frame_bytes(100, 50, &[]), 12 * px);
        let f = |s: &str| s.parse::<Stage>().expect("spec");
        assert_eq!(gpu_frame_bytes(100, 50, &[f("transpose")]), 12 * px);
        let three = [f("transpose"), f("gaussian:sigma=8"), f("transpose")];
        // A Gaussian runs two passes: 16 bytes of row results per pixel (R, G, B as high and
        // low f16 parts, alpha).
        assert_eq!(gpu_frame_bytes(100, 50, &three), 20 * px + 16 * px);
        // The box filter runs in one pass, without scratch.
        let boxed = [f("transpose"), f("box:radius=2"), f("transpose")];
        assert_eq!(gpu_frame_bytes(100, 50, &boxed), 20 * px);
    }

    #[test]
    fn bytes_per_pixel_come_from_the_format() {
        use crate::pixels::SampleType;
        let px = 100u64 * 50;
        let as_format = |s, c| gpu_frame_bytes_as(100, 50, GpuPixelFormat::stored(s, c), &[]);
        assert_eq!(as_format(SampleType::U8, 1), 3 * px);
        assert_eq!(as_format(SampleType::U16, 3), 3 * 8 * px);
        assert_eq!(as_format(SampleType::F32, 4), 3 * 16 * px);
        assert_eq!(as_format(SampleType::F32, 1), 3 * 4 * px);
    }
}
