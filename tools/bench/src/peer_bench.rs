//! [`PeerBench`]: NPP loaded on the benchmark's device with the benchmark's image in
//! pitched linear memory (RGBA8, or RGBA of 16-bit or float samples for the typed peers),
//! the copy of the same bytes that is the yardstick, and the timing of one peer (first run
//! checked against the CPU reference, then a time-boxed median).

use crate::npp::typed::{image_rows, pixel_bytes};
use crate::npp::{max_difference, Compare, Npp, NppError, NppImage, Peer, PeerOutput};
use cudalens::bench_stats::median;
use cudalens::cuda::{copy_ms_samples, CudaDevice, GpuTimeline};
use cudalens::pixels::PixelImage;
use image::RgbaImage;

/// A peer whose first run takes longer than this is timed once (box r = 255 takes seconds).
const SLOW_MS: f64 = 2000.0;
/// Time budget per peer after its first run, in milliseconds.
const PEER_BUDGET_MS: f64 = 2000.0;
/// Poison written into a peer's destination before its checked run.
const POISON: u8 = 0xAB;

/// NPP, with images of the benchmark's size, and the copy yardstick of the same bytes.
pub struct PeerBench {
    pub npp: Npp,
    src: NppImage,
    dst: NppImage,
    dst_transposed: NppImage,
    /// Median milliseconds of `cuMemcpyDtoD` of one image's bytes.
    pub copy_ms: f64,
    runs: usize,
}

/// One peer's result.
pub struct PeerTiming {
    pub label: String,
    pub ms: f64,
    pub runs: usize,
    pub compare: Compare,
    /// Against the CPU reference, where the operation is the same.
    pub max_difference: Option<u32>,
}

impl PeerBench {
    /// Loads NPP and uploads `image`; [`NppError::NotFound`] without NPP.
    pub fn new(device: &CudaDevice, image: &RgbaImage, runs: usize) -> Result<Self, NppError> {
        let npp = Npp::load(device)?;
        let src = NppImage::from_image(device, image)?;
        Self::with_source(npp, src, runs)
    }

    /// As [`PeerBench::new`] for an RGBA image of any sample type (the typed peers).
    pub fn from_pixels(
        device: &CudaDevice,
        image: &PixelImage,
        runs: usize,
    ) -> Result<Self, NppError> {
        let npp = Npp::load(device)?;
        let (w, h) = image.dimensions();
        let pixel = pixel_bytes(image.sample_type());
        let mut src = NppImage::with_pixel_bytes(device, w, h, pixel)?;
        src.upload_rows(device, &image_rows(image)?)?;
        Self::with_source(npp, src, runs)
    }

    /// The bench of `src`: destinations of its size and pixel bytes, the copy yardstick.
    fn with_source(npp: Npp, src: NppImage, runs: usize) -> Result<Self, NppError> {
        let device = npp.device.clone();
        let (w, h, pixel) = (src.width, src.height, src.pixel_bytes);
        let copy_ms = median(copy_ms_samples(&device, src.bytes(), runs)?);
        Ok(Self {
            dst: NppImage::with_pixel_bytes(&device, w, h, pixel)?,
            dst_transposed: NppImage::with_pixel_bytes(&device, h, w, pixel)?,
            src,
            npp,
            copy_ms,
            runs,
        })
    }

    /// The same-bytes copy's effective fraction for an operation that moves `bytes` in `ms`
    /// (the copy moves the image's bytes twice: read and write).
    pub fn fraction_of_copy(&self, bytes: f64, ms: f64) -> f64 {
        (bytes / ms) / (2.0 * self.src.bytes() as f64 / self.copy_ms)
    }

    /// Runs `peer` once on a poisoned destination, checks it against `reference`, then
    /// times it (more runs for fast peers, within a time budget).
    pub fn time(
        &mut self,
        peer: &Peer,
        reference: Option<&PeerOutput>,
    ) -> Result<PeerTiming, NppError> {
        let (output, ms, runs) = self.run_and_time(peer)?;
        let max_difference = reference.and_then(|r| max_difference(&output, r, peer.compare));
        Ok(PeerTiming {
            label: peer.label.clone(),
            ms,
            runs,
            compare: peer.compare,
            max_difference,
        })
    }

    /// Runs `peer` once on a poisoned destination and reads its output back, then times it:
    /// the output, the median milliseconds and the timed runs.
    pub fn run_and_time(&mut self, peer: &Peer) -> Result<(PeerOutput, f64, usize), NppError> {
        let device = self.npp.device.clone();
        let dst = if peer.transposes {
            &mut self.dst_transposed
        } else {
            &mut self.dst
        };
        dst.fill(&device, POISON)?;
        let first = timed_runs(&self.npp, peer, &self.src, dst, 1)?;
        let output = peer.output(&self.npp, dst)?;
        let first_ms = first.first().copied().unwrap_or(f64::NAN);
        let more = if first_ms > SLOW_MS {
            0
        } else {
            ((PEER_BUDGET_MS / first_ms) as usize).clamp(3, self.runs.max(3))
        };
        let (ms, runs) = if more == 0 {
            (first_ms, 1)
        } else {
            (
                median(timed_runs(&self.npp, peer, &self.src, dst, more)?),
                more,
            )
        };
        Ok((output, ms, runs))
    }
}

/// Milliseconds of each of `runs` back-to-back runs of `peer` (CUDA events).
fn timed_runs(
    npp: &Npp,
    peer: &Peer,
    src: &NppImage,
    dst: &mut NppImage,
    runs: usize,
) -> Result<Vec<f64>, NppError> {
    event_times(&npp.device, runs, || peer.run(npp, src, dst))
}

/// Milliseconds of each of `runs` back-to-back calls of `queue`, which queues work on
/// `device`'s stream (CUDA events between them).
pub fn event_times(
    device: &CudaDevice,
    runs: usize,
    mut queue: impl FnMut() -> Result<(), NppError>,
) -> Result<Vec<f64>, NppError> {
    device.bind()?;
    let mut timeline = GpuTimeline::start(&device.ctx, &device.stream)?;
    for _ in 0..runs {
        queue()?;
        timeline.mark("run", &device.stream)?;
    }
    Ok(timeline
        .stage_times()?
        .into_iter()
        .map(|(_, ms)| ms)
        .collect())
}
