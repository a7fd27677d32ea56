//! H.264 decoded on the CPU by Cisco's OpenH264, where neither NVDEC nor ffmpeg decodes:
//! the Rust demuxer's packets in, RGBA frames in presentation order out, converted by
//! [`yuv`](super::yuv) as NVDEC's and ffmpeg's frames are, with the matrix and range the
//! stream's SPS signals. OpenH264 takes 8-bit 4:2:0 frame-coded H.264 (B-frames and High
//! profile included); anything else is refused with one line naming the stream and what
//! decodes it. Seeks are exact as NVDEC's: decoding starts at the demuxer's keyframe before
//! the frame and the frames shown before it are dropped.

mod decoder;

use super::demux::{Codec, Demuxer, Packet};
use super::error::{DemuxError, OpenH264Error, VideoError};
use super::h264::{self, Sps};
use super::info::VideoInfo;
use super::presentation::{Presentation, Presenting};
use super::yuv::{Matrix, Yuv420, YuvFormat, YuvToRgb};
use decoder::{H264Decoder, Picture};
use image::RgbaImage;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Decoded pictures held for presentation order at the most; past it, pictures whose packet
/// gave none are given up (H.264 holds at most 16 frames for reordering).
const MAX_HELD: usize = 16;
/// Flush calls at the end of the stream at the most (each gives one held picture).
const MAX_FLUSHES: usize = 64;

/// A video's H.264 stream decoded by OpenH264, frame by frame in presentation order.
pub struct OpenH264Reader {
    demux: Demuxer,
    decoder: H264Decoder,
    path: PathBuf,
    /// The size frames come out at: the container's (a picture of another size is scaled
    /// to it, as the other decoders keep one size).
    size: (u32, u32),
    /// The conversion the last SPS asks for.
    colour: YuvFormat,
    /// The last SPS sent to the decoder.
    sps: Option<Vec<u8>>,
    order: Reorder,
    /// The number of the next frame handed out (presentation order).
    frame: u64,
    presentation: Presentation,
}

impl OpenH264Reader {
    /// Opens `path` for OpenH264; a stream it does not decode is refused now.
    pub fn open(path: &Path) -> Result<Self, VideoError> {
        match Demuxer::open(path) {
            Ok(demux) => Self::with_demuxer(path, demux),
            // A codec the demuxer does not take: a line that names it.
            Err(VideoError::Container {
                reason: DemuxError::Codec(codec),
                ..
            }) => Err(VideoError::NoDecoder {
                path: path.to_path_buf(),
                what: codec,
                nvdec_could: false,
                nvdec: None,
            }),
            Err(e) => Err(e),
        }
    }

    /// [`OpenH264Reader::open`] with `demux`, the file's demuxer (the index already read).
    pub fn with_demuxer(path: &Path, demux: Demuxer) -> Result<Self, VideoError> {
        let refused = |what: String, nvdec_could: bool| VideoError::NoDecoder {
            path: path.to_path_buf(),
            what,
            nvdec_could,
            nvdec: None,
        };
        let failed = |reason: OpenH264Error| VideoError::OpenH264 {
            path: path.to_path_buf(),
            frame: 0,
            reason,
        };
        let codec = demux.codec();
        if codec != Codec::H264 {
            let depth = demux.bit_depth();
            let what = match depth {
                8 => codec.label().to_string(),
                _ => format!("{} {depth}-bit", codec.label()),
            };
            return Err(refused(what, true));
        }
        let info = demux.info().clone();
        // The configuration's SPS, where it has one (else the first keyframe's says).
        let sps = match h264::first_sps(demux.parameter_sets()) {
            Some(sps) => Some(sps.map_err(|e| failed(e.into()))?),
            None => None,
        };
        if let Some(sps) = sps.filter(|s| !s.is_8bit_420_frames()) {
            // NVDEC takes 8-bit 4:2:0 H.264, interlaced too.
            let nvdec_could = sps.chroma_format_idc == 1 && sps.bit_depth_luma == 8;
            return Err(refused(format!("H.264 {}", sps.layout()), nvdec_could));
        }
        let decoder = H264Decoder::new().map_err(failed)?;
        Ok(Self {
            colour: colour_of(sps.as_ref(), info.height),
            sps: None,
            size: (info.width, info.height),
            demux,
            decoder,
            path: path.to_path_buf(),
            order: Reorder::default(),
            frame: 0,
            presentation: Presentation::default(),
        })
    }

    pub fn info(&self) -> &VideoInfo {
        self.demux.info()
    }

    /// The conversion of the samples (the SPS's matrix and range) as last signalled.
    pub fn yuv_format(&self) -> YuvFormat {
        self.colour
    }

    fn failed(&self, reason: OpenH264Error) -> VideoError {
        VideoError::OpenH264 {
            path: self.path.clone(),
            frame: self.frame,
            reason,
        }
    }

    /// Makes frame `index` (presentation order) the next one [`OpenH264Reader::next_frame`]
    /// hands out: a new decoder starts at the keyframe before it and the frames before it
    /// are dropped. Past the last frame, the reader is at its end.
    pub fn seek(&mut self, index: u64) -> Result<(), VideoError> {
        let start = self.demux.seek_frame(index)?;
        self.presentation.seek(start);
        self.decoder = H264Decoder::new().map_err(|e| self.failed(e))?;
        self.order = Reorder::default();
        self.sps = None;
        self.frame = index;
        Ok(())
    }

    /// The next frame in presentation order, None after the last; damaged data is an error
    /// naming the frame.
    pub fn next_frame(&mut self) -> Result<Option<RgbaImage>, VideoError> {
        Ok(self.next_samples()?.map(|yuv| self.rgba(&yuv)))
    }

    /// [`OpenH264Reader::next_frame`]'s samples as decoded, at their own size (tests
    /// compare them with FFmpeg's).
    pub fn next_samples(&mut self) -> Result<Option<Yuv420>, VideoError> {
        let shown = self.next_shown()?;
        self.frame += u64::from(shown.is_some());
        Ok(shown)
    }

    /// Decodes `packet` (its SPS, where it carries one, read first). Before a new SPS the
    /// decoder is emptied: OpenH264 drops the pictures it holds for reordering when the
    /// sequence changes size, and a new sequence shows after all the pictures before it.
    fn decode(&mut self, packet: &Packet) -> Result<(), VideoError> {
        for unit in h264::annex_b_units(&packet.data).filter(|u| h264::is_sps(u)) {
            let sps = h264::parse_sps(unit).map_err(|e| self.failed(e.into()))?;
            if !sps.is_8bit_420_frames() {
                return Err(self.failed(OpenH264Error::Layout(sps.layout())));
            }
            self.colour = colour_of(Some(&sps), self.size.1);
            if self.sps.as_deref().is_some_and(|last| last != unit) {
                self.flush()?;
            }
            self.sps = Some(unit.to_vec());
        }
        // A picture is waited for where the packet holds a slice.
        if h264::annex_b_units(&packet.data).any(h264::is_slice) {
            self.order.sent(packet.pts);
        }
        let picture = self
            .decoder
            .decode(&packet.data, tag_of(packet.pts))
            .map_err(|e| self.failed(e))?;
        self.take(picture);
        Ok(())
    }

    /// Takes the pictures the decoder still holds.
    /// Takes the pictures the decoder still holds; a slice that gave no picture (OpenH264
    /// drops some damaged ones without an error) is then an error, as it is to ffmpeg.
    fn flush(&mut self) -> Result<(), VideoError> {
        for _ in 0..MAX_FLUSHES {
            match self.decoder.flush().map_err(|e| self.failed(e))? {
                Some(picture) => self.take(Some(picture)),
                None => break,
            }
        }
        match self.order.lost() {
            0 => Ok(()),
            1 => Err(self.failed(OpenH264Error::Damaged("a picture not decoded".into()))),
            n => Err(self.failed(OpenH264Error::Damaged(format!("{n} pictures not decoded")))),
        }
    }

    fn take(&mut self, picture: Option<Picture>) {
        if let Some(p) = picture {
            self.order.decoded(pts_of(p.tag), p.yuv);
        }
    }

    /// `yuv` as RGBA at the reader's size.
    fn rgba(&self, yuv: &Yuv420) -> RgbaImage {
        let rgba = yuv.to_rgba(&YuvToRgb::new(self.colour));
        if rgba.dimensions() == self.size {
            return rgba;
        }
        let (w, h) = self.size;
        image::imageops::resize(&rgba, w, h, image::imageops::FilterType::CatmullRom)
    }
}

/// Pictures put in presentation order by [`Reorder`].
impl Presenting for OpenH264Reader {
    type Frame = Yuv420;

    fn presentation(&mut self) -> &mut Presentation {
        &mut self.presentation
    }

    fn ready(&mut self, ended: bool) -> Option<(i64, Yuv420)> {
        self.order.next(ended)
    }

    fn packet(&mut self) -> Result<Option<Packet>, VideoError> {
        self.demux.next_packet()
    }

    fn send(&mut self, packet: Option<&Packet>) -> Result<(), VideoError> {
        match packet {
            Some(packet) => self.decode(packet),
            None => self.flush(),
        }
    }

    fn no_frame(&self) -> VideoError {
        self.failed(OpenH264Error::NoFrame)
    }
}

/// The conversion an SPS signals (BT.601 or BT.709 by the frame height where it says
/// nothing, as NVDEC's path decides); 8-bit samples.
fn colour_of(sps: Option<&Sps>, height: u32) -> YuvFormat {
    YuvFormat {
        depth: 8,
        matrix: Matrix::from_h273(sps.map_or(2, |s| s.matrix_coefficients), height),
        full_range: sps.is_some_and(|s| s.full_range),
    }
}

/// A presentation time as the decoder's unsigned tag, order kept.
fn tag_of(pts: i64) -> u64 {
    (pts as u64) ^ (1 << 63)
}

/// The presentation time a tag stands for.
fn pts_of(tag: u64) -> i64 {
    (tag ^ (1 << 63)) as i64
}

/// Decoded pictures put in presentation order: the earliest goes out once every packet
/// sent with an earlier time has given its picture. OpenH264 reorders by its own rules
/// (picture order counts, B-slices); this holds its output to the container's times, so
/// that frames come out as ffmpeg's do.
#[derive(Default)]
struct Reorder {
    /// Times of the packets sent whose picture has not come out, with their counts.
    waiting: BTreeMap<i64, usize>,
    /// Pictures out of the decoder by (time, arrival).
    ready: BTreeMap<(i64, u64), Yuv420>,
    arrivals: u64,
    /// Packets whose picture was given up for.
    given_up: usize,
}

impl Reorder {
    fn sent(&mut self, pts: i64) {
        *self.waiting.entry(pts).or_default() += 1;
    }

    fn decoded(&mut self, pts: i64, yuv: Yuv420) {
        if let Some(n) = self.waiting.get_mut(&pts) {
            *n -= 1;
            if *n == 0 {
                self.waiting.remove(&pts);
            }
        }
        self.ready.insert((pts, self.arrivals), yuv);
        self.arrivals += 1;
    }

    /// The next picture to show and its time: the earliest ready one when no packet sent
    /// before it is still waiting (or at the end, or when too many are held: the waiting
    /// packets before it are then given up).
    fn next(&mut self, ending: bool) -> Option<(i64, Yuv420)> {
        let (&(pts, _), _) = self.ready.first_key_value()?;
        let due = self
            .waiting
            .first_key_value()
            .is_none_or(|(&w, _)| pts <= w);
        if !(due || ending || self.ready.len() > MAX_HELD) {
            return None;
        }
        self.given_up += self.waiting.range(..pts).map(|(_, &n)| n).sum::<usize>();
        self.waiting.retain(|&w, _| w >= pts);
        self.ready.pop_first().map(|((pts, _), yuv)| (pts, yuv))
    }

    /// Packets given up for or still waiting: once the decoder is empty, pictures lost.
    fn lost(&self) -> usize {
        self.given_up + self.waiting.values().sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(v: u16) -> Yuv420 {
        Yuv420 {
            width: 2,
            height: 2,
            y: vec![v; 4],
            cb: vec![v],
            cr: vec![v],
        }
    }

    /// Pictures come out by time once nothing earlier waits; duplicates keep their
    /// arrival order; a packet that never gives a picture holds the others back only
    /// until too many wait.
    #[test]
    fn pictures_are_put_in_presentation_order() {
        let mut order = Reorder::default();
        // Decode order I0 P3 B1 B2 (times in frames), OpenH264 giving P3 before B1.
        for t in [0, 3, 1, 2] {
            order.sent(t);
        }
        order.decoded(0, picture(0));
        assert_eq!(order.next(false).map(|p| p.0), Some(0));
        order.decoded(3, picture(3));
        assert!(order.next(false).is_none(), "1 and 2 are still waiting");
        order.decoded(1, picture(1));
        order.decoded(2, picture(2));
        let out: Vec<i64> = std::iter::from_fn(|| order.next(false).map(|p| p.0)).collect();
        assert_eq!(out, [1, 2, 3]);
        // Time 10 never gives a picture: 11.. wait until more than MAX_HELD are held.
        order.sent(10);
        for t in 11..11 + MAX_HELD as i64 {
            order.sent(t);
            order.decoded(t, picture(t as u16));
            assert!(order.next(false).is_none());
        }
        order.sent(99);
        order.decoded(99, picture(99));
        assert_eq!(order.next(false).map(|p| p.0), Some(11));
        assert_eq!(order.next(false).map(|p| p.0), Some(12));
        assert!(order.waiting.keys().all(|&w| w >= 11));
        assert_eq!(order.lost(), 1, "time 10 gave none");
        // At the end everything goes, in order.
        let rest: Vec<i64> = std::iter::from_fn(|| order.next(true).map(|p| p.0)).collect();
        assert_eq!(rest.len(), MAX_HELD - 1);
        assert!(rest.windows(2).all(|w| w[0] < w[1]));
        // Times as tags and back, order kept.
        for t in [i64::MIN, -5, 0, 7, i64::MAX] {
            assert_eq!(pts_of(tag_of(t)), t);
        }
        assert!(tag_of(-1) < tag_of(0) && tag_of(0) < tag_of(1));
    }
}
