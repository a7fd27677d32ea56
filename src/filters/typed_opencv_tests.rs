//! The generic CPU references in U16 and F32 against OpenCV's outputs, written by
//! `scripts/fidelity/make_typed_filter_refs.py` into `tests/data/typed_filters/`.
//! Integers within 1 level, floats within 1e-5 relative (1e-6 absolute near 0); median,
//! transpose and threshold (an order statistic, a move, a comparison of the same f32 luma)
//! exactly.

use super::typed::test_inputs::{read_raw, worst_difference};
use super::Filter;

#[test]
fn generic_references_agree_with_opencv_in_u16_and_f32() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/typed_filters");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).expect("manifest"))
            .expect("JSON");
    let mut compared = 0;
    for case in manifest["cases"].as_array().expect("cases") {
        let number = |key: &str| case[key].as_u64().expect(key) as u32;
        let (w, h, c) = (number("width"), number("height"), number("channels") as u8);
        let ty = case["type"].as_str().expect("type");
        let name = case["input"].as_str().expect("input");
        let input = read_raw(&format!("typed_filters/{name}"), ty, w, h, c);
        for (spec, file) in case["outputs"].as_object().expect("outputs") {
            let f: Filter = spec.parse().expect("spec parses");
            let (ow, oh) = f.output_size(w, h);
            let file = file.as_str().expect("file");
            let want = read_raw(&format!("typed_filters/{file}"), ty, ow, oh, c);
            let worst = worst_difference(&f.apply_cpu_typed(&input), &want);
            let exact = matches!(f.name(), "median" | "transpose" | "threshold");
            let limit = if exact { 0.0 } else { 1.0 };
            assert!(worst <= limit, "{spec} on {name}: {worst} tolerances");
            compared += 1;
        }
    }
    assert_eq!(compared, 8 * 11, "every case of the manifest");
}
