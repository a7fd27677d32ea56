//! The display statistics against ImageJ 1.x itself (tests/data/display, written by
//! scripts/display/imagej_reference.py): default range, the 256-bin histogram and Enhance
//! Contrast's window (saturated = 0.35 %) of an 8-bit photo crop, the same widened to
//! 16 bits and as floats; and the screen levels of the last two through that window
//! against ImageJ's 8-bit conversion (within one level: ImageJ scales 16-bit data by
//! 256 / (max − min + 1), this display by 255 / (max − min)).

mod common;

use cudalens::app::display::{
    display_rgba8, enhance_contrast_range, BrightnessContrast, DisplayHistogram, DisplayRange,
    DisplaySettings,
};
use cudalens::pixels::{ImageBuf, PixelImage};
use serde::Deserialize;

#[derive(Deserialize)]
struct Reference {
    imagej: String,
    width: u32,
    height: u32,
    images: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    name: String,
    default: [f64; 2],
    enhance: [f64; 2],
    histogram: Vec<u64>,
}

fn raw(name: &str) -> Vec<u8> {
    std::fs::read(common::data("display").join(name)).expect(name)
}

fn image(name: &str, w: u32, h: u32) -> PixelImage {
    match name {
        "grey8" => {
            let camera = image::open(common::data("camera.png"))
                .expect("camera")
                .to_luma8();
            let crop = image::imageops::crop_imm(&camera, 200, 150, w, h).to_image();
            PixelImage::U8(ImageBuf::from_vec(w, h, 1, crop.into_raw()).expect("size"))
        }
        "grey16" => {
            let v = raw("grey16.raw")
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .collect();
            PixelImage::U16(ImageBuf::from_vec(w, h, 1, v).expect("size"))
        }
        _ => {
            let v = raw("float32.raw")
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            PixelImage::F32(ImageBuf::from_vec(w, h, 1, v).expect("size"))
        }
    }
}

#[test]
fn statistics_match_imagej() {
    let text = std::fs::read_to_string(common::data("display").join("imagej_reference.json"))
        .expect("reference");
    let reference: Reference = serde_json::from_str(&text).expect("json");
    assert_eq!(reference.images.len(), 3, "ImageJ {}", reference.imagej);
    for e in &reference.images {
        let img = image(&e.name, reference.width, reference.height);
        let bc = BrightnessContrast::for_image(&img);
        let r = bc.range();
        // ImageJ prints float ranges to 9 decimals.
        assert!(
            (r.min - e.default[0]).abs() < 1e-6,
            "{}: default min {}",
            e.name,
            r.min
        );
        assert!(
            (r.max - e.default[1]).abs() < 1e-6,
            "{}: default max {}",
            e.name,
            r.max
        );
        let h = DisplayHistogram::of(&img, &[0]);
        assert_eq!(
            h.bins.as_slice(),
            e.histogram.as_slice(),
            "{}: histogram",
            e.name
        );
        let (lo, hi) = enhance_contrast_range(&img, &[0], 0.35).expect("a window");
        assert!(
            (lo - e.enhance[0]).abs() < 1e-6,
            "{}: enhance min {lo}",
            e.name
        );
        assert!(
            (hi - e.enhance[1]).abs() < 1e-6,
            "{}: enhance max {hi}",
            e.name
        );
    }
}

#[test]
fn screen_levels_match_imagej_within_one() {
    let text = std::fs::read_to_string(common::data("display").join("imagej_reference.json"))
        .expect("reference");
    let reference: Reference = serde_json::from_str(&text).expect("json");
    for e in reference.images.iter().filter(|e| e.name != "grey8") {
        let img = image(&e.name, reference.width, reference.height);
        let window = DisplayRange::new(e.enhance[0], e.enhance[1]);
        let ours = display_rgba8(&img, &DisplaySettings::linked(window));
        let theirs = raw(&format!("{}_imagej8.raw", e.name));
        let diffs: Vec<u8> = ours
            .pixels()
            .zip(&theirs)
            .map(|(p, &t)| p.0[0].abs_diff(t))
            .collect();
        assert_eq!(diffs.len(), theirs.len());
        let worst = diffs.iter().copied().max().unwrap_or(0);
        let off = diffs.iter().filter(|&&d| d > 0).count();
        assert!(worst <= 1, "{}: off by {worst}", e.name);
        // Not all off by one: the same formula up to rounding.
        assert!(
            off * 2 < diffs.len(),
            "{}: {off} of {} differ",
            e.name,
            diffs.len()
        );
    }
}
