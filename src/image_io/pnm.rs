//! Netpbm grey and colour maps: PGM (P2, P5) and PPM (P3, P6), 8 or 16 bits. A maxval
//! other than 255 or 65535 is scaled to the full range (rounded) and noted. Saving writes
//! binary P5 (grey) or P6 (RGB), maxval 255 or 65535.

use super::admission::{Admission, Declared, LoadError};
use super::colour::Samples;
use super::decoded::Decoded;
use crate::pixels::{ImageBuf, PixelImage};
use image::metadata::Orientation;
use std::io::{BufRead, Write};
use std::path::Path;

/// Longest header token read (digits of a number, or a magic).
const MAX_TOKEN: usize = 20;

/// What a header declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Header {
    width: u32,
    height: u32,
    maxval: u32,
    channels: u8,
    binary: bool,
}

fn corrupt(path: &Path, what: impl std::fmt::Display) -> LoadError {
    LoadError::Decode {
        path: path.to_path_buf(),
        reason: format!("corrupt PGM/PPM ({what})"),
    }
}

fn read_error(path: &Path, e: std::io::Error) -> LoadError {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        LoadError::Decode {
            path: path.to_path_buf(),
            reason: "the file is truncated (unexpected end of data)".into(),
        }
    } else {
        LoadError::from_io(path, e)
    }
}

fn next_byte(r: &mut impl BufRead) -> std::io::Result<Option<u8>> {
    let b = r.fill_buf()?.first().copied();
    if b.is_some() {
        r.consume(1);
    }
    Ok(b)
}

/// The next whitespace-separated token, skipping `#` comments; `None` at the end.
fn token(r: &mut impl BufRead, path: &Path) -> Result<Option<String>, LoadError> {
    let mut text = String::new();
    loop {
        let Some(b) = next_byte(r).map_err(|e| read_error(path, e))? else {
            return Ok((!text.is_empty()).then_some(text));
        };
        match b {
            b'#' if text.is_empty() => {
                while !matches!(
                    next_byte(r).map_err(|e| read_error(path, e))?,
                    Some(b'\n' | b'\r') | None
                ) {}
            }
            b if b.is_ascii_whitespace() => {
                if !text.is_empty() {
                    return Ok(Some(text));
                }
            }
            b if text.len() < MAX_TOKEN => text.push(char::from(b)),
            _ => return Err(corrupt(path, "a header value is too long")),
        }
    }
}

fn number(r: &mut impl BufRead, path: &Path, what: &str) -> Result<u32, LoadError> {
    let t = token(r, path)?
        .ok_or_else(|| read_error(path, std::io::ErrorKind::UnexpectedEof.into()))?;
    t.parse()
        .map_err(|_| corrupt(path, format!("{what} “{t}” is not a number")))
}

fn header(r: &mut impl BufRead, path: &Path) -> Result<Header, LoadError> {
    let magic = token(r, path)?.unwrap_or_default();
    let (channels, binary) = match magic.as_str() {
        "P2" => (1, false),
        "P3" => (3, false),
        "P5" => (1, true),
        "P6" => (3, true),
        other => {
            return Err(LoadError::Decode {
                path: path.to_path_buf(),
                reason: format!(
                    "unsupported Netpbm kind “{other}” (PGM P2/P5 and PPM P3/P6 are read)"
                ),
            })
        }
    };
    let width = number(r, path, "width")?;
    let height = number(r, path, "height")?;
    let maxval = number(r, path, "maxval")?;
    if !(1..=65535).contains(&maxval) {
        return Err(corrupt(path, format!("maxval {maxval} is not 1 to 65535")));
    }
    Ok(Header {
        width,
        height,
        maxval,
        channels,
        binary,
    })
}

/// The raw samples, in file order, each at most `maxval`.
fn raw_samples(
    r: &mut impl BufRead,
    h: Header,
    count: usize,
    path: &Path,
) -> Result<Vec<u16>, LoadError> {
    let values: Vec<u16> = if !h.binary {
        let mut v = Vec::with_capacity(count);
        for _ in 0..count {
            let n = number(r, path, "sample")?;
            if n > h.maxval {
                return Err(corrupt(
                    path,
                    format!("sample {n} above maxval {}", h.maxval),
                ));
            }
            v.push(n as u16);
        }
        v
    } else if h.maxval < 256 {
        let mut bytes = vec![0u8; count];
        r.read_exact(&mut bytes).map_err(|e| read_error(path, e))?;
        bytes.into_iter().map(u16::from).collect()
    } else {
        let mut bytes = vec![0u8; count * 2];
        r.read_exact(&mut bytes).map_err(|e| read_error(path, e))?;
        bytes
            .chunks_exact(2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .collect()
    };
    match values.iter().find(|&&v| u32::from(v) > h.maxval) {
        Some(v) => Err(corrupt(
            path,
            format!("sample {v} above maxval {}", h.maxval),
        )),
        None => Ok(values),
    }
}

/// `v` of `0..=maxval` on `0..=full`, rounded half up (exact integer arithmetic).
fn scale(v: u16, maxval: u32, full: u32) -> u32 {
    (u32::from(v) * full * 2 + maxval) / (2 * maxval)
}

/// Decodes a PGM or PPM file.
pub(super) fn decode_pnm(
    path: &Path,
    r: &mut impl BufRead,
    admission: &Admission<'_>,
) -> Result<Decoded, LoadError> {
    let h = header(r, path)?;
    let wide = h.maxval > 255;
    let bytes = if wide { 2 } else { 1 };
    let mut declared = Declared::typed(h.width, h.height, h.channels, bytes);
    declared.decoder_bytes = declared.image_bytes / bytes as u64 * 2;
    admission.check(path, declared)?;
    let count = (h.width as usize) * (h.height as usize) * usize::from(h.channels);
    let raw = raw_samples(r, h, count, path)?;
    let full = if wide { 65535 } else { 255 };
    let scaled = h.maxval != full;
    let value = |v: u16| {
        if scaled {
            scale(v, h.maxval, full)
        } else {
            u32::from(v)
        }
    };
    let build = |e: crate::pixels::PixelsError| corrupt(path, e);
    let image = if wide {
        let data = raw.iter().map(|&v| value(v) as u16).collect();
        PixelImage::U16(ImageBuf::from_vec(h.width, h.height, h.channels, data).map_err(build)?)
    } else {
        let data = raw.iter().map(|&v| value(v) as u8).collect();
        PixelImage::U8(ImageBuf::from_vec(h.width, h.height, h.channels, data).map_err(build)?)
    };
    let kind = if h.channels == 1 { "PGM" } else { "PPM" };
    let note = scaled.then(|| format!("{kind} maxval {} scaled to 0..{full}", h.maxval));
    Ok(Decoded {
        description: format!("Pnm, {}", image.describe()),
        image,
        note,
        samples: Samples::Colour,
        icc: None,
        orientation: Orientation::NoTransforms,
    })
}

/// Writes a grey (P5) or RGB (P6) 8- or 16-bit image; other layouts are the caller's to
/// convert first.
pub(super) fn encode_pnm(image: &PixelImage, w: &mut impl Write) -> std::io::Result<()> {
    let magic = match image.channels() {
        1 => "P5",
        3 => "P6",
        c => {
            return Err(std::io::Error::other(format!(
                "PGM/PPM hold 1 or 3 channels, not {c}"
            )))
        }
    };
    let (width, height) = image.dimensions();
    match image {
        PixelImage::U8(b) => {
            write!(w, "{magic}\n{width} {height}\n255\n")?;
            w.write_all(b.as_slice())
        }
        PixelImage::U16(b) => {
            write!(w, "{magic}\n{width} {height}\n65535\n")?;
            let bytes: Vec<u8> = b.as_slice().iter().flat_map(|v| v.to_be_bytes()).collect();
            w.write_all(&bytes)
        }
        PixelImage::F32(_) => Err(std::io::Error::other("PGM/PPM hold no float samples")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn load(bytes: &[u8]) -> Result<Decoded, LoadError> {
        decode_pnm(
            Path::new("t.pgm"),
            &mut Cursor::new(bytes),
            &Admission::default(),
        )
    }

    #[test]
    fn reads_ascii_binary_and_odd_maxvals() {
        let d = load(b"P2\n# comment\n3 1\n1000\n0 500 1000\n").expect("ascii");
        let PixelImage::U16(b) = &d.image else {
            panic!("U16")
        };
        assert_eq!(b.as_slice(), [0, 32768, 65535]);
        assert!(d.note.expect("note").contains("maxval 1000"));
        let d = load(b"P6 1 1 15\n\x00\x07\x0f").expect("binary");
        let PixelImage::U8(b) = &d.image else {
            panic!("U8")
        };
        assert_eq!(b.as_slice(), [0, 119, 255]);
        let d = load(b"P5 2 1 65535\n\x12\x34\xff\xfe").expect("16-bit");
        let PixelImage::U16(b) = &d.image else {
            panic!("U16")
        };
        assert_eq!(b.as_slice(), [0x1234, 0xfffe]);
        assert!(d.note.is_none());
    }

    #[test]
    fn refuses_bad_headers_and_data() {
        for (bytes, needle) in [
            (&b"P5 2 1 0\n\0\0"[..], "maxval 0"),
            (b"P5 2 1 70000\n\0\0", "maxval 70000"),
            (b"P5 2 1 255\n\0", "truncated"),
            (b"P2 2 1 10\n3 11", "above maxval"),
            (b"P5 x 1 255\n", "not a number"),
            (b"P4 1 1\n\0", "unsupported"),
        ] {
            let Err(err) = load(bytes) else {
                panic!("loaded")
            };
            let err = err.to_string();
            assert!(err.contains(needle), "{err}");
        }
    }

    #[test]
    fn scaling_rounds_to_nearest() {
        for maxval in [1u32, 3, 1000, 4095] {
            for v in 0..=maxval.min(2000) {
                let want = (f64::from(v) * 65535.0 / f64::from(maxval)).round() as u32;
                assert_eq!(scale(v as u16, maxval, 65535), want, "{v}/{maxval}");
            }
        }
    }
}
