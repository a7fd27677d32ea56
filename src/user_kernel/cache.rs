//! Compiled user kernels, cached: PTX by source hash and architecture for the process
//! (the editor's background compile fills it, the frame finds it there), and loaded
//! modules by source hash for one CUDA context.

use super::compile::{CompileError, CompileOptions, CompiledKernel};
use super::device::{arch_for, LoadedKernel};
use super::prelude::USER_FILE;
use super::stage::KernelStage;
use crate::cuda::CudaDevice;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

/// Entries kept before the caches start over (each edit that compiles adds one).
const MAX_ENTRIES: usize = 64;

type PtxKey = (u64, String);

static PTX: LazyLock<Mutex<HashMap<PtxKey, Arc<CompiledKernel>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn with_ptx<T>(f: impl FnOnce(&mut HashMap<PtxKey, Arc<CompiledKernel>>) -> T) -> T {
    // A poisoned cache is only a cache: take it as it is.
    let mut map = PTX.lock().unwrap_or_else(|p| p.into_inner());
    f(&mut map)
}

/// Records `compiled` as the PTX of source `hash` for `arch`.
pub fn remember(hash: u64, arch: &str, compiled: Arc<CompiledKernel>) {
    with_ptx(|map| {
        if map.len() >= MAX_ENTRIES {
            map.clear();
        }
        map.insert((hash, arch.to_string()), compiled);
    });
}

/// The PTX of `stage` for `arch`: from the cache, or compiled now (and cached).
pub fn compile_cached(
    stage: &KernelStage,
    arch: &str,
) -> Result<Arc<CompiledKernel>, CompileError> {
    let key = (stage.hash(), arch.to_string());
    if let Some(hit) = with_ptx(|map| map.get(&key).cloned()) {
        return Ok(hit);
    }
    let compiled = Arc::new(super::sandbox::compiler::compile(
        stage.source(),
        &CompileOptions::for_arch(arch),
    )?);
    remember(stage.hash(), arch, compiled.clone());
    Ok(compiled)
}

/// A compile message at `user.cu:LINE` put at the stage's file (`k.cu:LINE`); any other
/// message after the file's name.
fn at_path(message: &str, stage: &KernelStage) -> String {
    let path = stage.path().display();
    match message.strip_prefix(USER_FILE) {
        Some(rest) if rest.starts_with(':') => format!("{path}{rest}"),
        _ => format!("{path}: {message}"),
    }
}

/// The user kernels loaded in one context, by source hash; a failure is kept too, so a
/// broken kernel is compiled once, not on every frame.
#[derive(Default)]
pub struct LoadedKernels {
    loaded: HashMap<u64, Result<Arc<LoadedKernel>, String>>,
}

impl LoadedKernels {
    /// `stage`'s kernel if it is loaded already (for its attributes).
    pub fn loaded(&self, stage: &KernelStage) -> Option<Arc<LoadedKernel>> {
        self.loaded.get(&stage.hash())?.as_ref().ok().cloned()
    }

    /// `stage`'s kernel loaded on `device`: compiled (or found in the PTX cache) and
    /// loaded on first use. The error is one line.
    pub fn get(
        &mut self,
        device: &CudaDevice,
        stage: &KernelStage,
    ) -> Result<Arc<LoadedKernel>, String> {
        if let Some(hit) = self.loaded.get(&stage.hash()) {
            return hit.clone();
        }
        if self.loaded.len() >= MAX_ENTRIES {
            self.loaded.clear();
        }
        let arch = arch_for(device.info.compute_capability);
        let result = compile_cached(stage, &arch)
            .map_err(|e| at_path(&e.to_string(), stage))
            .and_then(|compiled| {
                LoadedKernel::load(device, stage.source(), &compiled)
                    .map_err(|e| format!("{}: {e}", stage.path().display()))
            })
            .map(Arc::new)
            .map_err(|e| format!("kernel {e}"));
        self.loaded.insert(stage.hash(), result.clone());
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::user_kernel::compile::DEFAULT_ARCH;
    use crate::user_kernel::source::KernelSource;
    use std::path::Path;

    #[test]
    fn compile_errors_name_the_file_and_the_users_line() {
        if !crate::user_kernel::nvrtc_available() {
            eprintln!("skipped: no NVRTC");
            return;
        }
        let text = "uchar4 pixel(int x, int y, Image src, Params p)\n{\n    const uchar4 c = read(src, x, y)\n    return c;\n}\n";
        let stage = KernelStage::from_source(
            Path::new("/k/typo.cu"),
            KernelSource::parse(text).expect("parses"),
        );
        let e = compile_cached(&stage, DEFAULT_ARCH).expect_err("does not compile");
        let line = at_path(&e.to_string(), &stage);
        assert!(line.starts_with("/k/typo.cu:4:"), "{line}");
        assert!(!line.contains('\n'), "{line}");
        let good = KernelStage::from_source(
            Path::new("/k/good.cu"),
            KernelSource::parse(&text.replace("y)\n", "y);\n")).expect("parses"),
        );
        let first = compile_cached(&good, DEFAULT_ARCH).expect("compiles");
        let again = compile_cached(&good, DEFAULT_ARCH).expect("cached");
        assert!(Arc::ptr_eq(&first, &again), "the second is the cached one");
    }
}
