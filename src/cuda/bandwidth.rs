//! The device's measured copy bandwidth: the yardstick for kernel bandwidth figures.

use super::{CudaDevice, CudaError, GpuTimeline};

const COPY_BYTES: usize = 512 << 20;
const COPY_RUNS: usize = 10;

/// Device-to-device copy bandwidth of each timed run in GB/s, counting bytes read plus bytes
/// written (after two warm-up copies).
pub fn copy_bandwidth_samples(device: &CudaDevice) -> Result<Vec<f64>, CudaError> {
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
    Ok(timeline
        .stage_times()?
        .into_iter()
        .filter(|(name, _)| name == "copy")
        .map(|(_, ms)| 2.0 * COPY_BYTES as f64 / (ms * 1e-3) / 1e9)
        .collect())
}
