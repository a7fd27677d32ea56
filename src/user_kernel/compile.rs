//! Compiling a user kernel to PTX with NVRTC.
//!
//! Options: `--gpu-architecture=compute_XX`, `-default-device` (unannotated functions are
//! device code, so `uchar4 pixel(...)` needs no `__device__`), C++17, line info for the
//! sanitizer and profiler, and no include path at all, not even the source's directory:
//! the source checks already refuse `#include`, and NVRTC has no standard headers. NVRTC
//! has no compile time limit: [`compile`] runs it on a thread and gives
//! [`CompileError::Timeout`] after the deadline (the thread finishes on its own);
//! the app and the CLI run it in a process of their own instead
//! (`sandbox::compiler`), killed at the deadline, through [`compile_with`].

use super::diagnostics::{parse_log, rename, summary, Diagnostic, Origin, Severity};
use super::nvrtc;
use super::prelude::{translation_unit, ENTRY_NAME};
use super::source::{Form, KernelSource, MAX_SHARED_BYTES, PIXEL_FUNCTION};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a compilation may take before the caller stops waiting.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(10);
/// The virtual architecture when none is given: the oldest the project supports.
pub const DEFAULT_ARCH: &str = "compute_75";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    #[error("NVRTC (libnvrtc) not found: install the CUDA toolkit or the nvidia-cuda-nvrtc wheel and add its lib folder to LD_LIBRARY_PATH")]
    NvrtcMissing,
    #[error("`{0}` is not a virtual architecture like compute_90")]
    BadArch(String),
    /// The source failed to compile; `summary` is the first error as one line.
    #[error("{summary}")]
    Failed {
        summary: String,
        diagnostics: Vec<Diagnostic>,
        log: String,
    },
    #[error("the compilation took longer than {0:?} and was abandoned")]
    Timeout(Duration),
    #[error("NVRTC: {0}")]
    Nvrtc(String),
}

#[derive(Debug, Clone)]
pub struct CompileOptions {
    /// A virtual architecture, `compute_XX` (the device's, from `nvrtc_arch`).
    pub arch: String,
    pub deadline: Duration,
}

impl Default for CompileOptions {
    fn default() -> Self {
        Self {
            arch: DEFAULT_ARCH.into(),
            deadline: DEFAULT_DEADLINE,
        }
    }
}

impl CompileOptions {
    pub fn for_arch(arch: &str) -> Self {
        Self {
            arch: arch.into(),
            ..Self::default()
        }
    }
}

/// A compiled user kernel, ready for `cuModuleLoadData` on the device.
#[derive(Debug, Clone)]
pub struct CompiledKernel {
    pub ptx: String,
    /// NVRTC's log (warnings), as text and parsed.
    pub log: String,
    pub diagnostics: Vec<Diagnostic>,
    /// The function to load from the module: always [`ENTRY_NAME`].
    pub entry: &'static str,
    pub elapsed: Duration,
}

impl CompiledKernel {
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
    }
}

/// What the driver says about the loaded kernel (`cuFuncGetAttribute`): filled on the
/// device once the module is loaded, shown next to the editor and checked against the
/// launch (static + dynamic shared memory, threads per block).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KernelAttributes {
    /// `CU_FUNC_ATTRIBUTE_NUM_REGS`.
    pub registers: u32,
    /// `CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`: local memory per thread (spills, local arrays).
    pub local_bytes: u32,
    /// `CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`: `__shared__` arrays.
    pub static_shared_bytes: u32,
    /// `CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES`.
    pub const_bytes: u32,
    /// `CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK` (below the block when registers run out).
    pub max_threads_per_block: u32,
    /// `CU_FUNC_ATTRIBUTE_PTX_VERSION` and `_BINARY_VERSION`, major * 10 + minor.
    pub ptx_version: u32,
    pub binary_version: u32,
}

/// The program's name in NVRTC's log.
pub const UNIT_NAME: &str = "cudalens_user.cu";

/// Whether `arch` is `compute_` followed by digits (nothing else reaches the options).
pub fn valid_arch(arch: &str) -> bool {
    arch.strip_prefix("compute_")
        .is_some_and(|d| !d.is_empty() && d.len() <= 4 && d.bytes().all(|b| b.is_ascii_digit()))
}

/// Device functions the driver links into every module (`printf`, `malloc`/`free`,
/// `assert`): declared `.extern .func` in the PTX, yet they load.
const DRIVER_FUNCTIONS: &[&str] = &["vprintf", "malloc", "free", "__assertfail"];

/// What NVRTC accepts but loading the module would refuse: a function declared and never
/// defined (NVRTC leaves it to a link step there is none of), and static plus dynamic
/// shared memory over the limit.
pub fn ptx_problem(ptx: &str, dynamic_shared: u32) -> Option<String> {
    let mut static_shared: u64 = 0;
    for line in ptx.lines().map(str::trim) {
        if line.starts_with(".extern .func") {
            let name = line
                .split_whitespace()
                .last()
                .unwrap_or("?")
                .trim_end_matches(['(', ';']);
            if DRIVER_FUNCTIONS.contains(&name) {
                continue;
            }
            let name = if name.contains(&format!("{}{}", PIXEL_FUNCTION.len(), PIXEL_FUNCTION)) {
                PIXEL_FUNCTION
            } else {
                name
            };
            return Some(format!("`{name}` is declared but never defined"));
        }
        if line.starts_with(".shared") {
            let size = line
                .rsplit_once('[')
                .and_then(|(_, n)| n.split(']').next())
                .and_then(|n| n.parse::<u64>().ok());
            static_shared += size.unwrap_or(0);
        }
    }
    let total = static_shared + u64::from(dynamic_shared);
    (total > u64::from(MAX_SHARED_BYTES)).then(|| {
        format!(
            "shared memory: {static_shared} bytes of __shared__ arrays + {dynamic_shared} from @shared is over the {MAX_SHARED_BYTES}-byte (48 KiB) limit"
        )
    })
}

/// NVRTC's options for a user kernel.
pub fn nvrtc_options(arch: &str) -> Vec<String> {
    vec![
        format!("--gpu-architecture={arch}"),
        "-default-device".into(),
        "-std=c++17".into(),
        "-lineinfo".into(),
        "--no-source-include".into(),
    ]
}

/// Whether NVRTC can be loaded on this machine.
pub fn nvrtc_available() -> bool {
    nvrtc::available()
}

/// Compiles the translation unit of `source` (see [`translation_unit`]), NVRTC on a
/// thread of this process.
pub fn compile(
    source: &KernelSource,
    options: &CompileOptions,
) -> Result<CompiledKernel, CompileError> {
    compile_with(source, options, nvrtc_on_thread)
}

/// NVRTC's output for `unit` compiled for `arch`, on a thread given `deadline`.
fn nvrtc_on_thread(
    unit: String,
    arch: &str,
    deadline: Duration,
) -> Result<nvrtc::Output, CompileError> {
    let nvrtc_opts = nvrtc_options(arch);
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("nvrtc-user-kernel".into())
        .spawn(move || {
            // The receiver may be gone after a timeout: nothing to report then.
            let _ = tx.send(nvrtc::compile(&unit, UNIT_NAME, &nvrtc_opts));
        })
        .map_err(|e| CompileError::Nvrtc(format!("cannot start the compile thread: {e}")))?;
    match rx.recv_timeout(deadline) {
        Ok(result) => result.map_err(CompileError::Nvrtc),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(CompileError::Timeout(deadline)),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(CompileError::Nvrtc(
            "the compile thread stopped without a result".into(),
        )),
    }
}

/// [`compile`] with NVRTC run by `run_nvrtc(unit, arch, deadline)`: the checks before,
/// and the diagnostics and the PTX's checks after, are the same wherever it runs.
pub(crate) fn compile_with(
    source: &KernelSource,
    options: &CompileOptions,
    run_nvrtc: impl FnOnce(String, &str, Duration) -> Result<nvrtc::Output, CompileError>,
) -> Result<CompiledKernel, CompileError> {
    if !valid_arch(&options.arch) {
        return Err(CompileError::BadArch(options.arch.clone()));
    }
    if !nvrtc::available() {
        return Err(CompileError::NvrtcMissing);
    }
    let start = Instant::now();
    let output = run_nvrtc(translation_unit(source), &options.arch, options.deadline)?;
    let elapsed = start.elapsed();
    let mut diagnostics = parse_log(&output.log);
    if source.form == Form::Kernel {
        rename(&mut diagnostics, ENTRY_NAME, &source.entry.name);
    }
    match output.ptx {
        Some(ptx) => {
            if let Some(problem) = ptx_problem(&ptx, source.shared_bytes) {
                let d = Diagnostic {
                    origin: Origin::User,
                    line: None,
                    column: None,
                    severity: Severity::Error,
                    message: problem,
                };
                diagnostics.push(d.clone());
                return Err(CompileError::Failed {
                    summary: d.to_string(),
                    diagnostics,
                    log: output.log,
                });
            }
            Ok(CompiledKernel {
                ptx,
                log: output.log,
                diagnostics,
                entry: ENTRY_NAME,
                elapsed,
            })
        }
        None => {
            let mut summary = summary(&diagnostics);
            if diagnostics.is_empty() {
                summary = format!(
                    "NVRTC failed ({}) with no message",
                    output.failure.as_deref().unwrap_or("unknown status")
                );
            }
            Err(CompileError::Failed {
                summary,
                diagnostics,
                log: output.log,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_compute_architectures_pass() {
        for good in ["compute_75", "compute_90", "compute_120"] {
            assert!(valid_arch(good), "{good}");
        }
        for bad in [
            "sm_90",
            "compute_",
            "compute_90 --include-path=/",
            "compute_9a",
            "",
            "compute_12345",
        ] {
            assert!(!valid_arch(bad), "{bad}");
        }
    }

    #[test]
    fn ptx_problems() {
        let undefined =
            ".extern .func  (.param .align 4 .b8 func_retval0[4]) _Z5pixelii5Image6Params\n(\n";
        assert_eq!(
            ptx_problem(undefined, 0).unwrap(),
            "`pixel` is declared but never defined"
        );
        let shared =
            ".shared .align 4 .b8 _ZZ1kE1t[40000];\n.extern .shared .align 16 .b8 tile[];\n";
        assert!(ptx_problem(shared, 8000).is_none());
        assert!(ptx_problem(shared, 9153).unwrap().contains("40000 bytes"));
        let printf = ".extern .func  (.param .b32 func_retval0) vprintf\n(\n";
        assert!(ptx_problem(printf, 0).is_none());
    }

    #[test]
    fn options_have_no_include_path() {
        let o = nvrtc_options("compute_90");
        assert!(o
            .iter()
            .all(|o| !o.contains("include-path") && !o.starts_with("-I")));
        assert!(o.contains(&"-default-device".to_string()));
    }
}
