//! The descriptor of one filter: the single place that knows its name, parameters, CPU
//! reference, CUDA launcher, scratch, GPU tolerance, help line, benchmark and test cases.

use super::{GpuStage, ParamDef, Params};
use crate::cuda::CudaError;
use image::RgbaImage;

/// A golden test: a photograph of `tests/data/`, a chain of specifications applied in order
/// (the first one is this filter's), and the committed output in `tests/data/golden/`.
#[derive(Debug, Clone, Copy)]
pub struct Golden {
    pub photo: &'static str,
    pub specs: &'static [&'static str],
    pub file: &'static str,
}

/// Everything cudalens knows about one filter. Implemented once per filter in
/// `src/filters/<name>.rs` and listed once in [`super::FILTERS`].
pub trait FilterDef: Sync + Send + std::panic::RefUnwindSafe {
    /// Lowercase name, as in specifications.
    fn name(&self) -> &'static str;
    /// Other names accepted in specifications.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }
    /// One line for `--help` and the UI's tooltip.
    fn summary(&self) -> &'static str;
    /// The specification the UI's stack starts this filter with (switched off).
    fn ui_default(&self) -> &'static str;
    /// The parameters, in the order of [`Params`].
    fn params(&self) -> &'static [ParamDef];
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
    /// The CPU reference of the contract.
    fn cpu(&self, image: &RgbaImage, params: &Params) -> RgbaImage;
    /// Largest per-channel difference the CUDA result may have from the CPU reference.
    fn gpu_tolerance(&self) -> u8;
    /// The kernel files (`kernels/<module>.cu`) the CUDA launcher uses.
    fn kernel_modules(&self) -> &'static [&'static str];
    /// Bytes of device scratch the launcher needs for a `width × height` input.
    fn scratch_bytes(&self, _width: u32, _height: u32, _params: &Params) -> usize {
        0
    }
    /// Runs the filter on the GPU: reads `stage.input`, writes `stage.output`.
    fn launch(&self, stage: &mut GpuStage<'_>, params: &Params) -> Result<(), CudaError>;
    /// Specifications timed by `cudalens bench`.
    fn bench_specs(&self) -> &'static [&'static str];
    /// Specifications the GPU tests compare with the CPU reference: the parameter extremes.
    fn test_specs(&self) -> &'static [&'static str];
    /// Golden outputs of real photographs.
    fn goldens(&self) -> &'static [Golden] {
        &[]
    }
    /// Shown under the filter's sliders in the UI.
    fn note(&self) -> Option<&'static str> {
        None
    }
}
