//! A video's frames in host memory, from whichever decoder runs here after NVDEC: the
//! `ffmpeg` program where it is on the PATH, else OpenH264 (H.264 only). Every reader of
//! frames outside NVDEC (the window's player, `apply`, `histogram`) opens them here, so the
//! choice, and the line that says nothing decodes a file, are made once.

use super::demux::Demuxer;
use super::openh264::OpenH264Reader;
use super::{FrameReader, VideoError, VideoInfo};
use image::RgbaImage;
use std::path::{Path, PathBuf};

/// Which program or library decodes a [`HostFrames`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostDecoder {
    Ffmpeg,
    OpenH264,
}

/// Frames as RGBA in presentation order, with exact seeks.
pub struct HostFrames {
    path: PathBuf,
    info: VideoInfo,
    source: Source,
}

enum Source {
    Ffmpeg(Box<FrameReader>),
    OpenH264(Box<OpenH264Reader>),
}

impl HostFrames {
    /// The frames of `path` from ffmpeg, or from OpenH264 where ffmpeg is not on the PATH.
    /// `info` describes the file (None: ffprobe describes it); `demuxer` is the file's
    /// demuxer where the caller read it (OpenH264 takes it over).
    pub fn open(
        path: &Path,
        info: Option<VideoInfo>,
        demuxer: Option<Demuxer>,
    ) -> Result<Self, VideoError> {
        let ffmpeg = match info {
            Some(info) => FrameReader::open_at(path, info, 0),
            None => FrameReader::open(path),
        };
        match ffmpeg {
            Ok(reader) => Ok(Self {
                path: path.to_path_buf(),
                info: reader.info().clone(),
                source: Source::Ffmpeg(Box::new(reader)),
            }),
            Err(VideoError::NoFfmpeg(_)) => Self::openh264(path, demuxer),
            Err(e) => Err(e),
        }
    }

    /// The frames of `path` from OpenH264, whether ffmpeg is here or not.
    pub fn openh264(path: &Path, demuxer: Option<Demuxer>) -> Result<Self, VideoError> {
        let reader = match demuxer {
            Some(demux) => OpenH264Reader::with_demuxer(path, demux)?,
            None => OpenH264Reader::open(path)?,
        };
        Ok(Self {
            path: path.to_path_buf(),
            info: reader.info().clone(),
            source: Source::OpenH264(Box::new(reader)),
        })
    }

    pub fn info(&self) -> &VideoInfo {
        &self.info
    }

    pub fn decoder(&self) -> HostDecoder {
        match self.source {
            Source::Ffmpeg(_) => HostDecoder::Ffmpeg,
            Source::OpenH264(_) => HostDecoder::OpenH264,
        }
    }

    /// The next frame, None after the last.
    pub fn next_frame(&mut self) -> Result<Option<RgbaImage>, VideoError> {
        match &mut self.source {
            Source::Ffmpeg(reader) => reader.next_frame(),
            Source::OpenH264(reader) => reader.next_frame(),
        }
    }

    /// Makes frame `index` the next one: ffmpeg starts again at it, OpenH264 seeks.
    pub fn seek(&mut self, index: u64) -> Result<(), VideoError> {
        match &mut self.source {
            Source::Ffmpeg(reader) => {
                **reader = FrameReader::open_at(&self.path, self.info.clone(), index)?;
                Ok(())
            }
            Source::OpenH264(reader) => reader.seek(index),
        }
    }
}

impl VideoError {
    /// A refusal that nothing here decodes the file, with NVDEC's own reason where NVDEC
    /// refused it (`nvdec`).
    pub fn with_nvdec_reason(self, nvdec: Option<&VideoError>) -> Self {
        match (self, nvdec) {
            (
                VideoError::NoDecoder {
                    path,
                    what,
                    nvdec_could,
                    ..
                },
                Some(VideoError::NoNvdec { reason, .. }),
            ) => VideoError::NoDecoder {
                path,
                what,
                nvdec_could,
                nvdec: Some(reason.to_string()),
            },
            (e, _) => e,
        }
    }
}
