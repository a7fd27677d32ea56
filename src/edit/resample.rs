//! Pillow's resampling, shared by the CPU reference and the CUDA launcher (which uploads
//! these tables): the filters, the per-output-pixel windows and 8-bit fixed-point weights
//! of one axis (`Resample.c`), the nearest-neighbour index table (`ImagingScaleAffine`),
//! and the alpha premultiplication `Image.resize` wraps RGBA in.
//!
//! Pillow's convention: output pixel `i` is centred at `(i + 0.5) · scale` in the input;
//! the filter's support grows with the reduction factor (`scale` when over 1); the window
//! is cut at the image's edges and its weights normalised to sum 1; weights are rounded
//! to [`PRECISION_BITS`]-bit fixed point and each pass rounds and clamps to 8 bits.

use super::ResizeFilter;

/// Fractional bits of the fixed-point weights (Pillow: `32 - 8 - 2`).
pub const PRECISION_BITS: u32 = 22;

fn bilinear(x: f64) -> f64 {
    let x = x.abs();
    if x < 1.0 {
        1.0 - x
    } else {
        0.0
    }
}

fn bicubic(x: f64) -> f64 {
    const A: f64 = -0.5;
    let x = x.abs();
    if x < 1.0 {
        ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0
    } else if x < 2.0 {
        (((x - 5.0) * x + 8.0) * x - 4.0) * A
    } else {
        0.0
    }
}

fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        let x = x * std::f64::consts::PI;
        x.sin() / x
    }
}

fn lanczos3(x: f64) -> f64 {
    if (-3.0..3.0).contains(&x) {
        sinc(x) * sinc(x / 3.0)
    } else {
        0.0
    }
}

/// A filter's function of the distance in input pixels (at scale 1).
type FilterFn = fn(f64) -> f64;

/// The filter's function and support (in input pixels at scale 1). Nearest has none: it
/// uses [`nearest_table`].
fn kernel(filter: ResizeFilter) -> Option<(FilterFn, f64)> {
    match filter {
        ResizeFilter::Nearest => None,
        ResizeFilter::Bilinear => Some((bilinear, 1.0)),
        ResizeFilter::Bicubic => Some((bicubic, 2.0)),
        ResizeFilter::Lanczos3 => Some((lanczos3, 3.0)),
    }
}

/// The windows and fixed-point weights of one axis resampled from `in_size` to `out_size`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AxisWeights {
    /// Weights per output pixel (the widest window); unused ones are 0.
    pub ksize: usize,
    /// First input pixel of each output pixel's window.
    pub start: Vec<i32>,
    /// Input pixels in each window.
    pub count: Vec<i32>,
    /// `out_size × ksize` weights, in units of `2^-PRECISION_BITS`.
    pub weights: Vec<i32>,
}

/// The windows of one axis with their weights normalised to sum 1 in f64 (Pillow's
/// `precompute_coeffs`): the 32-bit path's weights, which the 8-bit path rounds to fixed
/// point.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitWeights {
    /// Weights per output pixel (the widest window); unused ones are 0.
    pub ksize: usize,
    /// First input pixel of each output pixel's window.
    pub start: Vec<i32>,
    /// Input pixels in each window.
    pub count: Vec<i32>,
    /// `out_size × ksize` weights.
    pub weights: Vec<f64>,
}

impl UnitWeights {
    /// Pillow's `precompute_coeffs`; `None` for [`ResizeFilter::Nearest`].
    pub fn new(in_size: u32, out_size: u32, filter: ResizeFilter) -> Option<Self> {
        let (f, support) = kernel(filter)?;
        let scale = f64::from(in_size) / f64::from(out_size);
        let filterscale = scale.max(1.0);
        let support = support * filterscale;
        let ksize = support.ceil() as usize * 2 + 1;
        let n = out_size as usize;
        let mut start = Vec::with_capacity(n);
        let mut count = Vec::with_capacity(n);
        let mut weights = vec![0f64; n * ksize];
        for (i, row) in weights.chunks_exact_mut(ksize).enumerate() {
            let center = (i as f64 + 0.5) * scale;
            let ss = 1.0 / filterscale;
            // Truncation toward zero, as C's (int) cast.
            let xmin = ((center - support + 0.5) as i64).max(0);
            let xmax = ((center + support + 0.5) as i64).min(i64::from(in_size));
            let len = (xmax - xmin).max(0) as usize;
            let mut sum = 0.0;
            for (x, w) in row.iter_mut().enumerate().take(len) {
                *w = f((x as f64 + xmin as f64 - center + 0.5) * ss);
                sum += *w;
            }
            if sum != 0.0 {
                row.iter_mut().take(len).for_each(|w| *w /= sum);
            }
            start.push(xmin as i32);
            count.push(len as i32);
        }
        Some(Self {
            ksize,
            start,
            count,
            weights,
        })
    }

    /// One output value from the window of output pixel `i`, summed in f64 from 0.0:
    /// `value(k)` is the input at `start[i] + k`.
    #[inline]
    pub fn apply(&self, i: usize, value: impl Fn(usize) -> f64) -> f64 {
        let row = &self.weights[i * self.ksize..][..self.count[i] as usize];
        row.iter()
            .enumerate()
            .fold(0.0, |acc, (k, w)| acc + value(k) * w)
    }
}

impl AxisWeights {
    /// Pillow's `precompute_coeffs` followed by `normalize_coeffs_8bpc`; `None` for
    /// [`ResizeFilter::Nearest`].
    pub fn new(in_size: u32, out_size: u32, filter: ResizeFilter) -> Option<Self> {
        let unit = UnitWeights::new(in_size, out_size, filter)?;
        let weights = unit
            .weights
            .iter()
            .map(|&w| {
                let fixed = w * f64::from(1u32 << PRECISION_BITS);
                if w < 0.0 {
                    (fixed - 0.5) as i32
                } else {
                    (fixed + 0.5) as i32
                }
            })
            .collect();
        Some(Self {
            ksize: unit.ksize,
            start: unit.start,
            count: unit.count,
            weights,
        })
    }

    /// The first and one-past-last input index any window reads.
    pub fn span(&self) -> (u32, u32) {
        let first = self.start.first().copied().unwrap_or(0);
        let last = self
            .start
            .last()
            .zip(self.count.last())
            .map_or(0, |(s, c)| s + c);
        (first.max(0) as u32, last.max(0) as u32)
    }

    /// One output value from the window of output pixel `i`: `value(k)` is the input at
    /// `start[i] + k`.
    #[inline]
    pub fn apply(&self, i: usize, value: impl Fn(usize) -> u8) -> u8 {
        let row = &self.weights[i * self.ksize..][..self.count[i] as usize];
        let mut acc: i32 = 1 << (PRECISION_BITS - 1);
        for (k, w) in row.iter().enumerate() {
            acc += i32::from(value(k)) * w;
        }
        clip8(acc)
    }
}

/// A fixed-point sum to 8 bits: shifted down, clamped to 0..=255.
#[inline]
pub fn clip8(acc: i32) -> u8 {
    (acc >> PRECISION_BITS).clamp(0, 255) as u8
}

/// The input index of each output pixel of a nearest-neighbour resize from `in_size` to
/// `out_size`: Pillow's accumulated `(i + 0.5) · scale`, truncated.
pub fn nearest_table(in_size: u32, out_size: u32) -> Vec<i32> {
    let step = f64::from(in_size) / f64::from(out_size);
    let mut pos = step * 0.5;
    let last = in_size.saturating_sub(1) as i32;
    (0..out_size)
        .map(|_| {
            let i = (pos as i32).clamp(0, last);
            pos += step;
            i
        })
        .collect()
}

/// `a · b / 255` rounded, as Pillow's `MULDIV255`.
#[inline]
pub fn muldiv255(a: u8, b: u8) -> u8 {
    let t = u32::from(a) * u32::from(b) + 128;
    (((t >> 8) + t) >> 8) as u8
}

/// RGBA to premultiplied RGBa (Pillow's `rgbA2rgba`).
#[inline]
pub fn premultiply(p: [u8; 4]) -> [u8; 4] {
    let a = p[3];
    [
        muldiv255(p[0], a),
        muldiv255(p[1], a),
        muldiv255(p[2], a),
        a,
    ]
}

/// Premultiplied RGBa back to RGBA (Pillow's `rgba2rgbA`).
#[inline]
pub fn unpremultiply(p: [u8; 4]) -> [u8; 4] {
    let a = u32::from(p[3]);
    if a == 0 || a == 255 {
        return p;
    }
    let un = |c: u8| (255 * u32::from(c) / a).min(255) as u8;
    [un(p[0]), un(p[1]), un(p[2]), p[3]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one_in_fixed_point() {
        for filter in [
            ResizeFilter::Bilinear,
            ResizeFilter::Bicubic,
            ResizeFilter::Lanczos3,
        ] {
            for (input, output) in [(97, 41), (61, 200), (10, 10), (1000, 7), (3, 1)] {
                let w = AxisWeights::new(input, output, filter).unwrap();
                for i in 0..output as usize {
                    let sum: i32 = w.weights[i * w.ksize..][..w.ksize].iter().sum();
                    let one = 1 << PRECISION_BITS;
                    assert!((sum - one).abs() <= w.ksize as i32, "{filter:?} {sum}");
                    assert!(w.start[i] >= 0 && w.start[i] + w.count[i] <= input as i32);
                }
            }
        }
    }

    #[test]
    fn same_size_is_identity() {
        for filter in [
            ResizeFilter::Bilinear,
            ResizeFilter::Bicubic,
            ResizeFilter::Lanczos3,
        ] {
            let w = AxisWeights::new(13, 13, filter).unwrap();
            let data: Vec<u8> = (0..13).map(|i| (i * 19 % 256) as u8).collect();
            for i in 0..13 {
                let s = w.start[i] as usize;
                assert_eq!(w.apply(i, |k| data[s + k]), data[i]);
            }
        }
    }

    #[test]
    fn nearest_table_stays_inside() {
        assert_eq!(nearest_table(4, 2), vec![1, 3]);
        assert_eq!(nearest_table(2, 4), vec![0, 0, 1, 1]);
        for (i, o) in [(97, 1000), (1000, 97), (1, 5)] {
            assert!(nearest_table(i, o).iter().all(|&x| x >= 0 && x < i as i32));
        }
    }

    #[test]
    fn premultiply_round_trip_keeps_opaque_and_clear() {
        for c in 0..=255u8 {
            assert_eq!(
                unpremultiply(premultiply([c, 255 - c, 7, 255])),
                [c, 255 - c, 7, 255]
            );
            assert_eq!(premultiply([c, c, c, 0]), [0, 0, 0, 0]);
        }
    }
}
