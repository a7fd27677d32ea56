//! The threshold filter's levels and its CPU reference. Each automatic level is computed
//! from the 256-bin luma histogram in integers, or in f64 operations that the CUDA kernel
//! (`kernels/filters/threshold.cu`) performs in the same order without contraction, so
//! both backends find the same level.

use super::method::Method;
use crate::kernel_constants::THRESHOLD_BINS;
use crate::ops::luma_bin;
use image::RgbaImage;
use rayon::prelude::*;

/// Bytes of RGBA8 a rayon task maps (whole pixels).
const CHUNK_BYTES: usize = 4 << 14;

/// Bins of the luma histogram (the level kernel's threads).
pub const BINS: usize = THRESHOLD_BINS as usize;

/// The first and last occupied bins, or None for an empty histogram.
fn occupied(hist: &[u32]) -> Option<(usize, usize)> {
    let lo = hist.iter().position(|&c| c > 0)?;
    let hi = hist.iter().rposition(|&c| c > 0)?;
    Some((lo, hi))
}

/// Pixel count and luma sum.
fn totals(hist: &[u32]) -> (u64, u64) {
    hist.iter().enumerate().fold((0, 0), |(n, s), (v, &c)| {
        (n + u64::from(c), s + v as u64 * u64::from(c))
    })
}

/// The level of `method` for a luma histogram `hist` (any bin count: 256 for U8, 65536
/// for U16 and F32) (`manual` is `manual`); pixels whose
/// luma is at least the level become white. 0..=256 (256: none). An empty histogram gives
/// `manual`; a constant image gives its value + 1 (all black) for every automatic method.
pub fn level(method: Method, manual: u32, hist: &[u32]) -> u32 {
    let Some((lo, hi)) = occupied(hist) else {
        return manual;
    };
    if method != Method::Manual && lo == hi {
        return hi as u32 + 1;
    }
    let t = match method {
        Method::Manual => return manual,
        Method::Mean => mean(hist),
        Method::Otsu => otsu(hist, lo, hi),
        Method::Isodata => isodata(hist, lo, hi),
        Method::Triangle => triangle(hist, lo, hi),
    };
    t as u32 + 1
}

/// `floor(mean)`: `v > mean` exactly when `v > floor(mean)`.
fn mean(hist: &[u32]) -> usize {
    let (n, s) = totals(hist);
    (s / n) as usize
}

/// The between-class variance `w1·w2·(m1 − m2)²` of Otsu's split, in f64 operations in this
/// order (the kernel's `otsu_variance`): `m = s / w` each, `d = m1 − m2`, `(w1·w2) · (d·d)`
/// with `w1·w2` the exact product in u64 rounded once.
pub fn otsu_variance(w1: u64, s1: u64, w2: u64, s2: u64) -> f64 {
    let d = s1 as f64 / w1 as f64 - s2 as f64 / w2 as f64;
    (w1 * w2) as f64 * (d * d)
}

/// The last bin `t` of the lower class that maximises the between-class variance, over
/// `lo..hi`; the first such `t` on ties.
fn otsu(hist: &[u32], lo: usize, hi: usize) -> usize {
    let (n, s) = totals(hist);
    let (mut w1, mut s1) = (0u64, 0u64);
    let (mut best, mut best_var) = (lo, -1.0);
    for (t, &c) in hist.iter().enumerate().take(hi).skip(lo) {
        w1 += u64::from(c);
        s1 += t as u64 * u64::from(c);
        let var = otsu_variance(w1, s1, n - w1, s - s1);
        if var > best_var {
            (best, best_var) = (t, var);
        }
    }
    best
}

/// The first `t` in `lo..hi` with `t ≤ (m_low + m_high) / 2 < t + 1`, the means of the bins
/// `≤ t` and `> t`, decided exactly in u128: `t·D ≤ A < (t + 1)·D` with
/// `A = s_low·w_high + s_high·w_low` and `D = 2·w_low·w_high`. One exists (both means
/// grow with `t`); `lo` if not.
fn isodata(hist: &[u32], lo: usize, hi: usize) -> usize {
    let (n, s) = totals(hist);
    let (mut w_low, mut s_low) = (0u64, 0u64);
    for (t, &c) in hist.iter().enumerate().take(hi).skip(lo) {
        w_low += u64::from(c);
        s_low += t as u64 * u64::from(c);
        let (w_high, s_high) = (n - w_low, s - s_low);
        let a = u128::from(s_low) * u128::from(w_high) + u128::from(s_high) * u128::from(w_low);
        let d = 2 * u128::from(w_low) * u128::from(w_high);
        if t as u128 * d <= a && a < (t as u128 + 1) * d {
            return t;
        }
    }
    lo
}

/// Zack's triangle: the line from the peak to the far end of the longer tail; the bin
/// farthest below it, measured as `peak·x − width·h` in integers (the distance up to a
/// constant factor) with `x` counted from the tail's end; the first on ties, counted from
/// the tail's end. The peak is the first highest bin.
fn triangle(hist: &[u32], lo: usize, hi: usize) -> usize {
    let peak = (lo..=hi).fold(lo, |p, v| if hist[v] > hist[p] { v } else { p });
    let height = i64::from(hist[peak]);
    // The tail runs from `lo` up, or (flipped) from `hi` down, whichever is longer; on equal
    // tails the lower one.
    let flip = peak - lo < hi - peak;
    let width = if flip { hi - peak } else { peak - lo };
    let bin = |x: usize| if flip { hi - x } else { lo + x };
    let mut best = (0, i64::MIN);
    for x in 0..width {
        let length = height * x as i64 - width as i64 * i64::from(hist[bin(x)]);
        if length > best.1 {
            best = (x, length);
        }
    }
    bin(best.0)
}

/// `image` with R, G and B set to 255 where the luma bin (`ops::luma_bin`) is at least
/// `level`, else 0 (the other way round with `invert`); alpha unchanged.
pub fn apply_level(image: &RgbaImage, level: u32, invert: bool) -> RgbaImage {
    let (on, off) = if invert { (0, 255) } else { (255, 0) };
    let mut out = image.clone();
    out.par_chunks_mut(CHUNK_BYTES).for_each(|chunk| {
        for p in chunk.chunks_exact_mut(4) {
            let v = if luma_bin(p[0], p[1], p[2]) as u32 >= level {
                on
            } else {
                off
            };
            p[..3].fill(v);
        }
    });
    out
}

/// The luma histogram of `image` (the frame histogram's fourth channel).
pub fn luma_histogram(image: &RgbaImage) -> [u32; BINS] {
    crate::ops::cpu::histogram(image).bins[3]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::random_image;

    fn hist_of(values: &[(usize, u32)]) -> [u32; BINS] {
        let mut h = [0; BINS];
        for &(v, c) in values {
            h[v] += c;
        }
        h
    }

    /// Otsu by brute force: every split, variance from the class statistics in f64.
    fn otsu_plain(h: &[u32; BINS]) -> usize {
        let (lo, hi) = occupied(h).unwrap();
        let stats = |r: std::ops::Range<usize>| {
            let w: u64 = r.clone().map(|v| u64::from(h[v])).sum();
            let s: u64 = r.map(|v| v as u64 * u64::from(h[v])).sum();
            (w, s)
        };
        let mut best = (lo, -1.0);
        for t in lo..hi {
            let (w1, s1) = stats(0..t + 1);
            let (w2, s2) = stats(t + 1..BINS);
            let v = otsu_variance(w1, s1, w2, s2);
            if v > best.1 {
                best = (t, v);
            }
        }
        best.0
    }

    /// Isodata by its definition in f64 (exact for these small counts).
    fn isodata_plain(h: &[u32; BINS]) -> usize {
        let (lo, hi) = occupied(h).unwrap();
        let mean = |r: std::ops::Range<usize>| {
            let w: f64 = r.clone().map(|v| f64::from(h[v])).sum();
            let s: f64 = r.map(|v| v as f64 * f64::from(h[v])).sum();
            s / w
        };
        (lo..hi)
            .find(|&t| {
                let m = (mean(0..t + 1) + mean(t + 1..BINS)) / 2.0;
                m >= t as f64 && m < t as f64 + 1.0
            })
            .unwrap()
    }

    #[test]
    fn hand_computed_levels() {
        // Two equal spikes at 10 and 200.
        let h = hist_of(&[(10, 50), (200, 50)]);
        assert_eq!(level(Method::Mean, 0, &h), 106); // mean 105
        assert_eq!(level(Method::Otsu, 0, &h), 11); // every split between is as good: the first
        assert_eq!(level(Method::Isodata, 0, &h), 106); // (10 + 200) / 2 = 105
        assert_eq!(level(Method::Manual, 77, &h), 77);
        // A peak at 20 falling to 0 at 60, and a few bright pixels: the tail is the right one.
        let mut h = [0; BINS];
        for (v, c) in h.iter_mut().enumerate().take(61).skip(20) {
            *c = (60 - v as u32) * 10;
        }
        h[60] = 1;
        h[250] = 3;
        let t = level(Method::Triangle, 0, &h);
        assert!((61..=250).contains(&t), "{t}");
        assert_eq!(level(Method::Triangle, 0, &h), triangle(&h, 20, 250) as u32 + 1);
    }

    #[test]
    fn constant_and_empty_images() {
        let h = hist_of(&[(255, 9)]);
        for m in [Method::Otsu, Method::Isodata, Method::Mean, Method::Triangle] {
            assert_eq!(level(m, 5, &h), 256, "{m:?}");
            assert_eq!(level(m, 5, &hist_of(&[(0, 1)])), 1, "{m:?}");
            assert_eq!(level(m, 5, &[0; BINS]), 5, "{m:?}");
        }
        let img = random_image(5, 4, 1);
        let black = apply_level(&img, 256, false);
        assert!(black.pixels().all(|p| p.0[..3] == [0, 0, 0]));
        let white = apply_level(&img, 0, false);
        assert!(white.pixels().all(|p| p.0[..3] == [255, 255, 255]));
    }

    #[test]
    fn levels_follow_the_plain_definitions_on_random_histograms() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for case in 0..400 {
            let mut h = [0u32; BINS];
            let lo = rng.random_range(0..250);
            let hi = rng.random_range(lo + 1..BINS);
            for c in &mut h[lo..=hi] {
                if case % 3 == 0 || rng.random_bool(0.3) {
                    *c = rng.random_range(0..1000);
                }
            }
            h[lo] += 1;
            h[hi] += 1;
            assert_eq!(otsu(&h, lo, hi), otsu_plain(&h), "case {case}");
            assert_eq!(isodata(&h, lo, hi), isodata_plain(&h), "case {case}");
            let t = triangle(&h, lo, hi);
            assert!((lo..=hi).contains(&t), "case {case}");
            let mean_t = mean(&h);
            assert!((lo..hi).contains(&mean_t), "case {case}");
        }
    }

    #[test]
    fn output_is_binary_from_the_luma_and_alpha_is_kept() {
        let img = random_image(61, 37, 4);
        let hist = luma_histogram(&img);
        assert_eq!(hist.iter().sum::<u32>(), 61 * 37);
        for invert in [false, true] {
            let out = apply_level(&img, 128, invert);
            for (q, o) in img.pixels().zip(out.pixels()) {
                let white = (luma_bin(q.0[0], q.0[1], q.0[2]) >= 128) != invert;
                let want = if white { 255 } else { 0 };
                assert_eq!(o.0[..3], [want; 3]);
                assert_eq!(o.0[3], q.0[3], "alpha");
            }
        }
    }
}
