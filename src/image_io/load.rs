//! Loading: each format to its own sample type and channels (grey 1, RGB 3, RGBA 4).
//! JPEG through libjpeg-turbo, TIFF through the tiff crate, OpenEXR through the exr crate,
//! PGM/PPM here, the rest through the image crate.

use super::admission::{Admission, Declared, LoadError};
use super::colour::Samples;
use super::decoded::{Decoded, LoadedImage};
use super::exr_file::decode_exr;
use super::input::{input_from_bytes, open_input, BufReadSeek, Input};
use super::jpeg::decode_jpeg;
use super::pnm::decode_pnm;
use super::tiff_file::decode_tiff;
use crate::pixels::{ImageBuf, PixelImage, PixelsError};
use image::metadata::Orientation;
use image::{ColorType, DynamicImage, ImageReader, Limits};
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

/// The channels and sample bytes an image crate colour type loads as, and whether its
/// decoded buffer becomes the image as it is.
fn loaded_layout(color: ColorType) -> (u8, usize, bool) {
    match color {
        ColorType::L8 => (1, 1, true),
        ColorType::Rgb8 => (3, 1, true),
        ColorType::Rgba8 => (4, 1, true),
        ColorType::L16 => (1, 2, true),
        ColorType::Rgb16 => (3, 2, true),
        ColorType::Rgba16 => (4, 2, true),
        ColorType::Rgb32F => (3, 4, true),
        ColorType::Rgba32F => (4, 4, true),
        ColorType::La16 => (4, 2, false),
        _ => (4, 1, false),
    }
}

/// The decoded image in its own type and channels; grey with alpha (and anything the
/// image crate adds) widened to RGBA, with a note.
fn typed(image: DynamicImage) -> Result<(PixelImage, Option<String>), PixelsError> {
    let (w, h) = (image.width(), image.height());
    let grey_alpha = Some("grey with alpha converted to RGBA".to_string());
    Ok(match image {
        DynamicImage::ImageLuma8(b) => (
            PixelImage::U8(ImageBuf::from_vec(w, h, 1, b.into_raw())?),
            None,
        ),
        DynamicImage::ImageRgb8(b) => (
            PixelImage::U8(ImageBuf::from_vec(w, h, 3, b.into_raw())?),
            None,
        ),
        DynamicImage::ImageRgba8(b) => (PixelImage::from_rgba8(b), None),
        DynamicImage::ImageLuma16(b) => (
            PixelImage::U16(ImageBuf::from_vec(w, h, 1, b.into_raw())?),
            None,
        ),
        DynamicImage::ImageRgb16(b) => (
            PixelImage::U16(ImageBuf::from_vec(w, h, 3, b.into_raw())?),
            None,
        ),
        DynamicImage::ImageRgba16(b) => (
            PixelImage::U16(ImageBuf::from_vec(w, h, 4, b.into_raw())?),
            None,
        ),
        DynamicImage::ImageRgb32F(b) => (
            PixelImage::F32(ImageBuf::from_vec(w, h, 3, b.into_raw())?),
            None,
        ),
        DynamicImage::ImageRgba32F(b) => (
            PixelImage::F32(ImageBuf::from_vec(w, h, 4, b.into_raw())?),
            None,
        ),
        DynamicImage::ImageLumaA16(_) => (
            PixelImage::U16(ImageBuf::from_vec(w, h, 4, image.into_rgba16().into_raw())?),
            grey_alpha,
        ),
        DynamicImage::ImageLumaA8(b) => (
            PixelImage::from_rgba8(DynamicImage::ImageLumaA8(b).into_rgba8()),
            grey_alpha,
        ),
        other => {
            let note = format!("{:?} converted to 8-bit RGBA", other.color());
            (PixelImage::from_rgba8(other.into_rgba8()), Some(note))
        }
    })
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
    let Input { mut reader, format } = input;
    let decoded = match format {
        image::ImageFormat::Jpeg => {
            let mut bytes = Vec::new();
            reader
                .read_to_end(&mut bytes)
                .map_err(|e| LoadError::from_io(path, e))?;
            drop(reader);
            decode_jpeg(path, &bytes, admission)?
        }
        image::ImageFormat::Tiff => match decode_tiff(path, &mut reader, admission)? {
            Some(decoded) => decoded,
            None => decode_with_image_crate(path, reader, format, admission)?,
        },
        image::ImageFormat::OpenExr => decode_exr(path, &mut reader, admission)?,
        image::ImageFormat::Pnm => decode_pnm(path, &mut reader, admission)?,
        _ => decode_with_image_crate(path, reader, format, admission)?,
    };
    Ok(decoded.finish(path))
}

/// PNG, GIF, BMP, WebP (and TIFF layouts the tiff module leaves) through the image crate.
fn decode_with_image_crate(
    path: &Path,
    reader: Box<dyn BufReadSeek>,
    format: image::ImageFormat,
    admission: &Admission<'_>,
) -> Result<Decoded, LoadError> {
    let p = path.to_path_buf();
    let mut decoder = ImageReader::with_format(reader, format)
        .into_decoder()
        .map_err(|e| classify(&p, e))?;
    // Dimensions come from the header alone: check them before any pixel allocation.
    let (width, height) = image::ImageDecoder::dimensions(&decoder);
    let color = image::ImageDecoder::color_type(&decoder);
    let (channels, sample_bytes, kept) = loaded_layout(color);
    let mut declared = Declared::typed(width, height, channels, sample_bytes);
    if !kept {
        declared.decoder_bytes = image::ImageDecoder::total_bytes(&decoder);
    }
    admission.check(path, declared)?;
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
    let decoded = DynamicImage::from_decoder(decoder).map_err(|e| classify(&p, e))?;
    let (image, note) = typed(decoded).map_err(|e| LoadError::Decode {
        path: p.clone(),
        reason: e.to_string(),
    })?;
    Ok(Decoded {
        description: format!("{format:?}, {}", image.describe()),
        image,
        note,
        samples: Samples::Colour,
        icc,
        orientation,
    })
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
    fn keeps_grey_and_16_bit_and_widens_grey_alpha() {
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
        for (name, img, want, layout, noted) in [
            ("g.png", grey, [77, 77, 77, 255], "8-bit grey", false),
            (
                "g16.png",
                grey16,
                [255, 255, 255, 255],
                "16-bit grey",
                false,
            ),
            ("la.png", la, [9, 9, 9, 100], "8-bit RGBA", true),
        ] {
            let path = write(dir.path(), name, &png_bytes(&img));
            let loaded = load_image(&path).expect("loads");
            assert_eq!(loaded.pixels.describe(), layout, "{name}");
            assert_eq!(loaded.rgba8().get_pixel(0, 0).0, want, "{name}");
            assert_eq!(loaded.conversion_note.is_some(), noted, "{name}");
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
