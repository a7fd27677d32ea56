//! The median on order keys: every sample type mapped to `u32` keys whose integer order is
//! the samples' total order (`f32::total_cmp`: NaN above every number), so one exact,
//! branch-free path serves U8, U16 and F32.
//!
//! 3×3: each column of three rows is sorted once (min, mid, max) and shared by the three
//! windows that hold it; a window's median is then med(max of the mins, med of the mids,
//! min of the maxes), a classic identity of the 3×3 median. Every step is a min or max over
//! whole rows of interleaved samples, which the compiler vectorises. Larger windows select
//! 5×5: the same idea with the network of the CUDA kernel (`scripts/median5_network.py`
//! proves it on every 0-1 input): columns of five sorted once, neighbouring columns merged in
//! pairs once, and each window's median taken from the merge of two pairs and its fifth
//! column, all as min and max over lanes of a row. Larger windows select the middle of each
//! window gathered on the stack.

use rayon::prelude::*;

/// Largest window side (radius 7).
const MAX_SIDE: usize = 15;

/// The order key of a sample given as f32 (integers are exact in it): the IEEE bits with
/// the sign bit flipped for positives and every bit flipped for negatives.
#[inline]
pub fn key_of(v: f32) -> u32 {
    let b = v.to_bits();
    if b & 0x8000_0000 != 0 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// The sample of a key, as f32.
#[inline]
pub fn value_of(k: u32) -> f32 {
    f32::from_bits(if k & 0x8000_0000 != 0 {
        k & 0x7fff_ffff
    } else {
        !k
    })
}

#[inline]
fn med3(a: u32, b: u32, c: u32) -> u32 {
    a.min(b).max(a.max(b).min(c))
}

/// The median of every sample of `keys` (`w × h` pixels of `c` interleaved channels) over
/// the `(2r+1)²` window, clamp-to-edge; every channel is computed (callers keep alpha).
pub fn median_keys(keys: &[u32], w: usize, h: usize, c: usize, radius: usize) -> Vec<u32> {
    let mut out = vec![0u32; keys.len()];
    if w == 0 || h == 0 {
        return out;
    }
    let row = w * c;
    let rows_at = |y: usize, dy: isize| {
        let yy = (y as isize + dy).clamp(0, h as isize - 1) as usize;
        &keys[yy * row..(yy + 1) * row]
    };
    if radius == 1 {
        out.par_chunks_mut(row).enumerate().for_each(|(y, dst)| {
            median3_row(rows_at(y, -1), rows_at(y, 0), rows_at(y, 1), c, dst);
        });
        return out;
    }
    if radius == 2 {
        let net = median5_network();
        out.par_chunks_mut(row).enumerate().for_each(|(y, dst)| {
            let rows = [-2, -1, 0, 1, 2].map(|dy| rows_at(y, dy));
            median5_row(&rows, c, net, dst);
        });
        return out;
    }
    let side = 2 * radius + 1;
    let rank = (side * side - 1) / 2;
    out.par_chunks_mut(row).enumerate().for_each(|(y, dst)| {
        let mut window = [0u32; MAX_SIDE * MAX_SIDE];
        let rows: Vec<&[u32]> = (0..side)
            .map(|k| {
                let yy = (y as isize + k as isize - radius as isize).clamp(0, h as isize - 1);
                &keys[yy as usize * row..(yy as usize + 1) * row]
            })
            .collect();
        for x in 0..w {
            for ch in 0..c {
                let mut n = 0;
                for r in &rows {
                    for dx in 0..side {
                        let xx = (x as isize + dx as isize - radius as isize)
                            .clamp(0, w as isize - 1) as usize;
                        window[n] = r[xx * c + ch];
                        n += 1;
                    }
                }
                let (_, m, _) = window[..n].select_nth_unstable(rank);
                dst[x * c + ch] = *m;
            }
        }
    });
    out
}

/// One output row of the 3×3 median from the rows above, at and below it.
fn median3_row(up: &[u32], mid: &[u32], down: &[u32], c: usize, dst: &mut [u32]) {
    let n = mid.len();
    // Column sorts, padded by one pixel each side with the edge's (clamp-to-edge).
    let mut lo = vec![0u32; n + 2 * c];
    let mut md = vec![0u32; n + 2 * c];
    let mut hi = vec![0u32; n + 2 * c];
    for i in 0..n {
        let (a, b, d) = (up[i], mid[i], down[i]);
        lo[c + i] = a.min(b).min(d);
        hi[c + i] = a.max(b).max(d);
        md[c + i] = med3(a, b, d);
    }
    for v in [&mut lo, &mut md, &mut hi] {
        v.copy_within(c..2 * c, 0);
        v.copy_within(n..n + c, n + c);
    }
    for (i, out) in dst.iter_mut().enumerate() {
        let (l, m, r) = (i, i + c, i + 2 * c);
        let max_lo = lo[l].max(lo[m]).max(lo[r]);
        let min_hi = hi[l].min(hi[m]).min(hi[r]);
        let med_md = med3(md[l], md[m], md[r]);
        *out = med3(max_lo, med_md, min_hi);
    }
}

/// Lanes of a row processed together by the 5×5 network (one vector register or more).
const LANES: usize = 64;

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
        Median5Network {
            sort5,
            pair,
            pair_order,
            window,
            ranks: [d[7], d[8], d[9], d[10], d[11], d[12]],
        }
    })
}

/// Applies compare-exchanges to wires of `LANES` lanes each.
#[inline]
fn exchange(wires: &mut [[u32; LANES]], net: &[(usize, usize)]) {
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

/// One output row of the 5×5 median from its five rows (clamp-to-edge).
fn median5_row(rows: &[&[u32]; 5], c: usize, net: &Median5Network, dst: &mut [u32]) {
    let n = dst.len();
    let padded = n + 4 * c;
    // The source sample at padded position p (two pixels of edge on each side).
    let src = |r: usize, p: usize| {
        let i = match p.checked_sub(2 * c) {
            None => p % c,
            Some(i) if i >= n => n - c + p % c,
            Some(i) => i,
        };
        rows[r][i]
    };
    // Sorted columns, padded positions.
    let mut cols = vec![[0u32; 5]; padded];
    let mut wires = vec![[0u32; LANES]; 20];
    for p0 in (0..padded).step_by(LANES) {
        let lanes = LANES.min(padded - p0);
        for (r, wire) in wires.iter_mut().take(5).enumerate() {
            for (k, v) in wire.iter_mut().enumerate() {
                *v = if k < lanes { src(r, p0 + k) } else { 0 };
            }
        }
        exchange(&mut wires[..5], &net.sort5);
        for k in 0..lanes {
            cols[p0 + k] = std::array::from_fn(|r| wires[r][k]);
        }
    }
    // Pairs of neighbouring columns (p and p + c), merged.
    let pairs_len = padded - c;
    let mut pairs = vec![[0u32; 10]; pairs_len];
    for p0 in (0..pairs_len).step_by(LANES) {
        let lanes = LANES.min(pairs_len - p0);
        for k in 0..LANES {
            let (a, b) = if k < lanes {
                (cols[p0 + k], cols[p0 + k + c])
            } else {
                ([0; 5], [0; 5])
            };
            for r in 0..5 {
                wires[r][k] = a[r];
                wires[5 + r][k] = b[r];
            }
        }
        exchange(&mut wires[..10], &net.pair);
        for k in 0..lanes {
            pairs[p0 + k] = std::array::from_fn(|r| wires[net.pair_order[r]][k]);
        }
    }
    // Each window: its two left columns' pair, its middle pair, its fifth column.
    for i0 in (0..n).step_by(LANES) {
        let lanes = LANES.min(n - i0);
        for k in 0..LANES {
            let (l, m) = if k < lanes {
                (pairs[i0 + k], pairs[i0 + k + 2 * c])
            } else {
                ([0; 10], [0; 10])
            };
            for r in 0..10 {
                wires[r][k] = l[r];
                wires[10 + r][k] = m[r];
            }
        }
        exchange(&mut wires, &net.window);
        for k in 0..lanes {
            let far = cols[i0 + k + 4 * c];
            let mut median = wires[net.ranks[5]][k];
            for j in 0..5 {
                median = median.min(wires[net.ranks[j]][k].max(far[4 - j]));
            }
            dst[i0 + k] = median;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_the_total_order_both_ways() {
        let mut values = vec![
            f32::NEG_INFINITY,
            -1e30,
            -1.0,
            -f32::MIN_POSITIVE,
            -0.0,
            0.0,
            1e-45,
            0.5,
            65535.0,
            f32::INFINITY,
            f32::NAN,
        ];
        values.sort_by(f32::total_cmp);
        let keys: Vec<u32> = values.iter().map(|&v| key_of(v)).collect();
        assert!(keys.windows(2).all(|k| k[0] < k[1]));
        for &v in &values {
            assert_eq!(value_of(key_of(v)).to_bits(), v.to_bits());
        }
    }

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
        for (w, h, c) in [(1, 1, 1), (9, 1, 3), (1, 8, 4), (13, 11, 4), (20, 7, 1)] {
            let keys: Vec<u32> = (0..w * h * c).map(|_| next()).collect();
            for r in [1usize, 2, 3] {
                let got = median_keys(&keys, w, h, c, r);
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
