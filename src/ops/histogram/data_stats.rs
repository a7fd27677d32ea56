//! Statistics of one channel computed from its data (not from its bins), in the image's
//! units.

use crate::pixels::{f32_key, f32_of_key};
use rayon::prelude::*;

/// Count, extremes, mean, population standard deviation and lower median of the values
/// counted. Float channels count only finite values (NaN and ±inf are left out); with no
/// value counted every statistic but `count` is NaN.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DataStats {
    pub count: u64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub std_dev: f64,
    /// The lower median: the value at 0-based index `(count − 1) / 2` in sorted order.
    pub median: f64,
}

impl DataStats {
    fn empty() -> Self {
        Self {
            count: 0,
            min: f64::NAN,
            max: f64::NAN,
            mean: f64::NAN,
            std_dev: f64::NAN,
            median: f64::NAN,
        }
    }

    /// Exact statistics of integer data given as `counts[v]` = how many values equal `v`:
    /// the sum is exact (u128), the median found by counting.
    pub fn from_value_counts(counts: &[u64]) -> Self {
        let count: u64 = counts.iter().sum();
        if count == 0 {
            return Self::empty();
        }
        let occupied = || counts.iter().enumerate().filter(|(_, &c)| c > 0);
        let min = occupied().next().map_or(0, |(v, _)| v);
        let max = occupied().next_back().map_or(0, |(v, _)| v);
        let sum: u128 = occupied().map(|(v, &c)| v as u128 * u128::from(c)).sum();
        let mean = sum as f64 / count as f64;
        let squares: f64 = occupied()
            .map(|(v, &c)| c as f64 * (v as f64 - mean).powi(2))
            .sum();
        let rank = (count - 1) / 2;
        let mut seen = 0u64;
        let mut median = max;
        for (v, &c) in occupied() {
            seen += c;
            if seen > rank {
                median = v;
                break;
            }
        }
        Self {
            count,
            min: min as f64,
            max: max as f64,
            mean,
            std_dev: (squares / count as f64).sqrt(),
            median: median as f64,
        }
    }

    /// Statistics of the finite values among `values`, in parallel over chunks: the sums
    /// compensated (Neumaier) in f64 per chunk and over the chunks' partial sums; the median
    /// the exact order statistic, found by counting the values' order keys ([`f32_key`]) in
    /// two passes of 16 bits.
    pub fn from_floats(values: &[f32]) -> Self {
        let parts: Vec<Part> = values.par_chunks(STATS_CHUNK).map(Part::of).collect();
        let count: u64 = parts.iter().map(|p| p.count).sum();
        if count == 0 {
            return Self::empty();
        }
        let min = parts.iter().map(|p| p.min).fold(f32::INFINITY, f32::min);
        let max = parts
            .iter()
            .map(|p| p.max)
            .fold(f32::NEG_INFINITY, f32::max);
        let mean = compensated_sum(parts.iter().flat_map(|p| p.sum)) / count as f64;
        let squares: Vec<[f64; 2]> = values
            .par_chunks(STATS_CHUNK)
            .map(|chunk| {
                compensated_parts(
                    chunk
                        .iter()
                        .filter(|v| v.is_finite())
                        .map(|&v| (f64::from(v) - mean).powi(2)),
                )
            })
            .collect();
        let squares = compensated_sum(squares.into_iter().flatten());
        Self {
            count,
            min: f64::from(min),
            max: f64::from(max),
            mean,
            std_dev: (squares / count as f64).sqrt(),
            median: f64::from(finite_order_statistic(values, (count - 1) / 2)),
        }
    }
}

/// Values a parallel task of the float statistics reads.
const STATS_CHUNK: usize = 1 << 16;

/// One chunk's finite values: count, extremes and compensated sum (sum, carry).
struct Part {
    count: u64,
    min: f32,
    max: f32,
    sum: [f64; 2],
}

impl Part {
    fn of(chunk: &[f32]) -> Self {
        let (mut count, mut min, mut max) = (0, f32::INFINITY, f32::NEG_INFINITY);
        for &v in chunk.iter().filter(|v| v.is_finite()) {
            count += 1;
            min = min.min(v);
            max = max.max(v);
        }
        let sum = compensated_parts(
            chunk
                .iter()
                .filter(|v| v.is_finite())
                .map(|&v| f64::from(v)),
        );
        Self {
            count,
            min,
            max,
            sum,
        }
    }
}

/// The finite value of `values` at 0-based position `rank` in sorted order (`rank` below
/// their count): the order keys' high 16 bits counted first, then the low 16 bits of the
/// keys in the bucket that holds the rank.
fn finite_order_statistic(values: &[f32], rank: u64) -> f32 {
    /// Counts of `bucket(key)` over the finite values' keys (None: not counted).
    fn count_keys(values: &[f32], bucket: impl Fn(u32) -> Option<usize> + Sync) -> Vec<u64> {
        let empty = || vec![0u64; 1 << 16];
        values
            .par_chunks(STATS_CHUNK)
            .with_min_len(8)
            .fold(empty, |mut counts, chunk| {
                for &v in chunk.iter().filter(|v| v.is_finite()) {
                    if let Some(b) = bucket(f32_key(v)) {
                        counts[b] += 1;
                    }
                }
                counts
            })
            .reduce(empty, |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            })
    }
    // The bucket holding `rank` and the rank within it.
    let locate = |counts: &[u64], rank: u64| {
        let mut seen = 0;
        for (b, &n) in counts.iter().enumerate() {
            if seen + n > rank {
                return (b as u32, rank - seen);
            }
            seen += n;
        }
        (counts.len() as u32 - 1, 0)
    };
    let (high, rest) = locate(&count_keys(values, |k| Some((k >> 16) as usize)), rank);
    let low_counts = count_keys(values, |k| {
        (k >> 16 == high).then_some((k & 0xffff) as usize)
    });
    let (low, _) = locate(&low_counts, rest);
    f32_of_key(high << 16 | low)
}

/// Neumaier's compensated sum as (sum, carry), to be added up with other parts.
fn compensated_parts(values: impl Iterator<Item = f64>) -> [f64; 2] {
    let (mut sum, mut carry) = (0.0f64, 0.0f64);
    for v in values {
        let t = sum + v;
        carry += if sum.abs() >= v.abs() {
            (sum - t) + v
        } else {
            (v - t) + sum
        };
        sum = t;
    }
    [sum, carry]
}

/// Neumaier's compensated sum.
fn compensated_sum(values: impl Iterator<Item = f64>) -> f64 {
    let [sum, carry] = compensated_parts(values);
    sum + carry
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_statistics_of_a_known_distribution() {
        // Values 10, 20, 20, 50.
        let mut counts = vec![0u64; 256];
        counts[10] = 1;
        counts[20] = 2;
        counts[50] = 1;
        let s = DataStats::from_value_counts(&counts);
        assert_eq!((s.count, s.min, s.max, s.median), (4, 10.0, 50.0, 20.0));
        assert!((s.mean - 25.0).abs() < 1e-12);
        assert!((s.std_dev - 15.0).abs() < 1e-12);
        assert_eq!(DataStats::from_value_counts(&[0; 4]).count, 0);
    }

    #[test]
    fn float_statistics_match_the_integer_ones_and_skip_non_finite_values() {
        let values = vec![50.0, f32::NAN, 20.0, 10.0, f32::INFINITY, 20.0];
        let s = DataStats::from_floats(&values);
        assert_eq!((s.count, s.min, s.max, s.median), (4, 10.0, 50.0, 20.0));
        assert!((s.mean - 25.0).abs() < 1e-12);
        assert!((s.std_dev - 15.0).abs() < 1e-12);
        assert!(DataStats::from_floats(&[f32::NAN]).mean.is_nan());
    }

    /// The median by counting keys equals the order statistic of a sort, on values with
    /// ties, both signs, zeros of both signs and non-finite values left out, across chunks.
    #[test]
    fn the_median_is_the_order_statistic_of_the_finite_values() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for len in [1usize, 2, 7, 1000, 3 * STATS_CHUNK + 17] {
            let values: Vec<f32> = (0..len)
                .map(|_| match rng.random_range(0..10) {
                    0 => f32::NAN,
                    1 => f32::NEG_INFINITY,
                    2 => -0.0,
                    3 => 0.0,
                    r => rng.random_range(0..2000) as f32 * if r % 2 == 0 { -0.37 } else { 1.5 },
                })
                .collect();
            let mut finite: Vec<f32> = values.iter().copied().filter(|v| v.is_finite()).collect();
            if finite.is_empty() {
                continue;
            }
            finite.sort_by(f32::total_cmp);
            let want = finite[(finite.len() - 1) / 2];
            let got = DataStats::from_floats(&values).median;
            assert_eq!(got.to_bits(), f64::from(want).to_bits(), "{len}");
        }
    }

    #[test]
    fn compensated_sum_keeps_small_terms() {
        let values = [1e16, 1.0, -1e16, 1.0];
        assert_eq!(compensated_sum(values.into_iter()), 2.0);
    }
}
