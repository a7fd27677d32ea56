//! `cudalens doctor`: what this machine offers, which backend and which CUDA–OpenGL interop
//! path would run, and why.

use super::CliError;
use crate::cuda::{kernel_build_description, CudaDevice};
use crate::gl::HeadlessGl;
use crate::pipeline::probe_cuda;

/// NVRTC's version (user kernels compile with it), or why there is none.
fn nvrtc_line() -> String {
    match crate::user_kernel::nvrtc_version() {
        Some((major, minor)) => format!("{major}.{minor} (user kernels can compile)"),
        None => format!(
            "unavailable: {} (user kernels cannot run)",
            crate::user_kernel::CompileError::NvrtcMissing
        ),
    }
}

pub fn run() -> Result<(), CliError> {
    println!("cudalens {}", env!("CARGO_PKG_VERSION"));
    println!("kernels:        {}", kernel_build_description());
    match HeadlessGl::new() {
        Ok(gl) => println!("OpenGL (EGL):   {}", gl.renderer),
        Err(e) => println!("OpenGL (EGL):   unavailable ({e})"),
    }
    match CudaDevice::count() {
        Ok(n) => {
            println!("CUDA devices:   {n}");
            for i in 0..n {
                match CudaDevice::new(i) {
                    Ok(d) => println!("  [{i}] {}", d.info),
                    Err(e) => println!("  [{i}] cannot open: {e}"),
                }
            }
        }
        Err(e) => println!("CUDA devices:   none ({e})"),
    }
    match probe_cuda() {
        Ok((renderer, info, interop)) => {
            println!(
                "backend (auto): CUDA on {} — interop with {renderer} works",
                info.name
            );
            println!("interop (auto): {interop}");
        }
        Err(reason) => {
            println!("backend (auto): CPU — CUDA unavailable: {reason}");
            println!("interop (auto): none (no CUDA backend)");
        }
    }
    println!("NVRTC:          {}", nvrtc_line());
    let nvdec = CudaDevice::new(0)
        .map_err(crate::video::NvdecError::from)
        .and_then(|d| crate::video::nvdec::decoder_summary(&d));
    match nvdec {
        Ok(lines) => println!("NVDEC:          {}", lines.join(", ")),
        Err(reason) => {
            println!(
                "NVDEC:          unavailable ({reason}); videos decode with ffmpeg, else H.264 with OpenH264"
            )
        }
    }
    match crate::video::ffmpeg_found() {
        Some(version) => println!("videos:         {version}"),
        None => println!(
            "videos:         no ffmpeg and ffprobe on the PATH (what NVDEC decodes, and 8-bit H.264 by OpenH264, opens; no video output)"
        ),
    }
    println!("CPU threads:    {}", rayon::current_num_threads());
    Ok(())
}
