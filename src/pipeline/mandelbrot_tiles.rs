//! Launch-layout constants of the Mandelbrot and perturbation kernels, mirrored from the
//! `#define`s in `kernels/mandelbrot.cu` and `kernels/perturbation.cu`. A test reads the
//! kernel sources and fails if a value here drifts from its kernel.

pub const MANDEL_BLOCK_X: u32 = 32;
pub const MANDEL_BLOCK_Y: u32 = 8;
pub const MS_BLOCK: u32 = 256;
pub const MS_LINES_BLOCK: u32 = 256;
pub const MS_CELLS: u32 = 256;
pub const MS_ITEMS: u32 = 528;
pub const MS_MAX_LEVELS: u32 = crate::mandelbrot::MS_MAX_LEVELS as u32;
pub const MS_COUNTERS: u32 = 9;
pub const MS_FUSED_CELL: u32 = 16;
pub const MS_KIND_FILL: u32 = 0;
pub const MS_KIND_SPLIT: u32 = 1;
pub const MS_KIND_LEAF: u32 = 2;
pub const MS_COUNT_RECORDS: u32 = 0;
pub const MS_COUNT_FAILURES: u32 = 1;
pub const MS_COUNT_GRIDS: u32 = 2;
pub const MS_COUNT_DEPTH: u32 = 3;
pub const MS_COUNT_EVALUATED: u32 = 7;
pub const MS_COUNT_TILES: u32 = 8;

pub const PT_BLOCK_X: u32 = 32;
pub const PT_BLOCK_Y: u32 = 8;

/// `(kernel file, name, value)` for every mirrored constant.
pub const MIRRORED: &[(&str, &str, u32)] = &[
    ("mandelbrot", "MANDEL_BLOCK_X", MANDEL_BLOCK_X),
    ("mandelbrot", "MANDEL_BLOCK_Y", MANDEL_BLOCK_Y),
    ("mandelbrot", "MS_BLOCK", MS_BLOCK),
    ("mandelbrot", "MS_LINES_BLOCK", MS_LINES_BLOCK),
    ("mandelbrot", "MS_CELLS", MS_CELLS),
    ("mandelbrot", "MS_ITEMS", MS_ITEMS),
    ("mandelbrot", "MS_MAX_LEVELS", MS_MAX_LEVELS),
    ("mandelbrot", "MS_COUNTERS", MS_COUNTERS),
    ("mandelbrot", "MS_KIND_FILL", MS_KIND_FILL),
    ("mandelbrot", "MS_KIND_SPLIT", MS_KIND_SPLIT),
    ("mandelbrot", "MS_KIND_LEAF", MS_KIND_LEAF),
    ("mandelbrot", "MS_COUNT_RECORDS", MS_COUNT_RECORDS),
    ("mandelbrot", "MS_COUNT_FAILURES", MS_COUNT_FAILURES),
    ("mandelbrot", "MS_COUNT_GRIDS", MS_COUNT_GRIDS),
    ("mandelbrot", "MS_COUNT_DEPTH", MS_COUNT_DEPTH),
    ("mandelbrot", "MS_COUNT_EVALUATED", MS_COUNT_EVALUATED),
    ("mandelbrot", "MS_COUNT_TILES", MS_COUNT_TILES),
    ("mandelbrot", "MS_FUSED_CELL", MS_FUSED_CELL),
    ("perturbation", "PT_BLOCK_X", PT_BLOCK_X),
    ("perturbation", "PT_BLOCK_Y", PT_BLOCK_Y),
];

#[cfg(test)]
mod tests {
    use crate::cuda::kernel_define;

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
