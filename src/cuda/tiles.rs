//! Launch-layout constants of the histogram and frame copy kernels, mirrored from the
//! `#define`s in their `kernels/*.cu` (each filter keeps its own in its descriptor, the
//! Mandelbrot kernels theirs in `pipeline/mandelbrot_tiles.rs`). A test reads the kernel
//! sources and fails if a value here drifts from its kernel. Also the grid arithmetic.

pub const HIST_BINS: u32 = 256;
pub const HIST_WARPS: u32 = 8;
pub const HIST_ROWS: u32 = 8;

pub const COPY_BLOCK_X: u32 = 32;
pub const COPY_BLOCK_Y: u32 = 8;
pub const COPY_ROWS: u32 = 4;

/// `(kernel file, name, value)` for every mirrored constant.
pub const MIRRORED: &[(&str, &str, u32)] = &[
    ("histogram", "HIST_BINS", HIST_BINS),
    ("histogram", "HIST_WARPS", HIST_WARPS),
    ("histogram", "HIST_ROWS", HIST_ROWS),
    ("copy", "COPY_BLOCK_X", COPY_BLOCK_X),
    ("copy", "COPY_BLOCK_Y", COPY_BLOCK_Y),
    ("copy", "COPY_ROWS", COPY_ROWS),
];

/// Grid size covering `n` items with `per_block` items per block.
pub fn blocks(n: u32, per_block: u32) -> u32 {
    n.div_ceil(per_block)
}

/// The tallest tile height, from `tallest` down by halves to `least`, whose shared memory
/// (`shared(height)` bytes) fits `limit`; `least` when none does (the launch check then
/// refuses it).
pub fn tile_height(tallest: u32, least: u32, limit: u32, shared: impl Fn(u32) -> u32) -> u32 {
    let mut th = tallest;
    while th > least && shared(th) > limit {
        th /= 2;
    }
    th
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
