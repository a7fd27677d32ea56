//! The clamp-to-edge addressing every CPU reference shares.

/// Clamp-to-edge index of `i` in `0..len`.
#[inline]
pub(super) fn clamp_index(i: isize, len: usize) -> usize {
    i.clamp(0, len as isize - 1) as usize
}
