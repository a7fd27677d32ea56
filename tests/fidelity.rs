//! Image fidelity against someone else's answer: every file of tests/data/fidelity/ must
//! load as Pillow decodes it (libjpeg-turbo, libpng, libtiff, libwebp; EXIF orientation
//! applied; ICC profiles converted to sRGB by LittleCMS). The corpus and its references
//! come from scripts/fidelity/make_corpus.py; these tests only read the committed files.
//!
//! Bounds: lossless formats exact; 16-bit within 1 level (rounding to 8 bits); lossy
//! formats mean |diff| < 1.5 and 99.9th percentile ≤ 24 levels (two correct JPEG decoders
//! differ in IDCT and chroma upsampling); ICC conversions of lossless files within
//! `COLOUR_LEVELS` (two colour engines round differently).

mod common;

use common::process::{cudalens, run_limited, Finished};
use cudalens::image_io::load_image;
use image::RgbaImage;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Largest difference allowed between moxcms and LittleCMS on a lossless file.
const COLOUR_LEVELS: u8 = 2;
const LIMIT: Duration = Duration::from_secs(60);

#[derive(Debug, Deserialize)]
struct Entry {
    file: String,
    kind: String,
    width: u32,
    height: u32,
    orientation: u8,
    profile: Option<String>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct Manifest {
    files: Vec<Entry>,
}

fn corpus_dir() -> PathBuf {
    common::data("fidelity")
}

fn corpus() -> Vec<Entry> {
    let text = std::fs::read_to_string(corpus_dir().join("manifest.json")).expect("manifest");
    let manifest: Manifest = serde_json::from_str(&text).expect("manifest parses");
    assert!(manifest.files.len() >= 30, "corpus too small");
    manifest.files
}

fn reference(entry: &Entry) -> RgbaImage {
    image::open(corpus_dir().join(format!("{}.ref.png", entry.file)))
        .expect("reference loads")
        .into_rgba8()
}

/// Differences of two images of the same size, over all four channels.
struct Stats {
    mean: f64,
    p999: u8,
    max: u8,
}

fn stats(a: &RgbaImage, b: &RgbaImage) -> Stats {
    let mut histogram = [0usize; 256];
    for (x, y) in a.as_raw().iter().zip(b.as_raw()) {
        histogram[usize::from(x.abs_diff(*y))] += 1;
    }
    let n = a.as_raw().len();
    let sum: usize = histogram.iter().enumerate().map(|(d, c)| d * c).sum();
    let mut seen = 0;
    let mut p999 = 0;
    for (d, c) in histogram.iter().enumerate() {
        seen += c;
        if seen as f64 >= 0.999 * n as f64 {
            p999 = d as u8;
            break;
        }
    }
    let max = histogram.iter().rposition(|&c| c > 0).unwrap_or(0) as u8;
    Stats {
        mean: sum as f64 / n as f64,
        p999,
        max,
    }
}

fn lossy(entry: &Entry) -> bool {
    entry.kind == "lossy" || (entry.kind == "colour" && entry.file.ends_with(".jpg"))
}

/// Whether `s` is within the bounds for `entry`'s kind.
fn within_bounds(entry: &Entry, s: &Stats) -> bool {
    match entry.kind.as_str() {
        _ if lossy(entry) => s.mean < 1.5 && s.p999 <= 24,
        "lossless" => s.max == 0,
        "16bit" => s.max <= 1,
        "colour" => s.max <= COLOUR_LEVELS,
        other => panic!("{}: unknown kind {other}", entry.file),
    }
}

fn compare(entry: &Entry, label: &str, got: &RgbaImage, failures: &mut Vec<String>) {
    let want = reference(entry);
    if got.dimensions() != want.dimensions() {
        failures.push(format!(
            "{} ({label}): {:?}, want {:?}",
            entry.file,
            got.dimensions(),
            want.dimensions()
        ));
        return;
    }
    let s = stats(got, &want);
    let ok = within_bounds(entry, &s);
    eprintln!(
        "{:<28} {label:<6} {:<8} mean {:.3} p99.9 {:>3} max {:>3} {}",
        entry.file,
        entry.kind,
        s.mean,
        s.p999,
        s.max,
        if ok { "ok" } else { "FAIL" }
    );
    if !ok {
        failures.push(format!(
            "{} ({label}, {}): mean {:.3}, p99.9 {}, max {}",
            entry.file, entry.kind, s.mean, s.p999, s.max
        ));
    }
}

#[test]
fn every_file_matches_its_pillow_reference() {
    let mut failures = Vec::new();
    for entry in corpus().iter().filter(|e| e.error.is_none()) {
        match load_image(&corpus_dir().join(&entry.file)) {
            Ok(loaded) => {
                let image = loaded.rgba8();
                assert_eq!(
                    image.dimensions(),
                    (entry.width, entry.height),
                    "{}: size (orientation)",
                    entry.file
                );
                compare(entry, "load", &image, &mut failures);
            }
            Err(e) => failures.push(format!("{}: {e}", entry.file)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_info_note_names_the_rotation_and_the_profile() {
    for entry in corpus().iter().filter(|e| e.error.is_none()) {
        let loaded = load_image(&corpus_dir().join(&entry.file)).expect("loads");
        let note = loaded.conversion_note.clone().unwrap_or_default();
        assert_eq!(loaded.exif_orientation, entry.orientation, "{}", entry.file);
        let rotated = format!("rotated per EXIF (value {})", entry.orientation);
        assert_eq!(
            note.contains(&rotated),
            entry.orientation != 1,
            "{}: {note}",
            entry.file
        );
        assert_eq!(loaded.source_profile, entry.profile, "{}", entry.file);
        if let Some(profile) = &entry.profile {
            assert!(note.contains(profile.as_str()), "{}: {note}", entry.file);
        }
    }
}

#[test]
fn truncated_and_corrupt_scan_jpegs_are_errors() {
    let broken: Vec<_> = corpus().into_iter().filter(|e| e.error.is_some()).collect();
    assert_eq!(broken.len(), 2);
    for entry in &broken {
        let Err(err) = load_image(&corpus_dir().join(&entry.file)) else {
            panic!("{}: loaded as a picture", entry.file);
        };
        let err = err.to_string();
        assert!(err.contains("corrupt or truncated JPEG"), "{err}");
        assert!(!err.contains('\n'), "{err}");
    }
}

fn apply_identity(input: &Path, output: &Path, scratch: &Path) -> Finished {
    run_limited(
        cudalens().args([
            "apply",
            input.to_str().expect("utf-8"),
            "-o",
            output.to_str().expect("utf-8"),
            "--backend",
            "cpu",
            "--filter",
            "transpose",
            "--filter",
            "transpose",
        ]),
        scratch,
        LIMIT,
    )
}

#[test]
fn broken_jpegs_exit_2_with_one_line_and_write_nothing() {
    for entry in corpus().iter().filter(|e| e.error.is_some()) {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out.png");
        let input = corpus_dir().join(&entry.file);
        let before = std::fs::read(&input).expect("read");
        apply_identity(&input, &out, dir.path()).refused_with("corrupt or truncated JPEG");
        assert!(!out.exists(), "{}", entry.file);
        assert_eq!(std::fs::read(&input).expect("read"), before);
    }
}

/// The check that would have caught colour JPEGs opening grey: the whole CLI path, an
/// identity stack on the CPU backend, against libjpeg-turbo's decode.
#[test]
fn an_identity_stack_through_apply_matches_pillow_on_every_jpeg() {
    let mut failures = Vec::new();
    let jpegs: Vec<_> = corpus()
        .into_iter()
        .filter(|e| e.error.is_none() && e.file.ends_with(".jpg"))
        .collect();
    assert!(jpegs.len() >= 15);
    for entry in &jpegs {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out.png");
        let run = apply_identity(&corpus_dir().join(&entry.file), &out, dir.path());
        assert_eq!(run.code, Some(0), "{}: {run:#?}", entry.file);
        let got = image::open(&out).expect("output loads").into_rgba8();
        compare(entry, "apply", &got, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Saving writes the upright pixels and no orientation tag: reloading gives the same image.
#[test]
fn a_rotated_image_saves_upright() {
    let dir = tempfile::tempdir().expect("tempdir");
    for name in [
        "jpeg_orientation_6.jpg",
        "png_orientation_6.png",
        "webp_orientation_8.webp",
    ] {
        let loaded = load_image(&corpus_dir().join(name)).expect("loads");
        for ext in ["png", "tif", "webp"] {
            let out = dir.path().join(format!("{name}.{ext}"));
            cudalens::image_io::save_pixels(&loaded.pixels, &out, &Default::default())
                .expect("saves");
            let back = load_image(&out).expect("reloads");
            assert_eq!(back.exif_orientation, 1, "{name} as {ext}");
            assert_eq!(back.pixels, loaded.pixels, "{name} as {ext}");
        }
    }
}

/// `apply --backend cuda` on corpus files (8-bit, and a 16-bit PNG through the typed
/// kernels) gives exactly what the CPU backend gives, and the identity stack keeps every
/// pixel in the file's own type.
#[test]
fn apply_on_cuda_matches_the_cpu_backend_on_the_corpus() {
    if !cudalens::cuda::CudaDevice::count().is_ok_and(|n| n > 0) {
        common::skip_gpu_test("no CUDA device");
        return;
    }
    for name in [
        "jpeg_420.jpg",
        "jpeg_orientation_5_p3.jpg",
        "png_adobe_rgb.png",
        "png_rgb16.png",
        "webp_orientation_8.webp",
        "jpeg_cmyk_adobe.jpg",
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let input = corpus_dir().join(name);
        let loaded = load_image(&input).expect("loads");
        let run = |backend: &str| {
            let out = dir.path().join(format!("{backend}.png"));
            let run = run_limited(
                cudalens().args([
                    "apply",
                    input.to_str().expect("utf-8"),
                    "-o",
                    out.to_str().expect("utf-8"),
                    "--backend",
                    backend,
                    "--filter",
                    "transpose",
                    "--filter",
                    "transpose",
                ]),
                dir.path(),
                LIMIT,
            );
            (run, out)
        };
        let (cpu, cpu_out) = run("cpu");
        assert_eq!(cpu.code, Some(0), "{name} on cpu: {cpu:#?}");
        let cpu_pixels = load_image(&cpu_out).expect("output loads").pixels;
        assert!(
            cpu_pixels == loaded.pixels,
            "{name}: identity stack changed pixels"
        );
        let (cuda, cuda_out) = run("cuda");
        assert_eq!(cuda.code, Some(0), "{name} on cuda: {cuda:#?}");
        let cuda_pixels = load_image(&cuda_out).expect("output loads").pixels;
        assert!(
            cuda_pixels == cpu_pixels,
            "{name}: CUDA differs from the CPU"
        );
        println!("ok {name}: apply on CUDA = CPU = loaded pixels");
    }
}
