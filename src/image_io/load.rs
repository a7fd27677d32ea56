//! Loading: any format the image crate decodes, converted to RGBA8.

use super::admission::{Admission, LoadError};
use super::colour::Samples;
use super::decoded::{Decoded, LoadedImage};
use super::input::{input_from_bytes, open_input, Input};
use super::jpeg::decode_jpeg;
use crate::pixels::PixelImage;
use image::metadata::Orientation;
use image::{ColorType, ImageReader, Limits};
use std::io::Read;
use std::path::Path;

/// Largest decoder allocation (bytes).
const MAX_DECODE_BYTES: u64 = 4 << 30;

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
        image: PixelImage::from_rgba8(decoded.into_rgba8()),
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
    use image::RgbaImage;
    use std::io::Write;
    use std::path::PathBuf;

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
