//! The `ffmpeg` and `ffprobe` programs: the one place their command lines are written.
//! Frames travel through pipes as raw RGBA; what a program says goes to a temporary file
//! read back only when it fails (a pipe left unread could fill and stall it).

use super::error::{ProgramFailed, VideoError};
use std::io::{Read, Seek};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// How many bytes of a program's messages a failure quotes, at most.
const MESSAGE_BYTES: u64 = 4096;

/// A running `ffmpeg` with its messages captured.
pub struct Program {
    child: Child,
    messages: std::fs::File,
    name: &'static str,
}

/// Starts `program` with `args`, stdin and stdout as asked.
fn start(
    program: &'static str,
    args: &[&std::ffi::OsStr],
    stdin: Stdio,
    stdout: Stdio,
) -> Result<Program, VideoError> {
    let messages = tempfile::tempfile().map_err(|e| VideoError::Io(e.to_string()))?;
    let err = messages
        .try_clone()
        .map_err(|e| VideoError::Io(e.to_string()))?;
    let child = Command::new(program)
        .args(args)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(err)
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => VideoError::NoFfmpeg(program),
            _ => VideoError::Io(format!("{program}: {e}")),
        })?;
    Ok(Program {
        child,
        messages,
        name: program,
    })
}

impl Program {
    /// Waits for the end; its messages (the last line that says something) when it failed.
    pub fn finish(mut self) -> Result<(), ProgramFailed> {
        let failed = |status: String, message: String| ProgramFailed {
            program: self.name,
            status,
            message,
        };
        let status = self
            .child
            .wait()
            .map_err(|e| failed("not waited for".into(), e.to_string()))?;
        if status.success() {
            return Ok(());
        }
        let mut text = String::new();
        let len = self.messages.seek(std::io::SeekFrom::End(0)).unwrap_or(0);
        let _ = self
            .messages
            .seek(std::io::SeekFrom::Start(len.saturating_sub(MESSAGE_BYTES)));
        let _ = (&mut self.messages)
            .take(MESSAGE_BYTES)
            .read_to_string(&mut text);
        let last = text
            .lines()
            .map(str::trim)
            .rfind(|l| !l.is_empty())
            .unwrap_or("no message");
        Err(failed(status.to_string(), last.to_string()))
    }

    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.stdout.take()
    }

    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.child.stdin.take()
    }

    /// Stops it (the reader gave up on its frames).
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first line `program -version` prints ("ffmpeg version 5.1.6 …"), if it runs.
pub fn version_line(program: &'static str) -> Option<String> {
    let out = std::process::Command::new(program)
        .arg("-version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    out.status
        .success()
        .then(|| text.lines().next().unwrap_or(program).to_string())
}

/// `ffprobe`'s JSON about the first video stream of `path`, and the streams' kinds.
pub fn probe_json(path: &Path) -> Result<String, VideoError> {
    let mut p = start(
        "ffprobe",
        &[
            "-v".as_ref(),
            "error".as_ref(),
            "-show_entries".as_ref(),
            "stream=index,codec_type,codec_name,width,height,avg_frame_rate,nb_frames,duration,pix_fmt,color_space,color_range:format=duration"
                .as_ref(),
            "-of".as_ref(),
            "json".as_ref(),
            path.as_os_str(),
        ],
        Stdio::null(),
        Stdio::piped(),
    )?;
    let mut json = String::new();
    if let Some(mut out) = p.take_stdout() {
        out.read_to_string(&mut json)
            .map_err(|e| VideoError::Io(format!("ffprobe: {e}")))?;
    }
    p.finish().map_err(|e| VideoError::Probe {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    Ok(json)
}

/// `ffmpeg` decoding the first video stream of `path` into raw frames of `pix_fmt` on
/// stdout, in presentation order, stopping at the first error in the data (`-xerror`);
/// from the first frame at or after `from` seconds when given (ffmpeg seeks to the
/// keyframe before and decodes forward, dropping the frames before it).
pub fn decode(path: &Path, from: Option<f64>, pix_fmt: &str) -> Result<Program, VideoError> {
    let seek = from.map(|s| format!("{s:.6}"));
    let seek_args: Vec<&std::ffi::OsStr> = match &seek {
        Some(s) => vec!["-ss".as_ref(), s.as_ref()],
        None => Vec::new(),
    };
    let head: [&std::ffi::OsStr; 4] = [
        "-v".as_ref(),
        "error".as_ref(),
        "-nostdin".as_ref(),
        "-xerror".as_ref(),
    ];
    let args: Vec<&std::ffi::OsStr> = head
        .into_iter()
        .chain(seek_args)
        .chain([
            "-i".as_ref(),
            path.as_os_str(),
            "-map".as_ref(),
            "0:v:0".as_ref(),
            "-vsync".as_ref(),
            "passthrough".as_ref(),
            "-f".as_ref(),
            "rawvideo".as_ref(),
            "-pix_fmt".as_ref(),
            pix_fmt.as_ref(),
            "pipe:1".as_ref(),
        ])
        .collect();
    start("ffmpeg", &args, Stdio::null(), Stdio::piped())
}

/// What a video output is encoded as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// H.264 in fragmented MP4 (streamed: no seek back to write the index).
    Mp4,
    /// H.264 in Matroska.
    Matroska,
    /// VP9 in WebM.
    WebM,
}

/// `ffmpeg` encoding raw RGBA frames of `width × height` at `fps` from stdin into
/// `container` on stdout (sizes padded to even, as 4:2:0 needs).
pub fn encode(
    width: u32,
    height: u32,
    fps: &str,
    container: Container,
) -> Result<Program, VideoError> {
    let size = format!("{width}x{height}");
    let (codec, format): (&[&str], &[&str]) = match container {
        Container::Mp4 => (
            &["-c:v", "libx264", "-crf", "18", "-preset", "medium"],
            &[
                "-f",
                "mp4",
                "-movflags",
                "frag_keyframe+empty_moov+default_base_moof",
            ],
        ),
        Container::Matroska => (
            &["-c:v", "libx264", "-crf", "18", "-preset", "medium"],
            &["-f", "matroska"],
        ),
        Container::WebM => (
            &["-c:v", "libvpx-vp9", "-crf", "24", "-b:v", "0"],
            &["-f", "webm"],
        ),
    };
    let mut args: Vec<&str> = vec![
        "-v",
        "error",
        "-f",
        "rawvideo",
        "-pix_fmt",
        "rgba",
        "-s",
        &size,
        "-r",
        fps,
        "-i",
        "pipe:0",
        "-vf",
        "pad=ceil(iw/2)*2:ceil(ih/2)*2",
        "-pix_fmt",
        "yuv420p",
    ];
    args.extend_from_slice(codec);
    args.extend_from_slice(format);
    args.push("pipe:1");
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    start("ffmpeg", &args, Stdio::piped(), Stdio::piped())
}
