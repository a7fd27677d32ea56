//! Grid arithmetic for launches.

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
