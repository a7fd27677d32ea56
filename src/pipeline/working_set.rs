//! GPU memory one filter frame needs, reckoned from the image size before anything is
//! allocated, and the check against the GPU budget (`image_io::budget`).

use super::PipelineError;
use crate::image_io::budget::{format_bytes, gpu_budget};
use crate::ops::Filter;

/// Bytes on the GPU for `filters` on a `width × height` image: the source and output
/// textures, the read-back buffer, up to two intermediate arrays (ping-pong) and the
/// scratch buffer of the separable filters (as `cuda_frame` allocates them).
pub fn gpu_frame_bytes(width: u32, height: u32, filters: &[Filter]) -> u64 {
    let pixels = u64::from(width) * u64::from(height);
    let rgba = 4 * pixels;
    let intermediates = filters.len().saturating_sub(1).min(2) as u64 * rgba;
    let separable = filters
        .iter()
        .any(|f| matches!(f, Filter::Box { .. } | Filter::Gaussian { .. }));
    let scratch = if separable {
        pixels * crate::cuda::SCRATCH_BYTES_PER_PIXEL as u64
    } else {
        0
    };
    3 * rgba + intermediates + scratch
}

/// Refuses a frame that does not fit the GPU budget, when the driver says how much
/// memory is free (NVIDIA's GL does; others are not checked here and fail, if at all, at
/// allocation, which falls back like any GPU failure).
pub fn check_gpu_frame(
    gl: &glow::Context,
    width: u32,
    height: u32,
    filters: &[Filter],
) -> Result<(), PipelineError> {
    let Some(free) = crate::gl::free_video_memory(gl) else {
        return Ok(());
    };
    let need = gpu_frame_bytes(width, height, filters);
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
        assert_eq!(gpu_frame_bytes(100, 50, &[Filter::Transpose]), 12 * px);
        let three = [
            Filter::Transpose,
            Filter::Box { radius: 2 },
            Filter::Transpose,
        ];
        assert_eq!(
            gpu_frame_bytes(100, 50, &three),
            20 * px + px * crate::cuda::SCRATCH_BYTES_PER_PIXEL as u64
        );
    }
}
