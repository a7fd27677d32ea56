//! The ranged histogram against numpy (`scripts/fidelity/make_histogram_refs.py` wrote
//! `tests/data/histogram/`): counts, values outside the range, NaN and bin edges exactly,
//! statistics within 1e-9 relative.

use cudalens::ops::histogram::{ranged_histogram, HistogramOptions, RangedHistogram};
use cudalens::pixels::{ImageBuf, PixelImage};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/histogram")
}

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(dir().join("manifest.json")).expect("manifest");
    serde_json::from_str(&text).expect("manifest JSON")
}

fn num(v: &Value) -> u64 {
    v.as_u64().expect("a count")
}

/// The entry's image from its raw little-endian samples.
fn load(entry: &Value) -> PixelImage {
    let bytes = std::fs::read(dir().join(format!("{}.raw", entry["name"].as_str().expect("name"))))
        .expect("raw samples");
    let (w, h, c) = (
        num(&entry["width"]) as u32,
        num(&entry["height"]) as u32,
        num(&entry["channels"]) as u8,
    );
    match entry["depth"].as_str().expect("depth") {
        "8" => PixelImage::U8(ImageBuf::from_vec(w, h, c, bytes).expect("size")),
        "16" => {
            let v = bytes
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]));
            PixelImage::U16(ImageBuf::from_vec(w, h, c, v.collect()).expect("size"))
        }
        _ => {
            let v = bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            PixelImage::F32(ImageBuf::from_vec(w, h, c, v.collect()).expect("size"))
        }
    }
}

fn close(got: f64, want: &Value, what: &str) {
    let want = want.as_f64().expect("a number");
    let scale = want.abs().max(1e-300);
    assert!(
        (got - want).abs() <= 1e-9 * scale || got == want,
        "{what}: {got} vs numpy {want}"
    );
}

fn check_case(label: &str, got: &RangedHistogram, want: &Value) {
    let bins = num(&want["bins"]) as usize;
    assert_eq!(got.range.bins(), bins, "{label}");
    for pair in want["edges_bits"].as_array().expect("edges") {
        let (i, bits) = (num(&pair[0]) as usize, num(&pair[1]));
        assert_eq!(got.range.edge(i).to_bits(), bits, "{label}: edge {i}");
    }
    let channels = want["channels"].as_array().expect("channels");
    assert_eq!(got.channels.len(), channels.len(), "{label}");
    for (g, w) in got.channels.iter().zip(channels) {
        let what = format!("{label} {}", g.name);
        let mut counts = vec![0u64; bins];
        for pair in w["counts"].as_array().expect("counts") {
            counts[num(&pair[0]) as usize] = num(&pair[1]);
        }
        assert_eq!(g.counts, counts, "{what}: counts");
        assert_eq!(
            (g.below, g.above, g.nan),
            (num(&w["below"]), num(&w["above"]), num(&w["nan"])),
            "{what}: below, above, NaN"
        );
        let s = &w["stats"];
        assert_eq!(g.stats.count, num(&s["count"]), "{what}: count");
        close(g.stats.min, &s["min"], &format!("{what}: min"));
        close(g.stats.max, &s["max"], &format!("{what}: max"));
        close(g.stats.mean, &s["mean"], &format!("{what}: mean"));
        close(g.stats.std_dev, &s["std_dev"], &format!("{what}: std dev"));
        close(g.stats.median, &s["median"], &format!("{what}: median"));
    }
}

#[test]
fn ranged_histograms_equal_numpy() {
    let mut cases = 0;
    for entry in manifest() {
        let image = load(&entry);
        for want in entry["cases"].as_array().expect("cases") {
            let range = want["range"].as_array().expect("range");
            let options = HistogramOptions {
                bins: Some(num(&want["bins"]) as usize),
                range: Some((
                    range[0].as_f64().expect("lo"),
                    range[1].as_f64().expect("hi"),
                )),
            };
            let label = format!("{} {options:?}", entry["name"]);
            let got = ranged_histogram(&image, &options).expect("valid options");
            check_case(&label, &got, want);
            cases += 1;
        }
    }
    assert!(cases >= 20, "{cases} cases");
}

#[test]
fn default_ranges_are_numpy_defaults() {
    // The first case of every entry is 256 bins over the default range.
    for entry in manifest() {
        let image = load(&entry);
        let got = ranged_histogram(&image, &HistogramOptions::default()).expect("defaults");
        let want = &entry["cases"][0];
        let range = want["range"].as_array().expect("range");
        assert_eq!(
            (got.range.lo(), got.range.hi()),
            (
                range[0].as_f64().expect("lo"),
                range[1].as_f64().expect("hi")
            ),
            "{}",
            entry["name"]
        );
        check_case(&format!("{} default", entry["name"]), &got, want);
    }
}
