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
pub const MS_BLOCK: u32 = 256;
pub const MS_LINES_BLOCK: u32 = 256;
pub const MS_CELLS: u32 = 256;
pub const MS_ITEMS: u32 = 528;
pub const MS_MAX_LEVELS: u32 = crate::mandelbrot::MS_MAX_LEVELS as u32;
pub const MS_COUNTERS: u32 = 8;
pub const MS_KIND_FILL: u32 = 0;
pub const MS_KIND_SPLIT: u32 = 1;
pub const MS_KIND_LEAF: u32 = 2;
pub const MS_COUNT_RECORDS: u32 = 0;
pub const MS_COUNT_FAILURES: u32 = 1;
pub const MS_COUNT_GRIDS: u32 = 2;
pub const MS_COUNT_DEPTH: u32 = 3;
pub const MS_COUNT_EVALUATED: u32 = 7;

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
];

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
