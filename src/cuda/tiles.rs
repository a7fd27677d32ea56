//! Launch-layout constants of the histogram and Mandelbrot kernels, mirrored from the
//! `#define`s in their `kernels/*.cu` (each filter keeps its own in its descriptor). A test reads
//! the kernel sources and fails if a value here drifts from its kernel.

pub const HIST_BINS: u32 = 256;
pub const HIST_WARPS: u32 = 8;

pub const MANDEL_BLOCK_X: u32 = 32;
pub const MANDEL_BLOCK_Y: u32 = 8;
pub const MS_BLOCK: u32 = 128;
pub const MS_KIND_FILL: u32 = 0;
pub const MS_KIND_SPLIT: u32 = 1;
pub const MS_KIND_LEAF: u32 = 2;

/// `(kernel file, name, value)` for every mirrored constant.
pub const MIRRORED: &[(&str, &str, u32)] = &[
    ("histogram", "HIST_BINS", HIST_BINS),
    ("histogram", "HIST_WARPS", HIST_WARPS),
    ("mandelbrot", "MANDEL_BLOCK_X", MANDEL_BLOCK_X),
    ("mandelbrot", "MANDEL_BLOCK_Y", MANDEL_BLOCK_Y),
    ("mandelbrot", "MS_BLOCK", MS_BLOCK),
    ("mandelbrot", "MS_KIND_FILL", MS_KIND_FILL),
    ("mandelbrot", "MS_KIND_SPLIT", MS_KIND_SPLIT),
    ("mandelbrot", "MS_KIND_LEAF", MS_KIND_LEAF),
];

/// Mariani–Silver refinement parameters, shared by the CUDA kernel (passed in `MsArgs`)
/// and the CPU reference, so both cut the image the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsTuning {
    /// The first grid is `init_subdiv × init_subdiv` rectangles.
    pub init_subdiv: u32,
    /// A split rectangle becomes `subdiv × subdiv` parts.
    pub subdiv: u32,
    /// Levels of rectangles at most (the first grid is level 0).
    pub max_depth: u32,
    /// Parts are never smaller than this (pixels per side); smaller ones are leaves.
    pub min_size: u32,
    /// Rectangles with fewer pixels are filled or evaluated by their own block instead of
    /// a child grid (a launch costs more than it saves there).
    pub launch_min_pixels: u32,
}

/// The tuned values: best geometric-mean speed-up over per-pixel in `cudalens bench
/// --ms-sweep` on an H200 (81 configurations; docs/gpu-runs.md).
pub const MS_TUNING: MsTuning = MsTuning {
    init_subdiv: 32,
    subdiv: 8,
    max_depth: 8,
    min_size: 16,
    launch_min_pixels: 65536,
};

impl Default for MsTuning {
    fn default() -> Self {
        MS_TUNING
    }
}

/// Grid size covering `n` items with `per_block` items per block.
pub fn blocks(n: u32, per_block: u32) -> u32 {
    n.div_ceil(per_block)
}

#[cfg(test)]
mod tests {
    use super::super::modules::kernel_define;

    #[test]
    fn rust_constants_match_the_kernel_sources() {
        for &(file, name, value) in super::MIRRORED {
            assert_eq!(
                kernel_define(file, name),
                Some(value),
                "{name} in kernels/{file}.cu"
            );
        }
    }
}
