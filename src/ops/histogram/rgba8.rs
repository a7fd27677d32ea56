//! The frame histogram: 256-bin R, G, B and luma histograms of RGBA8 images and their
//! statistics (computed from the bins).

use serde::Serialize;

/// Bins per channel.
pub const HISTOGRAM_BINS: usize = 256;

/// Channels in the order of the GPU bin buffer: R, G, B, luma.
pub const CHANNEL_NAMES: [&str; 4] = ["r", "g", "b", "luma"];

/// Counts of R, G, B and luma values over all pixels of an image.
///
/// `bins` has the same layout as the GPU bin buffer (4 × 256 `u32`, channel-major),
/// so a backend can hand over its buffer unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Histogram {
    pub width: u32,
    pub height: u32,
    pub bins: [[u32; HISTOGRAM_BINS]; 4],
}

/// Statistics of one channel, computed from its bins.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ChannelStats {
    pub count: u64,
    pub min: u8,
    pub max: u8,
    pub mean: f64,
    pub median: u8,
    pub std_dev: f64,
}

impl Histogram {
    /// An empty histogram for an image of the given size.
    pub fn empty(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            bins: [[0; HISTOGRAM_BINS]; 4],
        }
    }

    /// Builds a histogram from a flat channel-major 4 × 256 buffer.
    pub fn from_flat(width: u32, height: u32, flat: &[u32]) -> Option<Self> {
        if flat.len() != 4 * HISTOGRAM_BINS {
            return None;
        }
        let mut histogram = Self::empty(width, height);
        for (channel, chunk) in histogram
            .bins
            .iter_mut()
            .zip(flat.chunks_exact(HISTOGRAM_BINS))
        {
            channel.copy_from_slice(chunk);
        }
        Some(histogram)
    }

    /// The bins as one flat channel-major slice of 1024 counts.
    pub fn flat(&self) -> Vec<u32> {
        self.bins.iter().flatten().copied().collect()
    }

    /// Statistics of channel `channel` (0 = R, 1 = G, 2 = B, 3 = luma).
    pub fn stats(&self, channel: usize) -> ChannelStats {
        channel_stats(&self.bins[channel])
    }

    /// The JSON document of `cudalens histogram --json`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut doc = serde_json::Map::new();
        doc.insert("width".into(), self.width.into());
        doc.insert("height".into(), self.height.into());
        for (name, bins) in CHANNEL_NAMES.iter().zip(&self.bins) {
            doc.insert((*name).into(), bins.to_vec().into());
        }
        let stats: serde_json::Map<_, _> = CHANNEL_NAMES
            .iter()
            .enumerate()
            .map(|(i, name)| ((*name).to_string(), serde_json::json!(self.stats(i))))
            .collect();
        doc.insert("stats".into(), stats.into());
        doc.into()
    }
}

fn channel_stats(bins: &[u32; HISTOGRAM_BINS]) -> ChannelStats {
    let count: u64 = bins.iter().map(|&c| u64::from(c)).sum();
    if count == 0 {
        return ChannelStats {
            count,
            min: 0,
            max: 0,
            mean: 0.0,
            median: 0,
            std_dev: 0.0,
        };
    }
    let occupied = || {
        bins.iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(v, _)| v as u8)
    };
    let min = occupied().next().unwrap_or(0);
    let max = occupied().next_back().unwrap_or(0);
    let sum: f64 = bins
        .iter()
        .enumerate()
        .map(|(v, &c)| v as f64 * f64::from(c))
        .sum();
    let mean = sum / count as f64;
    let var: f64 = bins
        .iter()
        .enumerate()
        .map(|(v, &c)| f64::from(c) * (v as f64 - mean).powi(2))
        .sum::<f64>()
        / count as f64;
    // Lower median: the smallest value with at least half of the samples at or below it.
    let half = count.div_ceil(2);
    let mut seen = 0u64;
    let mut median = 0u8;
    for (v, &c) in bins.iter().enumerate() {
        seen += u64::from(c);
        if seen >= half {
            median = v as u8;
            break;
        }
    }
    ChannelStats {
        count,
        min,
        max,
        mean,
        median,
        std_dev: var.sqrt(),
    }
}

/// A selection inside which the filters' result is shown and the source outside it
/// ("Filters on Selection Only"): the histogram of what is shown counts the result's
/// pixels inside and the source's outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShownSelection {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl ShownSelection {
    /// The selection cut to a `width × height` image (None where nothing is left).
    pub fn within(self, (width, height): (u32, u32)) -> Option<Self> {
        let x = self.x.min(width);
        let y = self.y.min(height);
        let w = self.width.min(width - x);
        let h = self.height.min(height - y);
        (w > 0 && h > 0).then_some(Self {
            x,
            y,
            width: w,
            height: h,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_of_a_known_distribution() {
        let mut h = Histogram::empty(2, 2);
        // Values 10, 20, 20, 50 in R.
        h.bins[0][10] = 1;
        h.bins[0][20] = 2;
        h.bins[0][50] = 1;
        let s = h.stats(0);
        assert_eq!(s.count, 4);
        assert_eq!((s.min, s.max, s.median), (10, 50, 20));
        assert!((s.mean - 25.0).abs() < 1e-12);
        // population variance: (225 + 25 + 25 + 625) / 4 = 225
        assert!((s.std_dev - 15.0).abs() < 1e-12);
    }

    #[test]
    fn flat_layout_round_trips() {
        let flat: Vec<u32> = (0..1024).collect();
        let h = Histogram::from_flat(3, 4, &flat).expect("1024 bins");
        assert_eq!(h.bins[2][5], 517);
        assert_eq!(h.flat(), flat);
        assert!(Histogram::from_flat(1, 1, &flat[..10]).is_none());
    }

    #[test]
    fn json_has_the_documented_keys() {
        let v = Histogram::empty(5, 6).to_json();
        assert_eq!(v["width"], 5);
        assert_eq!(v["luma"].as_array().map(Vec::len), Some(256));
    }
}
