//! Drawing-independent parts of a histogram plot: bar heights normalised to 0..1 and axis
//! labels in the image's units.

use super::bin_range::BinRange;
use crate::pixels::SampleType;

/// How counts map to bar heights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeightScale {
    /// `count / max`.
    Linear,
    /// `ln(1 + count) / ln(1 + max)`.
    Log,
}

/// Bar heights in 0..=1 of `counts`, `max` (at least the largest count shown, shared by
/// the channels drawn together) being full height; all 0 when `max` is 0.
pub fn normalised_heights(counts: &[u64], max: u64, scale: HeightScale) -> Vec<f32> {
    if max == 0 {
        return vec![0.0; counts.len()];
    }
    let top = match scale {
        HeightScale::Linear => max as f64,
        HeightScale::Log => (max as f64).ln_1p(),
    };
    counts
        .iter()
        .map(|&c| {
            let v = match scale {
                HeightScale::Linear => c as f64,
                HeightScale::Log => (c as f64).ln_1p(),
            };
            (v / top).min(1.0) as f32
        })
        .collect()
}

/// The bin under a point `fraction` (0..1) of the way along the axis.
pub fn bin_at(range: &BinRange, fraction: f32) -> usize {
    let bins = range.bins();
    ((f64::from(fraction) * bins as f64).max(0.0) as usize).min(bins - 1)
}

/// A tick on the value axis.
#[derive(Debug, Clone, PartialEq)]
pub struct AxisLabel {
    /// Where along the axis, 0 (lo) to 1 (hi).
    pub fraction: f32,
    pub text: String,
}

/// Decimals that show multiples of `step` exactly (0 for integer images).
fn decimals(step: f64, sample_type: SampleType) -> usize {
    if sample_type != SampleType::F32 || step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    }
}

/// A value in the image's units with `decimals` decimals.
fn value_text(v: f64, decimals: usize) -> String {
    format!("{v:.decimals$}")
}

/// 1, 2 or 5 × 10^k: the smallest such step giving at most `ticks` intervals over `span`
/// (at least 1 for integer images).
fn nice_step(span: f64, ticks: usize, sample_type: SampleType) -> f64 {
    let raw = span / ticks.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * power);
    if sample_type == SampleType::F32 {
        step
    } else {
        step.max(1.0)
    }
}

/// Up to about `ticks` + 1 labels at round values inside the range.
pub fn axis_labels(range: &BinRange, sample_type: SampleType, ticks: usize) -> Vec<AxisLabel> {
    let (lo, hi) = (range.lo(), range.hi());
    let step = nice_step(hi - lo, ticks, sample_type);
    let places = decimals(step, sample_type);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last)
        .map(|k| {
            let v = k as f64 * step;
            AxisLabel {
                fraction: ((v - lo) / (hi - lo)) as f32,
                text: value_text(v, places),
            }
        })
        .collect()
}

/// The values bin `bin` holds, for a hover text: `[a, b)` (`[a, b]` for the last bin), or
/// the one value of an integer image's bin that holds one.
pub fn bin_text(range: &BinRange, sample_type: SampleType, bin: usize) -> String {
    let (a, b) = (range.edge(bin), range.edge(bin + 1));
    let last = bin + 1 >= range.bins();
    if sample_type != SampleType::F32 {
        // Whole values v with a <= v < b (v <= b in the last bin).
        let first = a.ceil();
        let end = if last { b.floor() } else { b.ceil() - 1.0 };
        return match end - first {
            d if d < 0.0 => "no value".to_string(),
            0.0 => value_text(first, 0),
            _ => format!("{}–{}", value_text(first, 0), value_text(end, 0)),
        };
    }
    let places = decimals(range.step(), sample_type) + 2;
    let close = if last { ']' } else { ')' };
    format!(
        "[{}, {}{close}",
        value_text(a, places),
        value_text(b, places)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heights_are_normalised() {
        let h = normalised_heights(&[0, 5, 10], 10, HeightScale::Linear);
        assert_eq!(h, vec![0.0, 0.5, 1.0]);
        let l = normalised_heights(&[0, 9, 99], 99, HeightScale::Log);
        assert_eq!(l[0], 0.0);
        assert!((l[1] - 0.5).abs() < 1e-6, "{l:?}");
        assert_eq!(l[2], 1.0);
        assert_eq!(
            normalised_heights(&[0, 0], 0, HeightScale::Log),
            vec![0.0, 0.0]
        );
    }

    #[test]
    fn labels_are_round_values_in_the_image_units() {
        let r = BinRange::new(0.0, 256.0, 256).expect("valid");
        let texts: Vec<String> = axis_labels(&r, SampleType::U8, 5)
            .into_iter()
            .map(|l| l.text)
            .collect();
        assert_eq!(texts, ["0", "100", "200"]);
        let f = BinRange::new(-0.25, 1.0, 64).expect("valid");
        let labels = axis_labels(&f, SampleType::F32, 8);
        let texts: Vec<&str> = labels.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["-0.2", "0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        assert!((labels[1].fraction - 0.2).abs() < 1e-6);
        let wide = BinRange::new(1000.0, 60000.0, 256).expect("valid");
        assert_eq!(axis_labels(&wide, SampleType::U16, 5)[0].text, "20000");
    }

    #[test]
    fn bins_name_their_values() {
        let r = BinRange::new(0.0, 256.0, 256).expect("valid");
        assert_eq!(bin_text(&r, SampleType::U8, 17), "17");
        let coarse = BinRange::new(0.0, 65535.0, 4).expect("valid");
        assert_eq!(bin_text(&coarse, SampleType::U16, 0), "0–16383");
        assert_eq!(bin_text(&coarse, SampleType::U16, 3), "49152–65535");
        let f = BinRange::new(0.0, 1.0, 4).expect("valid");
        assert_eq!(bin_text(&f, SampleType::F32, 3), "[0.750, 1.000]");
        assert_eq!(bin_at(&f, 0.99), 3);
        assert_eq!(bin_at(&f, 1.5), 3);
    }
}
