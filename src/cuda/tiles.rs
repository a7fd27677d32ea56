//! Launch-layout constants mirrored from the `#define`s in `kernels/*.cu`. A test reads
//! the kernel sources and fails if a value here drifts from its kernel.

pub const SOBEL_BLOCK_X: u32 = 32;
pub const SOBEL_BLOCK_Y: u32 = 8;
pub const SOBEL_PIXELS_PER_THREAD: u32 = 4;

pub const BOX_BLOCK: u32 = 128;
pub const BOX_MIN_SEGMENT: u32 = 64;
pub const BOX_ROW_MIN_SEGMENT: u32 = 256;

pub const CONV_MAX_RADIUS: u32 = 96;
pub const CONV_ROW_BLOCK_X: u32 = 64;
pub const CONV_ROW_BLOCK_Y: u32 = 4;
pub const CONV_ROW_RESULTS: u32 = 4;
pub const CONV_COL_BLOCK_X: u32 = 32;
pub const CONV_COL_BLOCK_Y: u32 = 8;
pub const CONV_COL_RESULTS: u32 = 4;

pub const HIST_BINS: u32 = 256;
pub const HIST_WARPS: u32 = 8;

pub const TRANSPOSE_TILE: u32 = 32;
pub const TRANSPOSE_ROWS: u32 = 8;

pub const MANDEL_BLOCK_X: u32 = 32;
pub const MANDEL_BLOCK_Y: u32 = 8;
pub const MS_BLOCK: u32 = 128;
pub const MS_KIND_FILL: u32 = 0;
pub const MS_KIND_SPLIT: u32 = 1;
pub const MS_KIND_LEAF: u32 = 2;

pub const PT_BLOCK_X: u32 = 32;
pub const PT_BLOCK_Y: u32 = 8;

/// `(kernel file, name, value)` for every mirrored constant.
pub const MIRRORED: &[(&str, &str, u32)] = &[
    ("sobel", "SOBEL_BLOCK_X", SOBEL_BLOCK_X),
    ("sobel", "SOBEL_BLOCK_Y", SOBEL_BLOCK_Y),
    ("sobel", "SOBEL_PIXELS_PER_THREAD", SOBEL_PIXELS_PER_THREAD),
    ("box_filter", "BOX_BLOCK", BOX_BLOCK),
    ("box_filter", "BOX_MIN_SEGMENT", BOX_MIN_SEGMENT),
    ("box_filter", "BOX_ROW_MIN_SEGMENT", BOX_ROW_MIN_SEGMENT),
    ("convolution", "CONV_MAX_RADIUS", CONV_MAX_RADIUS),
    ("convolution", "CONV_ROW_BLOCK_X", CONV_ROW_BLOCK_X),
    ("convolution", "CONV_ROW_BLOCK_Y", CONV_ROW_BLOCK_Y),
    ("convolution", "CONV_ROW_RESULTS", CONV_ROW_RESULTS),
    ("convolution", "CONV_COL_BLOCK_X", CONV_COL_BLOCK_X),
    ("convolution", "CONV_COL_BLOCK_Y", CONV_COL_BLOCK_Y),
    ("convolution", "CONV_COL_RESULTS", CONV_COL_RESULTS),
    ("histogram", "HIST_BINS", HIST_BINS),
    ("histogram", "HIST_WARPS", HIST_WARPS),
    ("transpose", "TRANSPOSE_TILE", TRANSPOSE_TILE),
    ("transpose", "TRANSPOSE_ROWS", TRANSPOSE_ROWS),
    ("mandelbrot", "MANDEL_BLOCK_X", MANDEL_BLOCK_X),
    ("mandelbrot", "MANDEL_BLOCK_Y", MANDEL_BLOCK_Y),
    ("mandelbrot", "MS_BLOCK", MS_BLOCK),
    ("mandelbrot", "MS_KIND_FILL", MS_KIND_FILL),
    ("mandelbrot", "MS_KIND_SPLIT", MS_KIND_SPLIT),
    ("mandelbrot", "MS_KIND_LEAF", MS_KIND_LEAF),
    ("perturbation", "PT_BLOCK_X", PT_BLOCK_X),
    ("perturbation", "PT_BLOCK_Y", PT_BLOCK_Y),
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
    use super::super::modules::kernel_source;

    fn define(source: &str, name: &str) -> Option<u32> {
        source.lines().find_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some("#define") && words.next() == Some(name))
                .then(|| words.next().and_then(|v| v.parse().ok()))
                .flatten()
        })
    }

    #[test]
    fn rust_constants_match_the_kernel_sources() {
        for &(file, name, value) in super::MIRRORED {
            let source = kernel_source(file).unwrap_or_else(|| panic!("no kernel {file}"));
            assert_eq!(
                define(source, name),
                Some(value),
                "{name} in kernels/{file}.cu"
            );
        }
    }
}
