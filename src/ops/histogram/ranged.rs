//! Ranged histograms of 8-bit, 16-bit and float images: any bin count over a chosen or
//! the data's range, 64-bit counts, values outside the range and NaN counted apart.
//!
//! Channels: a grey image has one (`grey`); RGB and RGBA images have R, G, B and Rec. 709
//! luma (alpha is not counted). Luma is `(0.2126 R + 0.7152 G) + 0.0722 B` in f32 in that
//! order (as [`crate::ops::luma`]); U8 and U16 round it half away from zero to the type
//! (the U8 rule is [`crate::ops::luma_bin`]), F32 keeps it (NaN or ±inf in, NaN or ±inf
//! out).

use super::bin_range::{BinRange, HistogramError};
use super::data_stats::DataStats;
use crate::pixels::{ImageBuf, PixelImage, Sample, SampleType};
use rayon::prelude::*;

/// Bins when none are asked for.
pub const DEFAULT_BINS: usize = 256;

/// Pixels one parallel task counts.
const TASK_PIXELS: usize = 1 << 18;

/// What to count: the bin count and range, each defaulting when `None`.
///
/// Defaults: 256 bins; U8 over `[0, 256]` (one bin per value, as the RGBA8 histogram),
/// U16 and F32 over the data's range (the smallest and largest finite value of all the
/// histogram's channels; `[0, 1]` when there is none).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HistogramOptions {
    pub bins: Option<usize>,
    pub range: Option<(f64, f64)>,
}

/// One channel's bins, the counts kept apart and its statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct RangedChannel {
    pub name: &'static str,
    /// 64-bit counts, `bins` of them.
    pub counts: Vec<u64>,
    /// Values below `lo` (−inf too).
    pub below: u64,
    /// Values above `hi` (+inf too).
    pub above: u64,
    /// NaN values (F32 only).
    pub nan: u64,
    /// Statistics of the channel's data, in the image's units.
    pub stats: DataStats,
}

/// The histograms of an image's channels over one shared bin range.
#[derive(Debug, Clone, PartialEq)]
pub struct RangedHistogram {
    pub width: u32,
    pub height: u32,
    pub sample_type: SampleType,
    pub range: BinRange,
    pub channels: Vec<RangedChannel>,
}

/// The channel names of an image with `channels` channels.
pub fn channel_names(channels: u8) -> &'static [&'static str] {
    if channels == 1 {
        &["grey"]
    } else {
        &["r", "g", "b", "luma"]
    }
}

/// Luma `(0.2126 r + 0.7152 g) + 0.0722 b` in f32, in that order (no fused multiply-add).
#[inline]
pub fn luma_f32(r: f32, g: f32, b: f32) -> f32 {
    (0.2126_f32 * r + 0.7152_f32 * g) + 0.0722_f32 * b
}

/// The luma of one pixel stored in its sample type (rounded for integers).
#[inline]
pub fn luma_sample<T: Sample>(p: &[T]) -> T {
    T::from_f32(luma_f32(p[0].to_f32(), p[1].to_f32(), p[2].to_f32()))
}

impl RangedHistogram {
    /// The counts as the CUDA kernel writes them: per channel `bins` counts, then below,
    /// above and NaN.
    pub fn slot_counts(&self) -> Vec<u64> {
        self.channels
            .iter()
            .flat_map(|c| c.counts.iter().copied().chain([c.below, c.above, c.nan]))
            .collect()
    }
}

/// Resolves the options against the data's range `data` (None when it has no finite value).
pub fn resolve_range(
    sample_type: SampleType,
    options: &HistogramOptions,
    data: Option<(f64, f64)>,
) -> Result<BinRange, HistogramError> {
    let bins = options.bins.unwrap_or(DEFAULT_BINS);
    let (lo, hi) = match (options.range, sample_type) {
        (Some(range), _) => range,
        (None, SampleType::U8) => (0.0, 256.0),
        (None, _) => data.unwrap_or((0.0, 1.0)),
    };
    BinRange::new(lo, hi, bins)
}

/// The ranged histogram of `image` (the CPU reference of the CUDA kernel).
pub fn ranged_histogram(
    image: &PixelImage,
    options: &HistogramOptions,
) -> Result<RangedHistogram, HistogramError> {
    let (width, height) = image.dimensions();
    let names = channel_names(image.channels());
    let (range, channels) = match image {
        PixelImage::U8(b) => integer_channels(b, options, names)?,
        PixelImage::U16(b) => integer_channels(b, options, names)?,
        PixelImage::F32(b) => float_channels(b, options, names)?,
    };
    Ok(RangedHistogram {
        width,
        height,
        sample_type: image.sample_type(),
        range,
        channels,
    })
}

/// Calls `f` with the histogram values of each pixel of `samples` (interleaved, `ch`
/// channels): the grey value, or R, G, B and luma.
#[inline]
fn for_each_value<T: Sample>(samples: &[T], ch: usize, mut f: impl FnMut(usize, T)) {
    if ch == 1 {
        samples.iter().for_each(|&v| f(0, v));
        return;
    }
    for p in samples.chunks_exact(ch) {
        f(0, p[0]);
        f(1, p[1]);
        f(2, p[2]);
        f(3, luma_sample(p));
    }
}

/// `counts[channel][v]`: how many values of each channel equal `v` (U8 and U16).
fn value_counts<T: Sample>(buf: &ImageBuf<T>, channels: usize, values: usize) -> Vec<Vec<u64>> {
    let ch = usize::from(buf.channels());
    let empty = || vec![vec![0u64; values]; channels];
    buf.as_slice()
        .par_chunks(TASK_PIXELS * ch)
        .map(|chunk| {
            let mut counts = empty();
            for_each_value(chunk, ch, |c, v| counts[c][v.to_f64() as usize] += 1);
            counts
        })
        .reduce(empty, |mut a, b| {
            for (x, y) in a.iter_mut().zip(&b) {
                x.iter_mut().zip(y).for_each(|(x, y)| *x += y);
            }
            a
        })
}

fn integer_channels<T: Sample>(
    buf: &ImageBuf<T>,
    options: &HistogramOptions,
    names: &'static [&'static str],
) -> Result<(BinRange, Vec<RangedChannel>), HistogramError> {
    let values = T::FULL.to_f64() as usize + 1;
    channels_of_counts(
        T::TYPE,
        &value_counts(buf, names.len(), values),
        options,
        names,
    )
}

/// The bins and exact statistics of integer channels from their per-value counts.
fn channels_of_counts(
    sample_type: SampleType,
    counts: &[Vec<u64>],
    options: &HistogramOptions,
    names: &'static [&'static str],
) -> Result<(BinRange, Vec<RangedChannel>), HistogramError> {
    let occupied = || {
        counts
            .iter()
            .flat_map(|c| c.iter().enumerate().filter(|(_, &n)| n > 0))
    };
    let data = occupied()
        .map(|(v, _)| v as f64)
        .fold(None, |acc: Option<(f64, f64)>, v| {
            Some(acc.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))))
        });
    let range = resolve_range(sample_type, options, data)?;
    let channels = names
        .iter()
        .zip(counts)
        .map(|(&name, per_value)| {
            let mut slots = vec![0u64; range.bins() + 3];
            for (v, &n) in per_value.iter().enumerate().filter(|(_, &n)| n > 0) {
                slots[range.slot_index(v as f64)] += n;
            }
            channel_of(name, slots, DataStats::from_value_counts(per_value))
        })
        .collect();
    Ok((range, channels))
}

/// Per-value counts of an 8- or 16-bit image's histogram channels (grey; or R, G, B and
/// luma), to be added up over many images of one type and layout (a video's frames) and
/// made a histogram by [`histogram_of_value_counts`]; None for float images.
pub fn integer_value_counts(image: &PixelImage) -> Option<Vec<Vec<u64>>> {
    let names = channel_names(image.channels()).len();
    match image {
        PixelImage::U8(b) => Some(value_counts(b, names, 256)),
        PixelImage::U16(b) => Some(value_counts(b, names, 65536)),
        PixelImage::F32(_) => None,
    }
}

/// The ranged histogram of summed [`integer_value_counts`] of images of `sample_type` with
/// `channels` channels, `width × height` each: bins and statistics exactly as
/// [`ranged_histogram`] gives them for one image holding all their pixels.
pub fn histogram_of_value_counts(
    sample_type: SampleType,
    channels: u8,
    (width, height): (u32, u32),
    counts: &[Vec<u64>],
    options: &HistogramOptions,
) -> Result<RangedHistogram, HistogramError> {
    let (range, channels) =
        channels_of_counts(sample_type, counts, options, channel_names(channels))?;
    Ok(RangedHistogram {
        width,
        height,
        sample_type,
        range,
        channels,
    })
}

/// A float image's histogram channels: each channel's values gathered in parallel (the
/// grey channel is the samples themselves), the data range, then per channel its slots and
/// statistics, each in parallel over chunks.
fn float_channels(
    buf: &ImageBuf<f32>,
    options: &HistogramOptions,
    names: &'static [&'static str],
) -> Result<(BinRange, Vec<RangedChannel>), HistogramError> {
    let ch = usize::from(buf.channels());
    let samples = buf.as_slice();
    // R, G, B and luma of every pixel in one pass over the samples.
    let gathered: Vec<Vec<f32>> = match ch {
        1 => Vec::new(),
        _ => {
            let mut planes = vec![vec![0f32; samples.len() / ch]; names.len()];
            let [r, g, b, y] = &mut planes[..] else {
                unreachable!("colour images have four histogram channels")
            };
            samples
                .par_chunks(TASK_PIXELS * ch)
                .zip(r.par_chunks_mut(TASK_PIXELS))
                .zip(g.par_chunks_mut(TASK_PIXELS))
                .zip(b.par_chunks_mut(TASK_PIXELS))
                .zip(y.par_chunks_mut(TASK_PIXELS))
                .for_each(|((((px, r), g), b), y)| {
                    for (i, p) in px.chunks_exact(ch).enumerate() {
                        (r[i], g[i], b[i], y[i]) = (p[0], p[1], p[2], luma_sample(p));
                    }
                });
            planes
        }
    };
    let values: Vec<&[f32]> = match ch {
        1 => vec![samples],
        _ => gathered.iter().map(Vec::as_slice).collect(),
    };
    let data = values
        .iter()
        .map(|vs| {
            vs.par_iter()
                .copied()
                .filter(|v| v.is_finite())
                .fold_with((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(v), hi.max(v))
                })
                .reduce(
                    || (f32::INFINITY, f32::NEG_INFINITY),
                    |a, b| (a.0.min(b.0), a.1.max(b.1)),
                )
        })
        .filter(|(lo, hi)| lo <= hi)
        .fold(None, |acc: Option<(f64, f64)>, (lo, hi)| {
            let (lo, hi) = (f64::from(lo), f64::from(hi));
            Some(acc.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))))
        });
    let range = resolve_range(SampleType::F32, options, data)?;
    let slots_of = |vs: &[f32]| {
        let empty = || vec![0u64; range.bins() + 3];
        vs.par_chunks(TASK_PIXELS)
            .fold(empty, |mut slots, chunk| {
                for &v in chunk {
                    slots[range.slot_index(f64::from(v))] += 1;
                }
                slots
            })
            .reduce(empty, |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            })
    };
    let channels = names
        .iter()
        .zip(&values)
        .map(|(&name, vs)| channel_of(name, slots_of(vs), DataStats::from_floats(vs)))
        .collect();
    Ok((range, channels))
}

/// A channel from its `bins + 3` slot counts (bins, below, above, NaN).
fn channel_of(name: &'static str, mut slots: Vec<u64>, stats: DataStats) -> RangedChannel {
    let nan = slots.pop().unwrap_or(0);
    let above = slots.pop().unwrap_or(0);
    let below = slots.pop().unwrap_or(0);
    RangedChannel {
        name,
        counts: slots,
        below,
        above,
        nan,
        stats,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts summed over images (a video's frames) give the histogram of one image
    /// holding all their pixels: bins, below/above and exact statistics.
    #[test]
    fn summed_value_counts_are_the_histogram_of_all_pixels() {
        let (a, b) = (
            crate::ops::random_image(40, 30, 1),
            crate::ops::random_image(40, 30, 2),
        );
        let mut both = image::RgbaImage::new(40, 60);
        image::imageops::replace(&mut both, &a, 0, 0);
        image::imageops::replace(&mut both, &b, 0, 30);
        let options = HistogramOptions {
            bins: Some(17),
            range: Some((10.0, 200.0)),
        };
        let mut sum = integer_value_counts(&PixelImage::from_rgba8(a)).expect("integer");
        let more = integer_value_counts(&PixelImage::from_rgba8(b)).expect("integer");
        for (x, y) in sum.iter_mut().zip(&more) {
            x.iter_mut().zip(y).for_each(|(x, y)| *x += y);
        }
        let got = histogram_of_value_counts(SampleType::U8, 4, (40, 60), &sum, &options)
            .expect("histogram");
        let want = ranged_histogram(&PixelImage::from_rgba8(both), &options).expect("histogram");
        assert_eq!(got.range, want.range);
        for (g, w) in got.channels.iter().zip(&want.channels) {
            assert_eq!(
                (g.name, &g.counts, g.below, g.above),
                (w.name, &w.counts, w.below, w.above)
            );
            assert_eq!(g.stats, w.stats);
        }
    }
    use crate::ops::{cpu, random_image};

    #[test]
    fn default_rgba8_histogram_is_the_frame_histogram() {
        let rgba = random_image(67, 41, 5);
        let want = cpu::histogram(&rgba);
        let got = ranged_histogram(&PixelImage::from_rgba8(rgba), &HistogramOptions::default())
            .expect("defaults");
        assert_eq!(
            (got.range.lo(), got.range.hi(), got.range.bins()),
            (0.0, 256.0, 256)
        );
        for (c, channel) in got.channels.iter().enumerate() {
            let legacy: Vec<u64> = want.bins[c].iter().map(|&n| u64::from(n)).collect();
            assert_eq!(channel.counts, legacy, "{}", channel.name);
            let s = want.stats(c);
            assert_eq!(channel.stats.count, s.count);
            assert_eq!(channel.stats.median, f64::from(s.median));
            assert!((channel.stats.mean - s.mean).abs() < 1e-9);
        }
    }

    #[test]
    fn u16_luma_rounds_and_grey_has_one_channel() {
        let rgb =
            ImageBuf::<u16>::from_vec(2, 1, 3, vec![65535, 0, 0, 1000, 2000, 3000]).expect("size");
        let h = ranged_histogram(&PixelImage::U16(rgb), &HistogramOptions::default())
            .expect("defaults");
        // 0.2126 · 65535 = 13932.74…; 0.2126·1000 + 0.7152·2000 + 0.0722·3000 = 1859.6.
        assert_eq!(h.channels[3].stats.min, 1860.0);
        assert_eq!(h.channels[3].stats.max, 13933.0);
        assert_eq!((h.range.lo(), h.range.hi()), (0.0, 65535.0));
        let grey = ImageBuf::<u16>::from_vec(3, 1, 1, vec![5, 9, 7]).expect("size");
        let h = ranged_histogram(&PixelImage::U16(grey), &HistogramOptions::default())
            .expect("defaults");
        assert_eq!(h.channels.len(), 1);
        assert_eq!(h.channels[0].name, "grey");
        assert_eq!(h.channels[0].counts.iter().sum::<u64>(), 3);
        assert_eq!(h.slot_counts().len(), 256 + 3);
    }

    #[test]
    fn float_values_outside_the_range_are_counted_apart() {
        let data = vec![0.5, -1.0, 2.0, f32::NAN, f32::INFINITY, 1.0, 0.0];
        let grey = ImageBuf::<f32>::from_vec(7, 1, 1, data).expect("size");
        let options = HistogramOptions {
            bins: Some(4),
            range: Some((0.0, 1.0)),
        };
        let h = ranged_histogram(&PixelImage::F32(grey), &options).expect("valid");
        let c = &h.channels[0];
        assert_eq!(c.counts, vec![1, 0, 1, 1]);
        assert_eq!((c.below, c.above, c.nan), (1, 2, 1));
        assert_eq!(c.stats.count, 5);
    }

    #[test]
    fn bad_options_are_errors() {
        let image = PixelImage::from_rgba8(random_image(4, 4, 1));
        let bins = HistogramOptions {
            bins: Some(0),
            range: None,
        };
        assert!(ranged_histogram(&image, &bins).is_err());
        let range = HistogramOptions {
            bins: None,
            range: Some((5.0, 1.0)),
        };
        assert!(ranged_histogram(&image, &range).is_err());
    }
}
