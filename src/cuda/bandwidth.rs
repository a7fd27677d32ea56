//! The device's measured copy bandwidth: the yardstick for kernel bandwidth figures.

use super::{CudaDevice, CudaError, GpuTimeline};

const COPY_BYTES: usize = 512 << 20;
const COPY_RUNS: usize = 10;

/// Median device-to-device copy bandwidth in GB/s, counting bytes read plus bytes written.
pub fn measure_copy_bandwidth(device: &CudaDevice) -> Result<f64, CudaError> {
    device.bind()?;
    let stream = &device.stream;
    let src = stream
        .alloc_zeros::<u8>(COPY_BYTES)
        .map_err(CudaError::driver("cuMemAlloc"))?;
    let mut dst = stream
        .alloc_zeros::<u8>(COPY_BYTES)
        .map_err(CudaError::driver("cuMemAlloc"))?;
    let mut timeline = GpuTimeline::start(&device.ctx, stream)?;
    for i in 0..COPY_RUNS + 2 {
        stream
            .memcpy_dtod(&src, &mut dst)
            .map_err(CudaError::driver("cuMemcpyDtoD"))?;
        timeline.mark(if i < 2 { "warm-up" } else { "copy" }, stream)?;
    }
    let mut times: Vec<f64> = timeline
        .stage_times()?
        .into_iter()
        .filter(|(name, _)| name == "copy")
        .map(|(_, ms)| ms)
        .collect();
    times.sort_by(f64::total_cmp);
    let ms = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
    Ok(2.0 * COPY_BYTES as f64 / (ms * 1e-3) / 1e9)
}
