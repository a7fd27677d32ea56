//! Videos: decoded on the GPU by NVDEC ([`nvdec`], demuxed in Rust by [`demux`], converted
//! by [`yuv`]'s arithmetic), else through the `ffmpeg` program when it is on the PATH, else
//! (H.264 only) by OpenH264 on the CPU ([`openh264`]; [`HostFrames`] picks between the
//! last two): what a file holds ([`describe`], [`probe`]), its frames as RGBA in
//! presentation order ([`FrameReader`]), and frames encoded into MP4, Matroska or WebM
//! ([`VideoWriter`]). A file is checked before anything reads it (a regular file, not
//! empty), so a FIFO or a folder never blocks a decoder.

pub mod demux;
mod error;
mod ffmpeg;
pub mod h264;
mod host;
mod info;
pub mod nvdec;
pub mod openh264;
mod presentation;
pub mod yuv;

pub use error::{DemuxError, NvdecError, OpenH264Error, SpsError, VideoError};
pub use ffmpeg::Container;
pub use host::{HostDecoder, HostFrames};
use image::RgbaImage;
use info::check_input;
pub use info::{VideoInfo, MAX_VIDEO_SIDE};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use yuv::{Yuv420, YuvFormat, YuvToRgb};

/// Extensions taken as videos (any case).
pub const VIDEO_EXTENSIONS: [&str; 7] = ["mp4", "m4v", "mov", "mkv", "webm", "avi", "m4a"];
/// The `ffmpeg` that reads and writes videos ("ffmpeg version 5.1.6 …"), when `ffmpeg` and
/// `ffprobe` both run here.
pub fn ffmpeg_found() -> Option<String> {
    let version = ffmpeg::version_line("ffmpeg")?;
    ffmpeg::version_line("ffprobe").map(|_| version)
}

/// Whether `path` names a video by its extension.
pub fn is_video_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| VIDEO_EXTENSIONS.iter().any(|v| v.eq_ignore_ascii_case(e)))
}

/// The container an output path asks for, by its extension.
pub fn container_of(path: &Path) -> Option<Container> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "mp4" | "m4v" | "mov" => Some(Container::Mp4),
        "mkv" => Some(Container::Matroska),
        "webm" => Some(Container::WebM),
        _ => None,
    }
}

#[derive(serde::Deserialize)]
struct ProbeStream {
    codec_type: Option<String>,
    codec_name: Option<String>,
    width: Option<u64>,
    height: Option<u64>,
    avg_frame_rate: Option<String>,
    nb_frames: Option<String>,
    pix_fmt: Option<String>,
    color_space: Option<String>,
    color_range: Option<String>,
}

#[derive(serde::Deserialize)]
struct ProbeFormat {
    duration: Option<String>,
}

#[derive(serde::Deserialize)]
struct Probe {
    #[serde(default)]
    streams: Vec<ProbeStream>,
    format: Option<ProbeFormat>,
}

/// The first video stream of `json` (ffprobe's answer about `path`), its declared size
/// checked.
fn info_from_json(path: &Path, json: &str) -> Result<VideoInfo, VideoError> {
    let probe: Probe = serde_json::from_str(json).map_err(|e| VideoError::Probe {
        path: path.to_path_buf(),
        reason: format!("ffprobe's answer: {e}"),
    })?;
    let duration = probe
        .format
        .and_then(|f| f.duration)
        .and_then(|d| d.parse::<f64>().ok());
    let stream = probe
        .streams
        .into_iter()
        .find(|s| s.codec_type.as_deref() == Some("video"))
        .ok_or_else(|| VideoError::NoVideo {
            path: path.to_path_buf(),
        })?;
    let side = |what: &'static str, v: Option<u64>| match v {
        Some(v) if (1..=u64::from(MAX_VIDEO_SIDE)).contains(&v) => Ok(v as u32),
        other => Err(VideoError::Declared {
            path: path.to_path_buf(),
            what,
            value: other.map_or("missing".into(), |v| v.to_string()),
        }),
    };
    Ok(VideoInfo {
        width: side("width", stream.width)?,
        height: side("height", stream.height)?,
        codec: stream.codec_name.unwrap_or_else(|| "unknown".into()),
        pixel_format: stream.pix_fmt.unwrap_or_else(|| "unknown".into()),
        frame_rate: stream
            .avg_frame_rate
            .filter(|r| r != "0/0")
            .unwrap_or_else(|| "25/1".into()),
        frames: stream.nb_frames.and_then(|n| n.parse().ok()),
        duration,
        colour: Some((
            stream.color_space.unwrap_or_else(|| "unknown".into()),
            stream.color_range.unwrap_or_else(|| "unknown".into()),
        )),
    })
}

/// A video file described and ready to decode: its first video stream and, where the Rust
/// demuxer reads the file, that demuxer (NVDEC takes it over, so the index is read once).
pub struct VideoFile {
    pub path: PathBuf,
    pub info: VideoInfo,
    demuxer: Option<demux::Demuxer>,
}

impl VideoFile {
    /// Describes `path` by the Rust demuxer where it reads the file (MP4/MOV, Matroska,
    /// WebM with H.264, HEVC or VP9), else by ffprobe.
    pub fn open(path: &Path) -> Result<Self, VideoError> {
        let (info, demuxer) = match demux::Demuxer::open(path) {
            Ok(d) => (d.info().clone(), Some(d)),
            Err(demuxed) => match probe(path) {
                Err(VideoError::NoFfmpeg(_)) => return Err(demuxed),
                other => (other?, None),
            },
        };
        Ok(Self {
            path: path.to_path_buf(),
            info,
            demuxer,
        })
    }

    /// The demuxer [`VideoFile::open`] read the file with, once.
    pub fn take_demuxer(&mut self) -> Option<demux::Demuxer> {
        self.demuxer.take()
    }
}

/// What the first video stream of `path` is: [`VideoFile::open`]'s description.
pub fn describe(path: &Path) -> Result<VideoInfo, VideoError> {
    VideoFile::open(path).map(|v| v.info)
}

/// What the first video stream of `path` is (ffprobe).
pub fn probe(path: &Path) -> Result<VideoInfo, VideoError> {
    check_input(path)?;
    let json = ffmpeg::probe_json(path)?;
    info_from_json(path, &json)
}

/// A video's frames as RGBA, in presentation order, from an `ffmpeg` decoding it: 4:2:0
/// streams as their samples, converted here as NVDEC's frames are (so both decoders give
/// the same pixels), other layouts as ffmpeg's RGBA.
pub struct FrameReader {
    program: Option<ffmpeg::Program>,
    out: Option<std::process::ChildStdout>,
    path: PathBuf,
    info: VideoInfo,
    /// The samples' layout and their conversion (None: ffmpeg sends RGBA).
    yuv: Option<(YuvFormat, YuvToRgb)>,
    frame: u64,
}

impl FrameReader {
    pub fn open(path: &Path) -> Result<Self, VideoError> {
        let info = probe(path)?;
        Self::open_at(path, info, 0)
    }

    /// The frames of `path` (described by `info`) from frame `first` on: an exact seek
    /// at the frame rate (ffmpeg decodes forward from the keyframe before).
    pub fn open_at(path: &Path, info: VideoInfo, first: u64) -> Result<Self, VideoError> {
        check_input(path)?;
        // The colour comes from ffprobe (the Rust demuxer does not read it).
        // The colour and sample layout come from ffprobe (the Rust demuxer reads neither).
        let info = match info.colour {
            Some(_) => info,
            None => {
                let probed = probe(path)?;
                VideoInfo {
                    colour: probed.colour,
                    pixel_format: probed.pixel_format,
                    ..info
                }
            }
        };
        let yuv = info.yuv_format().map(|f| (f, YuvToRgb::new(f)));
        // Half a frame early: the first frame at or after that time is frame `first`.
        let from = (first > 0).then(|| (info.frame_time(first) - 0.5 / info.fps()).max(0.0));
        // 4:2:0 in the stream's own layout (its depth and range untouched).
        let pix_fmt = if yuv.is_some() {
            info.pixel_format.as_str()
        } else {
            "rgba"
        };
        let mut program = ffmpeg::decode(path, from, pix_fmt)?;
        let out = program.take_stdout();
        Ok(Self {
            program: Some(program),
            out,
            path: path.to_path_buf(),
            info,
            yuv,
            frame: first,
        })
    }

    pub fn info(&self) -> &VideoInfo {
        &self.info
    }

    /// The next frame, None after the last; a decoder failure is an error naming the
    /// frame it stopped at.
    pub fn next_frame(&mut self) -> Result<Option<RgbaImage>, VideoError> {
        let (w, h) = (self.info.width, self.info.height);
        let Some(out) = self.out.as_mut() else {
            return Ok(None);
        };
        let frame_bytes = match self.yuv {
            Some((f, _)) => {
                let (cw, ch) = yuv::chroma_size(w, h);
                let samples = w as usize * h as usize + 2 * cw as usize * ch as usize;
                samples * if f.depth > 8 { 2 } else { 1 }
            }
            None => w as usize * h as usize * 4,
        };
        let mut bytes = vec![0u8; frame_bytes];
        let mut filled = 0;
        while filled < bytes.len() {
            match out.read(&mut bytes[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.failed(e.to_string())),
            }
        }
        if filled == bytes.len() {
            self.frame += 1;
            return match self.yuv {
                Some((f, k)) => Yuv420::from_planar(&bytes, (w, h), f.depth > 8)
                    .map(|p| Some(p.to_rgba(&k)))
                    .ok_or_else(|| self.failed("a frame of the wrong size".into())),
                None => Ok(RgbaImage::from_raw(w, h, bytes)),
            };
        }
        // The end of the stream: the decoder says whether it ended well.
        self.out = None;
        let finished = self.program.take().map_or(Ok(()), ffmpeg::Program::finish);
        match (finished, filled) {
            (Err(e), _) => Err(self.failed(e.to_string())),
            (Ok(()), 0) if self.frame > 0 => Ok(None),
            (Ok(()), 0) => Err(self.failed("no frame decoded".into())),
            (Ok(()), n) => Err(self.failed(format!("the last frame ends after {n} bytes"))),
        }
    }

    fn failed(&self, reason: String) -> VideoError {
        VideoError::Decode {
            path: self.path.clone(),
            frame: self.frame,
            reason,
        }
    }
}

impl Drop for FrameReader {
    fn drop(&mut self) {
        self.out = None;
        if let Some(p) = self.program.take() {
            p.kill();
        }
    }
}

/// Frames encoded by `ffmpeg` into a container; the encoded bytes come out of the reader
/// [`VideoWriter::start`] returns, which the caller drains on another thread.
pub struct VideoWriter {
    program: ffmpeg::Program,
    stdin: Option<std::process::ChildStdin>,
    size: (u32, u32),
}

impl VideoWriter {
    /// Starts the encoder of `width × height` frames at `frame_rate` ("30000/1001").
    pub fn start(
        (width, height): (u32, u32),
        frame_rate: &str,
        container: Container,
    ) -> Result<(Self, impl Read + Send), VideoError> {
        let mut program = ffmpeg::encode(width, height, frame_rate, container)?;
        let stdin = program.take_stdin();
        let encoded = program
            .take_stdout()
            .ok_or_else(|| VideoError::Encode("no output from ffmpeg".into()))?;
        let writer = Self {
            program,
            stdin,
            size: (width, height),
        };
        Ok((writer, encoded))
    }

    /// Adds a frame (the writer's size).
    pub fn push(&mut self, frame: &RgbaImage) -> Result<(), VideoError> {
        if frame.dimensions() != self.size {
            return Err(VideoError::Encode(format!(
                "a {}×{} frame in a {}×{} video",
                frame.width(),
                frame.height(),
                self.size.0,
                self.size.1
            )));
        }
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| VideoError::Encode("the encoder's input is closed".into()))?;
        stdin
            .write_all(frame.as_raw())
            .map_err(|e| VideoError::Encode(format!("ffmpeg stopped taking frames: {e}")))
    }

    /// Ends the input and waits for the encoder's verdict.
    pub fn finish(mut self) -> Result<(), VideoError> {
        self.stdin = None;
        self.program
            .finish()
            .map_err(|e| VideoError::Encode(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_are_read_and_checked() {
        let p = Path::new("clip.mp4");
        let json = r#"{"streams":[{"codec_type":"audio","codec_name":"aac"},
            {"codec_type":"video","codec_name":"h264","width":64,"height":48,
             "avg_frame_rate":"30000/1001","nb_frames":"24","pix_fmt":"yuv420p"}]}"#;
        let info = info_from_json(p, json).expect("info");
        assert_eq!((info.width, info.height, info.frames), (64, 48, Some(24)));
        assert!((info.fps() - 29.97).abs() < 0.01);
        assert_eq!(info.frame_count(), Some(24));
        let mkv = r#"{"streams":[{"codec_type":"video","width":64,"height":48,
             "avg_frame_rate":"24/1"}],"format":{"duration":"0.500000"}}"#;
        let info = info_from_json(p, mkv).expect("info");
        assert_eq!((info.frames, info.frame_count()), (None, Some(12)));
        assert_eq!(info.frame_time(6), 0.25);
        let audio = r#"{"streams":[{"codec_type":"audio","codec_name":"aac"}]}"#;
        assert!(matches!(
            info_from_json(p, audio),
            Err(VideoError::NoVideo { .. })
        ));
        let huge = r#"{"streams":[{"codec_type":"video","width":100000,"height":48}]}"#;
        assert!(matches!(
            info_from_json(p, huge),
            Err(VideoError::Declared { .. })
        ));
        assert!(info_from_json(p, "not json").is_err());
    }

    #[test]
    fn videos_and_containers_are_named_by_extension() {
        assert!(is_video_path(Path::new("a/B.MP4")) && is_video_path(Path::new("x.webm")));
        assert!(!is_video_path(Path::new("x.png")) && !is_video_path(Path::new("mp4")));
        assert_eq!(container_of(Path::new("o.mov")), Some(Container::Mp4));
        assert_eq!(container_of(Path::new("o.webm")), Some(Container::WebM));
        assert_eq!(container_of(Path::new("o.png")), None);
    }
}
