//! The external-memory interop path where it cannot work (CI: no NVIDIA GPU, Mesa, maybe
//! no Vulkan driver): every piece fails with a reason instead of panicking, the command line
//! says which interop path runs, and `--interop` is validated. On a GPU machine the same
//! tests pass and `tests/gpu.rs` proves both paths.

mod common;

use assert_cmd::Command;
use cudalens::gl::{ext_ffi, HeadlessGl};
use cudalens::vk::VkExporter;

fn cudalens() -> Command {
    Command::cargo_bin("cudalens").expect("binary built")
}

fn cuda_present() -> bool {
    cudalens::cuda::CudaDevice::count().is_ok_and(|n| n > 0)
}

#[test]
fn vulkan_refuses_a_device_that_is_not_there_with_a_reason() {
    // No GPU has an all-zero UUID: this fails on every machine, at whatever step the
    // machine stops (no loader, no device, no match).
    let err = VkExporter::open(&[0u8; 16])
        .err()
        .expect("no device has UUID 0");
    let text = err.to_string();
    println!("{text}");
    assert!(!text.is_empty());
}

#[test]
fn the_gl_extension_check_names_what_is_missing() {
    let Ok(ctx) = HeadlessGl::new() else {
        common::skip_gpu_test("no headless OpenGL here");
        return;
    };
    let missing = ext_ffi::external_objects_missing(&ctx.gl);
    println!("{}: missing {missing:?}", ctx.renderer);
    for name in &missing {
        assert!(ext_ffi::REQUIRED_EXTENSIONS.contains(name));
    }
    if missing.is_empty() {
        // Where the extensions are there, so are their entry points and the UUID query.
        ext_ffi::fns().expect("entry points of advertised extensions");
        ext_ffi::device_uuids(&ctx.gl).expect("GL_DEVICE_UUID_EXT");
    }
}

#[test]
fn doctor_names_the_interop_path() {
    let out = cudalens().arg("doctor").output().expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("interop (auto):"), "{text}");
    if !cuda_present() {
        assert!(text.contains("interop (auto): none"), "{text}");
    }
}

#[test]
fn an_unknown_interop_path_is_a_usage_error() {
    let out = cudalens()
        .args(["histogram", "tests/data/camera.png", "--interop", "magic"])
        .current_dir(common::repo_root())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn without_cuda_the_interop_choice_does_not_matter_to_auto() {
    if cuda_present() {
        println!("skipped: CUDA is here (tests/gpu.rs covers both paths)");
        return;
    }
    for path in ["auto", "classic", "external"] {
        let out = cudalens()
            .args(["histogram", "tests/data/camera.png", "--interop", path])
            .current_dir(common::repo_root())
            .output()
            .expect("runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{path}: {out:?}");
        assert!(stdout.contains("CPU backend"), "{path}: {stdout}");
    }
}
