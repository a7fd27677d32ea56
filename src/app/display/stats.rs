//! The statistics ImageJ's Brightness/Contrast works from: the data's range and a 256-bin
//! histogram over it, then Auto (`ContrastAdjuster.autoAdjust`) and Enhance Contrast's
//! saturation rule (`ContrastEnhancer.stretchHistogram`; 16-bit data by value).
//!
//! Bins as ImageJ's `ImageStatistics`: 8-bit data bins its values (0..255, bin size 1);
//! 16-bit and float data bin `min..max` of the data: `bin = ⌊(v − min) · 256 / (max − min)⌋`,
//! the top value in bin 255, bin `i` standing for `min + i · (max − min) / 256`. NaN and
//! infinite samples are left out of the range and the counts.

use crate::pixels::{ImageBuf, PixelImage, Sample, SampleType};

/// The histogram of some channels of an image over the data's range.
#[derive(Debug, Clone, PartialEq)]
pub struct DisplayHistogram {
    pub bins: [u64; 256],
    /// Finite samples counted.
    pub count: u64,
    /// The data's smallest and largest finite values (0, 0 when there are none).
    pub min: f64,
    pub max: f64,
    /// The value of bin 0's lower edge, and a bin's width.
    pub hist_min: f64,
    pub bin_size: f64,
}

impl DisplayHistogram {
    /// The histogram of the channels in `channels` (indices into a pixel) of `image`.
    pub fn of(image: &PixelImage, channels: &[usize]) -> Self {
        crate::with_pixels!(image, b => histogram_of(b, channels))
    }

    /// The value a bin index stands for.
    pub fn value_of_bin(&self, bin: usize) -> f64 {
        self.hist_min + bin as f64 * self.bin_size
    }
}

fn histogram_of<T: Sample>(b: &ImageBuf<T>, channels: &[usize]) -> DisplayHistogram {
    let c = usize::from(b.channels());
    let picked = || {
        b.as_slice()
            .chunks_exact(c)
            .flat_map(move |px| channels.iter().filter_map(move |&i| px.get(i)))
            .map(|v| v.to_f64())
            .filter(|v| v.is_finite())
    };
    let (min, max) = picked().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let (min, max) = if min <= max { (min, max) } else { (0.0, 0.0) };
    let (hist_min, bin_size) = match T::TYPE {
        SampleType::U8 => (0.0, 1.0),
        _ => (min, (max - min) / 256.0),
    };
    let mut bins = [0u64; 256];
    let mut count = 0;
    for v in picked() {
        let bin = if bin_size > 0.0 {
            ((v - hist_min) / bin_size).floor().clamp(0.0, 255.0) as usize
        } else {
            0
        };
        bins[bin] += 1;
        count += 1;
    }
    DisplayHistogram {
        bins,
        count,
        min,
        max,
        hist_min,
        bin_size,
    }
}

/// What one press of Auto does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AutoOutcome {
    /// Show this window.
    Range { min: f64, max: f64 },
    /// Nothing left to saturate: back to the default range (ImageJ resets here).
    Reset,
}

/// The first threshold divisor of Auto: a bin counts once it holds more than
/// count / 5000 samples.
pub const AUTO_THRESHOLD: u32 = 5000;

/// ImageJ's Auto: `state` is the divisor of the last press (0 before the first). Each press
/// halves it (5000, 2500, 1250, …; below 10 it starts over), so repeated presses saturate
/// more. From each end the first bin holding more than count / divisor samples (bins over
/// count / 10 are ignored, as a background peak) gives the window; equal ends fall back
/// to the data's range.
pub fn auto_adjust(hist: &DisplayHistogram, state: &mut u32) -> AutoOutcome {
    *state = if *state < 10 {
        AUTO_THRESHOLD
    } else {
        *state / 2
    };
    let limit = hist.count / 10;
    let threshold = hist.count / u64::from(*state);
    let counts = |i: usize| match hist.bins[i] {
        n if n > limit => 0,
        n => n,
    };
    let hmin = (0..256).find(|&i| counts(i) > threshold).unwrap_or(255);
    let hmax = (0..256).rev().find(|&i| counts(i) > threshold).unwrap_or(0);
    if hmax < hmin {
        return AutoOutcome::Reset;
    }
    let (min, max) = (hist.value_of_bin(hmin), hist.value_of_bin(hmax));
    if min == max {
        return AutoOutcome::Range {
            min: hist.min,
            max: hist.max,
        };
    }
    AutoOutcome::Range { min, max }
}

/// ImageJ's Enhance Contrast window over the 256 bins: `saturated` percent of the samples
/// saturate, half at each end (counts summed from each end until they pass
/// count · saturated / 200). None when the ends meet.
pub fn saturated_range(hist: &DisplayHistogram, saturated: f64) -> Option<(f64, f64)> {
    let (hmin, hmax) = saturated_bins(&hist.bins, hist.count, saturated)?;
    Some((hist.value_of_bin(hmin), hist.value_of_bin(hmax)))
}

/// ImageJ's Enhance Contrast on channels `channels` of `image`: as [`saturated_range`],
/// except that 16-bit data is counted by value (65536 bins), as ImageJ does.
pub fn enhance_contrast_range(
    image: &PixelImage,
    channels: &[usize],
    saturated: f64,
) -> Option<(f64, f64)> {
    let PixelImage::U16(b) = image else {
        return saturated_range(&DisplayHistogram::of(image, channels), saturated);
    };
    let mut counts = vec![0u64; 65536];
    let c = usize::from(b.channels());
    for px in b.as_slice().chunks_exact(c) {
        for v in channels.iter().filter_map(|&i| px.get(i)) {
            counts[usize::from(*v)] += 1;
        }
    }
    let total = counts.iter().sum();
    let (lo, hi) = saturated_bins(&counts, total, saturated)?;
    Some((lo as f64, hi as f64))
}

/// The first bins from each end whose summed counts pass `count · saturated / 200`, if
/// the lower is below the upper.
fn saturated_bins(bins: &[u64], count: u64, saturated: f64) -> Option<(usize, usize)> {
    let threshold = if saturated > 0.0 {
        (count as f64 * saturated / 200.0) as u64
    } else {
        0
    };
    let first_past = |order: &mut dyn Iterator<Item = usize>| {
        let mut sum = 0;
        for i in order {
            sum += bins[i];
            if sum > threshold {
                return Some(i);
            }
        }
        None
    };
    let last = bins.len() - 1;
    let hmin = first_past(&mut (0..bins.len())).unwrap_or(last);
    let hmax = first_past(&mut (0..bins.len()).rev()).unwrap_or(0);
    (hmax > hmin).then_some((hmin, hmax))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grey16(values: Vec<u16>) -> PixelImage {
        PixelImage::U16(ImageBuf::from_vec(values.len() as u32, 1, 1, values).expect("size"))
    }

    #[test]
    fn bins_span_the_data_range() {
        let h = DisplayHistogram::of(&grey16(vec![100, 100, 612, 356, 357]), &[0]);
        assert_eq!(
            (h.min, h.max, h.hist_min, h.bin_size),
            (100.0, 612.0, 100.0, 2.0)
        );
        // (356 − 100) / 2 = 128, 257 / 2 → 128, the top value in the last bin.
        assert_eq!((h.bins[0], h.bins[128], h.bins[255], h.count), (2, 2, 1, 5));
        let eight = PixelImage::U8(ImageBuf::from_vec(3, 1, 1, vec![7, 7, 200]).expect("size"));
        let h = DisplayHistogram::of(&eight, &[0]);
        assert_eq!(
            (h.hist_min, h.bin_size, h.bins[7], h.bins[200]),
            (0.0, 1.0, 2, 1)
        );
        let f = ImageBuf::<f32>::from_vec(4, 1, 1, vec![f32::NAN, -1.0, f32::INFINITY, 3.0]);
        let h = DisplayHistogram::of(&PixelImage::F32(f.expect("size")), &[0]);
        assert_eq!((h.count, h.min, h.max), (2, -1.0, 3.0));
    }

    #[test]
    fn auto_saturates_more_on_each_press_then_starts_over() {
        // 10000 samples: a ramp 0..=9999 (39 or 40 per bin, bin size 9999/256).
        let h = DisplayHistogram::of(&grey16((0..10000).collect()), &[0]);
        let mut state = 0;
        // Press 1: threshold 10000/5000 = 2, every bin passes: the whole range.
        assert_eq!(
            auto_adjust(&h, &mut state),
            AutoOutcome::Range {
                min: 0.0,
                max: h.value_of_bin(255)
            }
        );
        assert_eq!(state, 5000);
        // Divisors 2500, 1250, … 156 (threshold 64 > 40): no bin passes, ImageJ resets.
        let outcomes: Vec<AutoOutcome> = (0..5).map(|_| auto_adjust(&h, &mut state)).collect();
        assert_eq!(state, 156);
        assert_eq!(outcomes[4], AutoOutcome::Reset);
        // Below 10 it starts over at 5000.
        state = 9;
        auto_adjust(&h, &mut state);
        assert_eq!(state, AUTO_THRESHOLD);
    }

    #[test]
    fn auto_skips_sparse_tails_and_a_background_peak() {
        // 9000 samples spread over 10000..50000, 5 outliers at 0 and 5 at 60000, and a
        // background peak of 2000 at 30000 (over count / 10: ignored).
        let mut v: Vec<u16> = (0..9000u32)
            .map(|i| (10000 + i * 40000 / 9000) as u16)
            .collect();
        v.extend([0; 5]);
        v.extend([60000; 5]);
        v.extend([30000; 2000]);
        let h = DisplayHistogram::of(&grey16(v), &[0]);
        let mut state = 0;
        let AutoOutcome::Range { min, max } = auto_adjust(&h, &mut state) else {
            panic!("a range")
        };
        // Threshold 11010 / 5000 = 2: the outliers (5 per bin) pass at the first press…
        assert_eq!((min, max), (0.0, h.value_of_bin(255)));
        // …but not at the fifth (11010 / 312 = 35; the body holds about 53 per bin).
        for _ in 0..3 {
            auto_adjust(&h, &mut state);
        }
        let AutoOutcome::Range { min, max } = auto_adjust(&h, &mut state) else {
            panic!("a range")
        };
        assert_eq!(state, 312);
        assert!((9800.0..=10400.0).contains(&min), "{min}");
        assert!((49500.0..=50000.0).contains(&max), "{max}");
    }

    #[test]
    fn saturation_splits_between_both_ends() {
        // 0..=9999: 0.35 % saturated → 17 samples at each end (threshold 17 → bin 0 holds 40).
        let h = DisplayHistogram::of(&grey16((0..10000).collect()), &[0]);
        assert_eq!(saturated_range(&h, 0.35), Some((0.0, h.value_of_bin(255))));
        // 10 % → 500 at each end: bins 0..12 hold 40 or 39 each.
        let (lo, hi) = saturated_range(&h, 10.0).expect("range");
        assert_eq!((lo, hi), (h.value_of_bin(12), h.value_of_bin(243)));
        assert_eq!(saturated_range(&h, 100.0), None);
    }
}
