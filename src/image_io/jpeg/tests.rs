//! The decoder against someone else's answer (tests/data/jpeg/, written and decoded by
//! scripts/fidelity/make_jpeg_corpus.py: Pillow for 8-bit files, imagecodecs for 12-bit and
//! lossless ones, both libjpeg-turbo with the same DCT and upsampling), and against
//! damaged files.

use super::markers::segment;
use super::*;
use crate::image_io::admission::Declared;
use std::path::PathBuf;

#[derive(serde::Deserialize)]
struct Entry {
    file: String,
    mode: String,
}

#[derive(serde::Deserialize)]
struct Manifest {
    files: Vec<Entry>,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/jpeg")
}

fn corpus() -> Vec<Entry> {
    let text = std::fs::read_to_string(corpus_dir().join("manifest.json")).expect("manifest");
    let manifest: Manifest = serde_json::from_str(&text).expect("manifest parses");
    assert!(manifest.files.len() >= 25, "corpus too small");
    manifest.files
}

fn corpus_file(name: &str) -> Vec<u8> {
    std::fs::read(corpus_dir().join(name)).expect("corpus file")
}

fn decode(name: &str, bytes: &[u8]) -> Result<Decoded, LoadError> {
    decode_jpeg(Path::new(name), bytes, &Admission::default())
}

/// The decoded samples and the reference's, as 16-bit values, with the channel count.
fn samples_and_reference(entry: &Entry) -> (Vec<u32>, Vec<u32>, u8) {
    let path = corpus_dir().join(&entry.file);
    let decoded = decode(&entry.file, &corpus_file(&entry.file)).expect("decodes");
    let reference =
        image::open(corpus_dir().join(format!("{}.ref.png", entry.file))).expect("reference loads");
    if decoded.samples == Samples::Cmyk {
        // Pillow's reference is its CMYK → RGB conversion: compare after ours.
        let PixelImage::U8(got) = decoded.finish(&path).pixels else {
            panic!("{}: CMYK gives 8-bit RGB", entry.file)
        };
        assert_eq!(got.channels(), 3, "{}: ink has no alpha", entry.file);
        let want = reference.into_rgb8();
        let wide = |v: Vec<u8>| v.into_iter().map(u32::from).collect();
        return (wide(got.into_vec()), wide(want.into_raw()), 3);
    }
    let channels = decoded.image.channels();
    let got: Vec<u32> = match decoded.image {
        PixelImage::U8(b) => b.into_vec().into_iter().map(u32::from).collect(),
        PixelImage::U16(b) => b.into_vec().into_iter().map(u32::from).collect(),
        PixelImage::F32(_) => panic!("{}: float samples", entry.file),
    };
    let want: Vec<u32> = match entry.mode.as_str() {
        "L" => reference
            .into_luma8()
            .into_raw()
            .into_iter()
            .map(u32::from)
            .collect(),
        "RGB" => reference
            .into_rgb8()
            .into_raw()
            .into_iter()
            .map(u32::from)
            .collect(),
        "L16" => reference
            .into_luma16()
            .into_raw()
            .into_iter()
            .map(u32::from)
            .collect(),
        "RGB16" => reference
            .into_rgb16()
            .into_raw()
            .into_iter()
            .map(u32::from)
            .collect(),
        other => panic!("{}: unknown mode {other}", entry.file),
    };
    (got, want, channels)
}

/// Both decoders are libjpeg-turbo with ISLOW DCT and fancy upsampling: exact.
#[test]
fn every_corpus_file_matches_its_reference_exactly() {
    let mut failures = Vec::new();
    for entry in corpus() {
        let (got, want, channels) = samples_and_reference(&entry);
        let want_channels = match entry.mode.as_str() {
            "L" | "L16" => 1,
            _ => 3,
        };
        if channels != want_channels && channels != 4 {
            failures.push(format!("{}: {channels} channels", entry.file));
            continue;
        }
        let max = got.iter().zip(&want).map(|(a, b)| a.abs_diff(*b)).max();
        if got.len() != want.len() || max != Some(0) {
            failures.push(format!(
                "{} ({}): {} samples, want {}, max difference {max:?}",
                entry.file,
                entry.mode,
                got.len(),
                want.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn twelve_bit_samples_widen_by_bit_replication() {
    assert_eq!(replicate(4095, 12, 16), 65535);
    assert_eq!(replicate(0, 12, 16), 0);
    assert_eq!(replicate(0x800, 12, 16), 0x8008);
    assert_eq!(replicate(0x123, 12, 16), 0x123 * 16 + 0x123 / 256);
    assert_eq!(replicate(0b101, 3, 8), 0b1011_0110);
    let decoded = decode("p12.jpg", &corpus_file("p12_420.jpg")).expect("decodes");
    assert_eq!(decoded.image.describe(), "16-bit RGB");
    assert_eq!(decoded.description, "Jpeg, YCbCr, 12-bit");
    assert!(decoded
        .note
        .unwrap_or_default()
        .contains("12-bit RGB widened to 16 bits"));
    let grey = decode("grey.jpg", &corpus_file("grey.jpg")).expect("decodes");
    assert_eq!(grey.image.describe(), "8-bit grey");
    let rgb = decode("rgb.jpg", &corpus_file("rgb.jpg")).expect("decodes");
    assert_eq!(
        (rgb.image.describe().as_str(), rgb.description.as_str()),
        ("8-bit RGB", "Jpeg, Rgb")
    );
}

/// A one-line "corrupt or truncated JPEG" error, or another one-line load error.
fn assert_refused(label: &str, bytes: &[u8]) -> String {
    let err = match decode(label, bytes) {
        Ok(_) => panic!("{label}: decoded"),
        Err(e) => e.to_string(),
    };
    assert!(
        !err.contains('\n') && err.starts_with(label),
        "{label}: {err}"
    );
    err
}

/// Offsets of every marker before the first scan, and of those inside and after it.
fn marker_offsets(jpeg: &[u8]) -> Vec<usize> {
    (0..jpeg.len().saturating_sub(1))
        .filter(|&i| jpeg[i] == 0xFF && !matches!(jpeg[i + 1], 0x00 | 0xFF))
        .collect()
}

#[test]
fn cut_at_every_marker_boundary_is_refused() {
    for name in [
        "baseline_420.jpg",
        "progressive.jpg",
        "scans_partial_0_12.jpg",
        "p12_420.jpg",
    ] {
        let good = corpus_file(name);
        decode(name, &good).expect("whole file decodes");
        let offsets = marker_offsets(&good);
        assert!(offsets.len() > 8, "{name}: {offsets:?}");
        for at in offsets.into_iter().skip(1) {
            for cut in [at, at + 1, at + 2].into_iter().filter(|&c| c < good.len()) {
                let err = assert_refused(name, &good[..cut]);
                assert!(
                    err.contains("corrupt or truncated JPEG"),
                    "{name}[..{cut}]: {err}"
                );
            }
        }
    }
}

/// The start of the payload of the first segment whose marker satisfies `which`.
fn payload_of(jpeg: &[u8], which: impl Fn(u8) -> bool) -> usize {
    let mut at = 2;
    while let Some((marker, payload, next)) = segment(jpeg, at) {
        if which(marker) {
            return payload.as_ptr() as usize - jpeg.as_ptr() as usize;
        }
        at = next;
    }
    panic!("no such segment")
}

const SOF0: u8 = 0xC0;
const SOS: u8 = 0xDA;

#[test]
fn damaged_scans_and_headers_are_refused_with_one_line() {
    let good = corpus_file("baseline_420.jpg");
    let sos = payload_of(&good, |m| m == SOS);
    let sof = payload_of(&good, |m| m == SOF0);
    let mut huffman = good.clone();
    let mid = sos + (good.len() - sos) / 2;
    // One-bits: a code the standard tables never assign.
    huffman[mid..mid + 8].fill(0xFE);
    let mut component = good.clone();
    component[sos + 1] = 9; // the first scan component's id: no such component
    let mut no_components = good.clone();
    no_components[sof + 5] = 0;
    // Scan data going on past its last block (libjpeg-turbo's Huffman decoder reads a few
    // bytes ahead, so only junk longer than that is noticed).
    let mut extra = good[..good.len() - 2].to_vec();
    extra.extend((0..64u8).map(|v| v.wrapping_mul(37) | 1));
    extra.extend_from_slice(&[0xFF, 0xD9]);
    for (label, bytes) in [
        ("huffman", huffman),
        ("component", component),
        ("no_components", no_components),
        ("extraneous", extra),
        ("empty", Vec::new()),
        ("soi_only", vec![0xFF, 0xD8]),
    ] {
        let err = assert_refused(label, &bytes);
        assert!(err.contains("corrupt or truncated JPEG"), "{label}: {err}");
    }
}

#[test]
fn absurd_declared_sizes_are_refused_before_decoding() {
    let good = corpus_file("progressive.jpg");
    let sof = payload_of(&good, |m| (0xC0..=0xC2).contains(&m));
    let declaring = |w: u16, h: u16| {
        let mut b = good.clone();
        b[sof + 1..sof + 3].copy_from_slice(&h.to_be_bytes());
        b[sof + 3..sof + 5].copy_from_slice(&w.to_be_bytes());
        b
    };
    let err = assert_refused("huge", &declaring(40000, 40000));
    assert!(err.contains("larger than"), "{err}");
    // Within the side limit: the caller's check sees the size first and refuses.
    let seen = std::cell::Cell::new(None);
    let admit = |d: Declared| {
        seen.set(Some(d));
        Err("too big for this test".to_string())
    };
    let admission = Admission {
        max_side: 32768,
        admit: &admit,
    };
    let bytes = declaring(30000, 20000);
    let Err(err) = decode_jpeg(Path::new("big"), &bytes, &admission) else {
        panic!("admitted");
    };
    assert!(err.to_string().contains("too big for this test"), "{err}");
    let d = seen.get().expect("admission consulted");
    assert_eq!((d.width, d.height), (30000, 20000));
    // RGB samples, and a progressive file's coefficients besides.
    assert_eq!(d.image_bytes, 30000 * 20000 * 3);
    assert_eq!(d.decoder_bytes, 30000 * 20000 * 3 * 2);
    // Admitted, the data runs out long before the declared rows.
    let err = assert_refused("big", &declaring(3000, 2000));
    assert!(err.contains("corrupt or truncated JPEG"), "{err}");
    let err = assert_refused("zero", &declaring(0, 49));
    assert!(!err.is_empty());
}
