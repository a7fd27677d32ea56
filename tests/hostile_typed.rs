//! Hostile TIFF, EXR and PGM/PPM files: truncated, absurd declared sizes, strip offsets past
//! the end, zero sizes, text under an image name, a huge maxval, tiles larger than the
//! image, a strip that inflates far past its size. Each: exit 2 with one line naming the
//! file, no panic, no hang, memory bounded, nothing written.

mod common;

use common::data;
use common::process::{cudalens, leftover_parts, run_limited, Finished};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);
const MIB: u64 = 1 << 20;

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

fn typed(name: &str) -> Vec<u8> {
    std::fs::read(data(&format!("typed/{name}"))).expect("corpus file")
}

/// One TIFF tag: (tag, type, count, value) with type 3 SHORT or 4 LONG, value inline.
type Tag = (u16, u16, u32, u32);

/// A little-endian classic TIFF with one IFD holding `tags` (sorted here), then `data`.
/// Offsets in tags are absolute; the data starts at [`tiff_data_offset`].
fn tiff_with(tags: &[Tag], data: &[u8]) -> Vec<u8> {
    let mut tags = tags.to_vec();
    tags.sort_by_key(|t| t.0);
    let mut out = b"II*\0".to_vec();
    out.extend_from_slice(&8u32.to_le_bytes());
    out.extend_from_slice(&(tags.len() as u16).to_le_bytes());
    for (tag, kind, count, value) in tags {
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&value.to_le_bytes());
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    assert_eq!(out.len() as u32, tiff_data_offset(tags_len(&out)));
    out.extend_from_slice(data);
    out
}

fn tags_len(tiff: &[u8]) -> u16 {
    u16::from_le_bytes([tiff[8], tiff[9]])
}

/// Where [`tiff_with`] puts the data for an IFD of `n` tags.
fn tiff_data_offset(n: u16) -> u32 {
    8 + 2 + 12 * u32::from(n) + 4
}

/// A grey stripped TIFF of `w × h` `bits`-bit samples whose one strip is at `offset`
/// (absolute; `None`: right after the IFD) with `count` bytes, compression `compression`.
fn grey_tiff(
    w: u32,
    h: u32,
    bits: u32,
    strip: (Option<u32>, u32),
    compression: u32,
    data: &[u8],
) -> Vec<u8> {
    let offset = strip.0.unwrap_or(tiff_data_offset(9));
    tiff_with(
        &[
            (256, 4, 1, w),
            (257, 4, 1, h),
            (258, 3, 1, bits),
            (259, 3, 1, compression),
            (262, 3, 1, 1),
            (273, 4, 1, offset),
            (277, 3, 1, 1),
            (278, 4, 1, h),
            (279, 4, 1, strip.1),
        ],
        data,
    )
}

/// A TIFF of `w × h` 8-bit grey in one tile of `tile × tile` whose byte count claims
/// `count` bytes.
fn tiled_tiff(w: u32, h: u32, tile: u32, count: u32, data: &[u8]) -> Vec<u8> {
    tiff_with(
        &[
            (256, 4, 1, w),
            (257, 4, 1, h),
            (258, 3, 1, 8),
            (259, 3, 1, 1),
            (262, 3, 1, 1),
            (277, 3, 1, 1),
            (322, 4, 1, tile),
            (323, 4, 1, tile),
            (324, 4, 1, tiff_data_offset(10)),
            (325, 4, 1, count),
        ],
        data,
    )
}

fn zlib(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2_like::Zlib::default();
    e.write_all(bytes).expect("compress");
    e.finish()
}

/// A stored (uncompressed) zlib stream is enough to declare more data than the image
/// holds without a compression library.
mod flate2_like {
    #[derive(Default)]
    pub struct Zlib(Vec<u8>);
    impl std::io::Write for Zlib {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl Zlib {
        pub fn finish(self) -> Vec<u8> {
            let mut out = vec![0x78, 0x01];
            let blocks: Vec<&[u8]> = self.0.chunks(65535).collect();
            for (i, block) in blocks.iter().enumerate() {
                out.push(u8::from(i + 1 == blocks.len()));
                let n = block.len() as u16;
                out.extend_from_slice(&n.to_le_bytes());
                out.extend_from_slice(&(!n).to_le_bytes());
                out.extend_from_slice(block);
            }
            let (mut a, mut b) = (1u32, 0u32);
            for &x in &self.0 {
                a = (a + u32::from(x)) % 65521;
                b = (b + a) % 65521;
            }
            out.extend_from_slice(&((b << 16) | a).to_be_bytes());
            out
        }
    }
}

/// The EXR file `name` with its data window's maximum x replaced.
fn exr_with_window_x(name: &str, x_max: i32) -> Vec<u8> {
    let mut bytes = typed(name);
    let key = b"dataWindow\0box2i\0";
    let at = bytes
        .windows(key.len())
        .position(|w| w == key)
        .expect("data window attribute")
        + key.len()
        + 4;
    bytes[at + 8..at + 12].copy_from_slice(&x_max.to_le_bytes());
    bytes
}

fn run(args: &[&str], scratch: &Path) -> Finished {
    run_limited(cudalens().args(args), scratch, LIMIT)
}

/// `apply` and `histogram` on `file` are refused with one line naming it and `needle`;
/// nothing is written and memory stays bounded.
fn refused(file: &Path, needle: &str, scratch: &Path) {
    let out = scratch.join("out.tif");
    for args in [
        vec!["apply", s(file), "-o", s(&out), "--max-memory", "2G"],
        vec!["histogram", s(file), "--max-memory", "2G"],
    ] {
        let r = run(&args, scratch);
        r.refused_with(needle);
        assert!(r.stderr.contains(s(file)), "names the file: {r:#?}");
        assert!(
            r.peak_rss < 300 * MIB,
            "{args:?}: peak RSS {} MiB",
            r.peak_rss / MIB
        );
    }
    assert!(!out.exists(), "nothing written");
    assert!(leftover_parts(scratch).is_empty());
}

#[test]
fn truncated_files_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    for (name, keep) in [
        ("tiff_u16_rgb_lzw.tif", 2),
        ("tiff_f32_rgb_tiled.tif", 2),
        ("exr_float_rgba.exr", 2),
        ("exr_half_y.exr", 3),
        ("pgm_u16.pgm", 2),
        ("ppm_u8.ppm", 3),
    ] {
        let bytes = typed(name);
        let cut = write(
            d,
            &format!("cut-{name}"),
            &bytes[..bytes.len() * (keep - 1) / keep],
        );
        let r = run(&["apply", s(&cut), "-o", s(&d.join("out.png"))], d);
        assert_eq!(r.code, Some(2), "{name}: {r:#?}");
        assert_eq!(r.stderr.trim().lines().count(), 1, "{name}: {r:#?}");
        assert!(
            r.stderr.contains(s(&cut)) && !r.stderr.contains("panicked"),
            "{r:#?}"
        );
    }
    assert!(!d.join("out.png").exists());
}

#[test]
fn absurd_declared_sizes_are_refused_before_decoding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let huge_tiff = grey_tiff(32768, 32768, 16, (None, 1 << 31), 1, &[0; 64]);
    refused(&write(d, "huge.tif", &huge_tiff), "over the budget", d);
    let huge_pgm = b"P5\n32768 32768\n65535\n\0\0\0\0".to_vec();
    refused(&write(d, "huge.pgm", &huge_pgm), "over the budget", d);
    let wide_tiff = grey_tiff(1 << 20, 2, 8, (None, 1 << 21), 1, &[0; 64]);
    refused(&write(d, "wide.tif", &wide_tiff), "larger than the", d);
    let wide_exr = exr_with_window_x("exr_float_rgb.exr", 1 << 30);
    refused(&write(d, "wide.exr", &wide_exr), "", d);
    let negative_exr = exr_with_window_x("exr_half_rgb.exr", -5);
    refused(&write(d, "negative.exr", &negative_exr), "EXR", d);
}

#[test]
fn data_past_the_end_and_oversized_tiles_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let past = grey_tiff(16, 16, 8, (Some(1_000_000), 256), 1, &[7; 64]);
    refused(&write(d, "past-end.tif", &past), "TIFF", d);
    let long = grey_tiff(16, 16, 8, (None, u32::MAX), 1, &[7; 256]);
    refused(&write(d, "long-strip.tif", &long), "", d);
    let tile = tiled_tiff(16, 16, 4096, 4096 * 4096, &[9; 512]);
    refused(&write(d, "big-tile.tif", &tile), "", d);
}

#[test]
fn a_strip_inflating_past_its_size_is_bounded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let bomb = zlib(&vec![0u8; 8 << 20]);
    let tiff = grey_tiff(16, 16, 8, (None, bomb.len() as u32), 8, &bomb);
    let file = write(d, "bomb.tif", &tiff);
    let out = d.join("out.png");
    let r = run(&["apply", s(&file), "-o", s(&out)], d);
    // Either refused in one line or decoded as its declared 16×16: never more.
    if r.code == Some(0) {
        let img = cudalens::image_io::load_image(&out).expect("written");
        assert_eq!(img.pixels.dimensions(), (16, 16));
    } else {
        r.refused_with(s(&file));
    }
    assert!(r.peak_rss < 300 * MIB, "peak RSS {} MiB", r.peak_rss / MIB);
}

#[test]
fn empty_text_and_bad_headers_are_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let text = b"just some text, not an image\n";
    for name in ["text.tif", "text.exr", "text.pgm"] {
        refused(&write(d, name, text), "not a supported image format", d);
    }
    refused(&write(d, "zero.pgm", b"P5\n0 0\n255\n"), "no pixels", d);
    refused(
        &write(d, "zero.tif", &grey_tiff(0, 16, 8, (None, 0), 1, &[])),
        "",
        d,
    );
    refused(
        &write(d, "maxval.pgm", b"P5 2 2 99999\n\0\0\0\0"),
        "maxval 99999",
        d,
    );
    refused(&write(d, "magic.exr", b"\x76\x2f\x31\x01garbage"), "EXR", d);
    refused(&write(d, "header.tif", b"II*\0\xff\xff\xff\x7f"), "TIFF", d);
}
