//! Band-parallel helpers shared by the CPU kernels: the output image is cut into bands of
//! whole rows, one rayon task each, so that every kernel streams rows through per-band
//! buffers that stay in cache.

use rayon::prelude::*;

/// Rows per band for a kernel whose band start costs about `overhead` extra rows (a
/// filter's apron): two bands per thread, or one when the apron would dominate.
pub fn band_height(height: usize, overhead: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    let two_per_thread = height.div_ceil(2 * threads);
    let one_per_thread = height.div_ceil(threads);
    two_per_thread.max(4 * overhead).min(one_per_thread).max(1)
}

/// Fills `out` (rows of `row_len` samples) by bands of `band` rows in parallel:
/// `fill(first_row, band_samples)`, which must write every sample of its band.
pub fn by_bands<T: Send, F>(out: &mut [T], row_len: usize, band: usize, fill: F)
where
    F: Fn(usize, &mut [T]) + Sync,
{
    if row_len > 0 {
        out.par_chunks_mut(row_len * band.max(1))
            .enumerate()
            .for_each(|(i, chunk)| fill(i * band.max(1), chunk));
    }
}

/// Clamp-to-edge index of `i` in `0..len`.
#[inline]
pub fn clamp_index(i: isize, len: usize) -> usize {
    i.clamp(0, len as isize - 1) as usize
}

/// Row `y` (clamped to the image) of a tightly packed buffer of `row_len`-element rows.
#[inline(always)]
pub fn clamped_row<T>(data: &[T], row_len: usize, rows: usize, y: isize) -> &[T] {
    let start = clamp_index(y, rows) * row_len;
    &data[start..start + row_len]
}

/// Runs `$run!(C)` with the runtime channel count `$c` (1, 3 or 4) as a constant `C`, so
/// that per-pixel loops over `C` samples are unrolled.
macro_rules! with_channel_count {
    ($c:expr, $run:ident) => {
        match $c {
            1 => $run!(1),
            3 => $run!(3),
            _ => $run!(4),
        }
    };
}
pub(crate) use with_channel_count;
