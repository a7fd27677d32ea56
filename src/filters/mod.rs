//! The filters: one descriptor each ([`FilterDef`], a `static` of constant data holding its
//! behaviour, [`FilterOps`]), listed once in [`FILTERS`]. The spec parser, the UI's stack
//! and sliders, `--help`, the benchmark, the CPU and CUDA backends and the tests all iterate
//! this list; nothing else names an individual filter.
//!
//! Adding a filter: its folder `src/filters/<name>/` (descriptor, `FilterOps` and CUDA
//! launcher in `mod.rs`; the RGBA8 CPU reference and its unit tests in `cpu.rs`; the
//! reference generic over the sample type in `typed.rs`), its kernel
//! `kernels/filters/<module>.cu` (RGBA8 and one typed instance per `TYPED_FORMATS` entry), one
//! line in the `filters!` list below, and its golden
//! outputs (`CUDALENS_BLESS=1 cargo test --test golden`).

mod def;
mod filter;
mod frame_copy;
mod gpu_stage;
mod histogram;
mod param;
mod spec_error;
mod spec_parser;
mod typed;
#[cfg(test)]
pub(crate) use typed::test_inputs as typed_test_inputs;

pub use crate::kernel_constants::BOX_SMALL_MAX_RADIUS;
pub use def::{FilterDef, FilterOps, Golden};
pub use filter::Filter;
pub use frame_copy::{copy_kernel_name, launch_copy, launch_typed_copy};
/// The Gaussian's taps, for peers that must filter with the same weights.
pub use gaussian::gaussian_weights;
pub use gpu_stage::{colour_plane_bytes, pick_typed_kernel, slides_strips, GpuStage, RGBA8};
pub use histogram::{
    launch_histogram, launch_histogram_swap_rect, launch_ranged_histogram, ranged_histogram_cuda,
    RangedLaunch, HISTOGRAM_BIN_BYTES, RANGED_MODULE,
};
pub use param::{Default as ParamDefault, ParamDef, Params, MAX_PARAMS};
pub use spec_error::FilterSpecError;
pub use spec_parser::{filter_names, SpecParser};

/// Declares each filter's folder and lists its descriptor in [`FILTERS`], one line each.
macro_rules! filters {
    ($($module:ident::$descriptor:ident),* $(,)?) => {
        $(mod $module;)*

        /// Every filter, in the order the UI lists them.
        pub static FILTERS: &[&FilterDef] = &[$(&$module::$descriptor),*];
    };
}

filters! {
    gaussian::GAUSSIAN,
    box_filter::BOX_FILTER,
    sobel::SOBEL,
    transpose::TRANSPOSE,
    median::MEDIAN,
    unsharp::UNSHARP,
    equalize::EQUALIZE,
    levels::LEVELS,
    threshold::THRESHOLD,
}

/// The filter called `name` (or one of its aliases).
pub fn find(name: &str) -> Option<&'static FilterDef> {
    FILTERS
        .iter()
        .copied()
        .find(|d| d.name == name || d.aliases.contains(&name))
}

/// Every kernel file the filters need, plus the frame's histogram and copy (each once).
pub fn kernel_modules() -> Vec<&'static str> {
    let mut names = vec!["histogram", "copy"];
    for name in FILTERS.iter().flat_map(|d| d.kernel_modules) {
        if !names.contains(name) {
            names.push(name);
        }
    }
    names
}

/// The specification syntax of every filter, one per line (for `--help`), each followed by
/// the words of its choice parameters.
pub fn help_lines() -> String {
    let mut lines = Vec::new();
    for d in FILTERS {
        lines.push(format!("  {}", d.summary));
        for p in d.params.iter().filter(|p| p.is_choice()) {
            lines.push(format!("      {}: {}", p.name, p.choices_text()));
        }
    }
    lines.join("\n")
}

/// The `--filter` help: every registered filter's syntax.
pub fn spec_help() -> String {
    format!(
        "A filter specification, repeatable, applied in order. Borders clamp to the edge; \
         alpha passes through.\n{}",
        help_lines()
    )
}

/// Applies the CPU references of `filters` in order.
pub fn apply_cpu(image: &image::RgbaImage, filters: &[Filter]) -> image::RgbaImage {
    filters
        .iter()
        .fold(image.clone(), |img, f| f.apply_cpu(&img))
}

/// The largest tolerance among `filters` (0: the chain must be exact on the GPU). It bounds
/// the chain when the inexact stages come last: an exact but non-linear stage (equalize,
/// median) after an inexact one may enlarge a difference of 1.
pub fn gpu_tolerance(filters: &[Filter]) -> u8 {
    filters
        .iter()
        .map(|f| f.def().gpu_tolerance)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod typed_opencv_tests;
#[cfg(test)]
mod typed_tests;
