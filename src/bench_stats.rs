//! Statistics of repeated timings, shared by `cudalens bench` and the research benches of
//! `cudalens-bench` (tools/bench): medians, geometric means, per-stage medians.

use crate::pipeline::StageTime;
use std::collections::BTreeMap;
use std::time::Instant;

/// Untimed runs before the timed ones.
pub const WARM_UP: usize = 3;
/// The name under which [`stage_medians`] reports the per-frame interop cost: the
/// hand-over to CUDA plus the hand-back to GL, summed per run before the median.
pub const INTEROP: &str = "interop (in+out)";
/// The name of the per-run wall-clock time of the whole call (CPU side, for reference).
pub const WALL: &str = "wall clock";

/// The median (the upper one of an even count); NaN for no samples.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The geometric mean; 1 for no samples.
pub fn geo_mean(v: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x.ln(), n + 1));
    (sum / n.max(1) as f64).exp()
}

/// Medians per stage name over frames' stages, plus "total" (their sums).
pub fn stage_medians_of(frames: Vec<Vec<StageTime>>) -> BTreeMap<String, f64> {
    let mut samples: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for stages in frames {
        let total = crate::pipeline::total_of(&stages);
        samples.entry("total".into()).or_default().push(total);
        for s in stages {
            samples.entry(s.name).or_default().push(s.ms);
        }
    }
    samples.into_iter().map(|(k, v)| (k, median(v))).collect()
}

/// Medians per stage name over `runs` runs of `run` after [`WARM_UP`] untimed ones, plus
/// [`INTEROP`] (the "interop in" and "interop out" stages summed per run) and [`WALL`].
pub fn stage_medians<E>(
    runs: usize,
    mut run: impl FnMut() -> Result<Vec<StageTime>, E>,
) -> Result<BTreeMap<String, f64>, E> {
    for _ in 0..WARM_UP {
        run()?;
    }
    let mut samples: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let stages = run()?;
        samples
            .entry(WALL.into())
            .or_default()
            .push(start.elapsed().as_secs_f64() * 1e3);
        let interop: Vec<f64> = stages
            .iter()
            .filter(|s| s.name.starts_with("interop ") && s.in_total())
            .map(|s| s.ms)
            .collect();
        if !interop.is_empty() {
            samples
                .entry(INTEROP.into())
                .or_default()
                .push(interop.iter().sum());
        }
        for s in stages {
            samples.entry(s.name).or_default().push(s.ms);
        }
    }
    Ok(samples.into_iter().map(|(k, v)| (k, median(v))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_means() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 3.0);
        assert!(median(Vec::new()).is_nan());
        assert!((geo_mean([2.0, 8.0].into_iter()) - 4.0).abs() < 1e-12);
    }

    #[test]
    fn stage_medians_time_each_stage_and_the_interop_sum() {
        let mut n = 0.0;
        let m = stage_medians::<()>(5, || {
            n += 1.0;
            let stage = |name: &str, ms| StageTime {
                name: name.into(),
                ms,
            };
            Ok(vec![
                stage("interop in", n),
                stage("interop out", 1.0),
                stage("copy", 2.0),
            ])
        })
        .expect("no error");
        // Frames 4..=8 are timed (3 warm-up): "interop in" median 6, plus 1 out.
        assert_eq!(m["interop in"], 6.0);
        assert_eq!(m[INTEROP], 7.0);
        assert_eq!(m["copy"], 2.0);
        assert!(m.contains_key(WALL));
    }
}
