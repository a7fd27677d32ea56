//! User CUDA kernels: CUDA C++ written by the user that runs as a filter, in two forms
//! (see docs/design/user-kernels.md):
//!
//! - per pixel: `uchar4 pixel(int x, int y, Image src, Params p)`, wrapped by a generated
//!   `__global__` function that reads nothing else and writes the surface;
//! - full kernel: the user's `__global__` function with a declared block
//!   (`// @block 16x16`), rows per thread (`// @rows 4`) and dynamic shared memory
//!   (`// @shared 4096`), taking
//!   `(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, Params p)`.
//!
//! `// @param float strength 0..2 = 1` (also `int`, `bool`) declares a field of `Params`.
//! [`source`] parses and checks a source, [`prelude`] builds the translation unit,
//! [`compile`] runs NVRTC, [`diagnostics`] maps its log to the user's lines, [`params`]
//! packs values into the kernel's `Params` argument, [`device`] loads and launches the PTX,
//! [`examples`] lists the shipped kernels.

pub mod cache;
pub mod compile;
pub mod device;
pub mod diagnostics;
pub mod examples;
pub mod highlight;
pub mod lexer;
mod nvrtc;
pub mod params;
pub mod prelude;
pub mod sandbox;
pub mod source;
mod source_error;
pub mod stage;

pub use compile::{
    compile, nvrtc_available, CompileError, CompileOptions, CompiledKernel, KernelAttributes,
};
pub use diagnostics::{Diagnostic, Severity};
pub use params::{ParamBlock, ParamError, ParamValues};
pub use prelude::{translation_unit, ENTRY_NAME};
pub use source::{Form, KernelSource, ParamDecl, ParamKind};
pub use source_error::SourceError;
pub use stage::{KernelStage, KernelStageError, CPU_REASON, KERNEL_STAGE_NAME};

/// NVRTC's version, or None when libnvrtc cannot be loaded (for `doctor`).
pub fn nvrtc_version() -> Option<(i32, i32)> {
    nvrtc::version()
}
