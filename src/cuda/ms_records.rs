//! The refinement's overlay records and counters on the device, and their copies on the
//! host. Both are read back through page-locked memory: the counters by a copy queued at
//! the end of a frame's work (`queue_counters`, inside its timeline), the records, with the
//! overlay on, after it. A copy into pageable memory on the stream after a frame made the
//! next frame's hand-over from GL wait 0.16 ms on the H200 (docs/gpu-runs.md, run 82).

use super::{memory, CudaError};
use crate::cuda::tiles::*;
use crate::mandelbrot::{GridLines, MsRecord, MsStats, MsTuning, Rect, RectKind, View};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, PinnedHostSlice};
use std::sync::Arc;

/// Device buffers for the overlay records and the counters, with their host copies.
pub struct MsRecordBuffer {
    pub(super) records: CudaSlice<i32>,
    pub(super) counters: CudaSlice<u32>,
    pub(super) capacity: usize,
    counters_host: PinnedHostSlice<u32>,
    /// Whether a copy of the counters into `counters_host` is queued and not yet read.
    counters_queued: bool,
    /// Page-locked staging for the records (grows with the largest overlay read).
    records_host: Option<PinnedHostSlice<i32>>,
}

/// What the last refinement did, read back from the device.
pub struct MsReadout {
    pub records: Vec<MsRecord>,
    pub stats: MsStats,
}

fn decode(r: &[i32]) -> MsRecord {
    MsRecord {
        rect: Rect {
            x0: (r[0] & 0xFFFF) as u32,
            y0: r[1] as u32,
            x1: r[2] as u32,
            y1: r[3] as u32,
        },
        kind: match ((r[0] >> 16) & 0xF) as u32 {
            MS_KIND_FILL => RectKind::Fill,
            MS_KIND_SPLIT => RectKind::Split,
            _ => RectKind::Leaf,
        },
        level: ((r[0] >> 20) & 0xF) as u32,
    }
}

impl MsRecordBuffer {
    pub fn new(stream: &Arc<CudaStream>, capacity: usize) -> Result<Self, CudaError> {
        Ok(Self {
            records: stream
                .alloc_zeros::<i32>(4 * capacity.max(1))
                .map_err(CudaError::driver("cuMemAlloc(records)"))?,
            counters: stream
                .alloc_zeros::<u32>(MS_COUNTERS as usize)
                .map_err(CudaError::driver("cuMemAlloc(counters)"))?,
            capacity,
            counters_host: pinned(stream, MS_COUNTERS as usize, "cuMemHostAlloc(counters)")?,
            counters_queued: false,
            records_host: None,
        })
    }

    /// Makes room for `capacity` records (the buffer only grows).
    pub fn ensure_capacity(
        &mut self,
        stream: &Arc<CudaStream>,
        capacity: usize,
    ) -> Result<(), CudaError> {
        if capacity > self.capacity {
            self.records = stream
                .alloc_zeros::<i32>(4 * capacity)
                .map_err(CudaError::driver("cuMemAlloc(records)"))?;
            self.capacity = capacity;
        }
        Ok(())
    }

    /// Forgets the records and counters (a run that made none, e.g. a per-pixel deep view;
    /// the colour kernels read the failure count).
    pub fn clear(&mut self, stream: &Arc<CudaStream>) -> Result<(), CudaError> {
        stream
            .memset_zeros(&mut self.counters)
            .map_err(CudaError::driver("cuMemsetD32(counters)"))
    }

    /// Queues the copy of the counters to the host after the work queued so far on
    /// `stream` (a frame queues it before handing its objects back to GL).
    pub fn queue_counters(&mut self, stream: &Arc<CudaStream>) -> Result<(), CudaError> {
        let (ptr, _record) = self.counters.device_ptr(stream);
        // SAFETY: `counters` holds MS_COUNTERS u32, as `counters_host` does; both live in
        // `self`, and `counters` reads them only after synchronizing the stream.
        unsafe { memory::read_u32_async(ptr, &mut self.counters_host, stream)? };
        self.counters_queued = true;
        Ok(())
    }

    /// The counters of the last run (copied now unless `queue_counters` did since the
    /// last read); errors if a child launch failed or a block's lists overflowed (the
    /// image is then incomplete and the colour kernels drew nothing).
    pub fn counters(&mut self, stream: &Arc<CudaStream>) -> Result<Vec<u32>, CudaError> {
        if !self.counters_queued {
            self.queue_counters(stream)?;
        }
        self.counters_queued = false;
        stream
            .synchronize()
            .map_err(CudaError::driver("cuStreamSynchronize"))?;
        let c = self
            .counters_host
            .as_slice()
            .map_err(CudaError::driver("cuEventSynchronize"))?
            .to_vec();
        match c.get(MS_COUNT_FAILURES as usize) {
            Some(&0) => Ok(c),
            _ => Err(CudaError::Launch {
                kernel: "mandel_ms",
                reason: format!(
                    "{} device-side child launches failed or in-block lists overflowed",
                    c.get(1).copied().unwrap_or(0)
                ),
            }),
        }
    }

    /// The records and statistics of the last run (recorded with `record`).
    pub fn read(
        &mut self,
        stream: &Arc<CudaStream>,
        view: &View,
        tuning: &MsTuning,
    ) -> Result<MsReadout, CudaError> {
        let c = self.counters(stream)?;
        let made = c[MS_COUNT_RECORDS as usize] as usize;
        if made > self.capacity {
            log::warn!(
                "the overlay shows {} of {made} rectangles (more than the record buffer holds)",
                self.capacity
            );
        }
        let n = made.min(self.capacity);
        let raw = self.records_to_host(stream, 4 * n)?;
        let top = GridLines {
            width: view.width,
            height: view.height,
            s: tuning.init_size,
        };
        Ok(MsReadout {
            records: raw.chunks_exact(4).map(decode).collect(),
            stats: MsStats {
                filled: u64::from(c[4 + MS_KIND_FILL as usize]),
                split: u64::from(c[4 + MS_KIND_SPLIT as usize]),
                leaves: u64::from(c[4 + MS_KIND_LEAF as usize]),
                depth: c[MS_COUNT_DEPTH as usize],
                child_grids: Some(u64::from(c[MS_COUNT_GRIDS as usize])),
                evaluated_pixels: u64::from(c[MS_COUNT_EVALUATED as usize]) + top.pixel_count(),
            },
        })
    }

    /// The first `len` values of the records, through the page-locked staging buffer.
    fn records_to_host(
        &mut self,
        stream: &Arc<CudaStream>,
        len: usize,
    ) -> Result<Vec<i32>, CudaError> {
        if self.records_host.as_ref().is_none_or(|h| h.len() < len) {
            self.records_host = Some(pinned(stream, len, "cuMemHostAlloc(records)")?);
        }
        let host = self.records_host.as_mut().ok_or(CudaError::NoDevice)?;
        // The staging buffer's own event is not recorded with a single stream (cudarc
        // tracks none then), so the copy is waited for by synchronizing the stream.
        let staging = &mut host
            .as_mut_slice()
            .map_err(CudaError::driver("cuEventSynchronize"))?[..len];
        stream
            .memcpy_dtoh(&self.records.slice(0..len), staging)
            .map_err(CudaError::driver("cuMemcpyDtoHAsync(records)"))?;
        stream
            .synchronize()
            .map_err(CudaError::driver("cuStreamSynchronize"))?;
        Ok(staging.to_vec())
    }
}

/// `len` (at least 1) values of page-locked host memory.
fn pinned<T: cudarc::driver::DeviceRepr>(
    stream: &Arc<CudaStream>,
    len: usize,
    what: &'static str,
) -> Result<PinnedHostSlice<T>, CudaError> {
    // SAFETY: the memory is only read after a copy into it completed (its event, or the
    // stream synchronized).
    unsafe { stream.context().alloc_pinned_with_flags(len.max(1), 0) }
        .map_err(CudaError::driver(what))
}
