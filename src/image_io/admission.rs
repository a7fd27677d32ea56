//! What may be decoded: the largest side, the caller's check of the declared size, and why a
//! file could not be loaded.

use std::path::{Path, PathBuf};

/// Largest width or height accepted (the GL texture limit of current NVIDIA GPUs).
pub const MAX_IMAGE_SIDE: u32 = 32768;

/// Why a file could not be loaded. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: no such file")]
    NotFound { path: PathBuf },
    #[error("{path}: is a directory, not an image file")]
    IsDirectory { path: PathBuf },
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path}: not a supported image format (PNG, JPEG, TIFF, EXR, PGM/PPM, BMP, WebP, GIF)"
    )]
    UnknownFormat { path: PathBuf },
    #[error(
        "{path}: no data (an empty file, or a pipe nobody writes to): not a supported image format"
    )]
    NoData { path: PathBuf },
    #[error("{path}: image is {width}×{height}, larger than the {max}×{max} limit")]
    TooLarge {
        path: PathBuf,
        width: u32,
        height: u32,
        max: u32,
    },
    #[error("{path}: image has no pixels ({width}×{height})")]
    Empty {
        path: PathBuf,
        width: u32,
        height: u32,
    },
    #[error("{path}: {reason}")]
    OverBudget { path: PathBuf, reason: String },
    #[error("{path}: cannot decode: {reason}")]
    Decode { path: PathBuf, reason: String },
}

impl LoadError {
    /// An error opening or reading `path`.
    pub fn from_io(path: &Path, source: std::io::Error) -> Self {
        match source.kind() {
            std::io::ErrorKind::NotFound => LoadError::NotFound {
                path: path.to_path_buf(),
            },
            _ => LoadError::Io {
                path: path.to_path_buf(),
                source,
            },
        }
    }
}

/// The size an image file declares, before any pixel is decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    pub width: u32,
    pub height: u32,
    /// Bytes of the decoder's own pixel buffer when it is not the loaded image's (converted
    /// after).
    pub decoder_bytes: u64,
    /// Bytes of the loaded image in its own sample type and channels.
    pub image_bytes: u64,
}

impl Declared {
    /// The declaration of a `width × height` image of `channels` samples of `sample_bytes`
    /// each, decoded straight into its own buffer.
    pub fn typed(width: u32, height: u32, channels: u8, sample_bytes: usize) -> Self {
        Self {
            width,
            height,
            decoder_bytes: 0,
            image_bytes: u64::from(width)
                * u64::from(height)
                * u64::from(channels)
                * sample_bytes as u64,
        }
    }

    /// Bytes of the image as RGBA8.
    pub fn rgba_bytes(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height) * 4
    }
}

/// The caller's check of a declared size (e.g. its memory budget): `Err(reason)` refuses.
pub type AdmitFn<'a> = &'a dyn Fn(Declared) -> Result<(), String>;

/// What may be decoded: the largest side, and the caller's check of the declared size.
#[derive(Clone, Copy)]
pub struct Admission<'a> {
    pub max_side: u32,
    pub admit: AdmitFn<'a>,
}

/// The default check: decoding, the image, one intermediate and the output (each the
/// larger of the image and its RGBA8 form) fit the host memory budget ([`super::budget`]).
pub fn default_admit(d: Declared) -> Result<(), String> {
    let working = d.rgba_bytes().max(d.image_bytes);
    let need = d.decoder_bytes + d.image_bytes + 2 * working + (64 << 20);
    super::budget::check_host(&format!("a {}×{} image", d.width, d.height), need)
}

impl Default for Admission<'static> {
    fn default() -> Self {
        Self {
            max_side: MAX_IMAGE_SIDE,
            admit: &default_admit,
        }
    }
}

impl Admission<'_> {
    pub(super) fn check(&self, path: &Path, declared: Declared) -> Result<(), LoadError> {
        let p = path.to_path_buf();
        let Declared { width, height, .. } = declared;
        if width > self.max_side || height > self.max_side {
            return Err(LoadError::TooLarge {
                path: p,
                width,
                height,
                max: self.max_side,
            });
        }
        if width == 0 || height == 0 {
            return Err(LoadError::Empty {
                path: p,
                width,
                height,
            });
        }
        (self.admit)(declared).map_err(|reason| LoadError::OverBudget { path: p, reason })
    }
}
