//! JPEG through libjpeg-turbo (the decoder of Pillow, browsers and most viewers), strict:
//! any warning (data cut short, a bad Huffman code, scan data ending before its marker)
//! refuses the file instead of showing a picture padded with grey. Samples keep the file's
//! channels and depth: grey stays one channel, colour (YCbCr or stored RGB) is RGB, CMYK
//! and YCCK become CMYK ink amounts for [`Decoded::finish`] to convert, 12-bit (and
//! lossless 9- to 16-bit) samples are widened to 16 bits.

mod markers;
mod turbo;

use super::admission::{Admission, Declared, LoadError};
use super::colour::Samples;
use super::decoded::Decoded;
use crate::pixels::{ImageBuf, PixelImage, PixelsError, Sample};
use image::metadata::Orientation;
use markers::read_markers;
use std::path::Path;
use turbo::{Decompressor, JpegColour, JpegHeader, PixelLayout, TurboError};

/// Why the samples could not be decoded.
#[derive(Debug, thiserror::Error)]
enum JpegError {
    #[error(transparent)]
    Turbo(#[from] TurboError),
    #[error(transparent)]
    Pixels(#[from] PixelsError),
    #[error("{0}-bit samples are not supported")]
    Precision(u8),
}

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
) -> Result<Decoded, LoadError> {
    let mut decoder = Decompressor::new().map_err(|e| decode_error(path, e))?;
    let header = decoder
        .read_header(bytes)
        .map_err(|e| decode_error(path, e))?;
    let layout = layout_of(header.colour);
    admission.check(path, declared(&header, layout))?;
    // Metadata never refuses an image: without it, it is upright sRGB.
    let icc = decoder.icc_profile();
    let markers = read_markers(bytes);
    let orientation = markers
        .exif
        .and_then(Orientation::from_exif_chunk)
        .unwrap_or(Orientation::NoTransforms);
    let mut image =
        decode_samples(&mut decoder, bytes, &header, layout).map_err(|e| decode_error(path, e))?;
    let cmyk = layout == PixelLayout::Cmyk;
    if cmyk && markers.adobe {
        // Adobe's convention (libjpeg's and Pillow's too): CMYK is stored inverted.
        image = crate::map_pixels!(image, b => invert(b));
    }
    Ok(Decoded {
        image,
        description: describe(&header),
        note: Some(note(&header, layout)),
        samples: if cmyk { Samples::Cmyk } else { Samples::Colour },
        icc,
        orientation,
    })
}

/// The layout libjpeg-turbo decodes a colour space to (YCCK becomes CMYK as libjpeg does).
fn layout_of(colour: JpegColour) -> PixelLayout {
    match colour {
        JpegColour::Grey => PixelLayout::Grey,
        JpegColour::YCbCr | JpegColour::Rgb => PixelLayout::Rgb,
        JpegColour::Cmyk | JpegColour::Ycck => PixelLayout::Cmyk,
    }
}

/// Bytes decoding needs besides the RGBA8 image: the samples as decoded, and for
/// progressive files libjpeg-turbo's whole-image coefficients (2 bytes a sample).
/// The image's bytes in its own type, and the decoder's: a progressive file keeps every
/// coefficient (2 bytes a sample) until its last scan.
fn declared(header: &JpegHeader, layout: PixelLayout) -> Declared {
    let depth = if header.precision > 8 { 2 } else { 1 };
    let mut declared = Declared::typed(header.width, header.height, layout.channels(), depth);
    if header.progressive {
        declared.decoder_bytes = 2 * declared.image_bytes / depth as u64;
    }
    declared
}

fn decode_samples(
    decoder: &mut Decompressor,
    bytes: &[u8],
    header: &JpegHeader,
    layout: PixelLayout,
) -> Result<PixelImage, JpegError> {
    let (w, h, c) = (header.width, header.height, layout.channels());
    match header.precision {
        p @ 2..=8 => {
            let mut buf = ImageBuf::<u8>::new(w, h, c)?;
            decoder.decompress8(bytes, header, layout, buf.as_mut_slice())?;
            widen(buf.as_mut_slice(), p);
            Ok(PixelImage::U8(buf))
        }
        p @ 9..=16 => {
            let mut buf = ImageBuf::<u16>::new(w, h, c)?;
            decoder.decompress16(bytes, header, layout, buf.as_mut_slice())?;
            widen(buf.as_mut_slice(), p);
            Ok(PixelImage::U16(buf))
        }
        p => Err(JpegError::Precision(p)),
    }
}

/// Samples of `precision` bits to the full range of their type by bit replication
/// (12 to 16 bits: v·16 + v/256, so 4095 becomes 65535); nothing to do at full depth.
fn widen<T: Sample + TryFrom<u32> + Into<u32>>(samples: &mut [T], precision: u8) {
    let to = 8 * std::mem::size_of::<T>() as u32;
    let from = u32::from(precision);
    if from >= to || from == 0 {
        return;
    }
    let table: Vec<T> = (0..1u32 << from)
        .map(|v| T::try_from(replicate(v, from, to)).unwrap_or(T::FULL))
        .collect();
    for s in samples {
        let v: u32 = (*s).into();
        *s = table.get(v as usize).copied().unwrap_or(T::FULL);
    }
}

/// `v` of `from` bits repeated from the top down to fill `to` bits.
fn replicate(v: u32, from: u32, to: u32) -> u32 {
    let mut out = 0;
    let mut filled = 0;
    while filled < to {
        let take = from.min(to - filled);
        out = (out << take) | (v >> (from - take));
        filled += take;
    }
    out
}

/// Every sample `v` becomes `FULL − v`.
fn invert<T: Sample + std::ops::Sub<Output = T>>(mut buf: ImageBuf<T>) -> ImageBuf<T> {
    buf.as_mut_slice()
        .iter_mut()
        .for_each(|v| *v = T::FULL - *v);
    buf
}

/// "Jpeg, YCbCr", "Jpeg, Grey, 12-bit, progressive".
fn describe(header: &JpegHeader) -> String {
    let mut text = format!("Jpeg, {:?}", header.colour);
    if header.precision != 8 {
        text += &format!(", {}-bit", header.precision);
    }
    for (flag, name) in [
        (header.progressive, "progressive"),
        (header.arithmetic, "arithmetic"),
        (header.lossless, "lossless"),
    ] {
        if flag {
            text += &format!(", {name}");
        }
    }
    text
}

/// "12-bit RGB widened to 16 bits by bit replication, reduced to 8 bits and converted to
/// RGBA8 (opaque alpha)".
fn note(header: &JpegHeader, layout: PixelLayout) -> String {
    let p = header.precision;
    let kind = match layout {
        PixelLayout::Grey => "greyscale",
        PixelLayout::Rgb => "RGB",
        PixelLayout::Cmyk => "CMYK",
    };
    let mut text = format!("{p}-bit {kind}");
    if p != 8 && p != 16 {
        let to = if p < 8 { 8 } else { 16 };
        text += &format!(" widened to {to} bits by bit replication,");
    }
    if p > 8 {
        text += " reduced to 8 bits and";
    }
    text += " converted to RGBA8";
    if layout != PixelLayout::Grey {
        text += " (opaque alpha)";
    }
    text
}

#[cfg(test)]
mod tests;
