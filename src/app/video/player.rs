//! A video's playback, free of GL and egui: a decoder thread fills a short queue of
//! frames and wakes the window after each; a clock at the stream's frame rate says which
//! frame is due; frames that come too late to be shown are dropped and counted. Seeks and
//! steps never wait: the decoder thread moves to the exact frame and it shows when it
//! arrives. On CUDA NVDEC decodes and frames stay on the device;
//! otherwise (or where NVDEC refuses the file) `ffmpeg`, else OpenH264, decodes into host
//! memory.

use crate::cuda::CudaDevice;
use crate::pipeline::VideoDecoder;
use crate::video::nvdec::{DeviceFrame, FramePool, NvdecReader};
use crate::video::{HostFrames, VideoError, VideoInfo};
use image::RgbaImage;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{
    channel, sync_channel, Receiver, RecvTimeoutError, Sender, SyncSender, TryRecvError,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Frames decoded ahead of the one shown.
const QUEUE_FRAMES: usize = 3;
/// How long opening waits for the first frame (a stalled decoder is an error, never a
/// hang).
const FIRST_FRAME_WAIT: Duration = Duration::from_secs(20);
/// Frames over which the decode rate is measured.
const RATE_WINDOW: usize = 30;

/// Called by the decoder thread after each frame it queues (the window repaints).
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// A frame's pixels: in host memory (ffmpeg) or on the device (NVDEC).
pub enum FramePixels {
    Host(RgbaImage),
    Device(DeviceFrame),
}

impl FramePixels {
    pub fn size(&self) -> (u32, u32) {
        match self {
            FramePixels::Host(image) => image.dimensions(),
            FramePixels::Device(frame) => frame.size(),
        }
    }

    /// The pixels in host memory (a device frame read back).
    pub fn into_host(self) -> Result<RgbaImage, crate::cuda::CudaError> {
        match self {
            FramePixels::Host(image) => Ok(image),
            FramePixels::Device(frame) => frame.read_rgba(),
        }
    }
}

/// What the decoder thread sends.
enum Decoded {
    /// A frame and how long reading it from the decoder took.
    Frame(FramePixels, Duration),
    End,
    Failed(VideoError),
}

/// A decoder the thread drives: frames in presentation order from the one sought.
trait FrameSource: Send {
    fn next(&mut self) -> Result<Option<FramePixels>, VideoError>;
    /// Makes frame `index` the next one.
    fn seek(&mut self, index: u64) -> Result<(), VideoError>;
    /// Whether the source holds device objects that must go before the CUDA context
    /// (the player then waits for its thread when dropped).
    fn holds_device(&self) -> bool {
        false
    }
}

/// `ffmpeg` (else OpenH264) decoding into host memory.
impl FrameSource for HostFrames {
    fn next(&mut self) -> Result<Option<FramePixels>, VideoError> {
        Ok(self.next_frame()?.map(FramePixels::Host))
    }

    fn seek(&mut self, index: u64) -> Result<(), VideoError> {
        HostFrames::seek(self, index)
    }
}

/// NVDEC decoding into device arrays (converted on the thread's own stream).
struct NvdecFrames {
    reader: NvdecReader,
    pool: FramePool,
}

impl FrameSource for NvdecFrames {
    fn next(&mut self) -> Result<Option<FramePixels>, VideoError> {
        let frame = self.reader.next_device_frame(&self.pool)?;
        Ok(frame.map(FramePixels::Device))
    }

    fn seek(&mut self, index: u64) -> Result<(), VideoError> {
        self.reader.seek(index)
    }

    fn holds_device(&self) -> bool {
        true
    }
}

/// NVDEC on `device` where it takes the file, else `ffmpeg`, else OpenH264 (with the
/// reason); the stream's description.
fn open_source(
    path: &Path,
    device: Option<&CudaDevice>,
) -> Result<(Box<dyn FrameSource>, VideoInfo, VideoDecoder), VideoError> {
    let refused = match device {
        None => None,
        Some(device) => match open_nvdec(path, device) {
            Ok((source, info)) => return Ok((Box::new(source), info, VideoDecoder::Nvdec)),
            Err(e) => Some(e),
        },
    };
    let frames =
        HostFrames::open(path, None, None).map_err(|e| e.with_nvdec_reason(refused.as_ref()))?;
    let why = refused.map_or_else(|| "no CUDA device frames".into(), |e| e.to_string());
    let decoder = VideoDecoder::host(frames.decoder(), why);
    let info = frames.info().clone();
    Ok((Box::new(frames), info, decoder))
}

fn open_nvdec(path: &Path, device: &CudaDevice) -> Result<(NvdecFrames, VideoInfo), VideoError> {
    let reader = NvdecReader::open_on_own_stream(path, device)?;
    let info = reader.info().clone();
    let pool = FramePool::new(device);
    Ok((NvdecFrames { reader, pool }, info))
}

/// Asks the decoder thread to go to frame `index` and send from there on `frames`.
struct Seek {
    index: u64,
    frames: SyncSender<Decoded>,
}

/// The decoder thread's queue, from frame `next` on. A seek hands the thread a new queue;
/// dropping the decoder ends the thread (its commands disconnect). A thread holding device
/// objects is waited for, so that they are gone before the CUDA context may go (NVDEC
/// finishes its frame; an `ffmpeg` pipe is never waited on).
struct Decoder {
    frames: Receiver<Decoded>,
    commands: Sender<Seek>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The index of the frame the queue gives next.
    next: u64,
    /// The stream ended (or failed) after the frames received.
    ended: bool,
}

impl Decoder {
    fn start(mut source: Box<dyn FrameSource>, wake: Waker) -> Result<Self, VideoError> {
        let (send, frames) = sync_channel(QUEUE_FRAMES);
        let (commands, requests) = channel::<Seek>();
        let join = source.holds_device();
        let thread = std::thread::Builder::new()
            .name("video decoder".into())
            .spawn(move || decode_loop(source.as_mut(), Some(send), &requests, &*wake))
            .map_err(|e| VideoError::Io(format!("decoder thread: {e}")))?;
        Ok(Self {
            frames,
            commands,
            thread: join.then_some(thread),
            next: 0,
            ended: false,
        })
    }

    /// The queue from frame `index` on (frames of the old queue are dropped).
    fn seek(&mut self, index: u64) -> Result<(), VideoError> {
        let (send, frames) = sync_channel(QUEUE_FRAMES);
        self.commands
            .send(Seek {
                index,
                frames: send,
            })
            .map_err(|_| VideoError::Io("the decoder thread stopped".into()))?;
        self.frames = frames;
        self.next = index;
        self.ended = false;
        Ok(())
    }
}

impl Drop for Decoder {
    fn drop(&mut self) {
        // The thread ends when its queue and its commands are gone: a send or a wait for
        // a seek fails at once, a frame being decoded finishes first.
        self.frames = sync_channel(0).1;
        self.commands = channel().0;
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                log::warn!("the video decoder thread panicked");
            }
        }
    }
}

/// The decoder thread: decodes into `out` until the stream ends or its receiver goes,
/// then waits for a seek; the newest seek wins. Returns when the player is dropped.
fn decode_loop(
    source: &mut dyn FrameSource,
    mut out: Option<SyncSender<Decoded>>,
    requests: &Receiver<Seek>,
    wake: &(dyn Fn() + Send + Sync),
) {
    loop {
        let mut seek = None;
        loop {
            match requests.try_recv() {
                Ok(s) => seek = Some(s),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return,
            }
        }
        if out.is_none() && seek.is_none() {
            match requests.recv() {
                Ok(s) => seek = Some(s),
                Err(_) => return,
            }
        }
        if let Some(Seek { index, frames }) = seek {
            out = Some(frames);
            if let Err(e) = source.seek(index) {
                if let Some(o) = out.take() {
                    let _ = o.send(Decoded::Failed(e));
                }
                wake();
                continue;
            }
        }
        let Some(queue) = &out else {
            continue;
        };
        let start = Instant::now();
        let (item, last) = match source.next() {
            Ok(Some(frame)) => (Decoded::Frame(frame, start.elapsed()), false),
            Ok(None) => (Decoded::End, true),
            Err(e) => (Decoded::Failed(e), true),
        };
        if queue.send(item).is_err() {
            // The player moved to a new queue: its seek comes next.
            out = None;
            continue;
        }
        wake();
        if last {
            out = None;
        }
    }
}

/// Whether the clock runs.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Clock {
    Paused,
    /// Frame `from` was due at `anchor`; the following ones at the frame rate × speed.
    Playing {
        anchor: Instant,
        from: u64,
    },
}

/// A frame to show: its index and pixels.
pub struct ShownFrame {
    pub index: u64,
    pub pixels: FramePixels,
}

/// What happened to the video since the last poll, besides a frame.
#[derive(Debug, Clone, PartialEq)]
pub enum PlayerEvent {
    /// The last frame was shown and the video does not loop: it paused there.
    Ended,
    /// The decoder failed: the last good frame stays; the message names the frame.
    Failed(String),
}

/// A playing (or paused) video.
pub struct VideoPlayer {
    path: PathBuf,
    info: VideoInfo,
    decoder: Decoder,
    /// Which decoder runs, and why not NVDEC.
    decoded_by: VideoDecoder,
    clock: Clock,
    /// The decoder's next frame shows as soon as it arrives (after a seek or a step).
    awaiting: bool,
    /// The index of the frame on screen.
    shown: u64,
    /// The number of frames, once known (declared, or found at the end).
    count: Option<u64>,
    pub looping: bool,
    /// Playback speed (1: the stream's rate).
    speed: f64,
    /// Frames that were due but came after the next one was due too.
    dropped: u64,
    /// How long the last frames took to decode (the decode rate's window).
    decode_times: Vec<Duration>,
}

impl VideoPlayer {
    /// Opens `path` and decodes its first frame (waits for it: decoders start in tens of
    /// milliseconds), paused on it; `wake` is called whenever a frame is ready. With
    /// `device` (the app's CUDA device, whose frames take device sources) NVDEC decodes
    /// where it takes the file.
    pub fn open(
        path: &Path,
        wake: Waker,
        device: Option<&CudaDevice>,
    ) -> Result<(Self, ShownFrame), VideoError> {
        let (source, info, decoded_by) = open_source(path, device)?;
        Self::start(path, wake, source, info, decoded_by)
    }

    /// A player of `frames` whatever else decodes here (tests make OpenH264 run where
    /// ffmpeg is installed).
    #[cfg(test)]
    pub(super) fn open_host(
        path: &Path,
        wake: Waker,
        frames: HostFrames,
    ) -> Result<(Self, ShownFrame), VideoError> {
        let info = frames.info().clone();
        let decoded_by = VideoDecoder::host(frames.decoder(), "a test's choice".into());
        Self::start(path, wake, Box::new(frames), info, decoded_by)
    }

    /// Starts the decoder thread on `source` and waits for the first frame.
    fn start(
        path: &Path,
        wake: Waker,
        source: Box<dyn FrameSource>,
        info: VideoInfo,
        decoded_by: VideoDecoder,
    ) -> Result<(Self, ShownFrame), VideoError> {
        let decoder = Decoder::start(source, wake)?;
        let mut player = Self {
            path: path.to_path_buf(),
            count: info.frame_count(),
            info,
            decoder,
            decoded_by,
            clock: Clock::Paused,
            awaiting: false,
            shown: 0,
            looping: true,
            speed: 1.0,
            dropped: 0,
            decode_times: Vec::new(),
        };
        let frame = match player.receive(Some(FIRST_FRAME_WAIT))? {
            Some(frame) => frame,
            None => {
                return Err(VideoError::Decode {
                    path: player.path.clone(),
                    frame: 0,
                    reason: "no frame decoded".into(),
                })
            }
        };
        Ok((player, frame))
    }

    pub fn info(&self) -> &VideoInfo {
        &self.info
    }

    /// Which decoder runs (and why not NVDEC).
    pub fn decoded_by(&self) -> &VideoDecoder {
        &self.decoded_by
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The index of the frame on screen.
    pub fn shown(&self) -> u64 {
        self.shown
    }

    /// The number of frames, when the container declares it or the end was reached.
    pub fn frame_count(&self) -> Option<u64> {
        self.count
    }

    pub fn is_playing(&self) -> bool {
        matches!(self.clock, Clock::Playing { .. })
    }

    /// Whether a seek or a step waits for its frame.
    pub fn is_seeking(&self) -> bool {
        self.awaiting
    }

    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Frames a second the decoder delivers when nothing waits for it: over the last
    /// frames, the time each took to read from the decoder (None before any).
    pub fn decode_fps(&self) -> Option<f64> {
        let total: f64 = self.decode_times.iter().map(Duration::as_secs_f64).sum();
        (total > 0.0).then(|| self.decode_times.len() as f64 / total)
    }

    /// Seconds between frames at the current speed.
    fn frame_seconds(&self) -> f64 {
        let fps = self.info.fps().max(1e-3);
        1.0 / (fps * self.speed)
    }

    /// Starts the clock from the frame shown (at the end of a video, from the first
    /// frame, which shows when decoded).
    pub fn play(&mut self, now: Instant) -> Result<(), VideoError> {
        if self.decoder.ended && !self.awaiting {
            self.seek(0)?;
        }
        self.clock = Clock::Playing {
            anchor: now,
            from: self.shown,
        };
        Ok(())
    }

    pub fn pause(&mut self) {
        self.clock = Clock::Paused;
    }

    /// Changes the speed, the frame shown staying where it is on the clock.
    pub fn set_speed(&mut self, speed: f64, now: Instant) {
        self.speed = speed.clamp(0.0625, 16.0);
        if self.is_playing() {
            self.clock = Clock::Playing {
                anchor: now,
                from: self.shown,
            };
        }
    }

    /// The frame to show at `now`, when it is not the one shown: a seek's or a step's
    /// frame once decoded; while playing, the frame due (every frame received that is
    /// already followed by a due one is dropped). At the end the video starts again
    /// (looping) or pauses on its last frame.
    pub fn poll(&mut self, now: Instant) -> (Option<ShownFrame>, Option<PlayerEvent>) {
        if self.awaiting {
            return self.poll_awaited(now);
        }
        let Clock::Playing { anchor, from } = self.clock else {
            return (None, None);
        };
        let elapsed = now.saturating_duration_since(anchor).as_secs_f64();
        let due = from + (elapsed / self.frame_seconds()) as u64;
        let mut latest = None;
        while self.decoder.next <= due && !self.decoder.ended {
            match self.receive(None) {
                Ok(Some(frame)) => {
                    if latest.replace(frame).is_some() {
                        self.dropped += 1;
                    }
                }
                Ok(None) => break, // not decoded yet: shown when it comes
                Err(e) => {
                    self.clock = Clock::Paused;
                    return (latest, Some(PlayerEvent::Failed(e.to_string())));
                }
            }
        }
        if let Some(f) = &latest {
            self.shown = f.index;
        }
        if self.decoder.ended && self.decoder.next <= due {
            if self.looping {
                return match self.seek(0) {
                    Ok(()) => (latest, None),
                    Err(e) => {
                        self.clock = Clock::Paused;
                        (latest, Some(PlayerEvent::Failed(e.to_string())))
                    }
                };
            }
            self.clock = Clock::Paused;
            return (latest, Some(PlayerEvent::Ended));
        }
        (latest, None)
    }

    /// The frame a seek or a step waits for, if it arrived; a playing clock restarts
    /// from it.
    fn poll_awaited(&mut self, now: Instant) -> (Option<ShownFrame>, Option<PlayerEvent>) {
        match self.receive(None) {
            Ok(Some(frame)) => {
                self.awaiting = false;
                self.shown = frame.index;
                if self.is_playing() {
                    self.clock = Clock::Playing {
                        anchor: now,
                        from: frame.index,
                    };
                }
                (Some(frame), None)
            }
            Ok(None) if self.decoder.ended => {
                // A step past the last frame, or a seek past the end of a stream that
                // declared more frames than it holds.
                self.awaiting = false;
                self.clock = Clock::Paused;
                (None, Some(PlayerEvent::Ended))
            }
            Ok(None) => (None, None),
            Err(e) => {
                self.awaiting = false;
                self.clock = Clock::Paused;
                (None, Some(PlayerEvent::Failed(e.to_string())))
            }
        }
    }

    /// How long until the next frame is due (None when paused): the window sleeps that
    /// long (a seek's frame wakes it through the waker).
    pub fn next_due(&self, now: Instant) -> Option<Duration> {
        let Clock::Playing { anchor, from } = self.clock else {
            return None;
        };
        if self.awaiting {
            return None;
        }
        let next = (self.shown + 1).max(from + 1) - from;
        let at = anchor + Duration::from_secs_f64(next as f64 * self.frame_seconds());
        Some(at.saturating_duration_since(now))
    }

    /// Pauses and shows the next frame when it is decoded (→); nothing after the last.
    pub fn step_forward(&mut self) {
        self.clock = Clock::Paused;
        if !self.decoder.ended {
            self.awaiting = true;
        }
    }

    /// Pauses and shows the frame before the one shown when it is decoded (←); nothing
    /// before the first.
    pub fn step_back(&mut self) -> Result<(), VideoError> {
        self.clock = Clock::Paused;
        match self.shown.checked_sub(1) {
            Some(previous) => self.seek(previous),
            None => Ok(()),
        }
    }

    /// Shows frame `index` exactly (the last one when `index` is past the end) once it is
    /// decoded: the decoder starts again there. A playing clock goes on from it.
    pub fn seek(&mut self, index: u64) -> Result<(), VideoError> {
        let index = self.count.map_or(index, |n| index.min(n.saturating_sub(1)));
        self.decoder.seek(index)?;
        self.decode_times.clear();
        self.awaiting = true;
        Ok(())
    }

    /// The next frame of the queue: without waiting (`wait` None: None when none is
    /// decoded yet) or up to `wait`. The end of the stream gives None and is remembered.
    fn receive(&mut self, wait: Option<Duration>) -> Result<Option<ShownFrame>, VideoError> {
        if self.decoder.ended {
            return Ok(None);
        }
        let item = match wait {
            None => match self.decoder.frames.try_recv() {
                Ok(item) => item,
                Err(TryRecvError::Empty) => return Ok(None),
                Err(TryRecvError::Disconnected) => Decoded::End,
            },
            Some(wait) => match self.decoder.frames.recv_timeout(wait) {
                Ok(item) => item,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(VideoError::Decode {
                        path: self.path.clone(),
                        frame: self.decoder.next,
                        reason: format!("no frame after {} s", wait.as_secs()),
                    })
                }
                Err(RecvTimeoutError::Disconnected) => Decoded::End,
            },
        };
        match item {
            Decoded::Frame(pixels, took) => {
                let index = self.decoder.next;
                self.decoder.next += 1;
                if self.decode_times.len() == RATE_WINDOW {
                    self.decode_times.remove(0);
                }
                self.decode_times.push(took);
                Ok(Some(ShownFrame { index, pixels }))
            }
            Decoded::End => {
                self.decoder.ended = true;
                self.count = Some(self.decoder.next);
                Ok(None)
            }
            Decoded::Failed(e) => {
                self.decoder.ended = true;
                Err(e)
            }
        }
    }
}

/// `seconds` as `m:ss.cc`.
pub fn clock_text(seconds: f64) -> String {
    let seconds = seconds.max(0.0);
    let minutes = (seconds / 60.0).floor();
    format!("{}:{:05.2}", minutes as u64, seconds - minutes * 60.0)
}
