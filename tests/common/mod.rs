//! Helpers shared by the integration tests.
#![allow(dead_code)]

use image::RgbaImage;
use std::path::PathBuf;

pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A test photograph as RGBA8 (through the app's own loader: greyscale and alpha converted).
pub fn photo(name: &str) -> RgbaImage {
    cudalens::image_io::load_image(&data(name))
        .expect("test image loads")
        .image
}

/// Largest per-channel difference, and how many channel values differ.
pub fn max_difference(a: &RgbaImage, b: &RgbaImage) -> (u8, usize) {
    assert_eq!(a.dimensions(), b.dimensions(), "sizes differ");
    a.as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(x, y)| x.abs_diff(*y))
        .fold((0, 0), |(m, n), d| (m.max(d), n + usize::from(d > 0)))
}

/// How many mappings this process has (`/proc/self/maps`; 0 where there is none): drivers
/// map memory of their own, outside malloc.
pub fn mapping_count() -> usize {
    std::fs::read_to_string("/proc/self/maps").map_or(0, |s| s.lines().count())
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut body = kind.to_vec();
    body.extend_from_slice(data);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(&body).to_be_bytes());
}

/// A small, well-formed PNG file whose header declares `w × h` RGBA pixels.
pub fn png_declaring(w: u32, h: u32) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = w.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    png_chunk(&mut out, b"IHDR", &ihdr);
    png_chunk(
        &mut out,
        b"IDAT",
        &[0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    );
    png_chunk(&mut out, b"IEND", &[]);
    out
}

pub mod hostile_files;
pub mod process;
