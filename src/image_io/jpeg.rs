//! JPEG through zune-jpeg in strict mode: a truncated or corrupt file is an error, not a
//! picture padded with grey (the lenient mode the image crate uses). Decodes straight to
//! RGBA8, so the only pixel buffer is the result.

use super::load::{Admission, LoadError};
use std::path::Path;
use zune_core::bytestream::ZCursor;
use zune_core::colorspace::ColorSpace;
use zune_core::options::DecoderOptions;

fn decode_error(path: &Path, e: impl std::fmt::Display) -> LoadError {
    LoadError::Decode {
        path: path.to_path_buf(),
        reason: format!("corrupt or truncated JPEG ({e})"),
    }
}

/// Decodes a whole JPEG file held in `bytes`; `admission` sees the declared size first.
pub fn decode_jpeg(
    path: &Path,
    bytes: &[u8],
    admission: &Admission<'_>,
) -> Result<(image::RgbaImage, String, Option<String>), LoadError> {
    let options = DecoderOptions::default()
        .set_strict_mode(true)
        .set_max_width(usize::from(u16::MAX))
        .set_max_height(usize::from(u16::MAX));
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), options);
    decoder
        .decode_headers()
        .map_err(|e| decode_error(path, e))?;
    let info = decoder
        .info()
        .ok_or_else(|| decode_error(path, "no frame header"))?;
    let (width, height) = (u32::from(info.width), u32::from(info.height));
    let colour = decoder
        .input_colorspace()
        .ok_or_else(|| decode_error(path, "no colour space"))?;
    admission.check(path, width, height, 0)?;
    decoder.set_options(options.jpeg_set_out_colorspace(ColorSpace::RGBA));
    let mut image = image::RgbaImage::new(width, height);
    decoder
        .decode_into(&mut image)
        .map_err(|e| decode_error(path, e))?;
    let note = match colour {
        ColorSpace::Luma => "8-bit greyscale converted to RGBA8",
        ColorSpace::CMYK | ColorSpace::YCCK => "CMYK converted to RGBA8 (opaque alpha)",
        _ => "RGB converted to RGBA8 (opaque alpha)",
    };
    Ok((image, format!("Jpeg, {colour:?}"), Some(note.into())))
}
