//! TIFF through the `tiff` crate: 8-bit, 16-bit and 32-bit float grey, grey with alpha,
//! RGB and RGBA in their own type (classic and BigTIFF, strips or tiles, any compression
//! the crate reads, chunky or planar). Other layouts (palette, CMYK, bilevel...) are left
//! to the image crate. Saving writes the same layouts, BigTIFF past 4 GiB.

use super::admission::{Admission, Declared, LoadError};
use super::colour::Samples;
use super::decoded::Decoded;
use super::input::BufReadSeek;
use crate::pixels::{ImageBuf, PixelImage, Sample, SampleType};
use image::metadata::Orientation;
use std::io::{Seek, Write};
use std::path::Path;
use tiff::decoder::{Decoder, Limits};
use tiff::tags::{SampleFormat, Tag};
use tiff::{ColorType, TiffError};

/// Room the decoder may use beyond the image for one chunk's compressed data and tables.
const CHUNK_ALLOWANCE: usize = 64 << 20;

/// What a TIFF holds, when this module reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    sample_type: SampleType,
    /// Channels in the file: 1, 2 (grey + alpha), 3 or 4.
    file_channels: u8,
}

impl Layout {
    /// Channels of the loaded image (grey + alpha becomes RGBA).
    fn channels(self) -> u8 {
        if self.file_channels == 2 {
            4
        } else {
            self.file_channels
        }
    }
}

fn layout_of(colour: ColorType, format: SampleFormat) -> Option<Layout> {
    let (bits, file_channels) = match colour {
        ColorType::Gray(b) => (b, 1),
        ColorType::GrayA(b) => (b, 2),
        ColorType::Multiband {
            bit_depth,
            num_samples: 2,
        } => (bit_depth, 2),
        ColorType::RGB(b) => (b, 3),
        ColorType::RGBA(b) => (b, 4),
        _ => return None,
    };
    let sample_type = match (bits, format) {
        (8, SampleFormat::Uint) => SampleType::U8,
        (16, SampleFormat::Uint) => SampleType::U16,
        (32, SampleFormat::IEEEFP) => SampleType::F32,
        _ => return None,
    };
    Some(Layout {
        sample_type,
        file_channels,
    })
}

fn tiff_error(path: &Path, e: TiffError) -> LoadError {
    let path = path.to_path_buf();
    let reason = match e {
        TiffError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "truncated TIFF (its data runs past the end of the file)".into()
        }
        TiffError::IoError(source) => return LoadError::Io { path, source },
        TiffError::LimitsExceeded => "refused by the decoder limits (TIFF)".into(),
        TiffError::UnsupportedError(u) => format!("unsupported TIFF: {u}"),
        TiffError::FormatError(f) => format!("corrupt TIFF ({f})"),
        other => format!("corrupt TIFF ({other})"),
    };
    LoadError::Decode { path, reason }
}

/// Decodes the first image of a TIFF, or `Ok(None)` when its layout is one this module
/// leaves to the image crate (the reader is then rewound).
pub(super) fn decode_tiff(
    path: &Path,
    reader: &mut Box<dyn BufReadSeek>,
    admission: &Admission<'_>,
) -> Result<Option<Decoded>, LoadError> {
    let err = |e| tiff_error(path, e);
    let mut decoder = Decoder::new(&mut *reader).map_err(err)?;
    let (width, height) = decoder.dimensions().map_err(err)?;
    let colour = decoder.colortype().map_err(err)?;
    let buffer = decoder.image_buffer_layout().map_err(err)?;
    let Some(layout) = layout_of(colour, buffer.sample_format) else {
        drop(decoder);
        reader.rewind().map_err(|e| LoadError::from_io(path, e))?;
        return Ok(None);
    };
    let mut declared =
        Declared::typed(width, height, layout.channels(), layout.sample_type.bytes());
    if layout.file_channels == 2 {
        declared.decoder_bytes = buffer.complete_len as u64;
    }
    admission.check(path, declared)?;
    let mut limits = Limits::default();
    limits.decoding_buffer_size = buffer.complete_len.saturating_add(CHUNK_ALLOWANCE);
    limits.intermediate_buffer_size = limits.decoding_buffer_size;
    let mut decoder = decoder.with_limits(limits);
    let icc = decoder
        .find_tag(Tag::IccProfile)
        .ok()
        .flatten()
        .and_then(|v| v.into_u8_vec().ok());
    let orientation = decoder
        .find_tag_unsigned::<u8>(Tag::Orientation)
        .ok()
        .flatten()
        .and_then(Orientation::from_exif)
        .unwrap_or(Orientation::NoTransforms);
    let planes = (buffer.planes, buffer.complete_len);
    // The same read for each sample type, into its own buffer.
    macro_rules! read_as {
        ($variant:ident) => {
            PixelImage::$variant(read_samples(
                &mut decoder,
                width,
                height,
                layout,
                planes,
                path,
            )?)
        };
    }
    let image = match layout.sample_type {
        SampleType::U8 => read_as!(U8),
        SampleType::U16 => read_as!(U16),
        SampleType::F32 => read_as!(F32),
    };
    let note = (layout.file_channels == 2).then(|| "grey with alpha converted to RGBA".into());
    Ok(Some(Decoded {
        description: format!("Tiff, {}", image.describe()),
        image,
        note,
        samples: Samples::Colour,
        icc,
        orientation,
    }))
}

/// Reads every sample into a buffer of `T`, planes interleaved, grey + alpha widened.
fn read_samples<T: Sample + bytemuck::Pod, R: std::io::Read + Seek>(
    decoder: &mut Decoder<R>,
    width: u32,
    height: u32,
    layout: Layout,
    (planes, complete_len): (usize, usize),
    path: &Path,
) -> Result<ImageBuf<T>, LoadError> {
    let fc = usize::from(layout.file_channels);
    let want = (width as usize)
        .checked_mul(height as usize)
        .and_then(|n| n.checked_mul(fc))
        .filter(|&n| n * std::mem::size_of::<T>() == complete_len)
        .ok_or_else(|| LoadError::Decode {
            path: path.to_path_buf(),
            reason: format!("corrupt TIFF (its data size does not fit {width}×{height})"),
        })?;
    let mut data = vec![T::default(); want];
    decoder
        .read_image_bytes(bytemuck::cast_slice_mut(&mut data))
        .map_err(|e| tiff_error(path, e))?;
    if planes > 1 {
        data = interleave(&data, fc);
    }
    if fc == 2 {
        data = data
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect();
    }
    ImageBuf::from_vec(width, height, layout.channels(), data).map_err(|e| LoadError::Decode {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Planes one after the other to pixels of `channels` interleaved samples.
fn interleave<T: Copy>(planar: &[T], channels: usize) -> Vec<T> {
    let n = planar.len() / channels;
    (0..n)
        .flat_map(|i| (0..channels).map(move |c| planar[c * n + i]))
        .collect()
}

/// Bytes past which a classic TIFF's 32-bit offsets run out (with room for the tags).
const CLASSIC_LIMIT: u64 = (4 << 30) - (1 << 20);

/// Writes `image` as an uncompressed TIFF in its own type and channels; BigTIFF when the
/// pixel data would pass what 32-bit offsets reach.
pub(super) fn encode_tiff<W: Write + Seek>(image: &PixelImage, w: W) -> Result<(), TiffError> {
    if image.byte_len() as u64 > CLASSIC_LIMIT {
        let mut encoder = tiff::encoder::TiffEncoder::new_big(w)?;
        write_any(&mut encoder, image)
    } else {
        let mut encoder = tiff::encoder::TiffEncoder::new(w)?;
        write_any(&mut encoder, image)
    }
}

fn write_any<W: Write + Seek, K: tiff::encoder::TiffKind>(
    encoder: &mut tiff::encoder::TiffEncoder<W, K>,
    image: &PixelImage,
) -> Result<(), TiffError> {
    use tiff::encoder::colortype as ct;
    let (w, h) = image.dimensions();
    match image {
        PixelImage::U8(b) => match b.channels() {
            1 => encoder.write_image::<ct::Gray8>(w, h, b.as_slice()),
            3 => encoder.write_image::<ct::RGB8>(w, h, b.as_slice()),
            _ => encoder.write_image::<ct::RGBA8>(w, h, b.as_slice()),
        },
        PixelImage::U16(b) => match b.channels() {
            1 => encoder.write_image::<ct::Gray16>(w, h, b.as_slice()),
            3 => encoder.write_image::<ct::RGB16>(w, h, b.as_slice()),
            _ => encoder.write_image::<ct::RGBA16>(w, h, b.as_slice()),
        },
        PixelImage::F32(b) => match b.channels() {
            1 => encoder.write_image::<ct::Gray32Float>(w, h, b.as_slice()),
            3 => encoder.write_image::<ct::RGB32Float>(w, h, b.as_slice()),
            _ => encoder.write_image::<ct::RGBA32Float>(w, h, b.as_slice()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planes_interleave() {
        assert_eq!(interleave(&[1, 2, 3, 10, 20, 30], 2), [1, 10, 2, 20, 3, 30]);
    }

    #[test]
    fn round_trips_every_type_and_channel_count() {
        for t in SampleType::ALL {
            for c in [1u8, 3, 4] {
                let b = ImageBuf::<u16>::from_fn(7, 5, c, |x, y, ch| {
                    (x * 9000 + y * 77 + u32::from(ch) * 13) as u16
                })
                .expect("size");
                let image = PixelImage::U16(b).to_type(t);
                let mut bytes = std::io::Cursor::new(Vec::new());
                encode_tiff(&image, &mut bytes).expect("encodes");
                let mut reader: Box<dyn BufReadSeek> =
                    Box::new(std::io::Cursor::new(bytes.into_inner()));
                let decoded = decode_tiff(Path::new("t.tif"), &mut reader, &Admission::default())
                    .expect("decodes")
                    .expect("handled here");
                assert_eq!(decoded.image, image, "{t} × {c}");
            }
        }
    }
}
