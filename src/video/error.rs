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
    Container { path: PathBuf, reason: DemuxError },
    /// A packet the container holds cannot be read.
    #[error("{path}: {reason}")]
    Packet { path: PathBuf, reason: DemuxError },
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
    NoNvdec { path: PathBuf, reason: NvdecError },
    #[error("{path}: frame {frame}: {reason}")]
    Nvdec {
        path: PathBuf,
        frame: u64,
        reason: NvdecError,
    },
    /// Neither NVDEC, ffmpeg nor OpenH264 decodes the stream: what it is, whether NVDEC
    /// could, and NVDEC's own reason where NVDEC was asked.
    #[error(
        "{path}: {what} needs {}the ffmpeg program, which is not on the PATH (install ffmpeg){}",
        if *.nvdec_could { "NVDEC or " } else { "" },
        .nvdec.as_ref().map(|r| format!("; NVDEC: {r}")).unwrap_or_default()
    )]
    NoDecoder {
        path: PathBuf,
        what: String,
        nvdec_could: bool,
        nvdec: Option<String>,
    },
    #[error("{path}: frame {frame}: openh264: {reason}")]
    OpenH264 {
        path: PathBuf,
        frame: u64,
        reason: OpenH264Error,
    },
    #[error("encoding: {0}")]
    Encode(String),
    #[error("{0}")]
    Io(String),
}

/// Why the Rust demuxer does not read a file or one of its packets.
#[derive(Debug, thiserror::Error)]
pub enum DemuxError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("too short to be a video")]
    TooShort,
    /// The parser crate panicked on the file (caught).
    #[error("the {0} parser failed on this file")]
    ParserFailed(&'static str),
    #[error("not an MP4 this reader takes ({0})")]
    Mp4(re_mp4::Error),
    #[error("not a Matroska file this reader takes ({0})")]
    Matroska(matroska_demuxer::DemuxError),
    #[error("Matroska: {0}")]
    MatroskaFrame(matroska_demuxer::DemuxError),
    #[error("no video stream")]
    NoVideo,
    #[error("the picture is turned by its track's matrix (not applied on NVDEC)")]
    Turned,
    /// The codec configuration record (avcC, hvcC) does not parse.
    #[error("a damaged {0}")]
    Config(&'static str),
    #[error("codec {0} (NVDEC here takes H.264, HEVC and VP9)")]
    Codec(String),
    #[error("no frame size")]
    NoSize,
    #[error("no frames")]
    NoFrames,
    #[error("frame {0} lies past the end of the file (cut short?)")]
    PastTheEnd(usize),
    #[error("a sample of {0} bytes")]
    HugeSample(u64),
    #[error("sample {index}: {error}")]
    Sample { index: usize, error: std::io::Error },
    #[error("a NAL unit's length is cut off")]
    CutLength,
    #[error("a NAL unit of {unit} bytes in a sample with {left} left")]
    LongUnit { unit: usize, left: usize },
}

/// Why NVDEC does not take a stream, or stopped decoding it.
#[derive(Debug, thiserror::Error)]
pub enum NvdecError {
    #[error("libnvcuvid.so.1: {0}")]
    Library(&'static str),
    #[error(transparent)]
    Cuda(#[from] crate::cuda::CudaError),
    #[error("this GPU has no {0} decoder")]
    NoDecoder(String),
    #[error("{width}×{height}: this GPU decodes {what} from {min_width}×{min_height} to {max_width}×{max_height}")]
    Size {
        width: u32,
        height: u32,
        what: String,
        min_width: u32,
        min_height: u32,
        max_width: u32,
        max_height: u32,
    },
    #[error("chroma format {0} (NVDEC here takes 4:2:0)")]
    Chroma(u32),
    #[error("{0}-bit samples")]
    Depth(u32),
    #[error("a frame of {0}×{1}")]
    FrameSize(i32, i32),
    #[error("a picture before any sequence header")]
    NoSequence,
    #[error("a frame before any sequence header")]
    FrameBeforeSequence,
    #[error("no frame decoded")]
    NoFrame,
    #[error("the stream's data is damaged")]
    Damaged,
    /// The backend is not CUDA: why (the backend's own reason).
    #[error("{0}")]
    NoCuda(String),
}

/// Why an H.264 sequence parameter set does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpsError {
    #[error("not a sequence parameter set")]
    NotSps,
    #[error("the SPS ends early")]
    Short,
    #[error("an Exp-Golomb code of more than 32 bits in the SPS")]
    LongCode,
    #[error("the SPS's {0} is out of range")]
    Range(&'static str),
}

/// Why OpenH264 does not start, or stopped decoding a stream.
#[derive(Debug, thiserror::Error)]
pub enum OpenH264Error {
    #[error("the decoder does not start ({0})")]
    Create(String),
    #[error("the stream's data is damaged ({0})")]
    Damaged(String),
    #[error("an access unit of {0} bytes")]
    HugeUnit(usize),
    #[error("a picture of {0}")]
    Picture(String),
    #[error(transparent)]
    Sps(#[from] SpsError),
    #[error("the stream turns into H.264 {0}, which openh264 does not decode")]
    Layout(String),
    #[error("no frame decoded")]
    NoFrame,
}

/// A run of `ffmpeg` or `ffprobe` that ended badly: how, and the last thing it said.
#[derive(Debug, thiserror::Error)]
#[error("{program} failed ({status}): {message}")]
pub struct ProgramFailed {
    pub program: &'static str,
    pub status: String,
    pub message: String,
}
