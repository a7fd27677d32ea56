//! The first video stream of an MP4/MOV (re_mp4: the sample table, media read per
//! sample) or Matroska/WebM file (matroska-demuxer), as packets in decode order for NVDEC:
//! H.264 and HEVC samples from length-prefixed NAL units to Annex B, with the parameter
//! sets of the container's configuration before every keyframe; VP9 frames as they are.
//! Nothing here decodes; a file either container parser refuses (or a codec NVDEC does
//! not take) is an error the caller answers with another decoder.

use super::error::{DemuxError, VideoError};
use super::info::{check_input, VideoInfo, MAX_VIDEO_SIDE};
use std::io::{Read, Seek, SeekFrom};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

thread_local! {
    static IN_CONTAINER_PARSER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is inside a container parser, whose panics on damaged files are
/// caught and become the file's error (a panic hook stays quiet for them).
pub fn in_container_parser() -> bool {
    IN_CONTAINER_PARSER.with(std::cell::Cell::get)
}

/// Runs another crate's parser (`parser`: "MP4", "Matroska") on untrusted bytes: a panic
/// becomes [`DemuxError::ParserFailed`].
fn guarded_parse<T>(parser: &'static str, parse: impl FnOnce() -> T) -> Result<T, DemuxError> {
    IN_CONTAINER_PARSER.with(|c| c.set(true));
    let result = catch_unwind(AssertUnwindSafe(parse));
    IN_CONTAINER_PARSER.with(|c| c.set(false));
    result.map_err(|_| DemuxError::ParserFailed(parser))
}

/// What a demuxer reads: a file, or bytes in memory (tests, fuzzing).
pub trait Input: Read + Seek + Send {}
impl<T: Read + Seek + Send> Input for T {}

/// The codecs this demuxer hands to NVDEC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    H264,
    Hevc,
    Vp9,
}

impl Codec {
    pub fn name(self) -> &'static str {
        match self {
            Codec::H264 => "h264",
            Codec::Hevc => "hevc",
            Codec::Vp9 => "vp9",
        }
    }

    /// The codec as people write it ("H.264").
    pub fn label(self) -> &'static str {
        match self {
            Codec::H264 => "H.264",
            Codec::Hevc => "HEVC",
            Codec::Vp9 => "VP9",
        }
    }
}

/// Where decoding resumes after [`Demuxer::seek_frame`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekStart {
    /// At a keyframe: the frames shown before time `pts` are skipped (`i64::MAX`: past the
    /// last frame, nothing is left).
    Pts(i64),
    /// From the first frame: the first `n` frames shown are skipped.
    Count(u64),
}

/// A track's frames for exact seeks: time and whether a keyframe, in decode order, and
/// the times in presentation order.
#[derive(Debug, Default)]
struct SeekIndex {
    decode: Vec<(i64, bool)>,
    shown: Vec<i64>,
}

impl SeekIndex {
    fn new(decode: Vec<(i64, bool)>) -> Self {
        let mut shown: Vec<i64> = decode.iter().map(|f| f.0).collect();
        shown.sort_unstable();
        Self { decode, shown }
    }

    /// Frame `index` in presentation order: its time and the decode position of the last
    /// keyframe at or before it whose time is not later than its own (an open GOP's
    /// leading pictures show before their keyframe and need the GOP before); None for
    /// the keyframe when none precedes it, None past the last frame.
    fn start_of(&self, index: u64) -> Option<(i64, Option<usize>)> {
        let target = *usize::try_from(index)
            .ok()
            .and_then(|i| self.shown.get(i))?;
        let at = self.decode.iter().position(|f| f.0 == target)?;
        let key = self.decode[..=at]
            .iter()
            .rposition(|&(pts, keyframe)| keyframe && pts <= target);
        Some((target, key))
    }
}

/// One compressed frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    pub data: Vec<u8>,
    /// Presentation time in the stream's timescale.
    pub pts: i64,
}

/// How H.264/HEVC samples become Annex B.
#[derive(Debug, Clone, Default)]
struct NalFraming {
    /// Bytes of each NAL unit's length (1, 2 or 4); 0 for VP9 (passed as it is).
    length_size: usize,
    /// The configuration's parameter sets, each with a start code.
    parameter_sets: Vec<u8>,
    /// HEVC's NAL unit header (else H.264's), to find a sample's own SPS.
    hevc: bool,
}

impl NalFraming {
    /// `sample` with start codes; a keyframe gets the configuration's parameter sets
    /// first unless it carries an SPS of its own (a stream whose size changes carries the
    /// new one in band, and the configuration's would undo it).
    fn annex_b(&self, sample: &[u8], keyframe: bool) -> Result<Vec<u8>, DemuxError> {
        if self.length_size == 0 {
            return Ok(sample.to_vec());
        }
        let mut out = Vec::with_capacity(sample.len() + 16 + self.parameter_sets.len());
        let mut own_sps = false;
        let mut rest = sample;
        while !rest.is_empty() {
            if rest.len() < self.length_size {
                return Err(DemuxError::CutLength);
            }
            let (len, tail) = rest.split_at(self.length_size);
            let n = len.iter().fold(0usize, |a, &b| (a << 8) | usize::from(b));
            if n > tail.len() {
                return Err(DemuxError::LongUnit {
                    unit: n,
                    left: tail.len(),
                });
            }
            let unit = &tail[..n];
            own_sps |= unit.first().is_some_and(|&h| self.is_sps(h));
            out.extend_from_slice(&[0, 0, 0, 1]);
            out.extend_from_slice(unit);
            rest = &tail[n..];
        }
        if keyframe && !own_sps {
            out.splice(0..0, self.parameter_sets.iter().copied());
        }
        Ok(out)
    }

    /// Whether a NAL unit whose header starts with `header` is a sequence parameter set.
    fn is_sps(&self, header: u8) -> bool {
        if self.hevc {
            (header >> 1) & 0x3f == 33
        } else {
            header & 0x1f == 7
        }
    }

    /// From an `avcC` record: the length size and every SPS and PPS.
    fn from_avcc(c: &[u8]) -> Option<Self> {
        let length_size = usize::from(*c.get(4)? & 3) + 1;
        let mut sets = Vec::new();
        let mut at = 5;
        for mask in [0x1f, 0xff] {
            let count = *c.get(at)? & mask;
            at += 1;
            for _ in 0..count {
                at = push_set(c, at, &mut sets)?;
            }
        }
        Some(Self {
            length_size,
            parameter_sets: sets,
            hevc: false,
        })
    }

    /// From an `hvcC` record: the length size and the NAL units of every array (VPS,
    /// SPS, PPS, SEI).
    fn from_hvcc(c: &[u8]) -> Option<Self> {
        let length_size = usize::from(*c.get(21)? & 3) + 1;
        let arrays = *c.get(22)?;
        let mut sets = Vec::new();
        let mut at = 23;
        for _ in 0..arrays {
            let count = u16::from_be_bytes([*c.get(at + 1)?, *c.get(at + 2)?]);
            at += 3;
            for _ in 0..count {
                at = push_set(c, at, &mut sets)?;
            }
        }
        Some(Self {
            length_size,
            parameter_sets: sets,
            hevc: true,
        })
    }
}

/// Appends the 16-bit-length-prefixed NAL unit at `at` of `c` with a start code; the
/// offset after it.
fn push_set(c: &[u8], at: usize, sets: &mut Vec<u8>) -> Option<usize> {
    let n = usize::from(u16::from_be_bytes([*c.get(at)?, *c.get(at + 1)?]));
    let unit = c.get(at + 2..at + 2 + n)?;
    sets.extend_from_slice(&[0, 0, 0, 1]);
    sets.extend_from_slice(unit);
    Some(at + 2 + n)
}

/// A sample of an MP4 track: where it lies and when it shows.
#[derive(Debug, Clone, Copy)]
struct Mp4Sample {
    offset: u64,
    size: u64,
    pts: i64,
    keyframe: bool,
}

enum Source {
    Mp4 {
        file: Box<dyn Input>,
        samples: Vec<Mp4Sample>,
        next: usize,
        /// The samples' times and keyframes (made at the first seek).
        seek: Option<SeekIndex>,
    },
    Matroska {
        file: Box<matroska_demuxer::MatroskaFile<Box<dyn Input>>>,
        track: u64,
        frame: matroska_demuxer::Frame,
        /// The track's frames' times and keyframes (made at the first seek by reading
        /// the file once).
        seek: Option<SeekIndex>,
        /// A packet read ahead by a seek, given next.
        pending: Option<Packet>,
    },
}

/// The first video stream of a file, packet by packet.
pub struct Demuxer {
    source: Source,
    framing: NalFraming,
    codec: Codec,
    /// Bits a sample, as the codec configuration says.
    depth: u8,
    info: VideoInfo,
    path: PathBuf,
    /// The read guard's counts (started again at each seek).
    reads: Arc<ReadCounts>,
}

/// The largest sample taken (a declared size past it is damage, not a frame).
const MAX_SAMPLE_BYTES: u64 = 256 << 20;

/// A reader that stops answering once far more was read, or far more calls made, than
/// demuxing a file of its size needs: the container parsers are other crates', and a
/// damaged box size can send one round in a loop (a child box of size 0 re-read for ever).
/// Beneath the buffered reader, so a loop costs a buffer refill per turn. The count starts
/// again at each seek (which reads part of the file again, rightly).
struct Guarded<R> {
    inner: R,
    counts: Arc<ReadCounts>,
}

/// What a [`Guarded`] reader read since it opened or the demuxer last sought.
struct ReadCounts {
    bytes: AtomicU64,
    calls: AtomicU64,
    max_bytes: u64,
    max_calls: u64,
}

impl ReadCounts {
    fn new(size: u64) -> Self {
        Self {
            bytes: AtomicU64::new(0),
            calls: AtomicU64::new(0),
            max_bytes: size.saturating_mul(4).saturating_add(16 << 20),
            max_calls: (size / 1024).saturating_add(4 << 20),
        }
    }

    fn restart(&self) {
        self.bytes.store(0, Ordering::Relaxed);
        self.calls.store(0, Ordering::Relaxed);
    }
}

impl<R> Guarded<R> {
    fn count(&mut self, bytes: usize) -> std::io::Result<()> {
        let c = &self.counts;
        let calls = c.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let read = c.bytes.fetch_add(bytes as u64, Ordering::Relaxed) + bytes as u64;
        if read > c.max_bytes || calls > c.max_calls {
            return Err(std::io::Error::other(
                "reading went round in circles (a damaged box or element size)",
            ));
        }
        Ok(())
    }
}

impl<R: Read> Read for Guarded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count(n)?;
        Ok(n)
    }
}

impl<R: Seek> Seek for Guarded<R> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.count(0)?;
        self.inner.seek(to)
    }
}

impl Demuxer {
    /// Opens `path` when it is an MP4/MOV or Matroska/WebM file whose first video stream
    /// is H.264, HEVC or VP9.
    pub fn open(path: &Path) -> Result<Self, VideoError> {
        check_input(path)?;
        std::fs::File::open(path)
            .map_err(|e| VideoError::Container {
                path: path.to_path_buf(),
                reason: e.into(),
            })
            .and_then(|file| Self::from_input(path, Box::new(file)))
    }

    /// [`Demuxer::open`] on `input` (`path` names it in errors).
    pub fn from_input(path: &Path, input: Box<dyn Input>) -> Result<Self, VideoError> {
        Self::demux(path, input).map_err(|reason| VideoError::Container {
            path: path.to_path_buf(),
            reason,
        })
    }

    fn demux(path: &Path, mut input: Box<dyn Input>) -> Result<Self, DemuxError> {
        let size = input.seek(SeekFrom::End(0))?;
        input.seek(SeekFrom::Start(0))?;
        let mut magic = [0u8; 4];
        input
            .read_exact(&mut magic)
            .map_err(|_| DemuxError::TooShort)?;
        input.seek(SeekFrom::Start(0))?;
        let reads = Arc::new(ReadCounts::new(size));
        let guarded = Guarded {
            inner: input,
            counts: reads.clone(),
        };
        let input: Box<dyn Input> = Box::new(std::io::BufReader::new(guarded));
        if magic == [0x1a, 0x45, 0xdf, 0xa3] {
            open_matroska(path, input, reads)
        } else {
            open_mp4(path, input, size, reads)
        }
    }

    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// Bits a sample, as the codec configuration says (8 or 10; H.264 8 to 14).
    pub fn bit_depth(&self) -> u8 {
        self.depth
    }

    /// The parameter sets of the codec configuration (H.264 and HEVC), each with a start
    /// code; empty for VP9.
    pub fn parameter_sets(&self) -> &[u8] {
        &self.framing.parameter_sets
    }

    pub fn info(&self) -> &VideoInfo {
        &self.info
    }

    /// The next packet in decode order, None after the last.
    pub fn next_packet(&mut self) -> Result<Option<Packet>, VideoError> {
        self.packet().map_err(|reason| VideoError::Packet {
            path: self.path.clone(),
            reason,
        })
    }

    /// Moves to where decoding must start for frame `index` (presentation order, from 0)
    /// to show exactly: the last keyframe at or before that frame in decode order whose
    /// time is not later than the frame's ([`SeekIndex`]). An MP4's sample table says
    /// where it lies; a Matroska file is indexed by reading it once, then matroska-demuxer
    /// seeks to the keyframe's time (landing on the first block at or after it) and blocks
    /// are read on to the keyframe itself. Where that fails (no cluster index, the keyframe
    /// not found, no keyframe known) decoding starts again from the first frame.
    pub fn seek_frame(&mut self, index: u64) -> Result<SeekStart, VideoError> {
        if let Source::Mp4 {
            samples,
            next,
            seek,
            ..
        } = &mut self.source
        {
            let seek = seek.get_or_insert_with(|| {
                SeekIndex::new(samples.iter().map(|s| (s.pts, s.keyframe)).collect())
            });
            self.reads.restart();
            return Ok(match seek.start_of(index) {
                None => {
                    *next = samples.len();
                    SeekStart::Pts(i64::MAX)
                }
                Some((target, key)) => {
                    *next = key.unwrap_or(0);
                    SeekStart::Pts(target)
                }
            });
        }
        let seek = match &mut self.source {
            Source::Matroska { seek: Some(s), .. } => std::mem::take(s),
            _ => self.matroska_index()?,
        };
        let start = match seek.start_of(index) {
            None => {
                // Past the last frame: nothing is left.
                self.drain();
                SeekStart::Pts(i64::MAX)
            }
            Some((target, Some(key))) => {
                self.reopen()?;
                if self.land_on_keyframe(seek.decode[key].0) {
                    SeekStart::Pts(target)
                } else {
                    self.reopen()?;
                    SeekStart::Count(index)
                }
            }
            Some((_, None)) => {
                self.reopen()?;
                SeekStart::Count(index)
            }
        };
        if let Source::Matroska { seek: kept, .. } = &mut self.source {
            *kept = Some(seek);
        }
        Ok(start)
    }

    /// The file read again from its start (with its own read guard).
    fn reopen(&mut self) -> Result<(), VideoError> {
        let fresh = Self::open(&self.path)?;
        self.source = fresh.source;
        self.reads = fresh.reads;
        Ok(())
    }

    /// The track's frames in file order, read from a fresh reader.
    fn matroska_index(&self) -> Result<SeekIndex, VideoError> {
        let mut fresh = Self::open(&self.path)?;
        let mut frames = Vec::new();
        while let Some(frame) = fresh.matroska_frame()? {
            frames.push(frame);
        }
        Ok(SeekIndex::new(frames))
    }

    /// The next frame of the track (time, whether it is known to be a keyframe), its data
    /// left in the reader's frame.
    fn matroska_frame(&mut self) -> Result<Option<(i64, bool)>, VideoError> {
        let Source::Matroska {
            file, track, frame, ..
        } = &mut self.source
        else {
            return Ok(None);
        };
        let failed = |reason| VideoError::Packet {
            path: self.path.clone(),
            reason,
        };
        loop {
            let more = guarded_parse("Matroska", || file.next_frame(frame))
                .map_err(failed)?
                .map_err(|e| failed(DemuxError::MatroskaFrame(e)))?;
            if !more {
                return Ok(None);
            }
            if frame.track == *track {
                let pts = frame.timestamp.min(i64::MAX as u64) as i64;
                // A block in a group does not say whether it is a keyframe: it is never a
                // place a seek starts (with none known, decoding starts from the first).
                return Ok(Some((pts, frame.is_keyframe == Some(true))));
            }
        }
    }

    /// Seeks a fresh Matroska reader to the keyframe at time `key` and keeps that
    /// keyframe's packet for the next read; false when the reader cannot get there.
    fn land_on_keyframe(&mut self, key: i64) -> bool {
        let Source::Matroska { file, .. } = &mut self.source else {
            return false;
        };
        let sought = guarded_parse("Matroska", || file.seek(key.max(0) as u64));
        if !matches!(sought, Ok(Ok(()))) {
            return false;
        }
        while let Ok(Some((pts, keyframe))) = self.matroska_frame() {
            if pts > key {
                return false;
            }
            if pts == key && keyframe {
                let Source::Matroska { frame, pending, .. } = &mut self.source else {
                    return false;
                };
                let Ok(data) = self.framing.annex_b(&frame.data, true) else {
                    return false;
                };
                *pending = Some(Packet { data, pts });
                return true;
            }
        }
        false
    }

    /// Reads a Matroska reader to its end (nothing read ahead is left either).
    fn drain(&mut self) {
        if let Source::Matroska { pending, .. } = &mut self.source {
            *pending = None;
        }
        while let Ok(Some(_)) = self.matroska_frame() {}
    }

    /// The most frames from one keyframe to the next, in decode order (what an exact seek
    /// decodes at most); None where the container keeps no sample table here (Matroska).
    pub fn longest_gop(&self) -> Option<usize> {
        let Source::Mp4 { samples, .. } = &self.source else {
            return None;
        };
        let keys: Vec<usize> = (0..samples.len())
            .filter(|&i| samples[i].keyframe)
            .collect();
        let ends = keys.iter().skip(1).copied().chain([samples.len()]);
        keys.iter().zip(ends).map(|(a, b)| b - a).max()
    }

    fn packet(&mut self) -> Result<Option<Packet>, DemuxError> {
        if let Source::Matroska { pending, .. } = &mut self.source {
            if let Some(p) = pending.take() {
                return Ok(Some(p));
            }
        }
        match &mut self.source {
            Source::Mp4 {
                file,
                samples,
                next,
                ..
            } => {
                let Some(s) = samples.get(*next).copied() else {
                    return Ok(None);
                };
                *next += 1;
                if s.size > MAX_SAMPLE_BYTES {
                    return Err(DemuxError::HugeSample(s.size));
                }
                let mut bytes = vec![0u8; s.size as usize];
                file.seek(SeekFrom::Start(s.offset))
                    .and_then(|_| file.read_exact(&mut bytes))
                    .map_err(|error| DemuxError::Sample {
                        index: *next - 1,
                        error,
                    })?;
                let data = self.framing.annex_b(&bytes, s.keyframe)?;
                Ok(Some(Packet { data, pts: s.pts }))
            }
            Source::Matroska {
                file, track, frame, ..
            } => loop {
                // The parser is another crate's: damage it does not expect stays an error.
                let more = guarded_parse("Matroska", || file.next_frame(frame))?
                    .map_err(DemuxError::MatroskaFrame)?;
                if !more {
                    return Ok(None);
                }
                if frame.track != *track {
                    continue;
                }
                let keyframe = frame.is_keyframe.unwrap_or(true);
                let data = self.framing.annex_b(&frame.data, keyframe)?;
                return Ok(Some(Packet {
                    data,
                    pts: frame.timestamp.min(i64::MAX as u64) as i64,
                }));
            },
        }
    }
}

/// Bits a luma sample: an H.264 stream's as its configuration's SPS says (8 where it says
/// nothing readable), else 10 or 8 by `ten_bit`.
fn sample_depth(codec: Codec, framing: &NalFraming, ten_bit: bool) -> u8 {
    match codec {
        Codec::H264 => super::h264::first_sps(&framing.parameter_sets)
            .and_then(Result::ok)
            .map_or(8, |sps| sps.bit_depth_luma),
        _ if ten_bit => 10,
        _ => 8,
    }
}

/// The sample layout of a 4:2:0 stream of `depth` bits, as ffmpeg names it.
fn pixel_format(depth: u8) -> String {
    match depth {
        8 => "yuv420p".into(),
        d => format!("yuv420p{d}le"),
    }
}

/// `true` when `v` is a usable frame side.
fn side(v: u64) -> Option<u32> {
    (1..=u64::from(MAX_VIDEO_SIDE))
        .contains(&v)
        .then_some(v as u32)
}

/// A frame rate as a fraction from `frames` spread over `seconds`.
fn rate_text(frames: u64, seconds: f64) -> String {
    if frames == 0 || seconds <= 0.0 || !seconds.is_finite() {
        return "25/1".into();
    }
    let fps = frames as f64 / seconds;
    // Whole rates and the NTSC ones as players print them.
    for (n, d) in [(24000, 1001), (30000, 1001), (60000, 1001)] {
        if (fps - f64::from(n) / f64::from(d)).abs() < 0.005 {
            return format!("{n}/{d}");
        }
    }
    if (fps - fps.round()).abs() < 0.005 {
        return format!("{}/1", fps.round() as u64);
    }
    format!("{}/1000", (fps * 1000.0).round() as u64)
}

/// `reads`: the read guard's counts of `file`.
fn open_mp4(
    path: &Path,
    mut file: Box<dyn Input>,
    size: u64,
    reads: Arc<ReadCounts>,
) -> Result<Demuxer, DemuxError> {
    // The parser is another crate's: damage it does not expect must stay an error.
    let mp4 =
        guarded_parse("MP4", || re_mp4::Mp4::read(&mut file, size))?.map_err(DemuxError::Mp4)?;
    let track = mp4
        .tracks()
        .values()
        .find(|t| t.kind == Some(re_mp4::TrackKind::Video))
        .ok_or(DemuxError::NoVideo)?;
    let trak = track.trak(&mp4);
    // A turned picture (phone videos): ffmpeg applies the turn, NVDEC's frames would not.
    let m = &trak.tkhd.matrix;
    if m.b != 0 || m.c != 0 || m.a < 0 || m.d < 0 {
        return Err(DemuxError::Turned);
    }
    let stsd = &trak.mdia.minf.stbl.stsd.contents;
    let (codec, framing, ten_bit) = match stsd {
        re_mp4::StsdBoxContent::Avc1(c) => (
            Codec::H264,
            NalFraming::from_avcc(&c.avcc.raw).ok_or(DemuxError::Config("avcC"))?,
            false,
        ),
        re_mp4::StsdBoxContent::Hev1(c) | re_mp4::StsdBoxContent::Hvc1(c) => (
            Codec::Hevc,
            NalFraming::from_hvcc(&c.hvcc.raw).ok_or(DemuxError::Config("hvcC"))?,
            c.hvcc.raw.get(17).is_some_and(|b| b & 7 != 0),
        ),
        re_mp4::StsdBoxContent::Vp09(c) => (
            Codec::Vp9,
            NalFraming::default(),
            c.vpcc.raw.get(6).is_some_and(|b| b >> 4 > 8),
        ),
        other => {
            return Err(DemuxError::Codec(
                other.codec_string().unwrap_or_else(|| "unknown".into()),
            ))
        }
    };
    let depth = sample_depth(codec, &framing, ten_bit);
    let (width, height) = (
        side(u64::from(track.width)).ok_or(DemuxError::NoSize)?,
        side(u64::from(track.height)).ok_or(DemuxError::NoSize)?,
    );
    if track.samples.is_empty() {
        return Err(DemuxError::NoFrames);
    }
    let mut samples: Vec<Mp4Sample> = Vec::with_capacity(track.samples.len());
    for s in &track.samples {
        if s.offset.checked_add(s.size).is_none_or(|end| end > size) {
            return Err(DemuxError::PastTheEnd(samples.len()));
        }
        samples.push(Mp4Sample {
            offset: s.offset,
            size: s.size,
            pts: s.composition_timestamp,
            keyframe: s.is_sync,
        });
    }
    let seconds = track.duration as f64 / track.timescale.max(1) as f64;
    let frames = samples.len() as u64;
    let info = VideoInfo {
        width,
        height,
        codec: codec.name().into(),
        pixel_format: pixel_format(depth),
        frame_rate: rate_text(frames, seconds),
        frames: Some(frames),
        duration: (seconds > 0.0).then_some(seconds),
        colour: None,
    };
    Ok(Demuxer {
        source: Source::Mp4 {
            file,
            samples,
            next: 0,
            seek: None,
        },
        framing,
        codec,
        depth,
        info,
        path: path.to_path_buf(),
        reads,
    })
}

/// `reads`: the read guard's counts of `file`.
fn open_matroska(
    path: &Path,
    file: Box<dyn Input>,
    reads: Arc<ReadCounts>,
) -> Result<Demuxer, DemuxError> {
    let mkv = guarded_parse("Matroska", || matroska_demuxer::MatroskaFile::open(file))?
        .map_err(DemuxError::Matroska)?;
    let track = mkv
        .tracks()
        .iter()
        .find(|t| t.track_type() == matroska_demuxer::TrackType::Video)
        .ok_or(DemuxError::NoVideo)?;
    let private = track.codec_private().unwrap_or(&[]);
    let (codec, framing) = match track.codec_id() {
        "V_MPEG4/ISO/AVC" => (
            Codec::H264,
            NalFraming::from_avcc(private).ok_or(DemuxError::Config("avcC"))?,
        ),
        "V_MPEGH/ISO/HEVC" => (
            Codec::Hevc,
            NalFraming::from_hvcc(private).ok_or(DemuxError::Config("hvcC"))?,
        ),
        "V_VP9" => (Codec::Vp9, NalFraming::default()),
        other => return Err(DemuxError::Codec(other.to_string())),
    };
    let ten_bit = codec == Codec::Hevc && private.get(17).is_some_and(|b| b & 7 != 0);
    let depth = sample_depth(codec, &framing, ten_bit);
    let video = track.video().ok_or(DemuxError::NoSize)?;
    let (width, height) = (
        side(video.pixel_width().get()).ok_or(DemuxError::NoSize)?,
        side(video.pixel_height().get()).ok_or(DemuxError::NoSize)?,
    );
    let scale = mkv.info().timestamp_scale().get() as f64;
    let seconds = mkv.info().duration().map(|d| d * scale / 1e9);
    let frame_rate = match track.default_duration() {
        Some(ns) => rate_text(1_000_000_000, ns.get() as f64),
        None => "25/1".into(),
    };
    let track_number = track.track_number().get();
    let info = VideoInfo {
        width,
        height,
        codec: codec.name().into(),
        pixel_format: pixel_format(depth),
        frame_rate,
        frames: None,
        duration: seconds,
        colour: None,
    };
    Ok(Demuxer {
        source: Source::Matroska {
            file: Box::new(mkv),
            track: track_number,
            frame: matroska_demuxer::Frame::default(),
            seek: None,
            pending: None,
        },
        framing,
        codec,
        depth,
        info,
        path: path.to_path_buf(),
        reads,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clip(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/video")
            .join(name)
    }

    /// Every packet of `name`.
    fn packets(name: &str) -> (Demuxer, Vec<Packet>) {
        let mut d = Demuxer::open(&clip(name)).expect("opens");
        let mut all = Vec::new();
        while let Some(p) = d.next_packet().expect("packet") {
            all.push(p);
        }
        (d, all)
    }

    /// Whether an Annex B packet holds a keyframe's parameter sets (SPS: H.264 type 7,
    /// HEVC VPS type 32), which the demuxer puts before every keyframe only.
    fn starts_a_gop(codec: Codec, data: &[u8]) -> bool {
        data.windows(4).any(|w| {
            w[..3] == [0, 0, 1]
                && match codec {
                    Codec::H264 => w[3] & 0x1f == 7,
                    _ => (w[3] >> 1) & 0x3f == 32,
                }
        })
    }

    /// How many SPS units an Annex B H.264 packet holds.
    fn sps_count(data: &[u8]) -> usize {
        data.windows(4)
            .filter(|w| w[..3] == [0, 0, 1] && w[3] & 0x1f == 7)
            .count()
    }

    #[test]
    fn a_stream_whose_size_changes_keeps_its_own_parameter_sets() {
        // Keyframes every 6 frames, each with its SPS in band; the segments of another
        // size than the first would be undone by the configuration's SPS put before them.
        let (_, all) = packets("sizes_h264.mp4");
        assert_eq!(all.len(), 48);
        let keyframes: Vec<usize> = (0..all.len())
            .filter(|&i| starts_a_gop(Codec::H264, &all[i].data))
            .collect();
        assert_eq!(keyframes.len(), 8, "{keyframes:?}");
        for i in keyframes {
            assert_eq!(sps_count(&all[i].data), 1, "packet {i}: one SPS, its own");
        }
    }

    #[test]
    fn seeks_start_at_the_keyframe_before_the_frame() {
        // Keyframes every 6 frames with B-frames: closed GOPs (H.264), open GOPs whose
        // leading pictures show before their keyframe (HEVC: frame 5 follows frame 6).
        // Matroska seeks by the demuxer's own index of the track's keyframes.
        for name in ["gop_h264.mp4", "gop_hevc.mp4", "gop_hevc.mkv"] {
            let (d, all) = packets(name);
            let codec = d.codec();
            let mut times: Vec<i64> = all.iter().map(|p| p.pts).collect();
            times.sort_unstable();
            // In decode order: the open GOPs' leading pictures follow their keyframe.
            let gop = if codec == Codec::H264 { 6 } else { 7 };
            let mp4 = name.ends_with(".mp4");
            assert_eq!(d.longest_gop(), mp4.then_some(gop), "{name}");
            let mut d = Demuxer::open(&clip(name)).expect("opens");
            for k in [23u64, 5, 0, 6, 11, 12, 17, 1] {
                let start = d.seek_frame(k).expect("seeks");
                assert_eq!(start, SeekStart::Pts(times[k as usize]), "{name} {k}");
                let first = d.next_packet().expect("packet").expect("a packet");
                assert!(
                    starts_a_gop(codec, &first.data),
                    "{name} {k}: not a keyframe"
                );
                // The keyframe of the frame's own GOP, or the one before for a leading
                // picture that shows before its keyframe.
                let at = all
                    .iter()
                    .position(|p| p == &first)
                    .expect("a packet of the clip");
                let target = all.iter().position(|p| p.pts == times[k as usize]).unwrap();
                assert!(at <= target && first.pts <= times[k as usize], "{name} {k}");
                let later_key = all[at + 1..=target]
                    .iter()
                    .any(|p| starts_a_gop(codec, &p.data) && p.pts <= times[k as usize]);
                assert!(!later_key, "{name} {k}: a nearer keyframe was passed over");
            }
            assert_eq!(d.seek_frame(24).expect("seeks"), SeekStart::Pts(i64::MAX));
            assert!(
                d.next_packet().expect("end").is_none(),
                "{name}: past the end"
            );
        }
        // Seeking reads the file again, as often as asked: the read guard (which stops a
        // parser going round in circles) starts its count again at each seek.
        let mut d = Demuxer::open(&clip("gop_h264.mp4")).expect("opens");
        for _ in 0..400 {
            d.seek_frame(0).expect("seeks");
            while d.next_packet().expect("reads again").is_some() {}
        }
        // Frame 5 of the open-GOP HEVC shows before keyframe 6 and needs the GOP before.
        let mut d = Demuxer::open(&clip("gop_hevc.mp4")).expect("opens");
        d.seek_frame(5).expect("seeks");
        let (_, all) = packets("gop_hevc.mp4");
        assert_eq!(d.next_packet().expect("packet").as_ref(), all.first());
        // One keyframe: a Matroska seek goes back to the first packet.
        let (_, all) = packets("texture_hevc10.mkv");
        let mut times: Vec<i64> = all.iter().map(|p| p.pts).collect();
        times.sort_unstable();
        let mut d = Demuxer::open(&clip("texture_hevc10.mkv")).expect("opens");
        d.next_packet().expect("packet");
        assert_eq!(d.seek_frame(7).expect("seeks"), SeekStart::Pts(times[7]));
        assert_eq!(d.next_packet().expect("packet").as_ref(), all.first());
        assert_eq!(d.longest_gop(), None);
    }

    #[test]
    fn mp4_h264_becomes_annex_b_with_its_parameter_sets() {
        let (d, all) = packets("counter_h264.mp4");
        assert_eq!(d.codec(), Codec::H264);
        assert_eq!((d.info().width, d.info().height), (64, 48));
        assert_eq!(d.info().frames, Some(24));
        assert_eq!(d.info().frame_rate, "24/1");
        assert_eq!(all.len(), 24);
        // The first packet: SPS (type 7) then PPS (8) then the slices.
        assert_eq!(&all[0].data[..5], &[0, 0, 0, 1, 0x67]);
        assert!(all[0].data.windows(5).any(|w| w == [0, 0, 0, 1, 0x68]));
        // Presentation times as ffprobe gives them (timescale 12288 at 24 fps).
        let pts: Vec<i64> = all.iter().map(|p| p.pts).collect();
        assert_eq!(pts, (0..24).map(|i| 512 * i).collect::<Vec<_>>());
    }

    #[test]
    fn matroska_hevc_and_webm_vp9_give_their_frames() {
        let (d, all) = packets("counter_hevc10.mkv");
        assert_eq!(d.codec(), Codec::Hevc);
        assert_eq!(d.info().pixel_format, "yuv420p10le");
        assert_eq!(all.len(), 12);
        // VPS (type 32) first: 0x40 = 32 << 1.
        assert_eq!(&all[0].data[..5], &[0, 0, 0, 1, 0x40]);
        let (d, all) = packets("counter_vp9.webm");
        assert_eq!(d.codec(), Codec::Vp9);
        assert_eq!(all.len(), 12);
        // A VP9 key frame: frame marker 2 in the top bits of its first byte.
        assert_eq!(all[0].data[0] >> 6, 2);
    }

    #[test]
    fn bad_files_are_one_line_errors() {
        for name in ["truncated.mp4", "audio_only.m4a", "turned.mp4"] {
            let e = Demuxer::open(&clip(name)).err().expect("refused");
            assert!(!e.to_string().contains('\n'), "{e}");
        }
        let dir = tempfile::tempdir().expect("dir");
        for (name, bytes) in [
            ("text.mp4", b"hello, this is not a video at all".to_vec()),
            ("short.mkv", vec![0x1a, 0x45, 0xdf, 0xa3, 0x01]),
        ] {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes).expect("write");
            assert!(Demuxer::open(&p).is_err(), "{name}");
        }
    }

    /// Opens `bytes` and reads every packet: the packet count, or the one-line error.
    fn drain(bytes: Vec<u8>) -> Result<usize, String> {
        let input: Box<dyn Input> = Box::new(std::io::Cursor::new(bytes));
        let mut d = Demuxer::from_input(Path::new("x"), input).map_err(|e| e.to_string())?;
        let mut n = 0;
        while d.next_packet().map_err(|e| e.to_string())?.is_some() {
            n += 1;
        }
        Ok(n)
    }

    /// Every clip cut short at many lengths and with bytes flipped at random places: each
    /// opens and gives packets, or ends in one line; nothing panics, nothing hangs.
    #[test]
    fn damaged_clips_end_in_one_line() {
        let mut seed = 0x9e37_79b9_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut errors = 0;
        for name in [
            "counter_h264.mp4",
            "texture_h264.mp4",
            "texture_hevc_full.mp4",
            "texture_hevc10.mkv",
            "texture_vp9.webm",
        ] {
            let whole = std::fs::read(clip(name)).expect("clip");
            let full = drain(whole.clone()).expect("the clip itself");
            assert!(full >= 12, "{name}: {full} packets");
            for cut in (0..whole.len()).step_by(whole.len() / 40 + 1) {
                if let Err(e) = drain(whole[..cut].to_vec()) {
                    assert!(!e.contains('\n'), "{name} cut at {cut}: {e}");
                    errors += 1;
                }
            }
            for _ in 0..200 {
                let mut bytes = whole.clone();
                for _ in 0..1 + next() % 8 {
                    let at = (next() % bytes.len() as u64) as usize;
                    bytes[at] ^= 1 << (next() % 8);
                }
                if let Err(e) = drain(bytes) {
                    assert!(!e.contains('\n'), "{name} flipped: {e}");
                    errors += 1;
                }
            }
        }
        assert!(errors > 0, "no damage was noticed at all");
    }

    /// An MP4 written with its index first and cut short (its media box, and the samples
    /// its table lists, run past the end of the file) is refused when it opens.
    #[test]
    fn an_index_first_mp4_cut_short_is_refused() {
        let e = Demuxer::open(&clip("faststart_cut.mp4"))
            .err()
            .expect("refused");
        let line = e.to_string();
        assert!(
            line.contains("cannot read its container") && !line.contains('\n'),
            "{line}"
        );
    }

    #[test]
    fn length_prefixed_units_are_checked() {
        let f = NalFraming {
            length_size: 4,
            parameter_sets: vec![0, 0, 0, 1, 9],
            hevc: false,
        };
        assert_eq!(
            f.annex_b(&[0, 0, 0, 2, 0x65, 1, 0, 0, 0, 1, 0x41], true)
                .expect("units"),
            vec![0, 0, 0, 1, 9, 0, 0, 0, 1, 0x65, 1, 0, 0, 0, 1, 0x41]
        );
        // A keyframe with an SPS of its own (type 7) keeps it and gets no other.
        assert_eq!(
            f.annex_b(&[0, 0, 0, 2, 0x67, 5, 0, 0, 0, 1, 0x65], true)
                .expect("units"),
            vec![0, 0, 0, 1, 0x67, 5, 0, 0, 0, 1, 0x65]
        );
        assert!(f.annex_b(&[0, 0, 0, 9, 1], false).is_err());
        assert!(f.annex_b(&[0, 0], false).is_err());
    }
}
