//! Loading: any format the image crate decodes, converted to RGBA8.

use super::colour::{cmyk_to_rgb, Samples, SourceProfile};
use super::input::{input_from_bytes, open_input, Input};
use super::jpeg::decode_jpeg;
use image::metadata::Orientation;
use image::{ColorType, ImageReader, Limits, RgbaImage};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest width or height accepted (the GL texture limit of current NVIDIA GPUs).
pub const MAX_IMAGE_SIDE: u32 = 32768;
/// Largest decoder allocation (bytes).
const MAX_DECODE_BYTES: u64 = 4 << 30;

/// An image decoded to upright sRGB RGBA8, with what was converted.
#[derive(Debug, Clone)]
pub struct LoadedImage {
    pub image: RgbaImage,
    pub path: PathBuf,
    /// Format and colour type of the file, e.g. "PNG, L8".
    pub source_description: String,
    /// Set when the pixels were converted (greyscale, 16-bit, palette, no alpha, EXIF
    /// rotation, ICC profile...): what the window's info panel shows.
    pub conversion_note: Option<String>,
    /// The EXIF orientation applied (1 to 8; 1 when the file has none).
    pub exif_orientation: u8,
    /// The description of the ICC profile the pixels were converted from, if any.
    pub source_profile: Option<String>,
}

/// A decoder's result before orientation and colour management.
pub(super) struct Decoded {
    pub image: RgbaImage,
    pub description: String,
    pub note: Option<String>,
    pub samples: Samples,
    pub icc: Option<Vec<u8>>,
    pub orientation: Orientation,
}

impl Decoded {
    /// Converts to sRGB per the embedded profile, turns upright per EXIF, and says so.
    fn finish(mut self, path: &Path) -> LoadedImage {
        let mut notes: Vec<String> = self.note.take().into_iter().collect();
        let mut source_profile = None;
        if let Some(bytes) = self.icc.as_deref() {
            let converted = SourceProfile::parse(bytes).and_then(|p| {
                p.convert_to_srgb(&mut self.image, self.samples)?;
                Ok(p.description)
            });
            match converted {
                Ok(name) => {
                    notes.push(format!("converted from ICC profile “{name}” to sRGB"));
                    source_profile = Some(name);
                }
                Err(e) => notes.push(format!("{e}: ignored")),
            }
        }
        if self.samples == Samples::Cmyk && source_profile.is_none() {
            cmyk_to_rgb(&mut self.image);
        }
        let value = self.orientation.to_exif();
        if self.orientation != Orientation::NoTransforms {
            let mut upright = image::DynamicImage::ImageRgba8(self.image);
            upright.apply_orientation(self.orientation);
            self.image = upright.into_rgba8();
            notes.push(format!("rotated per EXIF (value {value})"));
        }
        LoadedImage {
            image: self.image,
            path: path.to_path_buf(),
            source_description: self.description,
            conversion_note: (!notes.is_empty()).then(|| notes.join("; ")),
            exif_orientation: value,
            source_profile,
        }
    }
}

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
    #[error("{path}: not a supported image format (PNG, JPEG, TIFF, BMP, WebP, GIF)")]
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
    /// Bytes of the decoder's own pixel buffer when it is not RGBA8 (converted after).
    pub decoder_bytes: u64,
}

impl Declared {
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

/// The default check: decoding, the image, one intermediate and the output fit the host
/// memory budget ([`super::budget`]).
pub fn default_admit(d: Declared) -> Result<(), String> {
    let need = d.decoder_bytes + 3 * d.rgba_bytes() + (64 << 20);
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
    pub(super) fn check(
        &self,
        path: &Path,
        width: u32,
        height: u32,
        decoder_bytes: u64,
    ) -> Result<(), LoadError> {
        let p = path.to_path_buf();
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
        (self.admit)(Declared {
            width,
            height,
            decoder_bytes,
        })
        .map_err(|reason| LoadError::OverBudget { path: p, reason })
    }
}

/// The decoder's own allocations may not exceed twice the declared image plus 64 MiB
/// (a GIF frame far larger than its screen, found by fuzzing, asked for 3.3 GB while
/// declaring 5×3), nor the absolute cap.
fn decoder_limits(max_side: u32, declared_bytes: u64) -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(max_side);
    limits.max_image_height = Some(max_side);
    limits.max_alloc = Some((2 * declared_bytes + (64 << 20)).min(MAX_DECODE_BYTES));
    limits
}

fn conversion_note(color: ColorType) -> Option<String> {
    match color {
        ColorType::Rgba8 => None,
        ColorType::Rgb8 => Some("RGB converted to RGBA8 (opaque alpha)".into()),
        ColorType::L8 => Some("8-bit greyscale converted to RGBA8".into()),
        ColorType::La8 => Some("greyscale with alpha converted to RGBA8".into()),
        ColorType::L16 | ColorType::La16 => {
            Some("16-bit greyscale reduced to 8 bits and converted to RGBA8".into())
        }
        ColorType::Rgb16 | ColorType::Rgba16 => Some("16-bit colour reduced to 8 bits".into()),
        ColorType::Rgb32F | ColorType::Rgba32F => {
            Some("floating-point image clamped and reduced to 8 bits".into())
        }
        other => Some(format!("{other:?} converted to RGBA8")),
    }
}

/// Loads `path` as RGBA8 under the default limits and memory budget.
pub fn load_image(path: &Path) -> Result<LoadedImage, LoadError> {
    load_image_with(path, &Admission::default())
}

/// Loads `path` as RGBA8. The file is opened once (so `/dev/stdin` works) and never
/// blocks on a FIFO nobody writes to; the declared size is checked against `admission`
/// before any pixel buffer is allocated; nothing is ever written.
pub fn load_image_with(path: &Path, admission: &Admission<'_>) -> Result<LoadedImage, LoadError> {
    decode_input(path, open_input(path)?, admission)
}

/// Decodes an image held in memory (`name` only names it in messages): the same checks
/// and decoders as [`load_image_with`]. The fuzz targets call this.
pub fn load_image_from_bytes(
    name: &Path,
    bytes: Vec<u8>,
    admission: &Admission<'_>,
) -> Result<LoadedImage, LoadError> {
    let input = input_from_bytes(name, bytes)?;
    decode_input(name, input, admission)
}

fn decode_input(
    path: &Path,
    input: Input,
    admission: &Admission<'_>,
) -> Result<LoadedImage, LoadError> {
    let p = path.to_path_buf();
    let Input { mut reader, format } = input;
    if format == image::ImageFormat::Jpeg {
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .map_err(|e| LoadError::from_io(path, e))?;
        drop(reader);
        return Ok(decode_jpeg(path, &bytes, admission)?.finish(path));
    }
    let mut decoder = ImageReader::with_format(reader, format)
        .into_decoder()
        .map_err(|e| classify(&p, e))?;
    // Dimensions come from the header alone: check them before any pixel allocation.
    let (width, height) = image::ImageDecoder::dimensions(&decoder);
    let color = image::ImageDecoder::color_type(&decoder);
    let decoder_bytes = if color == ColorType::Rgba8 {
        0
    } else {
        image::ImageDecoder::total_bytes(&decoder)
    };
    admission.check(path, width, height, decoder_bytes)?;
    let limits = decoder_limits(
        admission.max_side,
        image::ImageDecoder::total_bytes(&decoder),
    );
    image::ImageDecoder::set_limits(&mut decoder, limits).map_err(|e| classify(&p, e))?;
    // Metadata problems never refuse an image: without them it is upright sRGB.
    let icc = image::ImageDecoder::icc_profile(&mut decoder)
        .ok()
        .flatten();
    let orientation =
        image::ImageDecoder::orientation(&mut decoder).unwrap_or(Orientation::NoTransforms);
    let decoded = image::DynamicImage::from_decoder(decoder).map_err(|e| classify(&p, e))?;
    Ok(Decoded {
        image: decoded.into_rgba8(),
        description: format!("{format:?}, {color:?}"),
        note: conversion_note(color),
        samples: Samples::Rgba,
        icc,
        orientation,
    }
    .finish(path))
}

fn classify(path: &Path, err: image::ImageError) -> LoadError {
    let path = path.to_path_buf();
    match err {
        image::ImageError::Limits(_) => LoadError::Decode {
            path,
            reason: format!("refused by the decoder limits ({err})"),
        },
        image::ImageError::Unsupported(e) => LoadError::Decode {
            path,
            reason: format!("unsupported: {e}"),
        },
        // A decoder running out of bytes means the file is cut short, not that the disk failed.
        image::ImageError::IoError(source)
            if source.kind() == std::io::ErrorKind::UnexpectedEof =>
        {
            LoadError::Decode {
                path,
                reason: "the file is truncated (unexpected end of data)".into(),
            }
        }
        image::ImageError::IoError(source) => LoadError::Io { path, source },
        other => LoadError::Decode {
            path,
            reason: other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::File::create(&path)
            .and_then(|mut f| f.write_all(bytes))
            .expect("write test file");
        path
    }

    fn png_bytes(img: &image::DynamicImage) -> Vec<u8> {
        let mut buf = std::io::Cursor::new(Vec::new());
        img.write_to(&mut buf, image::ImageFormat::Png)
            .expect("encode");
        buf.into_inner()
    }

    #[test]
    fn converts_greyscale_16_bit_and_alpha() {
        let dir = tempfile::tempdir().expect("tempdir");
        let grey =
            image::DynamicImage::ImageLuma8(image::GrayImage::from_pixel(3, 2, image::Luma([77])));
        let grey16 = image::DynamicImage::ImageLuma16(image::ImageBuffer::from_pixel(
            2,
            2,
            image::Luma([65535u16]),
        ));
        let la = image::DynamicImage::ImageLumaA8(image::ImageBuffer::from_pixel(
            2,
            2,
            image::LumaA([9u8, 100]),
        ));
        for (name, img, want) in [
            ("g.png", grey, [77, 77, 77, 255]),
            ("g16.png", grey16, [255, 255, 255, 255]),
            ("la.png", la, [9, 9, 9, 100]),
        ] {
            let path = write(dir.path(), name, &png_bytes(&img));
            let loaded = load_image(&path).expect("loads");
            assert_eq!(loaded.image.get_pixel(0, 0).0, want, "{name}");
            assert!(loaded.conversion_note.is_some(), "{name}");
        }
    }

    /// Huge declared dimensions are covered end to end in tests/cli.rs.
    #[test]
    fn refuses_bad_files_clearly() {
        let dir = tempfile::tempdir().expect("tempdir");
        let good = png_bytes(&image::DynamicImage::ImageRgba8(RgbaImage::from_pixel(
            64,
            64,
            image::Rgba([1, 2, 3, 4]),
        )));
        let cases = [
            (write(dir.path(), "empty.png", b""), "not a supported"),
            (
                write(dir.path(), "text.png", b"hello, I am not an image"),
                "not a supported",
            ),
            (
                write(dir.path(), "trunc.png", &good[..good.len() / 2]),
                "truncated",
            ),
            (dir.path().to_path_buf(), "is a directory"),
            (dir.path().join("missing.png"), "no such file"),
        ];
        for (path, needle) in cases {
            let err = load_image(&path).expect_err("must fail").to_string();
            assert!(err.contains(needle), "{}: {err}", path.display());
            assert!(err.contains(&*path.to_string_lossy()), "{err}");
        }
    }
}
