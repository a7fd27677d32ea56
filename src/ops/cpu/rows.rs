//! Row-parallel helpers shared by the separable filters and transpose.

use rayon::prelude::*;

/// Maps every row of a `width × height` plane through `f(row_in, row_out)`, rows in parallel.
pub(super) fn map_rows<T, U, F>(src: &[T], width: usize, f: F) -> Vec<U>
where
    T: Sync,
    U: Default + Clone + Send,
    F: Fn(&[T], &mut [U]) + Sync,
{
    let mut out = vec![U::default(); src.len()];
    out.par_chunks_mut(width)
        .zip(src.par_chunks(width))
        .for_each(|(row_out, row_in)| f(row_in, row_out));
    out
}

/// Transposes a row-major `width × height` plane into `height × width`.
pub(super) fn transpose_plane<T: Copy + Default + Send + Sync>(
    src: &[T],
    width: usize,
    height: usize,
) -> Vec<T> {
    let mut out = vec![T::default(); src.len()];
    // Output row x holds input column x.
    out.par_chunks_mut(height)
        .enumerate()
        .for_each(|(x, row_out)| {
            for (y, o) in row_out.iter_mut().enumerate() {
                *o = src[y * width + x];
            }
        });
    out
}

/// Runs a separable filter: `pass` over rows, then over columns (through transposes).
pub(super) fn separable<T, F>(plane: &[T], width: usize, height: usize, pass: F) -> Vec<T>
where
    T: Copy + Default + Send + Sync,
    F: Fn(&[T], &mut [T]) + Sync,
{
    let rows = map_rows(plane, width, &pass);
    let columns = map_rows(&transpose_plane(&rows, width, height), height, &pass);
    transpose_plane(&columns, height, width)
}

/// Clamp-to-edge index of `i` in `0..len`.
#[inline]
pub(super) fn clamp_index(i: isize, len: usize) -> usize {
    i.clamp(0, len as isize - 1) as usize
}

/// The RGB channels of an RGBA8 buffer as a plane of `[T; 3]`.
pub(super) fn rgb_plane<T: From<u8>>(rgba: &[u8]) -> Vec<[T; 3]> {
    rgba.chunks_exact(4)
        .map(|p| [T::from(p[0]), T::from(p[1]), T::from(p[2])])
        .collect()
}

/// Writes `rgb(i)` into the RGB channels of `source`'s pixels, keeping their alpha.
pub(super) fn with_rgb<F>(source: &image::RgbaImage, rgb: F) -> image::RgbaImage
where
    F: Fn(usize) -> [u8; 3] + Sync,
{
    let mut out = source.clone();
    let width = source.width() as usize;
    out.par_chunks_mut(4 * width.max(1))
        .enumerate()
        .for_each(|(y, row)| {
            for (x, p) in row.chunks_exact_mut(4).enumerate() {
                p[..3].copy_from_slice(&rgb(y * width + x));
            }
        });
    out
}
