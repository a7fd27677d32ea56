//! The device's measured copy bandwidth: the yardstick for kernel bandwidth figures.

use super::{CudaDevice, CudaError, GpuTimeline};

const COPY_BYTES: usize = 512 << 20;
const COPY_RUNS: usize = 10;
const WARM_UP: usize = 2;

/// GB/s of `bytes` moved in `ms` milliseconds.
pub fn gb_per_s(bytes: f64, ms: f64) -> f64 {
    bytes / (ms * 1e-3) / 1e9
}

/// Bytes a pass over a `width × height` RGBA8 image moves, reading and writing each pixel
/// once.
pub fn rgba_pass_bytes(width: u32, height: u32) -> f64 {
    8.0 * f64::from(width) * f64::from(height)
}

/// Milliseconds of each of `runs` device-to-device copies of `bytes` (linear memory,
/// `cuMemcpyDtoD`), after two warm-up copies.
pub fn copy_ms_samples(
    device: &CudaDevice,
    bytes: usize,
    runs: usize,
) -> Result<Vec<f64>, CudaError> {
    device.bind()?;
    let stream = &device.stream;
    let src = stream
        .alloc_zeros::<u8>(bytes.max(1))
        .map_err(CudaError::driver("cuMemAlloc"))?;
    let mut dst = stream
        .alloc_zeros::<u8>(bytes.max(1))
        .map_err(CudaError::driver("cuMemAlloc"))?;
    let mut timeline = GpuTimeline::start(&device.ctx, stream)?;
    for i in 0..runs.max(1) + WARM_UP {
        stream
            .memcpy_dtod(&src, &mut dst)
            .map_err(CudaError::driver("cuMemcpyDtoD"))?;
        timeline.mark(if i < WARM_UP { "warm-up" } else { "copy" }, stream)?;
    }
    Ok(timeline
        .stage_times()?
        .into_iter()
        .filter(|(name, _)| name == "copy")
        .map(|(_, ms)| ms)
        .collect())
}

/// Device-to-device copy bandwidth of each timed run in GB/s, counting bytes read plus bytes
/// written (512 MiB copies).
pub fn copy_bandwidth_samples(device: &CudaDevice) -> Result<Vec<f64>, CudaError> {
    Ok(copy_ms_samples(device, COPY_BYTES, COPY_RUNS)?
        .into_iter()
        .map(|ms| gb_per_s(2.0 * COPY_BYTES as f64, ms))
        .collect())
}
