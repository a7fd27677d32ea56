use super::cpu::{level, luma_histogram, BINS};
use super::method::Method;
use crate::filters::Filter;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

fn parse(spec: &str) -> Result<Filter, String> {
    spec.parse::<Filter>().map_err(|e| e.to_string())
}

fn photo(name: &str) -> image::RgbaImage {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    image::open(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .into_rgba8()
}

#[test]
fn the_method_is_a_word_and_round_trips() {
    assert_eq!(
        parse("threshold").unwrap().to_string(),
        "threshold:level=128,method=manual,invert=0"
    );
    for word in Method::WORDS {
        let f = parse(&format!("threshold:method={word}")).unwrap();
        assert_eq!(
            f.to_string(),
            format!("threshold:level=128,method={word},invert=0")
        );
        assert_eq!(parse(&f.to_string()).unwrap(), f);
    }
    let f = parse("THRESHOLD:Method=OTSU,invert=1,level=7").unwrap();
    assert_eq!(f.to_string(), "threshold:level=7,method=otsu,invert=1");
    assert_eq!(f.params().get(1), Method::Otsu as usize as f32);
}

#[test]
fn refuses_bad_specifications_with_one_clear_line() {
    let cases = [
        (
            "threshold:method=huang",
            "parameter 'method' of 'threshold' is 'huang', not one of: manual, otsu, isodata, mean, triangle",
        ),
        (
            "threshold:method=1",
            "parameter 'method' of 'threshold' is '1', not one of: manual, otsu, isodata, mean, triangle",
        ),
        (
            "threshold:method=",
            "parameter 'method' of 'threshold' is '', not one of: manual, otsu, isodata, mean, triangle",
        ),
        (
            "threshold:level=256",
            "parameter 'level' of 'threshold' is 256, outside 0..=255",
        ),
        (
            "threshold:invert=2",
            "parameter 'invert' of 'threshold' is 2, outside 0..=1",
        ),
        (
            "threshold:method=otsu,method=mean",
            "parameter 'method' of 'threshold' is given twice",
        ),
    ];
    for (spec, want) in cases {
        let err = parse(spec).expect_err(spec);
        assert_eq!(err, want, "{spec}");
        assert!(!err.contains('\n'), "{spec}");
    }
    for spec in ["threshold:method", "threshold:level=1.5", "threshold:mode=otsu"] {
        assert!(parse(spec).is_err(), "{spec} was accepted");
    }
}

#[test]
fn the_ui_sets_a_choice_by_index() {
    let mut f = parse("threshold").unwrap();
    f.set_param(1, 4.0, true);
    assert_eq!(f.to_string(), "threshold:level=128,method=triangle,invert=0");
    f.set_param(1, 9.0, true);
    assert_eq!(f.to_string(), "threshold:level=128,method=triangle,invert=0");
    assert!(f.validate().is_ok());
}

#[test]
fn help_lists_the_words() {
    let help = crate::filters::help_lines();
    assert!(
        help.contains("\n      method: manual|otsu|isodata|mean|triangle"),
        "{help}"
    );
}

#[test]
fn the_filter_applies_the_level_of_its_method() {
    let img = photo("camera.png");
    let hist = luma_histogram(&img);
    for m in Method::ALL {
        let f = parse(&format!("threshold:method={},level=77", m.word())).unwrap();
        let want = super::cpu::apply_level(&img, level(*m, 77, &hist), false);
        assert_eq!(f.apply_cpu(&img), want, "{m:?}");
    }
    // Both colours appear on a photograph, and invert swaps them.
    let otsu = parse("threshold:method=otsu").unwrap().apply_cpu(&img);
    let inverted = parse("threshold:method=otsu,invert=1")
        .unwrap()
        .apply_cpu(&img);
    assert!(otsu.pixels().any(|p| p.0[0] == 0) && otsu.pixels().any(|p| p.0[0] == 255));
    for (a, b) in otsu.pixels().zip(inverted.pixels()) {
        assert_eq!(a.0[0], 255 - b.0[0]);
    }
}

#[derive(Deserialize)]
struct Refs {
    entries: Vec<RefEntry>,
}

#[derive(Deserialize)]
struct RefEntry {
    name: String,
    histogram: Vec<u32>,
    levels: BTreeMap<String, RefLevel>,
}

#[derive(Deserialize)]
struct RefLevel {
    level: u32,
}

/// The automatic levels against scikit-image's (`scripts/fidelity/make_threshold_refs.py`):
/// on the luma of the photographs (whose histograms must be ours) and on random lumas.
#[test]
fn automatic_levels_match_scikit_image() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/threshold_levels.json");
    let text = std::fs::read_to_string(&path).expect("threshold_levels.json");
    let refs: Refs = serde_json::from_str(&text).expect("valid JSON");
    assert!(refs.entries.len() >= 40);
    let mut checked = 0;
    for e in &refs.entries {
        let hist: [u32; BINS] = e.histogram.as_slice().try_into().expect("256 bins");
        if e.name.ends_with(".png") {
            assert_eq!(luma_histogram(&photo(&e.name)), hist, "{}: luma", e.name);
        }
        for (word, want) in &e.levels {
            let m = Method::ALL
                .iter()
                .find(|m| m.word() == word)
                .unwrap_or_else(|| panic!("unknown method {word}"));
            assert_eq!(level(*m, 0, &hist), want.level, "{} {word}", e.name);
            checked += 1;
        }
    }
    assert!(checked >= 4 * 40);
}
