//! The fuzz seed corpus and every crash the fuzzers found (fuzz/regressions/), replayed
//! through the same entry points as the fuzz targets, so `cargo test` guards them without
//! libFuzzer. `cargo test --test fuzz_corpus -- --ignored` rewrites the image seeds.

mod common;

use common::hostile_files::{bmp_rle_declaring, gif_declaring, jpeg_declaring, jpeg_of};
use cudalens::filters::Filter;
use cudalens::image_io::{load_image_from_bytes, Admission, Declared};
use std::path::{Path, PathBuf};

fn fuzz_dir(sub: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(sub)
}

/// The files of `fuzz/<kind>/<target>/`, sorted.
fn files(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = fuzz_dir(kind).join(target);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// The admission of the load_image fuzz target.
fn fuzz_admit(d: Declared) -> Result<(), String> {
    let need = d.decoder_bytes + d.image_bytes + 2 * d.rgba_bytes().max(d.image_bytes);
    if need > 256 << 20 {
        return Err(format!("needs {need} bytes"));
    }
    Ok(())
}

fn load(bytes: Vec<u8>) -> Result<image::RgbaImage, String> {
    let admission = Admission {
        max_side: 4096,
        admit: &fuzz_admit,
    };
    load_image_from_bytes(Path::new("seed"), bytes, &admission)
        .map(|l| l.into_rgba8())
        .map_err(|e| e.to_string())
}

#[test]
fn image_seeds_load_or_fail_as_named() {
    let seeds: Vec<PathBuf> = files("corpus", "load_image")
        .into_iter()
        .chain(files("regressions", "load_image"))
        .collect();
    assert!(seeds.len() >= 10, "seed corpus missing: {seeds:?}");
    for path in seeds {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let result = load(std::fs::read(&path).expect("read seed"));
        if name.starts_with("ok-") {
            let img = result.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(img.width() >= 1 && img.height() >= 1, "{name}");
        } else if name.starts_with("bad-") {
            assert!(result.is_err(), "{name} loaded");
        }
    }
}

#[test]
fn filter_spec_seeds_round_trip() {
    for path in files("corpus", "filter_spec")
        .into_iter()
        .chain(files("regressions", "filter_spec"))
    {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if let Ok(f) = text.parse::<Filter>() {
            assert!(f.validate().is_ok(), "{text:?}");
            assert_eq!(f.to_string().parse::<Filter>().ok(), Some(f), "{text:?}");
        }
    }
}

#[test]
fn cli_seeds_parse_or_give_one_line() {
    use clap::Parser;
    for path in files("corpus", "cli_args")
        .into_iter()
        .chain(files("regressions", "cli_args"))
    {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let args = std::iter::once("cudalens").chain(text.split('\0'));
        if let Err(e) = cudalens::cli::Cli::try_parse_from(args) {
            assert!(
                !cudalens::cli::clap_error_line(&e).contains('\n'),
                "{text:?}"
            );
        }
    }
}

/// The demux target's seeds (the test clips) and regressions: each opens and gives packets
/// or is refused, in one line, as the target requires; H.264 ones also decode by OpenH264
/// to their end or a one-line error.
#[test]
fn demux_seeds_give_packets_or_one_line() {
    use cudalens::video::demux::{Codec, Demuxer, Input};
    use cudalens::video::openh264::OpenH264Reader;
    let all: Vec<PathBuf> = files("corpus", "demux")
        .into_iter()
        .chain(files("regressions", "demux"))
        .collect();
    assert!(!all.is_empty(), "no demux seeds");
    let demuxer = |bytes: &[u8]| {
        let input: Box<dyn Input> = Box::new(std::io::Cursor::new(bytes.to_vec()));
        Demuxer::from_input(Path::new("seed"), input)
    };
    for path in all {
        let bytes = std::fs::read(&path).expect("seed");
        if let Some(d) = demuxer(&bytes).ok().filter(|d| d.codec() == Codec::H264) {
            let decoded = OpenH264Reader::with_demuxer(Path::new("seed"), d).and_then(|mut r| {
                let mut frames = 0;
                while r.next_frame()?.is_some() {
                    frames += 1;
                }
                Ok(frames)
            });
            match decoded {
                Ok(frames) => assert!(frames > 0, "{}", path.display()),
                Err(e) => assert!(!e.to_string().contains('\n'), "{}: {e}", path.display()),
            }
        }
        match demuxer(&bytes) {
            Ok(mut d) => loop {
                match d.next_packet() {
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(e) => {
                        assert!(!e.to_string().contains('\n'), "{}: {e}", path.display());
                        break;
                    }
                }
            },
            Err(e) => assert!(!e.to_string().contains('\n'), "{}: {e}", path.display()),
        }
    }
}

fn encode(img: &image::DynamicImage, format: image::ImageFormat) -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    img.write_to(&mut buf, format).expect("encode");
    buf.into_inner()
}

/// Writes the image seeds: small valid files of every format and colour type ("ok-"),
/// and broken ones ("bad-": truncated, corrupt, declaring huge sizes, not an image).
#[test]
#[ignore = "rewrites fuzz/corpus/load_image; run by hand"]
fn regenerate_image_seeds() {
    use image::{DynamicImage, ImageFormat};
    let dir = fuzz_dir("corpus").join("load_image");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let rgba = cudalens::ops::random_image(5, 3, 9);
    let rgb = DynamicImage::ImageRgba8(rgba.clone()).into_rgb8();
    let grey = DynamicImage::ImageRgba8(rgba.clone()).into_luma8();
    let grey16 = DynamicImage::ImageRgba8(rgba.clone()).into_luma16();
    let rgba16 = DynamicImage::ImageRgba8(rgba.clone()).into_rgba16();
    let png = encode(&DynamicImage::ImageRgba8(rgba.clone()), ImageFormat::Png);
    let jpeg = jpeg_of(&cudalens::ops::random_image(16, 16, 3));
    let seeds: Vec<(&str, Vec<u8>)> = vec![
        ("ok-rgba.png", png.clone()),
        (
            "ok-grey.png",
            encode(&DynamicImage::ImageLuma8(grey.clone()), ImageFormat::Png),
        ),
        (
            "ok-grey16.png",
            encode(&DynamicImage::ImageLuma16(grey16), ImageFormat::Png),
        ),
        (
            "ok-rgba16.png",
            encode(&DynamicImage::ImageRgba16(rgba16), ImageFormat::Png),
        ),
        (
            "ok-rgb.bmp",
            encode(&DynamicImage::ImageRgb8(rgb.clone()), ImageFormat::Bmp),
        ),
        (
            "ok-rgba.tiff",
            encode(&DynamicImage::ImageRgba8(rgba.clone()), ImageFormat::Tiff),
        ),
        (
            "ok-rgba.webp",
            encode(&DynamicImage::ImageRgba8(rgba.clone()), ImageFormat::WebP),
        ),
        (
            "ok-rgba.gif",
            encode(&DynamicImage::ImageRgba8(rgba.clone()), ImageFormat::Gif),
        ),
        ("ok-rgb.jpg", jpeg.clone()),
        (
            "ok-grey.jpg",
            encode(&DynamicImage::ImageLuma8(grey), ImageFormat::Jpeg),
        ),
        ("bad-truncated.png", png[..png.len() / 2].to_vec()),
        ("bad-truncated.jpg", jpeg[..jpeg.len() * 2 / 3].to_vec()),
        ("bad-huge.gif", gif_declaring(32768)),
        ("bad-huge-rle.bmp", bmp_rle_declaring(32768)),
        ("bad-huge.png", common::png_declaring(100_000, 100_000)),
        ("bad-huge.jpg", jpeg_declaring(&jpeg, 32768)),
        ("bad-empty.png", Vec::new()),
        ("bad-text.png", b"this is not an image".to_vec()),
    ];
    for (name, bytes) in seeds {
        std::fs::write(dir.join(name), bytes).expect("write seed");
    }
}
