//! Statistics of one channel computed from its data (not from its bins), in the image's
//! units.

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

    /// Statistics of the finite values among `values` (the median is the exact order
    /// statistic, found by selection on a copy). Sums are compensated (Neumaier) in f64.
    pub fn from_floats(values: &[f32]) -> Self {
        let mut finite: Vec<f32> = values.iter().copied().filter(|v| v.is_finite()).collect();
        if finite.is_empty() {
            return Self::empty();
        }
        let count = finite.len() as u64;
        let (mut min, mut max) = (f32::INFINITY, f32::NEG_INFINITY);
        for &v in &finite {
            min = min.min(v);
            max = max.max(v);
        }
        let mean = compensated_sum(finite.iter().map(|&v| f64::from(v))) / count as f64;
        let squares = compensated_sum(finite.iter().map(|&v| (f64::from(v) - mean).powi(2)));
        let rank = (finite.len() - 1) / 2;
        let (_, median, _) = finite.select_nth_unstable_by(rank, f32::total_cmp);
        Self {
            count,
            min: f64::from(min),
            max: f64::from(max),
            mean,
            std_dev: (squares / count as f64).sqrt(),
            median: f64::from(*median),
        }
    }
}

/// Neumaier's compensated sum.
fn compensated_sum(values: impl Iterator<Item = f64>) -> f64 {
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

    #[test]
    fn compensated_sum_keeps_small_terms() {
        let values = [1e16, 1.0, -1e16, 1.0];
        assert_eq!(compensated_sum(values.into_iter()), 2.0);
    }
}
