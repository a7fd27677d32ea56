//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod gpu;
pub mod xvfb;

use image::RgbaImage;
use std::io::Write;
use std::path::PathBuf;

/// The test data folder: `$CUDALENS_TEST_DATA` (the GPU harness runs the test binaries
/// from a copy of the tree at another path), else this checkout's `tests/data`.
pub fn data_dir() -> PathBuf {
    std::env::var_os("CUDALENS_TEST_DATA").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data"),
        PathBuf::from,
    )
}

/// The repository root the data folder belongs to (for tests that run the binary on
/// `tests/data/...` paths).
pub fn repo_root() -> PathBuf {
    let data = data_dir();
    data.parent()
        .and_then(|tests| tests.parent())
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}

pub fn data(name: &str) -> PathBuf {
    data_dir().join(name)
}

/// The `cudalens` binary under test: `$CUDALENS_BIN` (the GPU harness), else the one
/// cargo built with these tests.
pub fn cudalens_bin() -> PathBuf {
    std::env::var_os("CUDALENS_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_cudalens")),
        PathBuf::from,
    )
}

/// The variable that turns a GPU test's skip into a failure.
pub const REQUIRE_GPU: &str = "CUDALENS_REQUIRE_GPU";

/// Whether `CUDALENS_REQUIRE_GPU=1`: set by the GPU harness (scripts/gpu/verify.sh), where
/// a GPU test that cannot reach the GPU must fail, not pass as skipped.
pub fn gpu_required() -> bool {
    std::env::var(REQUIRE_GPU).is_ok_and(|v| v == "1")
}

/// A GPU test that cannot run here (no CUDA device, no headless GL): prints
/// "skipped: {reason}" and the test passes; under `CUDALENS_REQUIRE_GPU=1` it panics with
/// the reason instead.
pub fn skip_gpu_test(reason: &str) {
    assert!(
        !gpu_required(),
        "{REQUIRE_GPU}=1 but this GPU test cannot run: {reason}"
    );
    // Written to the process's stderr directly so that it shows through libtest's capture.
    let _ = writeln!(std::io::stderr(), "skipped: {reason}");
}

/// A test photograph as RGBA8 (through the app's own loader: greyscale and alpha converted).
pub fn photo(name: &str) -> RgbaImage {
    cudalens::image_io::load_image(&data(name))
        .expect("test image loads")
        .into_rgba8()
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

/// Whether `program arg` runs here.
#[allow(dead_code)]
pub fn installed(program: &str, arg: &str) -> bool {
    std::process::Command::new(program)
        .arg(arg)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok()
}

pub mod hostile_files;
pub mod process;
pub mod video;
