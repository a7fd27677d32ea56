//! `cudalens apply` on a video: every frame, in presentation order, through the filter
//! stack on one backend opened once, into a video (H.264 in MP4 or Matroska, VP9 in WebM,
//! through ffmpeg) or a numbered image sequence (`frames/%06d.png`, from 0). The output is
//! written through a temporary file and a rename, as every save is.

use super::progress::Progress;
use super::{ApplyArgs, CliError};
use crate::image_io::{
    check_output_path, check_save_target, save_pixels, write_file_atomically, SaveOptions,
};
use crate::pipeline::process_video_headless;
use crate::pixels::PixelImage;
use crate::video::{container_of, Container, VideoError, VideoFile, VideoWriter};
use std::path::{Path, PathBuf};

impl From<VideoError> for CliError {
    /// A missing ffmpeg, a file that is no video, damaged data: the user's (exit 2); an
    /// encoder or pipe failure: internal (exit 1).
    fn from(e: VideoError) -> Self {
        match e {
            VideoError::Encode(_) | VideoError::Io(_) => CliError::internal(e),
            _ => CliError::usage(e.to_string()),
        }
    }
}

/// A numbered output: `prefix` + the frame number (at least `digits` wide) + `suffix`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Sequence {
    prefix: String,
    digits: usize,
    suffix: String,
}

impl Sequence {
    /// `%d` or `%0Nd` in the file name of `path`, once.
    fn of(path: &Path) -> Option<Self> {
        let text = path.to_str()?;
        let at = text.rfind('%')?;
        let (prefix, rest) = text.split_at(at);
        let rest = &rest[1..];
        let end = rest.find('d')?;
        let spec = &rest[..end];
        let digits = match spec {
            "" => 1,
            s if s.starts_with('0') && s.len() > 1 => s[1..].parse().ok()?,
            _ => return None,
        };
        let suffix = &rest[end + 1..];
        (!suffix.contains('%') && !prefix.contains('%') && (1..=12).contains(&digits)).then(|| {
            Self {
                prefix: prefix.to_string(),
                digits,
                suffix: suffix.to_string(),
            }
        })
    }

    fn path(&self, frame: u64) -> PathBuf {
        PathBuf::from(format!(
            "{}{frame:0w$}{}",
            self.prefix,
            self.suffix,
            w = self.digits
        ))
    }
}

/// Where a video's frames go.
enum Output {
    Video(Container),
    Frames(Sequence),
}

fn output_of(path: &Path) -> Result<Output, CliError> {
    if let Some(seq) = Sequence::of(path) {
        return Ok(Output::Frames(seq));
    }
    container_of(path).map(Output::Video).ok_or_else(|| {
        CliError::usage(format!(
            "{}: a video's output is a video (.mp4, .mov, .mkv, .webm) or numbered images such as frames/%06d.png",
            path.display()
        ))
    })
}

/// Runs the stack on every frame of the video `args.input`.
pub fn apply_video(args: &ApplyArgs, options: &SaveOptions) -> Result<(), CliError> {
    if !args.edits.is_empty() || args.selection.is_some() {
        return Err(CliError::usage(
            "--edit and --selection act on still images; a video takes --filter only",
        ));
    }
    let output = output_of(&args.output)?;
    match &output {
        Output::Video(_) => {
            let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            };
            if same(&args.input, &args.output) {
                return Err(CliError::usage(format!(
                    "{}: the output would replace the input",
                    args.output.display()
                )));
            }
            check_output_path(&args.output, options.overwrite)?;
        }
        Output::Frames(seq) => {
            check_save_target(&seq.path(0), options)?;
        }
    }
    let mut video = VideoFile::open(&args.input)?;
    let info = video.info.clone();
    let size = (info.width, info.height);
    let mut tally = Tally {
        progress: Progress::new(info.frames.unwrap_or(0) as usize, "frames"),
        done: 0,
        backend: String::new(),
    };
    let start = std::time::Instant::now();
    let decoder = match output {
        Output::Frames(seq) => process_video_headless(
            &mut video,
            &args.filters,
            args.backend,
            args.interop,
            |out| {
                let frame = PixelImage::from_rgba8_as(out.image, 3);
                save_pixels(&frame, &seq.path(tally.done), options)?;
                tally.count(&out.status);
                Ok::<(), CliError>(())
            },
        )?,
        Output::Video(container) => {
            let mut used = None;
            write_file_atomically(&args.output, |file| {
                let (mut writer, mut encoded) =
                    VideoWriter::start(size, &info.frame_rate, container)?;
                std::thread::scope(|scope| {
                    let copy = scope.spawn(move || std::io::copy(&mut encoded, file));
                    let run = process_video_headless(
                        &mut video,
                        &args.filters,
                        args.backend,
                        args.interop,
                        |out| {
                            writer.push(&out.image)?;
                            tally.count(&out.status);
                            Ok::<(), CliError>(())
                        },
                    );
                    // The encoder's input closes whatever happened, so that it and the
                    // copy end.
                    let encoded = writer.finish();
                    let copied = copy.join();
                    used = Some(run?);
                    encoded?;
                    match copied {
                        Ok(Ok(_)) => Ok(()),
                        Ok(Err(e)) => Err(CliError::from(crate::image_io::SaveError::Io {
                            path: args.output.clone(),
                            reason: e.to_string(),
                        })),
                        Err(_) => Err(CliError::internal("the copy of the encoded video stopped")),
                    }
                })
            })??;
            used.ok_or_else(|| CliError::internal("the video ended without its decoder"))?
        }
    };
    let Tally {
        progress,
        done,
        backend,
    } = tally;
    drop(progress);
    eprintln!(
        "{} → {} ({}×{} {} {}, {done} frames at {} fps, decoded by {decoder}, {backend} backend, {:.2} s{})",
        args.input.display(),
        args.output.display(),
        info.width,
        info.height,
        info.codec,
        info.pixel_format,
        info.frame_rate,
        start.elapsed().as_secs_f64(),
        match container_of(&args.output) {
            Some(_) => "; sound not copied",
            None => "",
        }
    );
    Ok(())
}

/// The frames written so far, the backend that made the last, and the progress bar.
struct Tally {
    progress: Progress,
    done: u64,
    backend: String,
}

impl Tally {
    /// One more frame written, made on `status`'s backend.
    fn count(&mut self, status: &crate::pipeline::BackendStatus) {
        self.done += 1;
        self.backend = status.kind.to_string();
        self.progress.update(self.done as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_outputs_are_read_from_the_name() {
        let s = Sequence::of(Path::new("out/frames-%06d.png")).expect("pattern");
        assert_eq!(s.path(42), Path::new("out/frames-000042.png"));
        let s = Sequence::of(Path::new("f%d.tif")).expect("pattern");
        assert_eq!(s.path(7), Path::new("f7.tif"));
        assert_eq!(s.path(1234), Path::new("f1234.tif"));
        for bad in ["f.png", "f%s.png", "f%6d.png", "%d%d.png", "f%0d.png"] {
            assert!(Sequence::of(Path::new(bad)).is_none(), "{bad}");
        }
    }
}
