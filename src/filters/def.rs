//! The descriptor of one filter: its constant data ([`FilterDef`]: name, parameters, help
//! line, GPU tolerance, kernels, benchmark and test cases, goldens) in one `static`, and its
//! behaviour ([`FilterOps`]: CPU references, CUDA launcher, the few hooks that compute).

use super::{GpuStage, ParamDef, Params};
use crate::cuda::CudaError;
use crate::pixels::{PixelImage, SampleType};
use image::RgbaImage;

/// A golden test: a photograph of `tests/data/`, a chain of specifications applied in order
/// (the first one is this filter's), and the committed output in `tests/data/golden/`.
#[derive(Debug, Clone, Copy)]
pub struct Golden {
    pub photo: &'static str,
    pub specs: &'static [&'static str],
    pub file: &'static str,
}

/// Everything cudalens knows about one filter: one `static` per filter in
/// `src/filters/<name>/mod.rs`, listed once in [`super::FILTERS`].
pub struct FilterDef {
    /// Lowercase name, as in specifications.
    pub name: &'static str,
    /// Other names accepted in specifications.
    pub aliases: &'static [&'static str],
    /// One line for `--help` and the UI's tooltip.
    pub summary: &'static str,
    /// The specification the UI's stack starts this filter with (switched off).
    pub ui_default: &'static str,
    /// The parameters, in the order of [`Params`].
    pub params: &'static [ParamDef],
    /// Largest per-channel difference (8-bit levels) the CUDA result may have from the CPU
    /// reference.
    pub gpu_tolerance: u8,
    /// The kernel files (`kernels/<module>.cu`) the CUDA launcher uses.
    pub kernel_modules: &'static [&'static str],
    /// Specifications timed by `cudalens bench`.
    pub bench_specs: &'static [&'static str],
    /// Specifications the GPU tests compare with the CPU reference: the parameter extremes.
    pub test_specs: &'static [&'static str],
    /// Golden outputs of real photographs.
    pub goldens: &'static [Golden],
    /// Shown under the filter's sliders in the UI.
    pub note: Option<&'static str>,
    /// What the filter does.
    pub ops: &'static dyn FilterOps,
}

/// A filter's behaviour: implemented once per filter, next to its [`FilterDef`].
pub trait FilterOps: Sync + Send + std::panic::RefUnwindSafe {
    /// Fills the parameters whose default is `Derived` (given only the other ones).
    fn derive(&self, _params: &mut Params) {}
    /// Checks how the parameters relate, which their ranges cannot say (`black < white`);
    /// the error names them (`black (200) must be below white (100)`).
    fn check(&self, _params: &Params) -> Result<(), String> {
        Ok(())
    }
    /// Output size for a `width × height` input.
    fn output_size(&self, width: u32, height: u32) -> (u32, u32) {
        (width, height)
    }
    /// The CPU reference on RGBA8 (the fast path; the CUDA kernels' contract).
    fn cpu_rgba8(&self, image: &RgbaImage, params: &Params) -> RgbaImage;
    /// The CPU reference in any sample type and channel count (generic; on RGBA8 it equals
    /// [`FilterOps::cpu_rgba8`]).
    fn cpu(&self, image: &PixelImage, params: &Params) -> PixelImage;
    /// Bytes of device scratch the launcher needs for a `width × height` input stored as
    /// `layout` (sample type, 1 or 4 channels).
    fn scratch_bytes(
        &self,
        _width: u32,
        _height: u32,
        _layout: (SampleType, u8),
        _params: &Params,
    ) -> usize {
        0
    }
    /// Runs the filter on the GPU: reads `stage.input`, writes `stage.output`, both stored
    /// as `stage.layout` (the RGBA8 kernels, or the typed ones of `kernels/typed.cuh`).
    fn launch(&self, stage: &mut GpuStage<'_>, params: &Params) -> Result<(), CudaError>;
}

impl std::fmt::Debug for FilterDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FilterDef({})", self.name)
    }
}
