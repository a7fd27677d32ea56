//! The metadata libjpeg-turbo's TurboJPEG API does not hand out: the EXIF block (APP1)
//! and whether an Adobe marker (APP14) is present, read from the segments before the first
//! scan. A malformed segment ends the walk: metadata never refuses an image.

const SOI: u8 = 0xD8;
const EOI: u8 = 0xD9;
const SOS: u8 = 0xDA;
const APP1: u8 = 0xE1;
const APP14: u8 = 0xEE;
const EXIF_PREFIX: &[u8] = b"Exif\0\0";
const ADOBE_PREFIX: &[u8] = b"Adobe";

/// What the segments before the first scan carry.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Markers<'a> {
    /// The first EXIF block, from its TIFF header on.
    pub exif: Option<&'a [u8]>,
    /// An Adobe APP14 marker was seen: CMYK samples are stored inverted.
    pub adobe: bool,
}

/// The segments of `jpeg` up to its first scan.
pub fn read_markers(jpeg: &[u8]) -> Markers<'_> {
    let mut found = Markers::default();
    if jpeg.get(..2) != Some(&[0xFF, SOI]) {
        return found;
    }
    let mut at = 2;
    while let Some((marker, payload, next)) = segment(jpeg, at) {
        match marker {
            SOS | EOI => break,
            APP1 if found.exif.is_none() => {
                found.exif = payload.strip_prefix(EXIF_PREFIX);
            }
            APP14 => found.adobe |= payload.starts_with(ADOBE_PREFIX),
            _ => {}
        }
        at = next;
    }
    found
}

/// The segment at `at`: its marker, payload and where the next one starts. Fill bytes
/// (0xFF runs) before a marker are skipped; markers without a payload give an empty one.
pub(super) fn segment(jpeg: &[u8], mut at: usize) -> Option<(u8, &[u8], usize)> {
    if *jpeg.get(at)? != 0xFF {
        return None;
    }
    while *jpeg.get(at + 1)? == 0xFF {
        at += 1;
    }
    let marker = jpeg[at + 1];
    if matches!(marker, 0x01 | 0xD0..=0xD7 | SOI | EOI) {
        return Some((marker, &[], at + 2));
    }
    let len = usize::from(u16::from_be_bytes([*jpeg.get(at + 2)?, *jpeg.get(at + 3)?]));
    // The length counts its own two bytes.
    let payload = jpeg.get(at + 4..(at + 2 + len).max(at + 4))?;
    Some((marker, payload, at + 2 + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment_bytes(marker: u8, payload: &[u8]) -> Vec<u8> {
        let len = u16::try_from(payload.len() + 2)
            .expect("short")
            .to_be_bytes();
        [&[0xFF, marker], &len[..], payload].concat()
    }

    #[test]
    fn finds_exif_and_adobe_before_the_scan() {
        let exif = [EXIF_PREFIX, b"MM\0*rest"].concat();
        let jpeg = [
            vec![0xFF, SOI, 0xFF],
            segment_bytes(0xE0, b"JFIF\0"),
            segment_bytes(APP1, &exif),
            segment_bytes(APP14, b"Adobe\0\x64\0\0\0\0\x02"),
            segment_bytes(SOS, b"\x01"),
            segment_bytes(APP1, b"Exif\0\0II*\0late"),
        ]
        .concat();
        let found = read_markers(&jpeg);
        assert_eq!(found.exif, Some(&b"MM\0*rest"[..]));
        assert!(found.adobe);
    }

    #[test]
    fn cut_or_garbage_input_gives_what_was_read() {
        let jpeg = [vec![0xFF, SOI], segment_bytes(APP14, b"Adobe\0\0")].concat();
        for n in 0..jpeg.len() {
            assert!(!read_markers(&jpeg[..n]).adobe);
        }
        assert!(read_markers(&jpeg).adobe);
        assert_eq!(
            read_markers(b"\xFF\xD8\xFF\xE1\x00\x01"),
            Markers::default()
        );
        assert_eq!(read_markers(b"\xFF\xD8\xFF\xE1\x00"), Markers::default());
        assert_eq!(read_markers(b""), Markers::default());
    }
}
