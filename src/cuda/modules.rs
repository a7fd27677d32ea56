//! Kernel modules: fatbins compiled by nvcc in build.rs, or sources compiled by NVRTC at
//! run time when the binary was built without nvcc.

use super::{CudaDevice, CudaError};
use cudarc::driver::{CudaFunction, CudaModule};
use cudarc::nvrtc::{CompileOptions, Ptx};
use std::sync::Arc;

/// One kernel file as embedded by build.rs.
pub struct KernelImage {
    pub name: &'static str,
    /// Relocatable device code (dynamic parallelism): needs nvcc's device link.
    pub relocatable: bool,
    pub fatbin: Option<&'static [u8]>,
    pub source: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/kernel_images.rs"));

fn image(name: &str) -> Option<&'static KernelImage> {
    KERNEL_IMAGES.iter().find(|k| k.name == name)
}

/// Whether `kernels/<name>.cu` is built into this binary.
pub fn kernel_embedded(name: &str) -> bool {
    image(name).is_some()
}

/// The value of `#define NAME VALUE` in `kernels/<file>.cu` (a test checks that no kernel
/// defines a shared constant again).
#[cfg(test)]
pub fn kernel_define(file: &str, name: &str) -> Option<u32> {
    image(file)?.source.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next() == Some("#define") && words.next() == Some(name))
            .then(|| words.next().and_then(|v| v.parse().ok()))
            .flatten()
    })
}

/// How this binary carries its kernels, for `doctor` and the status bar.
pub fn kernel_build_description() -> &'static str {
    if BUILT_WITH_NVCC {
        "fatbins from nvcc (sm_75, sm_80, sm_86, sm_89, sm_90 + compute_90 PTX)"
    } else {
        "CUDA sources compiled by NVRTC at run time (built without nvcc; no Mandelbrot dynamic parallelism)"
    }
}

/// Loads kernel module `name` into the device's context.
pub fn load_module(device: &CudaDevice, name: &str) -> Result<Arc<CudaModule>, CudaError> {
    let module_error = |reason: String| CudaError::Module {
        name: name.to_string(),
        reason,
    };
    let kernel = image(name).ok_or_else(|| module_error("not embedded".into()))?;
    let ptx = match kernel.fatbin {
        Some(bytes) => Ptx::from_binary(bytes.to_vec()),
        None if kernel.relocatable => {
            return Err(module_error(
                "uses dynamic parallelism and needs a build with nvcc (device link)".into(),
            ))
        }
        None => compile_with_nvrtc(device, kernel).map_err(module_error)?,
    };
    device
        .ctx
        .load_module(ptx)
        .map_err(|e| module_error(format!("cannot load: {e:?}")))
}

/// Function `name` of a loaded module.
pub fn load_function(module: &Arc<CudaModule>, name: &str) -> Result<CudaFunction, CudaError> {
    module.load_function(name).map_err(|e| CudaError::Module {
        name: name.to_string(),
        reason: format!("{e:?}"),
    })
}

fn compile_with_nvrtc(device: &CudaDevice, kernel: &KernelImage) -> Result<Ptx, String> {
    // SAFETY: only checks whether the library loads.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err("NVRTC (libnvrtc) not found".into());
    }
    let arch = nvrtc_arch(device.info.compute_capability);
    // Outer headers first: each replacement also fills the includes of those before it
    // (the constants header has its own guard, so it may come in more than once).
    let source = kernel
        .source
        .replace("#include \"perturbation.cuh\"", PERTURBATION_HEADER)
        .replace("#include \"mandelbrot_eval.cuh\"", MANDELBROT_EVAL_HEADER)
        .replace("#include \"common.cuh\"", COMMON_HEADER)
        .replace("#include \"cudalens_constants.h\"", CONSTANTS_HEADER);
    let options = CompileOptions {
        arch: Some(arch),
        options: vec!["-std=c++17".into()],
        ..Default::default()
    };
    cudarc::nvrtc::compile_ptx_with_opts(source, options).map_err(|e| format!("NVRTC: {e:?}"))
}

/// The NVRTC virtual architecture for a device (the newest one we know at or below it).
fn nvrtc_arch(capability: (i32, i32)) -> &'static str {
    match capability.0 * 10 + capability.1 {
        120.. => "compute_120",
        100.. => "compute_100",
        90.. => "compute_90",
        89 => "compute_89",
        86..=88 => "compute_86",
        80..=85 => "compute_80",
        _ => "compute_75",
    }
}
