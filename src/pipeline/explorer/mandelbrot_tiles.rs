//! Launch-layout constants of the Mandelbrot and perturbation kernels, from the one source
//! the kernels' generated header is written from (`kernel_constants.rs`).

pub use crate::kernel_constants::{
    MANDEL_BLOCK_X, MANDEL_BLOCK_Y, MS_BLOCK, MS_CELLS, MS_COUNTERS, MS_COUNT_DEPTH,
    MS_COUNT_EVALUATED, MS_COUNT_FAILURES, MS_COUNT_GRIDS, MS_COUNT_RECORDS, MS_COUNT_TILES,
    MS_FUSED_CELL, MS_ITEMS, MS_KIND_FILL, MS_KIND_LEAF, MS_KIND_SPLIT, MS_LINES_BLOCK,
    MS_MAX_LEVELS, PT_BLOCK_X, PT_BLOCK_Y,
};
