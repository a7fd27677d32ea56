//! Compiles every `kernels/*.cu` and `kernels/{filters,edits,video}/*.cu` into a fatbin when nvcc is
//! available, otherwise embeds the sources for NVRTC at run time. Either way
//! `OUT_DIR/kernel_images.rs` describes them; a kernel module is named by its file's stem.
//! The launch constants shared with Rust come from `src/kernel_constants.rs`, written as
//! `OUT_DIR/cudalens_constants.h` for the kernels to include.
//!
//! nvcc is searched in `$NVCC`, `$CUDA_PATH/bin`, then `PATH`. `CUDALENS_REQUIRE_NVCC=1`
//! (set by CI) turns a missing nvcc into a build error, so a kernel that does not compile
//! always fails CI.

use std::env;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

#[allow(dead_code)]
mod constants {
    include!("src/kernel_constants.rs");
}

/// The generated header of shared constants, in `OUT_DIR`.
const CONSTANTS_HEADER: &str = "cudalens_constants.h";

/// Folders holding kernel files: the frame's and the Mandelbrot's, the filters', the edits',
/// the video decoder's.
const KERNEL_DIRS: [&str; 4] = [
    "kernels",
    "kernels/filters",
    "kernels/edits",
    "kernels/video",
];
/// Kernels that launch kernels (dynamic parallelism): relocatable code, device-linked
/// with libcudadevrt. Every other kernel file is a plain fatbin.
const RDC_KERNELS: [&str; 1] = ["mandelbrot"];
/// Machine code for these architectures, plus PTX for the newest (JIT for later GPUs).
const ARCHS: [&str; 5] = ["75", "80", "86", "89", "90"];
/// The Mandelbrot module again, as plain code without device-side launches
/// (`-DMS_NO_CHILD_GRIDS`), for the compute-sanitizer tools that do not support dynamic
/// parallelism (racecheck, initcheck, synccheck: `CUDALENS_SANITIZER_MODULE=1`). Built for
/// the lent GPU's architecture only.
const SANITIZER_MODULE: (&str, &str, &str) = ("mandelbrot", "mandelbrot_sanitize", "90");

/// How a kernel file is compiled.
enum Build {
    Plain,
    /// Relocatable and device-linked with libcudadevrt (dynamic parallelism).
    Relocatable,
    /// `SANITIZER_MODULE`'s variant.
    Sanitizer,
}

fn find_nvcc() -> Option<PathBuf> {
    if let Ok(p) = env::var("NVCC") {
        return Some(PathBuf::from(p));
    }
    if let Ok(root) = env::var("CUDA_PATH") {
        let p = Path::new(&root).join("bin/nvcc");
        if p.exists() {
            return Some(p);
        }
    }
    env::var_os("PATH").and_then(|paths| {
        env::split_paths(&paths)
            .map(|d| d.join("nvcc"))
            .find(|p| p.exists())
    })
}

fn gencode_args() -> Vec<String> {
    let mut args = Vec::new();
    for a in ARCHS {
        args.push(format!("-gencode=arch=compute_{a},code=sm_{a}"));
    }
    let last = ARCHS[ARCHS.len() - 1];
    args.push(format!("-gencode=arch=compute_{last},code=compute_{last}"));
    args
}

/// Directory holding libcudadevrt.a next to this nvcc (toolkit or pip wheel layout).
fn cudadevrt_dir(nvcc: &Path) -> Option<PathBuf> {
    let root = nvcc.parent()?.parent()?;
    [
        root.join("lib64"),
        root.join("lib"),
        root.join("targets/x86_64-linux/lib"),
    ]
    .into_iter()
    .find(|d| d.join("libcudadevrt.a").exists())
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run nvcc for {what}: {e}"));
    if !out.status.success() {
        panic!(
            "nvcc failed on {what}:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn compile(nvcc: &Path, name: &str, src: &Path, build: Build, out_dir: &Path) -> PathBuf {
    let out_name = match build {
        Build::Sanitizer => SANITIZER_MODULE.1,
        _ => name,
    };
    let fatbin = out_dir.join(format!("{out_name}.fatbin"));
    let mut cmd = Command::new(nvcc);
    cmd.args(["-O3", "-std=c++17", "-Ikernels", "--fatbin"])
        .arg(format!("-I{}", out_dir.display()))
        .arg("-o")
        .arg(&fatbin);
    match build {
        Build::Plain => {
            cmd.args(gencode_args());
        }
        Build::Relocatable => {
            let lib = cudadevrt_dir(nvcc)
                .unwrap_or_else(|| panic!("libcudadevrt.a not found next to {}", nvcc.display()));
            cmd.args(gencode_args())
                .args(["-rdc=true", "-dlink"])
                .arg(format!("-L{}", lib.display()))
                .arg("-lcudadevrt");
        }
        Build::Sanitizer => {
            let a = SANITIZER_MODULE.2;
            cmd.arg(format!("-gencode=arch=compute_{a},code=sm_{a}"))
                .arg("-DMS_NO_CHILD_GRIDS");
        }
    }
    cmd.arg(src);
    run(&mut cmd, &src.display().to_string());
    fatbin
}

/// One `KernelImage` of the generated table; `fatbin` is its Rust expression.
fn image_row(table: &mut String, name: &str, relocatable: bool, fatbin: &str, source: &str) {
    let _ = writeln!(
        table,
        "    KernelImage {{ name: {name:?}, relocatable: {relocatable}, fatbin: {fatbin}, source: include_str!({source:?}) }},"
    );
}

/// Every kernel file of [`KERNEL_DIRS`] as (stem, path), sorted by stem; stems are unique.
fn kernel_files() -> Vec<(String, PathBuf)> {
    let mut files: Vec<(String, PathBuf)> = KERNEL_DIRS
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir}/: {e}")))
        .filter_map(|e| {
            let path = e.ok()?.path();
            let stem = (path.extension()? == "cu").then(|| path.file_stem()?.to_str())??;
            Some((stem.to_string(), path))
        })
        .collect();
    files.sort();
    for pair in files.windows(2) {
        assert!(
            pair[0].0 != pair[1].0,
            "two kernel files named {}.cu",
            pair[0].0
        );
    }
    files
}

fn main() {
    println!("cargo:rerun-if-changed=kernels");
    println!("cargo:rerun-if-changed=src/kernel_constants.rs");
    println!("cargo:rerun-if-env-changed=NVCC");
    println!("cargo:rerun-if-env-changed=CUDA_PATH");
    println!("cargo:rerun-if-env-changed=CUDALENS_REQUIRE_NVCC");
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let header = out_dir.join(CONSTANTS_HEADER);
    std::fs::write(&header, constants::c_header()).expect("write cudalens_constants.h");
    let nvcc = find_nvcc();
    if nvcc.is_none() && env::var("CUDALENS_REQUIRE_NVCC").as_deref() == Ok("1") {
        panic!("CUDALENS_REQUIRE_NVCC=1 but no nvcc found (set NVCC or put nvcc on PATH)");
    }
    let manifest = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let mut table = String::from("pub static KERNEL_IMAGES: &[KernelImage] = &[\n");
    for (name, src) in kernel_files() {
        let rdc = RDC_KERNELS.contains(&name.as_str());
        let name = name.as_str();
        let build = if rdc {
            Build::Relocatable
        } else {
            Build::Plain
        };
        let fatbin = match &nvcc {
            Some(nvcc) => {
                let path = compile(nvcc, name, &src, build, &out_dir);
                format!("Some(include_bytes!({:?}))", path.display().to_string())
            }
            None => "None".to_string(),
        };
        image_row(
            &mut table,
            name,
            rdc,
            &fatbin,
            &format!("{manifest}/{}", src.display()),
        );
    }
    if let Some(nvcc) = &nvcc {
        let (file, name, _) = SANITIZER_MODULE;
        let src = Path::new("kernels").join(format!("{file}.cu"));
        let path = compile(nvcc, file, &src, Build::Sanitizer, &out_dir);
        let fatbin = format!("Some(include_bytes!({:?}))", path.display().to_string());
        image_row(
            &mut table,
            name,
            false,
            &fatbin,
            &format!("{manifest}/kernels/{file}.cu"),
        );
    }
    table.push_str("];\n");
    let _ = writeln!(
        table,
        "pub const COMMON_HEADER: &str = include_str!({:?});",
        format!("{manifest}/kernels/common.cuh")
    );
    let _ = writeln!(
        table,
        "pub const CONSTANTS_HEADER: &str = include_str!({:?});",
        header.display().to_string()
    );
    let _ = writeln!(
        table,
        "pub const PERTURBATION_HEADER: &str = include_str!({:?});",
        format!("{manifest}/kernels/perturbation.cuh")
    );
    let _ = writeln!(
        table,
        "pub const MANDELBROT_EVAL_HEADER: &str = include_str!({:?});",
        format!("{manifest}/kernels/mandelbrot_eval.cuh")
    );
    let _ = writeln!(
        table,
        "pub const BUILT_WITH_NVCC: bool = {};",
        nvcc.is_some()
    );
    std::fs::write(out_dir.join("kernel_images.rs"), table).expect("write kernel_images.rs");
}
