//! OpenEXR through the `exr` crate: the first layer's R, G, B (and A) channels, or a single
//! Y (or any one) channel as grey, half or float, loaded as 32-bit float (half widens
//! exactly). Saving writes float R, G, B, A or Y channels.

use super::admission::{Admission, Declared, LoadError};
use super::colour::Samples;
use super::decoded::Decoded;
use super::input::BufReadSeek;
use crate::pixels::{ImageBuf, PixelImage};
use exr::prelude::{
    AnyChannel, AnyChannels, Encoding, FlatSamples, Image, Layer, LayerAttributes, ReadChannels,
    ReadLayers, WritableImage,
};
use image::metadata::Orientation;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

/// Bytes of one entry of a chunk offset table.
const OFFSET_BYTES: u64 = 8;

fn exr_error(path: &Path, e: exr::error::Error) -> LoadError {
    let path = path.to_path_buf();
    let reason = match e {
        exr::error::Error::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "truncated EXR (its data runs past the end of the file)".into()
        }
        exr::error::Error::Io(source) => return LoadError::Io { path, source },
        exr::error::Error::NotSupported(what) => format!("unsupported EXR: {what}"),
        exr::error::Error::Invalid(what) => format!("corrupt EXR ({what})"),
        exr::error::Error::Aborted => "corrupt EXR (decoding aborted)".into(),
    };
    LoadError::Decode { path, reason }
}

fn decode_error(path: &Path, reason: String) -> LoadError {
    LoadError::Decode {
        path: path.to_path_buf(),
        reason,
    }
}

/// The header's declared size and sample bytes, checked before any pixel is read: the
/// largest layer against `admission`, the offset tables against the file's length.
fn admit_headers(
    path: &Path,
    reader: &mut Box<dyn BufReadSeek>,
    admission: &Admission<'_>,
) -> Result<(), LoadError> {
    let io = |e| LoadError::from_io(path, e);
    let file_len = reader.seek(SeekFrom::End(0)).map_err(io)?;
    reader.rewind().map_err(io)?;
    let meta = exr::meta::MetaData::read_from_buffered(&mut *reader, false)
        .map_err(|e| exr_error(path, e))?;
    reader.rewind().map_err(io)?;
    let chunks: u64 = meta.headers.iter().map(|h| h.chunk_count as u64).sum();
    if chunks.saturating_mul(OFFSET_BYTES) > file_len {
        return Err(decode_error(
            path,
            format!("corrupt EXR ({chunks} chunks declared in a {file_len}-byte file)"),
        ));
    }
    for header in &meta.headers {
        if header.deep {
            return Err(decode_error(path, "unsupported EXR: deep data".into()));
        }
        let size = header.layer_size;
        let side = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        let (w, h) = (side(size.0), side(size.1));
        let sample_bytes: u64 = header
            .channels
            .list
            .iter()
            .map(|c| c.sample_type.bytes_per_sample() as u64)
            .sum();
        let mut declared = Declared::typed(w, h, 4, 4);
        declared.decoder_bytes = u64::from(w) * u64::from(h) * sample_bytes;
        admission.check(path, declared)?;
    }
    Ok(())
}

/// The channels the image is made of: R, G, B (A) or one grey channel (A), by the last
/// part of each name (`diffuse.R` is R).
fn pick<'a>(
    list: &'a [AnyChannel<FlatSamples>],
    path: &Path,
) -> Result<(Vec<&'a FlatSamples>, Option<String>), LoadError> {
    let find = |name: &str| {
        list.iter()
            .find(|c| c.name.to_string().rsplit('.').next() == Some(name))
            .map(|c| &c.sample_data)
    };
    let alpha = find("A");
    if let (Some(r), Some(g), Some(b)) = (find("R"), find("G"), find("B")) {
        let mut chosen = vec![r, g, b];
        chosen.extend(alpha);
        return Ok((chosen, None));
    }
    let grey = find("Y").map(|y| (y, None)).or_else(|| match list {
        [only] => Some((
            &only.sample_data,
            Some(format!("EXR channel “{}” loaded as grey", only.name)),
        )),
        _ => None,
    });
    match (grey, alpha) {
        (Some((y, note)), None) => Ok((vec![y], note)),
        (Some((y, note)), Some(a)) => {
            let with = "grey with alpha converted to RGBA".to_string();
            let note = Some(note.map_or(with.clone(), |n| format!("{n}; {with}")));
            Ok((vec![y, y, y, a], note))
        }
        (None, _) => {
            let names: Vec<String> = list.iter().map(|c| c.name.to_string()).collect();
            Err(decode_error(
                path,
                format!(
                    "unsupported EXR channels ({}): expected R, G, B (A) or Y",
                    names.join(", ")
                ),
            ))
        }
    }
}

fn value(samples: &FlatSamples, i: usize) -> f32 {
    match samples {
        FlatSamples::F16(v) => v[i].to_f32(),
        FlatSamples::F32(v) => v[i],
        FlatSamples::U32(v) => v[i] as f32,
    }
}

/// Decodes an OpenEXR file's first layer as 32-bit float.
pub(super) fn decode_exr(
    path: &Path,
    reader: &mut Box<dyn BufReadSeek>,
    admission: &Admission<'_>,
) -> Result<Decoded, LoadError> {
    admit_headers(path, reader, admission)?;
    let image = exr::prelude::read()
        .no_deep_data()
        .largest_resolution_level()
        .all_channels()
        .first_valid_layer()
        .all_attributes()
        .from_buffered(&mut *reader)
        .map_err(|e| exr_error(path, e))?;
    let layer = &image.layer_data;
    let (w, h) = (layer.size.0, layer.size.1);
    let n = w * h;
    let list = &layer.channel_data.list;
    let (chosen, mut note) = pick(list, path)?;
    if chosen.iter().any(|s| s.len() != n) {
        return Err(decode_error(
            path,
            "unsupported EXR: subsampled channels".into(),
        ));
    }
    let kinds = |f: fn(&FlatSamples) -> bool| chosen.iter().any(|s| f(s));
    let mut notes: Vec<String> = note.take().into_iter().collect();
    if kinds(|s| matches!(s, FlatSamples::F16(_))) {
        notes.push("half floats widened to 32-bit float".into());
    }
    if kinds(|s| matches!(s, FlatSamples::U32(_))) {
        notes.push("32-bit integer channels converted to float".into());
    }
    let c = chosen.len();
    let mut data = Vec::with_capacity(n * c);
    for i in 0..n {
        data.extend(chosen.iter().map(|s| value(s, i)));
    }
    let side = |v: usize| u32::try_from(v).map_err(|_| decode_error(path, "too large".into()));
    let buf = ImageBuf::from_vec(side(w)?, side(h)?, c as u8, data)
        .map_err(|e| decode_error(path, e.to_string()))?;
    let pixels = PixelImage::F32(buf);
    Ok(Decoded {
        description: format!("OpenExr, {}", pixels.describe()),
        image: pixels,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        samples: Samples::Colour,
        icc: None,
        orientation: Orientation::NoTransforms,
    })
}

/// Writes a 32-bit float image as EXR channels Y, or R, G, B (and A), run-length coded.
pub(super) fn encode_exr<W: Write + Seek>(
    image: &ImageBuf<f32>,
    w: W,
) -> Result<(), exr::error::Error> {
    let c = usize::from(image.channels());
    let names: &[&str] = match c {
        1 => &["Y"],
        3 => &["R", "G", "B"],
        _ => &["R", "G", "B", "A"],
    };
    let channels: Vec<AnyChannel<FlatSamples>> = names
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let plane = image
                .as_slice()
                .iter()
                .skip(k)
                .step_by(c)
                .copied()
                .collect();
            AnyChannel::new(*name, FlatSamples::F32(plane))
        })
        .collect();
    let size = (image.width() as usize, image.height() as usize);
    let layer = Layer::new(
        size,
        LayerAttributes::default(),
        Encoding::FAST_LOSSLESS,
        AnyChannels::sort(channels.into()),
    );
    Image::from_layer(layer).write().to_buffered(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_grey_rgb_and_rgba() {
        for c in [1u8, 3, 4] {
            let b = ImageBuf::<f32>::from_fn(9, 4, c, |x, y, ch| {
                x as f32 * 0.37 - y as f32 * 1.5 + f32::from(ch) * 1e-3
            })
            .expect("size");
            let mut bytes = std::io::Cursor::new(Vec::new());
            encode_exr(&b, &mut bytes).expect("encodes");
            let mut reader: Box<dyn BufReadSeek> =
                Box::new(std::io::Cursor::new(bytes.into_inner()));
            let decoded = decode_exr(Path::new("t.exr"), &mut reader, &Admission::default())
                .expect("decodes");
            assert_eq!(decoded.image, PixelImage::F32(b), "{c} channels");
        }
    }
}
