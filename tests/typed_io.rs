//! Typed image files against someone else's answer: tests/data/typed/ holds 8-bit, 16-bit
//! and float TIFF, PNG, PGM/PPM and EXR files written by tifffile, libpng, Pillow and
//! OpenEXR (scripts/fidelity/make_typed_corpus.py) with the raw values they were given.
//! Every file loads to exactly those values, in its own type and channels; saved to every
//! format that holds it and loaded again, it is bit for bit the same.

mod common;

use common::data;
use common::process::{cudalens, run_limited};
use cudalens::image_io::{load_image, save_pixels, SaveFormat, SaveOptions};
use cudalens::pixels::{ImageBuf, PixelImage, SampleType};
use rand::{Rng, SeedableRng};
use serde::Deserialize;
use std::path::Path;
use std::time::Duration;

#[derive(Debug, Deserialize)]
struct Entry {
    file: String,
    raw: String,
    #[serde(rename = "type")]
    sample: String,
    channels: u8,
    width: u32,
    height: u32,
}

fn corpus() -> Vec<Entry> {
    let text = std::fs::read_to_string(data("typed/manifest.json")).expect("manifest");
    serde_json::from_str(&text).expect("manifest parses")
}

/// The raw values of `entry` (little endian) as the image they describe.
fn expected(entry: &Entry) -> PixelImage {
    let bytes = std::fs::read(data(&format!("typed/{}", entry.raw))).expect("raw");
    let (w, h, c) = (entry.width, entry.height, entry.channels);
    match entry.sample.as_str() {
        "u8" => PixelImage::U8(ImageBuf::from_vec(w, h, c, bytes).expect("size")),
        "u16" => PixelImage::U16(
            ImageBuf::from_vec(
                w,
                h,
                c,
                bytes
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]]))
                    .collect(),
            )
            .expect("size"),
        ),
        _ => PixelImage::F32(
            ImageBuf::from_vec(
                w,
                h,
                c,
                bytes
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect(),
            )
            .expect("size"),
        ),
    }
}

/// Bit for bit (floats by their bits, so -0.0 and 0.0 differ).
fn identical(a: &PixelImage, b: &PixelImage) -> bool {
    match (a, b) {
        (PixelImage::F32(x), PixelImage::F32(y)) => {
            x.width() == y.width()
                && x.height() == y.height()
                && x.channels() == y.channels()
                && x.as_slice()
                    .iter()
                    .zip(y.as_slice())
                    .all(|(p, q)| p.to_bits() == q.to_bits())
        }
        _ => a == b,
    }
}

#[test]
fn every_file_loads_to_the_writers_values_exactly() {
    let entries = corpus();
    assert!(entries.len() >= 25, "{} files", entries.len());
    let mut failures = Vec::new();
    for entry in &entries {
        let want = expected(entry);
        match load_image(&data(&format!("typed/{}", entry.file))) {
            Ok(loaded) if identical(&loaded.pixels, &want) => {}
            Ok(loaded) => failures.push(format!(
                "{}: loaded {} {}×{}, want {} {}×{} (or values differ)",
                entry.file,
                loaded.pixels.describe(),
                loaded.pixels.width(),
                loaded.pixels.height(),
                want.describe(),
                want.width(),
                want.height()
            )),
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Extensions whose format holds `image` as it is.
fn holding(image: &PixelImage) -> Vec<&'static str> {
    [
        "png", "tif", "exr", "pgm", "ppm", "pnm", "bmp", "webp", "jpg",
    ]
    .into_iter()
    .filter(|ext| {
        let f = SaveFormat::from_extension(ext).expect("known");
        f.holds_type(image.sample_type())
            && f.holds_channels(image.channels())
            && f != SaveFormat::Jpeg
    })
    .collect()
}

/// Saves `image` in every format that holds it and loads it back: no conversion said,
/// the same bits.
fn round_trip(name: &str, image: &PixelImage, dir: &Path, failures: &mut Vec<String>) {
    for ext in holding(image) {
        let out = dir.join(format!("{name}.{ext}"));
        let options = SaveOptions {
            overwrite: true,
            ..Default::default()
        };
        match save_pixels(image, &out, &options) {
            Ok(c) if !c.is_empty() => failures.push(format!("{name} as {ext}: converted {c:?}")),
            Ok(_) => match load_image(&out) {
                Ok(back) if identical(&back.pixels, image) => {}
                Ok(back) => failures.push(format!(
                    "{name} as {ext}: reloaded {} differs from {}",
                    back.pixels.describe(),
                    image.describe()
                )),
                Err(e) => failures.push(format!("{name} as {ext}: {e}")),
            },
            Err(e) => failures.push(format!("{name} as {ext}: {e}")),
        }
    }
}

#[test]
fn every_file_round_trips_through_every_format_that_holds_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    for entry in corpus() {
        round_trip(&entry.file, &expected(&entry), dir.path(), &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn random_images_of_every_type_round_trip() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut failures = Vec::new();
    for c in [1u8, 3, 4] {
        let (w, h) = (rng.random_range(1..40), rng.random_range(1..40));
        let images = [
            PixelImage::U8(ImageBuf::from_fn(w, h, c, |_, _, _| rng.random()).expect("size")),
            PixelImage::U16(ImageBuf::from_fn(w, h, c, |_, _, _| rng.random()).expect("size")),
            PixelImage::F32(
                ImageBuf::from_fn(w, h, c, |_, _, _| rng.random_range(-4.0f32..4.0)).expect("size"),
            ),
        ];
        for image in &images {
            let name = format!("random_{}_{c}", image.sample_type().depth_name());
            round_trip(&name, image, dir.path(), &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn run(args: &[&str], scratch: &Path) -> common::process::Finished {
    run_limited(cudalens().args(args), scratch, Duration::from_secs(60))
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// `apply in -o out` with no filter converts, bit for bit where the format holds the
/// type; where it does not, one line says what was done.
#[test]
fn apply_without_filters_converts_keeping_the_type() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    for (input, ext) in [
        ("tiff_f32_grey_imagej.tif", "exr"),
        ("tiff_u16_photo.tif", "png"),
        ("png_u16_rgba.png", "tif"),
        ("exr_half_rgb.exr", "tiff"),
        ("pgm_u16.pgm", "png"),
    ] {
        let src = data(&format!("typed/{input}"));
        let out = d.join(format!("{input}.{ext}"));
        let r = run(&["apply", s(&src), "-o", s(&out)], d);
        assert_eq!(r.code, Some(0), "{r:#?}");
        assert!(!r.stderr.contains("saved as"), "{r:#?}");
        let (a, b) = (
            load_image(&src).expect("in"),
            load_image(&out).expect("out"),
        );
        assert!(identical(&a.pixels, &b.pixels), "{input} → {ext}");
    }
    let src = data("typed/tiff_f32_rgb_tiled.tif");
    let png = d.join("float.png");
    let r = run(&["apply", s(&src), "-o", s(&png)], d);
    assert_eq!(r.code, Some(0), "{r:#?}");
    assert!(
        r.stderr
            .contains("saved as 16-bit: PNG holds no 32-bit float samples"),
        "{r:#?}"
    );
    assert_eq!(
        load_image(&png).expect("png").pixels.sample_type(),
        SampleType::U16
    );
    let jpg = d.join("photo.jpg");
    let r = run(
        &["apply", s(&data("typed/png_u16_photo.png")), "-o", s(&jpg)],
        d,
    );
    assert!(
        r.stderr
            .contains("saved as 8-bit: JPEG holds no 16-bit samples"),
        "{r:#?}"
    );
}

#[test]
fn depth_is_asked_for_and_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let src = data("typed/png_u16_rgb.png");
    let out = d.join("eight.tif");
    let r = run(&["apply", s(&src), "-o", s(&out), "--depth", "8"], d);
    assert_eq!(r.code, Some(0), "{r:#?}");
    let back = load_image(&out).expect("reloads").pixels;
    assert_eq!(
        back,
        load_image(&src).expect("in").pixels.to_type(SampleType::U8)
    );
    let float = d.join("float.tif");
    let r = run(&["apply", s(&src), "-o", s(&float), "--depth", "32f"], d);
    assert_eq!(r.code, Some(0), "{r:#?}");
    assert_eq!(
        load_image(&float).expect("reloads").pixels.describe(),
        "32-bit float RGB"
    );
    let bad = d.join("bad.tif");
    let r = run(&["apply", s(&src), "-o", s(&bad), "--depth", "12"], d);
    assert_eq!(r.code, Some(2), "{r:#?}");
    assert!(!bad.exists());
}

/// `apply` with filters and edits keeps a 16-bit or float image's type and channels: the
/// saved result is the typed CPU reference's, bit for bit; a selection keeps the rest of
/// the input; `--backend cuda` runs the typed kernels where there is a device and is
/// refused in one line, nothing written, where there is none; an 8-bit grey file stays grey.
#[test]
fn apply_filters_keep_the_type_and_equal_the_typed_reference() {
    use cudalens::edit::ImageEdit;
    use cudalens::filters::Filter;
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let stack = [
        "gaussian:sigma=1.5",
        "sobel",
        "median:radius=1",
        "levels:black=10,white=200",
    ];
    for input in [
        "tiff_u16_photo.tif",
        "exr_float_photo.exr",
        "tiff_f32_grey_imagej.tif",
        "png_u16_rgba.png",
    ] {
        let src = data(&format!("typed/{input}"));
        let out = d.join(format!("{input}.tif"));
        let mut args = vec!["apply", s(&src), "-o", s(&out), "--edit", "flip:h"];
        for spec in stack {
            args.extend(["--filter", spec]);
        }
        let r = run(&args, d);
        assert_eq!(r.code, Some(0), "{r:#?}");
        let source = load_image(&src).expect("in").pixels;
        let edit: ImageEdit = "flip:h".parse().expect("edit");
        let mut want = cudalens::edit::typed::apply_edit_typed(&source, &edit).expect("flip");
        for spec in stack {
            let f: Filter = spec.parse().expect("spec");
            want = f.apply_cpu_typed(&want);
        }
        let got = load_image(&out).expect("out").pixels;
        assert_eq!(got.describe(), source.describe(), "{input}");
        assert!(
            identical(&got, &want),
            "{input}: differs from the typed reference"
        );

        let on_cuda = d.join(format!("{input}.cuda.tif"));
        let r = run(
            &[
                "apply",
                s(&src),
                "-o",
                s(&on_cuda),
                "--filter",
                "box:radius=2",
                "--backend",
                "cuda",
            ],
            d,
        );
        // The typed kernels run where there is a CUDA device; without one the request is
        // refused in one line and nothing is written.
        if r.code == Some(0) {
            let got = load_image(&on_cuda).expect("CUDA output").pixels;
            assert_eq!(got.describe(), source.describe(), "{input} on CUDA");
        } else {
            assert_eq!(r.code, Some(2), "{r:#?}");
            assert_eq!(r.stderr.trim().lines().count(), 1, "{r:#?}");
            assert!(!on_cuda.exists());
        }
    }
    // A selection: the filter inside it, the input's own samples outside.
    let src = data("typed/tiff_u16_photo.tif");
    let out = d.join("selected.tif");
    let r = run(
        &[
            "apply",
            s(&src),
            "-o",
            s(&out),
            "--filter",
            "box:radius=3",
            "--selection",
            "5,4,10,8",
        ],
        d,
    );
    assert_eq!(r.code, Some(0), "{r:#?}");
    let (source, got) = (
        load_image(&src).expect("in").pixels,
        load_image(&out).expect("out").pixels,
    );
    let (PixelImage::U16(a), PixelImage::U16(b)) = (&source, &got) else {
        panic!("16-bit in and out");
    };
    let mut inside_changed = false;
    for y in 0..a.height() {
        for x in 0..a.width() {
            let inside = (5..15).contains(&x) && (4..12).contains(&y);
            if inside {
                inside_changed |= a.pixel(x, y) != b.pixel(x, y);
            } else {
                assert_eq!(a.pixel(x, y), b.pixel(x, y), "({x}, {y}) outside changed");
            }
        }
    }
    assert!(inside_changed, "the box filter changed nothing inside");
    // 8-bit grey stays grey.
    let grey = d.join("grey.png");
    let r = run(
        &[
            "apply",
            s(&data("camera.png")),
            "-o",
            s(&grey),
            "--filter",
            "box:radius=2",
        ],
        d,
    );
    assert_eq!(r.code, Some(0), "{r:#?}");
    assert_eq!(
        load_image(&grey).expect("grey").pixels.describe(),
        "8-bit grey"
    );
}
