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

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// Runs `cudalens apply` with `args` on the CPU backend.
fn apply(dir: &std::path::Path, args: &[&str]) -> common::process::Finished {
    let mut cmd = cudalens();
    cmd.arg("apply").args(args).args(["--backend", "cpu"]);
    run_limited(&mut cmd, dir, LIMIT)
}

fn copy_input(dir: &std::path::Path) -> (PathBuf, Vec<u8>) {
    let input = dir.join("in.png");
    std::fs::copy(refs_dir().join("coffee.png"), &input).expect("copy");
    let bytes = std::fs::read(&input).expect("read");
    (input, bytes)
}

#[test]
fn apply_runs_edits_in_order_before_the_filters() {
    let dir = scratch();
    let (input, bytes) = copy_input(dir.path());
    let out = dir.path().join("out.png");
    let (i, o) = (input.to_str().unwrap(), out.to_str().unwrap());
    let run = apply(
        dir.path(),
        &[
            i,
            "-o",
            o,
            "--edit",
            "rotate:90",
            "--edit",
            "crop:1,2,30,40",
            "--edit",
            "resize:200%,filter=bicubic",
        ],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    let got = image::open(&out).expect("output").to_rgba8();
    assert_eq!(got.dimensions(), (60, 80));
    let edits = [
        edit("rotate:90"),
        edit("crop:1,2,30,40"),
        edit("resize:200%,filter=bicubic"),
    ];
    let want = cpu::apply_edits(&load_png("coffee.png"), &edits).expect("cpu");
    assert_eq!(max_difference(&got, &want), (0, 0));

    let filtered = dir.path().join("filtered.png");
    let run = apply(
        dir.path(),
        &[
            i,
            "-o",
            filtered.to_str().unwrap(),
            "--edit",
            "flip:h",
            "--filter",
            "sobel",
        ],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    let got = image::open(&filtered).expect("output").to_rgba8();
    let flipped = cpu::apply_edits(&load_png("coffee.png"), &[edit("flip:h")]).expect("cpu");
    let want = cudalens::filters::apply_cpu(&flipped, &["sobel".parse().expect("sobel")]);
    assert_eq!(max_difference(&got, &want), (0, 0));
    assert_eq!(
        std::fs::read(&input).expect("input"),
        bytes,
        "input untouched"
    );
}

#[test]
fn bad_edits_exit_2_with_one_line_and_write_nothing() {
    let dir = scratch();
    let (input, bytes) = copy_input(dir.path());
    let out = dir.path().join("out.png");
    let (i, o) = (input.to_str().unwrap(), out.to_str().unwrap());
    for (spec, needle) in [
        ("rotate:45", "rotate:45"),
        ("flip:diagonal", "flip:diagonal"),
        ("resize:0x10", "at least 1"),
        ("resize:99999x10", "limit"),
        ("resize:10x10,filter=box", "unknown filter"),
        ("crop:1,2,3", "X,Y,W,H"),
        ("crop:90,0,10,10", "outside the 97×61 image"),
        ("resize:0.5x10", "whole number"),
        ("spin:3", "unknown edit"),
    ] {
        let run = apply(dir.path(), &[i, "-o", o, "--edit", spec]);
        run.refused_with(needle);
        assert!(!out.exists(), "{spec}: no output");
    }
    // An edit chain that goes outside only after an earlier edit.
    let run = apply(
        dir.path(),
        &[
            i,
            "-o",
            o,
            "--edit",
            "rotate:90",
            "--edit",
            "crop:0,0,97,61",
        ],
    );
    run.refused_with("outside the 61×97 image");
    // The input as output is refused before any work, whatever the edits.
    let run = apply(dir.path(), &[i, "-o", i, "--edit", "rotate:90", "--force"]);
    assert_eq!(run.code, Some(2), "{run:#?}");
    assert_eq!(
        std::fs::read(&input).expect("input"),
        bytes,
        "input untouched"
    );
}

#[test]
fn batch_runs_the_edits_on_every_image() {
    let dir = scratch();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).expect("mkdir");
    for name in ["coffee.png", "noise.png"] {
        std::fs::copy(refs_dir().join(name), inputs.join(name)).expect("copy");
    }
    let out = dir.path().join("out");
    let run = apply(
        dir.path(),
        &[
            inputs.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--edit",
            "rotate:270",
            "--edit",
            "resize:20x30,filter=lanczos3",
        ],
    );
    assert_eq!(run.code, Some(0), "{run:#?}");
    for name in ["coffee.png", "noise.png"] {
        let got = image::open(out.join(name)).expect("output").to_rgba8();
        let edits = [edit("rotate:270"), edit("resize:20x30,filter=lanczos3")];
        let want = cpu::apply_edits(&load_png(name), &edits).expect("cpu");
        assert_eq!(max_difference(&got, &want), (0, 0), "{name}");
    }
}

#[test]
fn help_lists_every_edit_syntax() {
    let dir = scratch();
    let mut cmd = cudalens();
    cmd.args(["apply", "--help"]);
    let run = run_limited(&mut cmd, dir.path(), LIMIT);
    assert_eq!(run.code, Some(0), "{run:#?}");
    for kind in EDIT_KINDS {
        assert!(
            run.stdout.contains(kind.syntax),
            "{}: {}",
            kind.name,
            run.stdout
        );
    }
}

#[test]
fn apply_with_the_cuda_backend_matches_the_cpu_reference() {
    if device().is_none() {
        return;
    }
    let dir = scratch();
    let (input, _) = copy_input(dir.path());
    let specs = [
        "rotate:90",
        "resize:150x200,filter=lanczos3",
        "crop:3,4,100,90",
        "flip:v",
    ];
    for (backend, name) in [("cuda", "gpu.png"), ("cpu", "cpu.png")] {
        let mut cmd = cudalens();
        cmd.arg("apply")
            .arg(&input)
            .arg("-o")
            .arg(dir.path().join(name))
            .args(["--backend", backend]);
        for s in specs {
            cmd.args(["--edit", s]);
        }
        let run = run_limited(&mut cmd, dir.path(), LIMIT);
        assert_eq!(run.code, Some(0), "{run:#?}");
    }
    let gpu = image::open(dir.path().join("gpu.png"))
        .expect("gpu")
        .to_rgba8();
    let cpu = image::open(dir.path().join("cpu.png"))
        .expect("cpu")
        .to_rgba8();
    assert_eq!(gpu.dimensions(), (100, 90));
    assert_eq!(max_difference(&gpu, &cpu), (0, 0));
}
