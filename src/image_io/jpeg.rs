//! JPEG through zune-jpeg in strict mode: a truncated or corrupt file is an error, not a
//! picture padded with grey (the lenient mode the image crate uses). Strict mode only
//! notices data that runs out, so every scan is also walked by [`check_scans`] (in
//! parallel with the decoding) to catch scan data that goes astray without running out.
//! Decodes straight to RGBA8, so the only pixel buffer is the result.

use super::admission::{Admission, Declared, LoadError};
use super::colour::Samples;
use super::decoded::Decoded;
use super::jpeg_scan::check_scans;
use image::metadata::Orientation;
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

fn options(out: ColorSpace) -> DecoderOptions {
    DecoderOptions::default()
        .set_strict_mode(true)
        .set_max_width(usize::from(u16::MAX))
        .set_max_height(usize::from(u16::MAX))
        .jpeg_set_out_colorspace(out)
}

/// Decodes a whole JPEG file held in `bytes`; `admission` sees the declared size first.
pub fn decode_jpeg(
    path: &Path,
    bytes: &[u8],
    admission: &Admission<'_>,
) -> Result<Decoded, LoadError> {
    // The output colour space must be set before the headers are read: zune-jpeg picks
    // its YCbCr converter while reading them.
    let mut decoder =
        zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), options(ColorSpace::RGBA));
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
    admission.check(path, Declared::typed(width, height, 4, 1))?;
    let icc = decoder.icc_profile();
    let orientation = decoder
        .exif()
        .and_then(|exif| Orientation::from_exif_chunk(exif))
        .unwrap_or(Orientation::NoTransforms);
    let cmyk = matches!(colour, ColorSpace::CMYK | ColorSpace::YCCK);
    if cmyk {
        // Four samples as stored; zune's own CMYK and YCCK to RGBA write three bytes a pixel.
        decoder = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), options(colour));
        decoder
            .decode_headers()
            .map_err(|e| decode_error(path, e))?;
    }
    let mut image = image::RgbaImage::new(width, height);
    let (decoded, scans) = rayon::join(|| decoder.decode_into(&mut image), || check_scans(bytes));
    decoded.map_err(|e| decode_error(path, e))?;
    scans.map_err(|e| decode_error(path, e))?;
    if colour == ColorSpace::YCCK {
        ycck_to_cmyk(&mut image);
    }
    if cmyk {
        // Adobe's convention (and libjpeg's, and Pillow's): CMYK is stored inverted.
        image.iter_mut().for_each(|v| *v = 255 - *v);
    }
    let note = match colour {
        ColorSpace::Luma => "8-bit greyscale converted to RGBA8",
        ColorSpace::CMYK | ColorSpace::YCCK => "CMYK converted to RGBA8 (opaque alpha)",
        _ => "RGB converted to RGBA8 (opaque alpha)",
    };
    Ok(Decoded {
        image: crate::pixels::PixelImage::from_rgba8(image),
        description: format!("Jpeg, {colour:?}"),
        note: Some(note.into()),
        samples: if cmyk { Samples::Cmyk } else { Samples::Colour },
        icc,
        orientation,
    })
}

/// YCCK (Adobe's transform 2, as Photoshop writes CMYK) to CMYK in place, as libjpeg does:
/// Y, Cb, Cr to R, G, B (JFIF's equations), then C, M, Y = 255 − R, G, B; K as stored.
fn ycck_to_cmyk(image: &mut image::RgbaImage) {
    for p in image.pixels_mut() {
        let [y, cb, cr, k] = p.0.map(f64::from);
        let (cb, cr) = (cb - 128.0, cr - 128.0);
        let rgb = [
            y + 1.402 * cr,
            y - 0.344_136 * cb - 0.714_136 * cr,
            y + 1.772 * cb,
        ];
        let [c, m, ye] = rgb.map(|v| 255 - v.round().clamp(0.0, 255.0) as u8);
        p.0 = [c, m, ye, k as u8];
    }
}
