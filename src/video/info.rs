//! What a video file holds, as either reader describes it, and the checks every reader
//! makes before it opens a file.

use super::error::VideoError;
use super::yuv::{self, YuvFormat};
use std::path::Path;

/// Largest frame side taken from a file's header.
pub const MAX_VIDEO_SIDE: u32 = 16384;

/// What the first video stream of a file is.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoInfo {
    pub width: u32,
    pub height: u32,
    /// The codec's name as ffmpeg gives it (h264, hevc, vp9, …).
    pub codec: String,
    /// The sample layout (yuv420p, yuv420p10le, …).
    pub pixel_format: String,
    /// Frames a second as a fraction ("30000/1001"), as the container states it.
    pub frame_rate: String,
    /// Frames the container declares, where it does (Matroska often does not).
    pub frames: Option<u64>,
    /// Seconds the file lasts, where the container says.
    pub duration: Option<f64>,
    /// The colour the decoder reports (ffprobe's `color_space` and `color_range`); None
    /// where the Rust demuxer described the file.
    pub colour: Option<(String, String)>,
}

impl VideoInfo {
    pub fn fps(&self) -> f64 {
        match self.frame_rate.split_once('/') {
            Some((n, d)) => match (n.parse::<f64>(), d.parse::<f64>()) {
                (Ok(n), Ok(d)) if d > 0.0 => n / d,
                _ => 0.0,
            },
            None => self.frame_rate.parse().unwrap_or(0.0),
        }
    }

    /// Frames of the video: the declared count, else its duration at its frame rate.
    pub fn frame_count(&self) -> Option<u64> {
        let from_duration = self
            .duration
            .filter(|d| d.is_finite() && *d > 0.0)
            .map(|d| (d * self.fps()).round() as u64)
            .filter(|&n| n > 0);
        self.frames.filter(|&n| n > 0).or(from_duration)
    }

    /// How ffmpeg's 4:2:0 frames of this stream become RGBA: through [`yuv`] (the
    /// arithmetic NVDEC's frames take) when the samples are 4:2:0 of 8 to 12 bits; None for
    /// other layouts (ffmpeg converts those itself).
    pub fn yuv_format(&self) -> Option<YuvFormat> {
        let (space, range) = self.colour.as_ref()?;
        let (depth, jpeg) = match self.pixel_format.as_str() {
            "yuv420p" => (8, false),
            "yuvj420p" => (8, true),
            "yuv420p10le" => (10, false),
            "yuv420p12le" => (12, false),
            _ => return None,
        };
        let code = match space.as_str() {
            "bt709" => 1,
            "bt470bg" | "smpte170m" => 6,
            "bt2020nc" => 9,
            _ => 2,
        };
        Some(YuvFormat {
            depth,
            matrix: yuv::Matrix::from_h273(code, self.height),
            full_range: jpeg || range == "pc",
        })
    }

    /// Where frame `index` starts being shown, in seconds (at the frame rate).
    pub fn frame_time(&self, index: u64) -> f64 {
        let fps = self.fps();
        if fps > 0.0 {
            index as f64 / fps
        } else {
            0.0
        }
    }
}

/// Checks that `path` is a regular, non-empty file before a program opens it.
pub fn check_input(path: &Path) -> Result<(), VideoError> {
    let input = |reason: &str| VideoError::Input {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(input("no such file")),
        Err(e) => Err(input(&e.to_string())),
        Ok(m) if m.is_dir() => Err(input("is a folder, not a video")),
        Ok(m) if !m.is_file() => Err(input("not a regular file")),
        Ok(m) if m.len() == 0 => Err(input("empty file")),
        Ok(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::video::yuv::Matrix;

    fn info(pixel_format: &str, space: &str, range: &str, height: u32) -> VideoInfo {
        VideoInfo {
            width: 16,
            height,
            codec: "h264".into(),
            pixel_format: pixel_format.into(),
            frame_rate: "25/1".into(),
            frames: None,
            duration: None,
            colour: Some((space.into(), range.into())),
        }
    }

    #[test]
    fn ffprobes_colour_names_become_the_conversion() {
        let f = info("yuv420p", "bt709", "tv", 144)
            .yuv_format()
            .expect("4:2:0");
        assert_eq!((f.depth, f.matrix, f.full_range), (8, Matrix::Bt709, false));
        let f = info("yuvj420p", "unknown", "unknown", 1080)
            .yuv_format()
            .expect("4:2:0");
        assert_eq!((f.matrix, f.full_range), (Matrix::Bt709, true));
        let f = info("yuv420p10le", "bt2020nc", "pc", 2160)
            .yuv_format()
            .expect("4:2:0");
        assert_eq!(
            (f.depth, f.matrix, f.full_range),
            (10, Matrix::Bt2020, true)
        );
        let f = info("yuv420p", "smpte170m", "tv", 1080)
            .yuv_format()
            .expect("4:2:0");
        assert_eq!(f.matrix, Matrix::Bt601);
        // Other layouts stay ffmpeg's RGBA; so does a description without colour.
        assert!(info("yuv444p", "bt709", "tv", 144).yuv_format().is_none());
        let mut demuxed = info("yuv420p", "bt709", "tv", 144);
        demuxed.colour = None;
        assert!(demuxed.yuv_format().is_none());
    }
}
