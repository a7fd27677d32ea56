//! Image edits against someone else's answer: the CPU reference of every edit must match
//! Pillow's (tests/data/edits/, made by scripts/fidelity/make_edit_refs.py), the CUDA path
//! must match the CPU reference, and `cudalens apply --edit` must size, refuse and protect
//! files as the command line promises.
//!
//! Bounds: rotations, flips, crops and nearest-neighbour resizes exact; bilinear, bicubic
//! and Lanczos resizes within `RESAMPLE_LEVELS` of Pillow (measured: 0 on every case, as
//! the fixed-point arithmetic is Pillow's own); the GPU equal to the CPU reference.

mod common;

use common::process::{cudalens, run_limited};
use common::{max_difference, skip_gpu_test};
use cudalens::cuda::CudaDevice;
use cudalens::edit::{cpu, ImageEdit, EDIT_KINDS};
use cudalens::ops::random_image;
use image::RgbaImage;
use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;

/// Largest difference allowed from Pillow on a resampling resize.
const RESAMPLE_LEVELS: u8 = 1;
const LIMIT: Duration = Duration::from_secs(60);

#[derive(Debug, Deserialize)]
struct Case {
    input: String,
    edit: String,
    reference: String,
    size: [u32; 2],
}

#[derive(Deserialize)]
struct Manifest {
    cases: Vec<Case>,
}

fn refs_dir() -> PathBuf {
    common::data_dir().join("edits")
}

fn load_png(name: &str) -> RgbaImage {
    image::open(refs_dir().join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .to_rgba8()
}

fn manifest() -> Vec<Case> {
    let text = std::fs::read_to_string(refs_dir().join("manifest.json")).expect("manifest");
    serde_json::from_str::<Manifest>(&text)
        .expect("manifest parses")
        .cases
}

fn edit(spec: &str) -> ImageEdit {
    spec.parse().unwrap_or_else(|e| panic!("{spec}: {e}"))
}

#[test]
fn the_cpu_reference_matches_pillow() {
    let cases = manifest();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let mut worst = 0;
    for case in &cases {
        let input = load_png(&case.input);
        assert!(input.pixels().any(|p| p.0 != [0, 0, 0, 0]), "all zero");
        let want = load_png(&case.reference);
        let e = edit(&case.edit);
        let got = cpu::apply_edit(&input, &e).unwrap_or_else(|err| panic!("{}: {err}", case.edit));
        assert_eq!(
            got.dimensions(),
            (case.size[0], case.size[1]),
            "{}",
            case.edit
        );
        let (diff, count) = max_difference(&got, &want);
        let bound = if e.is_exact() { 0 } else { RESAMPLE_LEVELS };
        assert!(
            diff <= bound,
            "{} on {}: max difference {diff} ({count} values) over {bound}",
            case.edit,
            case.input
        );
        worst = worst.max(diff);
    }
    eprintln!(
        "{} cases, largest difference from Pillow: {worst}",
        cases.len()
    );
}

#[test]
fn every_edit_kind_has_references() {
    let cases = manifest();
    for kind in EDIT_KINDS {
        assert!(
            cases.iter().any(|c| edit(&c.edit).kind().name == kind.name),
            "{} has no Pillow reference",
            kind.name
        );
    }
}

/// A CUDA device, or None (with the skip message).
fn device() -> Option<CudaDevice> {
    let reason = match CudaDevice::count() {
        Ok(0) => "no device".to_string(),
        Ok(_) => return Some(CudaDevice::new(0).expect("a CUDA device opens")),
        Err(e) => e.to_string(),
    };
    skip_gpu_test(&format!("no CUDA device ({reason})"));
    None
}

#[test]
fn gpu_edits_match_the_cpu_reference_and_pillow() {
    let Some(device) = device() else { return };
    for case in manifest() {
        let input = load_png(&case.input);
        let e = edit(&case.edit);
        let cpu = cpu::apply_edit(&input, &e).expect("cpu");
        let gpu = cudalens::edit::cuda::apply_edits(&device, &input, &[e])
            .unwrap_or_else(|err| panic!("{}: {err}", case.edit));
        assert_eq!(
            max_difference(&gpu, &cpu),
            (0, 0),
            "{} on {}",
            case.edit,
            case.input
        );
    }
}

#[test]
fn gpu_edit_chains_match_the_cpu_reference_on_random_data() {
    let Some(device) = device() else { return };
    let chains: &[&[&str]] = &[
        &["rotate:90"; 4],
        &["rotate:90", "crop:5,7,100,200", "flip:h"],
        &["resize:1031x517,filter=lanczos3", "rotate:270"],
        &["resize:25%,filter=bicubic", "flip:v"],
        &["resize:300%,filter=bilinear"],
        &[
            "resize:999x10,filter=nearest",
            "resize:33x1000,filter=nearest",
        ],
        &["crop:0,0,1,1", "resize:64x64,filter=lanczos3"],
    ];
    for (seed, chain) in chains.iter().enumerate() {
        let input = random_image(1283, 771, seed as u64 + 1);
        let edits: Vec<ImageEdit> = chain.iter().map(|s| edit(s)).collect();
        let cpu = cpu::apply_edits(&input, &edits).expect("cpu");
        let gpu = cudalens::edit::cuda::apply_edits(&device, &input, &edits).expect("gpu");
        assert_eq!(max_difference(&gpu, &cpu), (0, 0), "{chain:?}");
    }
    let input = random_image(20, 10, 9);
    let outside = [edit("crop:15,0,10,10")];
    let e = cudalens::edit::cuda::apply_edits(&device, &input, &outside).expect_err("outside");
    assert!(e.to_string().contains("outside"), "{e}");
}
