//! Work spread over the host's GPUs without GL: a poster's bands (`render_poster`) and a
//! zoom sequence's frames (`render_frames_spread`). [`THREADS_PER_GPU`] threads per device,
//! each with its own stream and renderer on the device's context, take the next piece from
//! one queue; the CPU reference is a single worker of the same loop. Poster bands reach the
//! caller in order; at most one band a thread plus [`BANDS_AHEAD`] are held at once,
//! whatever the poster's size.

use super::cpu_mandelbrot::{cpu_dwells, cpu_picture};
use super::cuda_mandelbrot::CudaMandelbrot;
use super::explorer_backend::ExplorerBackend;
use super::headless::MandelbrotOutput;
use super::mandelbrot_frame::{MandelbrotFrame, RenderControl};
use crate::cuda::CudaDevice;
use crate::mandelbrot::{dwell_be16, tile_settings, Dwells, MandelbrotSettings, PosterPlan};
use crate::pipeline::interop::{CudaShare, InteropKind, InteropStatus};
use crate::pipeline::{BackendRequest, BackendStatus, PipelineError};
use image::RgbaImage;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};
use std::time::Instant;

/// Bands finished ahead of the one being written, beyond one a worker.
pub const BANDS_AHEAD: u32 = 2;
/// Threads a GPU: while one copies its tile back and places it, the other's kernels run.
pub const THREADS_PER_GPU: usize = 2;

/// The GPUs a run uses: every one of the host, or those listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceChoice {
    All,
    List(Vec<usize>),
}

/// A `--devices` value that names no set of devices.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceChoiceError {
    #[error("'{0}': expected all, or device numbers such as 0,1")]
    NotADevice(String),
    #[error("device {0} is listed twice")]
    Repeated(usize),
}

impl std::str::FromStr for DeviceChoice {
    type Err = DeviceChoiceError;

    /// `all`, or ordinals separated by commas (`0,2`), each once.
    fn from_str(text: &str) -> Result<Self, DeviceChoiceError> {
        if text.trim().eq_ignore_ascii_case("all") {
            return Ok(DeviceChoice::All);
        }
        let mut list = Vec::new();
        for part in text.split(',') {
            let n: usize = part
                .trim()
                .parse()
                .map_err(|_| DeviceChoiceError::NotADevice(part.to_string()))?;
            if list.contains(&n) {
                return Err(DeviceChoiceError::Repeated(n));
            }
            list.push(n);
        }
        Ok(DeviceChoice::List(list))
    }
}

/// Where the pieces are computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Workers {
    /// One worker per listed CUDA device.
    Cuda(Vec<usize>),
    /// The CPU reference, with why the GPUs are not used.
    Cpu(String),
}

impl Workers {
    /// The workers for `request` over `devices`: the listed GPUs (an error names a device
    /// the host lacks), or the CPU where CUDA is absent (an error with `--backend cuda`).
    pub fn choose(request: BackendRequest, devices: &DeviceChoice) -> Result<Self, PipelineError> {
        if request == BackendRequest::Cpu {
            return Ok(Workers::Cpu("--backend cpu".into()));
        }
        let count = match CudaDevice::count() {
            Ok(n) if n > 0 => Ok(n),
            Ok(_) => Err("no CUDA device".to_string()),
            Err(e) => Err(e.to_string()),
        };
        let count = match count {
            Ok(n) => n,
            Err(why) if request == BackendRequest::Auto => return Ok(Workers::Cpu(why)),
            Err(why) => return Err(PipelineError::CudaUnavailable(why)),
        };
        let list = match devices {
            DeviceChoice::All => (0..count).collect(),
            DeviceChoice::List(list) => list.clone(),
        };
        if let Some(&bad) = list.iter().find(|&&d| d >= count) {
            return Err(PipelineError::Devices(format!(
                "device {bad}: this host has {count} CUDA device(s), 0..{count}"
            )));
        }
        Ok(Workers::Cuda(list))
    }

    /// How many devices compute (the CPU counts as one).
    pub fn len(&self) -> usize {
        match self {
            Workers::Cuda(list) => list.len(),
            Workers::Cpu(_) => 1,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many threads compute: [`THREADS_PER_GPU`] a GPU, one on the CPU (whose
    /// reference is parallel inside).
    pub fn threads(&self) -> usize {
        match self {
            Workers::Cuda(list) => list.len() * THREADS_PER_GPU,
            Workers::Cpu(_) => 1,
        }
    }
}

/// What one worker did.
#[derive(Debug, Clone)]
pub struct WorkerReport {
    /// "CUDA 0 (NVIDIA H200) #1", or "CPU".
    pub name: String,
    /// Pieces (tiles or frames) computed.
    pub pieces: usize,
    /// Seconds spent computing them (with their copies back), out of the run's.
    pub busy_s: f64,
    /// Seconds spent handing frames on (saving them) on this worker's thread.
    pub sink_s: f64,
    /// Seconds of GPU work (dwell and colour kernels, by CUDA events); 0 on the CPU.
    pub gpu_s: f64,
}

impl WorkerReport {
    /// Counts one piece and its GPU time.
    fn add(&mut self, renderer: &Renderer, frame: &MandelbrotFrame) {
        self.pieces += 1;
        if matches!(renderer, Renderer::Cuda(_)) {
            self.gpu_s += frame.total_ms() / 1e3;
        }
    }

    fn new(name: String) -> Self {
        Self {
            name,
            pieces: 0,
            busy_s: 0.0,
            sink_s: 0.0,
            gpu_s: 0.0,
        }
    }
}

/// What a poster's pixels are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PosterPixels {
    /// 8-bit RGB, 3 bytes a pixel.
    Rgb8,
    /// The dwells as big-endian 16-bit grey (callers check the max dwell fits).
    Dwell16,
}

impl PosterPixels {
    pub fn bytes_per_pixel(self) -> usize {
        match self {
            PosterPixels::Rgb8 => 3,
            PosterPixels::Dwell16 => 2,
        }
    }
}

/// One computing thread's renderer.
enum Renderer {
    Cuda(Box<CudaMandelbrot>),
    Cpu,
}

impl Renderer {
    fn open(workers: &Workers, index: usize) -> Result<(Self, String), PipelineError> {
        match workers {
            Workers::Cpu(_) => Ok((Renderer::Cpu, "CPU".into())),
            Workers::Cuda(list) => {
                let ordinal = list[index / THREADS_PER_GPU];
                let device = CudaDevice::with_own_stream(ordinal)?;
                let name = format!(
                    "CUDA {ordinal} ({}) #{}",
                    device.info.name,
                    index % THREADS_PER_GPU + 1
                );
                let share = CudaShare {
                    device,
                    external: None,
                    interop: InteropStatus {
                        kind: InteropKind::Classic,
                        reason: "no display: pictures are copied to the host".into(),
                    },
                };
                Ok((Renderer::Cuda(Box::new(CudaMandelbrot::new(share)?)), name))
            }
        }
    }

    fn picture(
        &mut self,
        s: &MandelbrotSettings,
    ) -> Result<(RgbaImage, MandelbrotFrame), PipelineError> {
        match self {
            Renderer::Cuda(r) => r.picture(s),
            Renderer::Cpu => Ok(cpu_picture(
                s,
                RenderControl::cancel_only(&AtomicBool::new(false)),
            )),
        }
    }

    /// Renders a tile's picture straight into its place in `band` (RGB).
    fn place_picture(
        &mut self,
        s: &MandelbrotSettings,
        band: &mut [u8],
        band_width: u32,
        x0: u32,
    ) -> Result<MandelbrotFrame, PipelineError> {
        let (w, h) = (s.view.width, s.view.height);
        let mut place = |rgba: &[u8]| place_rgba(band, band_width, x0, (w, h), rgba);
        match self {
            Renderer::Cuda(r) => r.picture_with(s, place).map(|((), f)| f),
            Renderer::Cpu => {
                let never = AtomicBool::new(false);
                let (img, frame) = cpu_picture(s, RenderControl::cancel_only(&never));
                place(img.as_raw());
                Ok(frame)
            }
        }
    }

    fn dwells(
        &mut self,
        s: &MandelbrotSettings,
    ) -> Result<(Dwells, MandelbrotFrame), PipelineError> {
        match self {
            Renderer::Cuda(r) => r.dwells(s),
            Renderer::Cpu => Ok(cpu_dwells(s)),
        }
    }

    fn output(
        &mut self,
        s: &MandelbrotSettings,
        want_dwells: bool,
    ) -> Result<MandelbrotOutput, PipelineError> {
        let (dwells, image, frame) = if want_dwells {
            let (d, f) = self.dwells(s)?;
            (Some(d), None, f)
        } else {
            let (i, f) = self.picture(s)?;
            (None, Some(i), f)
        };
        Ok(MandelbrotOutput {
            dwells,
            image,
            frame,
            status: BackendStatus {
                kind: frame_backend(self),
                reason: String::new(),
            },
        })
    }
}

fn frame_backend(r: &Renderer) -> crate::pipeline::BackendKind {
    match r {
        Renderer::Cuda(_) => crate::pipeline::BackendKind::Cuda,
        Renderer::Cpu => crate::pipeline::BackendKind::Cpu,
    }
}

/// Copies a `w×h` tile's RGBA pixels as RGB into its place at `x0` in a band
/// `band_width` pixels wide, rows in parallel.
fn place_rgba(band: &mut [u8], band_width: u32, x0: u32, (w, h): (u32, u32), rgba: &[u8]) {
    let (x0, w) = (x0 as usize, w as usize);
    band.par_chunks_exact_mut(band_width as usize * 3)
        .zip(rgba.par_chunks_exact(w * 4))
        .take(h as usize)
        .for_each(|(row, src)| {
            for (o, p) in row[x0 * 3..(x0 + w) * 3]
                .chunks_exact_mut(3)
                .zip(src.chunks_exact(4))
            {
                o.copy_from_slice(&p[..3]);
            }
        });
}

/// Copies a tile's dwells as big-endian 16-bit grey (clamped) into its place at `x0`.
fn place_dwells(band: &mut [u8], band_width: u32, x0: u32, d: &Dwells) {
    let (x0, w) = (x0 as usize, d.width as usize);
    band.par_chunks_exact_mut(band_width as usize * 2)
        .zip(d.values.par_chunks_exact(w))
        .for_each(|(row, src)| {
            for (o, &v) in row[x0 * 2..(x0 + w) * 2].chunks_exact_mut(2).zip(src) {
                o.copy_from_slice(&dwell_be16(v));
            }
        });
}

/// The poster queue: the next band to hand out, the bands written, and whether the run
/// stopped.
struct BandQueue {
    state: Mutex<(u32, u32, bool)>,
    moved: Condvar,
}

impl BandQueue {
    /// The next band for a worker, once it is within reach of the writer; None at the end
    /// or after a stop.
    fn take(&self, bands: u32, window: u32) -> Option<u32> {
        let mut st = self.state.lock().ok()?;
        loop {
            let (next, written, stopped) = *st;
            if stopped || next >= bands {
                return None;
            }
            if next < written + window {
                st.0 += 1;
                return Some(next);
            }
            st = self.moved.wait(st).ok()?;
        }
    }

    fn update(&self, f: impl FnOnce(&mut (u32, u32, bool))) {
        if let Ok(mut st) = self.state.lock() {
            f(&mut st);
        }
        self.moved.notify_all();
    }
}

/// Renders the poster `whole` (its view at the poster's size) as `plan` cuts it, handing
/// each band's rows to `write` in order (`write` may stop the run with its error).
pub fn render_poster<E: Send>(
    whole: &MandelbrotSettings,
    plan: &PosterPlan,
    pixels: PosterPixels,
    workers: &Workers,
    mut write: impl FnMut(u32, &[u8]) -> Result<(), E>,
) -> Result<Result<Vec<WorkerReport>, E>, PipelineError> {
    let bands = plan.bands();
    let window = BANDS_AHEAD + workers.threads() as u32;
    let queue = BandQueue {
        state: Mutex::new((0, 0, false)),
        moved: Condvar::new(),
    };
    // Written bands' buffers, taken again by the workers (every pixel of a band is
    // overwritten, so a buffer needs no clearing).
    let spare: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
    let (tx, rx) = mpsc::channel::<Result<(u32, Vec<u8>), PipelineError>>();
    let band_bytes = |rows: u32| plan.width as usize * rows as usize * pixels.bytes_per_pixel();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers.threads())
            .map(|i| {
                let (tx, queue, spare) = (tx.clone(), &queue, &spare);
                scope.spawn(move || -> WorkerReport {
                    let (mut renderer, name) = match Renderer::open(workers, i) {
                        Ok(r) => r,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return WorkerReport::new(format!("worker {i}"));
                        }
                    };
                    let mut report = WorkerReport::new(name);
                    while let Some(band) = queue.take(bands, window) {
                        let (_, rows) = plan.band(band);
                        let mut buffer = spare
                            .lock()
                            .ok()
                            .and_then(|mut s| s.pop())
                            .unwrap_or_default();
                        buffer.resize(band_bytes(rows), 0);
                        let start = Instant::now();
                        let done = plan.tiles(band).try_for_each(|tile| {
                            let s = tile_settings(whole, &tile).map_err(|e| {
                                PipelineError::Spread(format!("a tile's location: {e}"))
                            })?;
                            let frame = match pixels {
                                PosterPixels::Rgb8 => {
                                    renderer.place_picture(&s, &mut buffer, plan.width, tile.x0)?
                                }
                                PosterPixels::Dwell16 => {
                                    let (d, frame) = renderer.dwells(&s)?;
                                    place_dwells(&mut buffer, plan.width, tile.x0, &d);
                                    frame
                                }
                            };
                            report.add(&renderer, &frame);
                            Ok::<(), PipelineError>(())
                        });
                        report.busy_s += start.elapsed().as_secs_f64();
                        let failed = done.is_err();
                        if tx.send(done.map(|()| (band, buffer))).is_err() || failed {
                            break;
                        }
                    }
                    report
                })
            })
            .collect();
        drop(tx);
        let outcome = write_in_order(&rx, &queue, &spare, &mut write, bands);
        queue.update(|st| st.2 = true);
        let reports: Vec<WorkerReport> = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| WorkerReport::new("a worker that panicked".into()))
            })
            .collect();
        outcome.map(|written| written.map(|()| reports))
    })
}

/// Receives bands as workers finish them and writes them in order.
fn write_in_order<E>(
    rx: &mpsc::Receiver<Result<(u32, Vec<u8>), PipelineError>>,
    queue: &BandQueue,
    spare: &Mutex<Vec<Vec<u8>>>,
    write: &mut impl FnMut(u32, &[u8]) -> Result<(), E>,
    bands: u32,
) -> Result<Result<(), E>, PipelineError> {
    let mut pending = BTreeMap::new();
    let mut written = 0;
    while written < bands {
        let Ok(next) = rx.recv() else {
            return Err(PipelineError::Spread(
                "the workers stopped before the last band".into(),
            ));
        };
        let (band, rows) = match next {
            Ok(b) => b,
            Err(e) => {
                queue.update(|st| st.2 = true);
                return Err(e);
            }
        };
        pending.insert(band, rows);
        while let Some(rows) = pending.remove(&written) {
            if let Err(e) = write(written, &rows) {
                return Ok(Err(e));
            }
            if let Ok(mut spare) = spare.lock() {
                spare.push(rows);
            }
            written += 1;
            queue.update(|st| st.1 = written);
        }
    }
    Ok(Ok(()))
}

/// Renders the frames listed in `indices` of `frames` spread over `workers`, each handed
/// to `sink` on the worker's thread as it is done (frames finish out of order).
pub fn render_frames_spread<E: Send>(
    frames: &[MandelbrotSettings],
    indices: std::ops::Range<usize>,
    workers: &Workers,
    want_dwells: bool,
    sink: impl Fn(usize, MandelbrotOutput) -> Result<(), E> + Sync,
) -> Result<Result<Vec<WorkerReport>, E>, PipelineError> {
    let next = AtomicUsize::new(indices.start);
    let stop = AtomicBool::new(false);
    let (end, sink) = (indices.end.min(frames.len()), &sink);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers.threads())
            .map(|i| {
                let (next, stop) = (&next, &stop);
                scope.spawn(move || -> Result<Result<WorkerReport, E>, PipelineError> {
                    let (mut renderer, name) = Renderer::open(workers, i)
                        .inspect_err(|_| stop.store(true, Ordering::SeqCst))?;
                    let mut report = WorkerReport::new(name);
                    loop {
                        let k = next.fetch_add(1, Ordering::SeqCst);
                        if k >= end || stop.load(Ordering::SeqCst) {
                            return Ok(Ok(report));
                        }
                        let start = Instant::now();
                        let out = renderer
                            .output(&frames[k], want_dwells)
                            .inspect_err(|_| stop.store(true, Ordering::SeqCst))?;
                        report.busy_s += start.elapsed().as_secs_f64();
                        report.add(&renderer, &out.frame);
                        let start = Instant::now();
                        let sunk = sink(k, out);
                        report.sink_s += start.elapsed().as_secs_f64();
                        if let Err(e) = sunk {
                            stop.store(true, Ordering::SeqCst);
                            return Ok(Err(e));
                        }
                    }
                })
            })
            .collect();
        let mut reports = Vec::new();
        let mut first_error = None;
        for h in handles {
            match h.join() {
                Ok(Ok(Ok(r))) => reports.push(r),
                Ok(Ok(Err(e))) => return Ok(Err(e)),
                Ok(Err(e)) => first_error = first_error.or(Some(e)),
                Err(_) => {
                    first_error =
                        first_error.or(Some(PipelineError::Spread("a worker panicked".into())))
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(Ok(reports)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::deep::DeepLocation;
    use crate::mandelbrot::Mode;

    #[test]
    fn device_lists_parse() {
        assert_eq!("all".parse(), Ok(DeviceChoice::All));
        assert_eq!("0, 2".parse(), Ok(DeviceChoice::List(vec![0, 2])));
        assert!("0,0".parse::<DeviceChoice>().is_err());
        assert!("x".parse::<DeviceChoice>().is_err());
        assert!("".parse::<DeviceChoice>().is_err());
    }

    fn poster_settings(width: u32, height: u32) -> MandelbrotSettings {
        let mut s = MandelbrotSettings::default();
        s.view.width = width;
        s.view.height = height;
        s.view.max_dwell = 300;
        s.mode = Mode::PerPixel;
        s.set_location(DeepLocation::parse("-0.7436,0.1318", "0.01").expect("location"));
        s
    }

    /// The bands of `s` cut by `plan` on the CPU, in order.
    fn cpu_poster(s: &MandelbrotSettings, plan: &PosterPlan, pixels: PosterPixels) -> Vec<u8> {
        let mut bytes = Vec::new();
        render_poster(s, plan, pixels, &Workers::Cpu("test".into()), |_, rows| {
            bytes.extend_from_slice(rows);
            Ok::<(), ()>(())
        })
        .expect("render")
        .expect("written");
        bytes
    }

    /// Pixels of `bpp` bytes that differ (all of them when the lengths do).
    fn mismatches(a: &[u8], b: &[u8], bpp: usize) -> usize {
        if a.len() != b.len() {
            return a.len().max(b.len()) / bpp;
        }
        a.chunks(bpp)
            .zip(b.chunks(bpp))
            .filter(|(x, y)| x != y)
            .count()
    }

    /// A poster cut finely on the CPU is the one-piece render but at the rare pixels whose
    /// dwell hangs on the last bits of its point (a tile's f64 point may differ from the
    /// whole view's by an ulp): at most one in a thousand. Its bands come in order.
    #[test]
    fn a_poster_in_tiles_is_the_whole_render() {
        let s = poster_settings(301, 203);
        let plan = PosterPlan::with_tiles(301, 203, 64, 50);
        let mut got = Vec::new();
        let mut order = Vec::new();
        let reports = render_poster(
            &s,
            &plan,
            PosterPixels::Rgb8,
            &Workers::Cpu("test".into()),
            |band, rows| {
                order.push(band);
                got.extend_from_slice(rows);
                Ok::<(), ()>(())
            },
        )
        .expect("render")
        .expect("written");
        assert_eq!(order, (0..plan.bands()).collect::<Vec<_>>());
        assert_eq!(reports[0].pieces, 5 * 5);
        let (whole, _) = cpu_picture(&s, RenderControl::cancel_only(&AtomicBool::new(false)));
        let want: Vec<u8> = whole.pixels().flat_map(|p| [p[0], p[1], p[2]]).collect();
        let n = want.len() / 3;
        let differ = mismatches(&got, &want, 3);
        assert!(
            differ * 1000 <= n,
            "{differ} of {n} pixels differ from the whole render"
        );
        // The dwells as 16-bit grey.
        let dwells = cpu_poster(&s, &plan, PosterPixels::Dwell16);
        let want = cpu_dwells(&s).0.to_be16_bytes();
        let differ = mismatches(&dwells, &want, 2);
        assert!(differ * 1000 <= n, "{differ} of {n} dwells differ");
    }

    /// A deep poster: each tile perturbs around a reference orbit of its own, at the whole
    /// view's exact pixel grid; its dwells are the whole render's but at one in a thousand.
    #[test]
    fn a_deep_poster_in_tiles_is_the_whole_render() {
        let b = &crate::mandelbrot::deep::DEEP_BOOKMARKS[0];
        let mut s = poster_settings(200, 120);
        s.view.max_dwell = b.max_dwell;
        s.set_location(b.location().expect("bookmark"));
        let plan = PosterPlan::with_tiles(200, 120, 64, 32);
        let got = cpu_poster(&s, &plan, PosterPixels::Dwell16);
        let want = cpu_dwells(&s).0.to_be16_bytes();
        let n = 200 * 120;
        let differ = mismatches(&got, &want, 2);
        assert!(differ * 1000 <= n, "{differ} of {n} deep dwells differ");
    }

    #[test]
    fn a_writer_error_stops_the_poster() {
        let s = poster_settings(64, 64);
        let plan = PosterPlan::with_tiles(64, 64, 64, 8);
        let mut calls = 0;
        let result = render_poster(
            &s,
            &plan,
            PosterPixels::Rgb8,
            &Workers::Cpu("test".into()),
            |band, _| {
                calls += 1;
                if band == 2 {
                    Err("disk full")
                } else {
                    Ok(())
                }
            },
        )
        .expect("render");
        assert_eq!(result.err(), Some("disk full"));
        assert_eq!(calls, 3);
    }

    #[test]
    fn spread_frames_each_come_once() {
        let frames: Vec<_> = (0..6).map(|i| poster_settings(40 + i, 30)).collect();
        let seen = Mutex::new(Vec::new());
        let reports = render_frames_spread(
            &frames,
            1..5,
            &Workers::Cpu("test".into()),
            false,
            |k, out| {
                let img = out.image.expect("picture");
                assert_eq!(img.width(), 40 + k as u32);
                seen.lock().expect("lock").push(k);
                Ok::<(), ()>(())
            },
        )
        .expect("render")
        .expect("sunk");
        let mut seen = seen.into_inner().expect("lock");
        seen.sort();
        assert_eq!(seen, vec![1, 2, 3, 4]);
        assert_eq!(reports.iter().map(|r| r.pieces).sum::<usize>(), 4);
    }
}
