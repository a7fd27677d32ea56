//! PNG text chunks: pictures that carry what made them (the explorer's view under
//! [`VIEW_KEYWORD`], the program under `Software`), written with the `png` crate before the
//! image data, and read back with bounded memory.

use super::save::{check_save_target, write_atomically, SaveError, SaveOptions};
use image::{DynamicImage, ImageError};
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// The keyword of the chunk that holds an explorer view as text.
pub const VIEW_KEYWORD: &str = "cudalens-view";
/// Longest text read from a chunk (a view 1000 digits deep is about 3 KB).
pub const MAX_TEXT_BYTES: usize = 64 * 1024;
/// Most memory the decoder may take for the chunks before the image data.
const READ_LIMIT_BYTES: usize = 8 << 20;
const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

/// Why a PNG's text could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PngTextError {
    #[error("{path}: cannot read: {reason}")]
    Read { path: PathBuf, reason: String },
    #[error("{path}: damaged PNG metadata ({reason})")]
    Decode { path: PathBuf, reason: String },
    #[error("{path}: the {keyword} text is longer than {MAX_TEXT_BYTES} bytes")]
    TooLong { path: PathBuf, keyword: String },
}

/// Writes `image` (RGBA8 or 16-bit grey) as a PNG at `path` with `texts` as (keyword,
/// text) chunks: Latin-1 text as tEXt, other text as iTXt. Atomic, like `save_image`.
pub fn save_png_with_text(
    image: &DynamicImage,
    path: &Path,
    options: &SaveOptions,
    texts: &[(&str, &str)],
) -> Result<(), SaveError> {
    check_save_target(path, options)?;
    let (colour, depth, bytes) = match image {
        DynamicImage::ImageRgba8(i) => (
            png::ColorType::Rgba,
            png::BitDepth::Eight,
            std::borrow::Cow::Borrowed(i.as_raw().as_slice()),
        ),
        DynamicImage::ImageLuma16(i) => (
            png::ColorType::Grayscale,
            png::BitDepth::Sixteen,
            std::borrow::Cow::Owned(i.as_raw().iter().flat_map(|v| v.to_be_bytes()).collect()),
        ),
        other => {
            return Err(SaveError::Encode {
                path: path.into(),
                reason: format!("{:?} is not written with text chunks", other.color()),
            })
        }
    };
    let encoding = |e: png::EncodingError| match e {
        png::EncodingError::IoError(io) => ImageError::IoError(io),
        other => ImageError::Encoding(image::error::EncodingError::new(
            image::error::ImageFormatHint::Exact(image::ImageFormat::Png),
            other,
        )),
    };
    write_atomically(path, |w| {
        let mut encoder = png::Encoder::new(w, image.width(), image.height());
        encoder.set_color(colour);
        encoder.set_depth(depth);
        for (keyword, text) in texts {
            let latin1 = text.chars().all(|c| (c as u32) < 256 && c != '\0');
            if latin1 {
                encoder.add_text_chunk((*keyword).into(), (*text).into())
            } else {
                encoder.add_itxt_chunk((*keyword).into(), (*text).into())
            }
            .map_err(encoding)?;
        }
        let mut writer = encoder.write_header().map_err(encoding)?;
        writer.write_image_data(&bytes).map_err(encoding)?;
        writer.finish().map_err(encoding)
    })
}

/// The text under `keyword` in the PNG at `path` (tEXt, zTXt or iTXt before the image
/// data); `Ok(None)` when the file is not a PNG or has no such chunk.
pub fn read_png_text(path: &Path, keyword: &str) -> Result<Option<String>, PngTextError> {
    let read = |e: std::io::Error| PngTextError::Read {
        path: path.into(),
        reason: e.to_string(),
    };
    let mut file = BufReader::new(std::fs::File::open(path).map_err(read)?);
    let mut signature = [0u8; 8];
    match std::io::Read::read_exact(&mut file, &mut signature) {
        Ok(()) if signature == SIGNATURE => {}
        Ok(()) => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(read(e)),
    }
    std::io::Seek::rewind(&mut file).map_err(read)?;
    let decode = |e: png::DecodingError| PngTextError::Decode {
        path: path.into(),
        reason: e.to_string(),
    };
    let decoder = png::Decoder::new_with_limits(
        file,
        png::Limits {
            bytes: READ_LIMIT_BYTES,
        },
    );
    let reader = decoder.read_info().map_err(decode)?;
    let info = reader.info();
    let too_long = || PngTextError::TooLong {
        path: path.into(),
        keyword: keyword.into(),
    };
    let text = if let Some(t) = info
        .uncompressed_latin1_text
        .iter()
        .find(|t| t.keyword == keyword)
    {
        t.text.clone()
    } else if let Some(t) = info
        .compressed_latin1_text
        .iter()
        .find(|t| t.keyword == keyword)
    {
        let mut t = t.clone();
        t.decompress_text_with_limit(MAX_TEXT_BYTES)
            .map_err(|_| too_long())?;
        t.get_text().map_err(decode)?
    } else if let Some(t) = info.utf8_text.iter().find(|t| t.keyword == keyword) {
        let mut t = t.clone();
        t.decompress_text_with_limit(MAX_TEXT_BYTES)
            .map_err(|_| too_long())?;
        t.get_text().map_err(decode)?
    } else {
        return Ok(None);
    };
    if text.len() > MAX_TEXT_BYTES {
        return Err(too_long());
    }
    Ok(Some(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_chunks_round_trip_with_the_pixels() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("v.png");
        let img = image::RgbaImage::from_fn(7, 5, |x, y| image::Rgba([x as u8, y as u8, 9, 255]));
        let view = "re=-0.75, im=0.1, span=1e-30, dwell=5000";
        save_png_with_text(
            &DynamicImage::ImageRgba8(img.clone()),
            &path,
            &SaveOptions::default(),
            &[(VIEW_KEYWORD, view), ("Software", "cudalens — ünïcode")],
        )
        .expect("saves");
        assert_eq!(
            read_png_text(&path, VIEW_KEYWORD).expect("reads"),
            Some(view.into())
        );
        assert_eq!(
            read_png_text(&path, "Software").expect("reads").as_deref(),
            Some("cudalens — ünïcode")
        );
        assert_eq!(read_png_text(&path, "Comment").expect("reads"), None);
        assert_eq!(image::open(&path).expect("decodes").into_rgba8(), img);
        let gray = image::ImageBuffer::from_fn(3, 2, |x, y| image::Luma([(x * 1000 + y) as u16]));
        let gray_path = dir.path().join("d.png");
        let gray = DynamicImage::ImageLuma16(gray);
        save_png_with_text(
            &gray,
            &gray_path,
            &SaveOptions::default(),
            &[(VIEW_KEYWORD, view)],
        )
        .expect("saves");
        assert_eq!(image::open(&gray_path).expect("decodes"), gray);
    }

    #[test]
    fn other_files_have_no_text_and_damage_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let jpeg_like = dir.path().join("x.png");
        std::fs::write(&jpeg_like, b"\xff\xd8\xff\xe0 not a png").expect("write");
        assert_eq!(
            read_png_text(&jpeg_like, VIEW_KEYWORD).expect("not a PNG"),
            None
        );
        let short = dir.path().join("s.png");
        std::fs::write(&short, b"\x89PN").expect("write");
        assert_eq!(
            read_png_text(&short, VIEW_KEYWORD).expect("not a PNG"),
            None
        );
        let broken = dir.path().join("b.png");
        let mut bytes = SIGNATURE.to_vec();
        bytes.extend_from_slice(b"\x00\x00\x00\x0dIHDR garbage");
        std::fs::write(&broken, bytes).expect("write");
        let e = read_png_text(&broken, VIEW_KEYWORD).expect_err("damaged");
        assert!(e.to_string().contains("damaged PNG"), "{e}");
        assert!(read_png_text(&dir.path().join("none.png"), VIEW_KEYWORD).is_err());
    }
}
