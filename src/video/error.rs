//! What can go wrong with a video, each a line for the user.

use std::path::PathBuf;

/// Why a video cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum VideoError {
    #[error("videos are decoded and encoded by the {0} program, which is not on the PATH (install ffmpeg)")]
    NoFfmpeg(&'static str),
    #[error("{path}: {reason}")]
    Input { path: PathBuf, reason: String },
    #[error("{path}: not a video ffmpeg can read ({reason})")]
    Probe { path: PathBuf, reason: String },
    #[error("{path}: cannot read its container ({reason})")]
    Container { path: PathBuf, reason: String },
    #[error("{path}: no video stream (sound or data only)")]
    NoVideo { path: PathBuf },
    #[error("{path}: {what} {value}: out of range")]
    Declared {
        path: PathBuf,
        what: &'static str,
        value: String,
    },
    #[error("{path}: frame {frame}: {reason}")]
    Decode {
        path: PathBuf,
        frame: u64,
        reason: String,
    },
    #[error("{path}: NVDEC cannot decode it ({reason})")]
    NoNvdec { path: PathBuf, reason: String },
    #[error("encoding: {0}")]
    Encode(String),
    #[error("{0}")]
    Io(String),
}

/// A run of `ffmpeg` or `ffprobe` that ended badly: how, and the last thing it said.
#[derive(Debug, thiserror::Error)]
#[error("{program} failed ({status}): {message}")]
pub struct ProgramFailed {
    pub program: &'static str,
    pub status: String,
    pub message: String,
}
