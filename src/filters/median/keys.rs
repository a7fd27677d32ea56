//! The median on order keys: every sample type mapped to unsigned keys whose integer order
//! is the samples' total order (`f32::total_cmp`: NaN above every number), so one exact,
//! branch-free path serves U8, U16 and F32. Integers are their own keys (8-bit samples go
//! 32 to an AVX2 register); f32 maps to `u32` as it is loaded. Rows run in parallel, each
//! compiled with AVX2 where the CPU has it.
//!
//! 3×3: each column of three rows is sorted once (min, mid, max) and shared by the three
//! windows that hold it; a window's median is then med(max of the mins, med of the mids,
//! min of the maxes), a classic identity of the 3×3 median. Every step is a min or max over
//! whole rows of interleaved samples, which the compiler vectorises.
//! 5×5: the same idea with the network of the CUDA kernel (`scripts/median5_network.py`
//! proves it on every 0-1 input): columns of five sorted once, neighbouring columns merged in
//! pairs once, and each window's median taken from the merge of two pairs and its fifth
//! column, all as min and max over lanes of a row. Larger windows select the middle of each
//! window gathered on the stack.

use crate::ops::cpu::rows::clamped_row;
use crate::ops::cpu::simd::vectorized;
use crate::pixels::{f32_key, f32_of_key};
use rayon::prelude::*;

/// Largest window side (radius 7).
const MAX_SIDE: usize = 15;

/// A sample with an order key: an unsigned integer whose order is the samples' total order
/// (the sample itself for integers, so 8-bit samples select 32 to a vector register; f32's
/// bits as [`f32_key`] arranges them).
pub trait Keyed: Copy + Default + Send + Sync {
    type Key: Copy + Ord + Default + Send + Sync;
    fn key(self) -> Self::Key;
    fn from_key(k: Self::Key) -> Self;
}

macro_rules! keyed_as_itself {
    ($($t:ty),*) => {$(
        impl Keyed for $t {
            type Key = $t;
            #[inline(always)]
            fn key(self) -> $t {
                self
            }
            #[inline(always)]
            fn from_key(k: $t) -> $t {
                k
            }
        }
    )*};
}
keyed_as_itself!(u8, u16, u32);

impl Keyed for f32 {
    type Key = u32;
    #[inline(always)]
    fn key(self) -> u32 {
        f32_key(self)
    }
    #[inline(always)]
    fn from_key(k: u32) -> f32 {
        f32_of_key(k)
    }
}

#[inline(always)]
fn med3<K: Ord>(a: K, b: K, c: K) -> K {
    let (lo, hi) = if b < a { (b, a) } else { (a, b) };
    lo.max(hi.min(c))
}

/// A row task's buffers, reused from row to row.
struct Scratch<K> {
    lo: Vec<K>,
    md: Vec<K>,
    hi: Vec<K>,
    /// The 5×5 path's sorted columns, merged pairs of columns and window wires.
    cols: Vec<[K; SPAN]>,
    pairs: Vec<[K; SPAN]>,
    wires: Vec<[K; CHUNK]>,
}

impl<K: Copy + Default> Scratch<K> {
    fn new() -> Self {
        Self {
            lo: Vec::new(),
            md: Vec::new(),
            hi: Vec::new(),
            cols: vec![[K::default(); SPAN]; 5],
            pairs: vec![[K::default(); SPAN]; 10],
            wires: vec![[K::default(); CHUNK]; 20],
        }
    }
}

/// The median of every sample of `src` (`w × h` pixels of `c` interleaved channels) over
/// the `(2r+1)²` window, clamp-to-edge, by order keys; every channel is computed, but with
/// `keep_alpha` a fourth channel is copied from the source.
pub fn median_rows<T: Keyed>(
    src: &[T],
    w: usize,
    h: usize,
    c: usize,
    radius: usize,
    keep_alpha: bool,
) -> Vec<T> {
    let mut out = vec![T::default(); src.len()];
    if w == 0 || h == 0 {
        return out;
    }
    let row = w * c;
    let rows_at = |y: usize, dy: isize| clamped_row(src, row, h, y as isize + dy);
    out.par_chunks_mut(row)
        .enumerate()
        .for_each_init(Scratch::<T::Key>::new, |scratch, (y, dst)| {
            vectorized(|| match radius {
                1 => median3_row(rows_at(y, -1), rows_at(y, 0), rows_at(y, 1), c, scratch, dst),
                2 => {
                    let rows = [-2, -1, 0, 1, 2].map(|dy| rows_at(y, dy));
                    median5_row(&rows, c, median5_network(), scratch, dst);
                }
                _ => {
                    let rows: Vec<&[T]> = (0..=2 * radius)
                        .map(|k| rows_at(y, k as isize - radius as isize))
                        .collect();
                    median_select_row(&rows, c, radius, dst);
                }
            });
            if keep_alpha && c == 4 {
                for (d, s) in dst.chunks_exact_mut(4).zip(rows_at(y, 0).chunks_exact(4)) {
                    d[3] = s[3];
                }
            }
        });
    out
}

/// One output row of any window by selecting the middle of each window gathered on the
/// stack (`rows`: the window's `2r + 1` source rows).
fn median_select_row<T: Keyed>(rows: &[&[T]], c: usize, radius: usize, dst: &mut [T]) {
    let side = 2 * radius + 1;
    let rank = (side * side - 1) / 2;
    let w = dst.len() / c;
    let mut window = [T::Key::default(); MAX_SIDE * MAX_SIDE];
    for x in 0..w {
        for ch in 0..c {
            let mut n = 0;
            for r in rows {
                for dx in 0..side {
                    let xx = (x as isize + dx as isize - radius as isize).clamp(0, w as isize - 1)
                        as usize;
                    window[n] = r[xx * c + ch].key();
                    n += 1;
                }
            }
            let (_, m, _) = window[..n].select_nth_unstable(rank);
            dst[x * c + ch] = T::from_key(*m);
        }
    }
}

/// One output row of the 3×3 median from the rows above, at and below it.
#[inline(always)]
fn median3_row<T: Keyed>(
    up: &[T],
    mid: &[T],
    down: &[T],
    c: usize,
    s: &mut Scratch<T::Key>,
    dst: &mut [T],
) {
    let n = mid.len();
    // Column sorts, padded by one pixel each side with the edge's (clamp-to-edge).
    for v in [&mut s.lo, &mut s.md, &mut s.hi] {
        v.clear();
        v.resize(n + 2 * c, T::Key::default());
    }
    let columns = s.lo[c..c + n]
        .iter_mut()
        .zip(&mut s.md[c..c + n])
        .zip(&mut s.hi[c..c + n]);
    for (((lo, md), hi), ((a, b), d)) in columns.zip(up.iter().zip(mid).zip(down)) {
        let (a, b, d) = (a.key(), b.key(), d.key());
        *lo = a.min(b).min(d);
        *hi = a.max(b).max(d);
        *md = med3(a, b, d);
    }
    for v in [&mut s.lo, &mut s.md, &mut s.hi] {
        v.copy_within(c..2 * c, 0);
        v.copy_within(n..n + c, n + c);
    }
    let (lo, md, hi) = (&s.lo, &s.md, &s.hi);
    let lows = lo[..n].iter().zip(&lo[c..c + n]).zip(&lo[2 * c..2 * c + n]);
    let mids = md[..n].iter().zip(&md[c..c + n]).zip(&md[2 * c..2 * c + n]);
    let highs = hi[..n].iter().zip(&hi[c..c + n]).zip(&hi[2 * c..2 * c + n]);
    for (out, (((l0, l1), l2), (((m0, m1), m2), ((h0, h1), h2)))) in
        dst.iter_mut().zip(lows.zip(mids.zip(highs)))
    {
        let max_lo = (*l0).max(*l1).max(*l2);
        let min_hi = (*h0).min(*h1).min(*h2);
        *out = T::from_key(med3(max_lo, med3(*m0, *m1, *m2), min_hi));
    }
}

/// Output samples of a row the 5×5 network computes together: every compare-exchange is a
/// min and a max over this many lanes (fixed, so the loops vectorise whole).
const CHUNK: usize = 128;
/// Lanes of the columns a chunk reads: its outputs and the four columns to their right (at
/// most 4 channels each).
const SPAN: usize = CHUNK + 16;

/// The 5×5 network as compare-exchanges on wire indices (the lower wire takes the minimum):
/// the column sort, the pair merge, and the window merge with the wires of its ranks 7..=12.
struct Median5Network {
    sort5: Vec<(usize, usize)>,
    pair: Vec<(usize, usize)>,
    pair_order: Vec<usize>,
    window: Vec<(usize, usize)>,
    ranks: [usize; 6],
}

/// Batcher's odd-even merge of the sorted wire lists `a` and `b`, as the CUDA kernel's
/// `merge_sorted`: appends its compare-exchanges and returns the wires in sorted order.
fn merge_wires(a: &[usize], b: &[usize], net: &mut Vec<(usize, usize)>) -> Vec<usize> {
    if a.is_empty() {
        return b.to_vec();
    }
    if b.is_empty() {
        return a.to_vec();
    }
    if a.len() == 1 && b.len() == 1 {
        net.push((a[0], b[0]));
        return vec![a[0], b[0]];
    }
    let even = |v: &[usize]| v.iter().step_by(2).copied().collect::<Vec<_>>();
    let odd = |v: &[usize]| v.iter().skip(1).step_by(2).copied().collect::<Vec<_>>();
    let v = merge_wires(&even(a), &even(b), net);
    let w = merge_wires(&odd(a), &odd(b), net);
    let pairs = w.len().min(v.len() - 1);
    let mut z = vec![v[0]];
    for i in 0..pairs {
        net.push((w[i], v[i + 1]));
        z.extend([w[i], v[i + 1]]);
    }
    z.extend_from_slice(&w[pairs..]);
    z.extend_from_slice(&v[pairs + 1..]);
    z
}

fn median5_network() -> &'static Median5Network {
    static NET: std::sync::OnceLock<Median5Network> = std::sync::OnceLock::new();
    NET.get_or_init(|| {
        let sort5 = vec![(0, 1), (3, 4), (2, 4), (2, 3), (0, 3), (0, 2), (1, 4), (1, 3), (1, 2)];
        let mut pair = Vec::new();
        let pair_order = merge_wires(&[0, 1, 2, 3, 4], &[5, 6, 7, 8, 9], &mut pair);
        let mut window = Vec::new();
        let left: Vec<usize> = (0..10).collect();
        let right: Vec<usize> = (10..20).collect();
        let d = merge_wires(&left, &right, &mut window);
        let ranks = [d[7], d[8], d[9], d[10], d[11], d[12]];
        // Only ranks 7..=12 are read: drop the exchanges none of them depends on.
        let mut live: Vec<bool> = (0..20).map(|w| ranks.contains(&w)).collect();
        let mut kept = Vec::new();
        for &(a, b) in window.iter().rev() {
            if live[a] || live[b] {
                (live[a], live[b]) = (true, true);
                kept.push((a, b));
            }
        }
        kept.reverse();
        let window = kept;
        Median5Network {
            sort5,
            pair,
            pair_order,
            window,
            ranks,
        }
    })
}

/// Applies compare-exchanges to wires of `N` lanes each.
#[inline(always)]
fn exchange<K: Copy + Ord, const N: usize>(wires: &mut [[K; N]], net: &[(usize, usize)]) {
    for &(a, b) in net {
        // Two distinct wires borrowed at once: `a` takes the minimum, `b` the maximum.
        let (low, high) = if a < b {
            let (head, tail) = wires.split_at_mut(b);
            (&mut head[a], &mut tail[0])
        } else {
            let (head, tail) = wires.split_at_mut(a);
            (&mut tail[0], &mut head[b])
        };
        for (x, y) in low.iter_mut().zip(high.iter_mut()) {
            let (p, q) = (*x, *y);
            *x = p.min(q);
            *y = p.max(q);
        }
    }
}

/// One output row of the 5×5 median from its five rows (clamp-to-edge), `CHUNK` outputs
/// at a time: the chunk's columns (padded positions `i0 .. i0 + SPAN`, two edge pixels on
/// each side) sorted, neighbouring columns `c` apart merged in pairs, and each window's two
/// pairs merged; every step a min and max over whole wires.
#[inline(always)]
fn median5_row<T: Keyed>(
    rows: &[&[T]; 5],
    c: usize,
    net: &Median5Network,
    s: &mut Scratch<T::Key>,
    dst: &mut [T],
) {
    let n = dst.len();
    // The source sample at padded position p (two pixels of edge on each side).
    let src = |r: usize, p: usize| {
        let i = match p.checked_sub(2 * c) {
            None => p % c,
            Some(i) if i >= n => n - c + p % c,
            Some(i) => i,
        };
        rows[r][i].key()
    };
    let (cols, pairs, wires) = (&mut s.cols, &mut s.pairs, &mut s.wires);
    for i0 in (0..n).step_by(CHUNK) {
        let lanes = CHUNK.min(n - i0);
        let reach = lanes + 4 * c;
        for (r, col) in cols.iter_mut().enumerate() {
            if i0 >= 2 * c && i0 + reach <= n + 2 * c {
                let start = i0 - 2 * c;
                for (v, x) in col.iter_mut().zip(&rows[r][start..start + reach]) {
                    *v = x.key();
                }
            } else {
                for (k, v) in col.iter_mut().enumerate().take(reach) {
                    *v = src(r, i0 + k);
                }
            }
        }
        exchange(cols, &net.sort5);
        for r in 0..5 {
            pairs[r] = cols[r];
            pairs[5 + r][..SPAN - c].copy_from_slice(&cols[r][c..]);
        }
        exchange(pairs, &net.pair);
        for (r, &w) in net.pair_order.iter().enumerate() {
            wires[r].copy_from_slice(&pairs[w][..CHUNK]);
            wires[10 + r].copy_from_slice(&pairs[w][2 * c..2 * c + CHUNK]);
        }
        exchange(wires, &net.window);
        let far = |j: usize| &cols[4 - j][4 * c..4 * c + CHUNK];
        let mut median = wires[net.ranks[5]];
        for j in 0..5 {
            for ((m, &w), &f) in median.iter_mut().zip(&wires[net.ranks[j]]).zip(far(j)) {
                *m = (*m).min(w.max(f));
            }
        }
        for (d, &m) in dst[i0..i0 + lanes].iter_mut().zip(&median) {
            *d = T::from_key(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against sorting each window, on random keys with many ties, every radius and odd
    /// shapes (one row, one column).
    #[test]
    fn equals_sorting_each_window() {
        let mut state = 7u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 50) as u32
        };
        // Wide rows too: several chunks of the 5×5 path, inner and edge.
        let shapes = [(1, 1, 1), (9, 1, 3), (1, 8, 4), (13, 11, 4), (20, 7, 1), (300, 5, 4), (150, 4, 3), (700, 3, 1)];
        for (w, h, c) in shapes {
            let keys: Vec<u32> = (0..w * h * c).map(|_| next()).collect();
            for r in [1usize, 2, 3] {
                let got = median_rows(&keys, w, h, c, r, false);
                for y in 0..h as isize {
                    for x in 0..w as isize {
                        for ch in 0..c {
                            let mut v: Vec<u32> = (-(r as isize)..=r as isize)
                                .flat_map(|dy| (-(r as isize)..=r as isize).map(move |dx| (dx, dy)))
                                .map(|(dx, dy)| {
                                    let xx = (x + dx).clamp(0, w as isize - 1) as usize;
                                    let yy = (y + dy).clamp(0, h as isize - 1) as usize;
                                    keys[(yy * w + xx) * c + ch]
                                })
                                .collect();
                            v.sort_unstable();
                            let i = (y as usize * w + x as usize) * c + ch;
                            assert_eq!(got[i], v[v.len() / 2], "{w}×{h}×{c} r={r} ({x},{y},{ch})");
                        }
                    }
                }
            }
        }
    }
}
