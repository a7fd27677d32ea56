//! Box filter: the mean of the `(2R+1)²` window per colour channel at a cost independent of
//! the radius, in every sample type; integers exact (rounded to nearest), floats summed in
//! f64.
//!
//! Each band of output rows (one rayon task) keeps a running column sum of every lane of
//! one row: the source row entering the window is added and the one leaving it subtracted,
//! whole-row loops that vectorise. A running sum along that row then gives the window sums,
//! and the mean is stored: 8-bit sums (u32) by an exact multiply-shift, 16-bit sums (u32,
//! or u64 for windows past 65 537 pixels) by an f64 reciprocal whose floor is exact, float
//! sums (f64) times 1/n, rounded to f32. A fourth channel (alpha) is copied from the
//! source.

use crate::ops::cpu::rows::{band_height, by_bands, clamped_row, with_channel_count};
use crate::ops::cpu::simd::vectorized;
use crate::pixels::Sample;
use image::RgbaImage;

/// `round(s / n)` for every window sum `s ≤ 255·n` of an `n`-pixel window, as
/// `((s + n/2) · m) >> shift` with the round-up multiplier of Granlund and Montgomery
/// ("Division by invariant integers using multiplication", 1994, theorem 4.2): with
/// `l = ⌈log₂ n⌉` and dividends below `2^N`, `m = ⌈2^(N+l) / n⌉` makes the quotient exact.
#[derive(Debug, Clone, Copy)]
struct RoundedDivision {
    half: u32,
    /// Below 2^27 (at most 2^(N+1) for n > 2^(l-1)): a u32, so that the product is one
    /// 32×32→64-bit multiply (`vpmuludq`, 4 or 8 lanes at a time).
    multiplier: u32,
    shift: u32,
}

impl RoundedDivision {
    fn new(n: u32) -> Self {
        let n = n.max(1);
        // Dividends are at most 255·n + n/2 < 256·n: N bits with 2^N ≥ 256·n.
        let dividend_bits = 64 - (256 * u64::from(n) - 1).leading_zeros();
        let l = 32 - (n - 1).leading_zeros();
        let shift = dividend_bits + l;
        // The product (< 2^N · 2^(N+1)) fits 64 bits while N ≤ 31, i.e. n < 2^23.
        debug_assert!(dividend_bits <= 31, "window of {n} pixels is too large");
        let multiplier = (1u64 << shift).div_ceil(u64::from(n)) as u32;
        Self {
            half: n / 2,
            multiplier,
            shift,
        }
    }
}

/// `round(s / n)` (half up) of an odd `n` for sums below 2^53, as
/// `⌊(s + (n−1)/2 + ½) · fl(1/n)⌋`: the exact quotient `(t + ½)/n` lies at least `½/n`
/// from an integer, while the two roundings err by under `2⁻⁵¹` of it (below 2⁻³⁵ for
/// 16-bit means), so the floor is exact.
#[derive(Debug, Clone, Copy)]
struct ReciprocalRounding {
    offset: f64,
    inverse: f64,
}

impl ReciprocalRounding {
    fn new(n: u32) -> Self {
        Self {
            offset: f64::from(n / 2) + 0.5,
            inverse: 1.0 / f64::from(n),
        }
    }
}

/// A float window's mean: the f64 sum times `1/n`, rounded to f32.
#[derive(Debug, Clone, Copy)]
struct FloatMean {
    inverse: f64,
}

/// A lane of the column and window sums of samples `T`.
trait Lane<T>: Copy + Default + Send + Sync {
    fn of(v: T) -> Self;
    fn plus(self, o: Self) -> Self;
    fn minus(self, o: Self) -> Self;
}

macro_rules! integer_lane {
    ($($s:ty: $($t:ty),*);*) => {$($(
        impl Lane<$t> for $s {
            #[inline(always)]
            fn of(v: $t) -> Self {
                <$s>::from(v)
            }
            #[inline(always)]
            fn plus(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn minus(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
        }
    )*)*};
}
integer_lane!(u32: u8, u16; u64: u16);

impl Lane<f32> for f64 {
    #[inline(always)]
    fn of(v: f32) -> Self {
        f64::from(v)
    }
    #[inline(always)]
    fn plus(self, o: Self) -> Self {
        self + o
    }
    #[inline(always)]
    fn minus(self, o: Self) -> Self {
        self - o
    }
}

/// How a window sum becomes the stored mean.
trait Mean<S, T>: Copy + Sync {
    fn mean(self, sum: S) -> T;
}

impl Mean<u32, u8> for RoundedDivision {
    #[inline(always)]
    fn mean(self, sum: u32) -> u8 {
        ((u64::from(sum + self.half) * u64::from(self.multiplier)) >> self.shift) as u8
    }
}

impl Mean<u32, u16> for ReciprocalRounding {
    #[inline(always)]
    fn mean(self, sum: u32) -> u16 {
        ((f64::from(sum) + self.offset) * self.inverse) as u16
    }
}

/// [`ReciprocalRounding`] of sums below 2^31 (16-bit windows up to 32 767 pixels): they
/// convert to f64 as i32, one AVX instruction (u32 has none before AVX-512).
#[derive(Debug, Clone, Copy)]
struct SmallSums(ReciprocalRounding);

impl Mean<u32, u16> for SmallSums {
    #[inline(always)]
    fn mean(self, sum: u32) -> u16 {
        ((f64::from(sum as i32) + self.0.offset) * self.0.inverse) as u16
    }
}

impl Mean<u64, u16> for ReciprocalRounding {
    #[inline(always)]
    fn mean(self, sum: u64) -> u16 {
        ((sum as f64 + self.offset) * self.inverse) as u16
    }
}

impl Mean<f64, f32> for FloatMean {
    #[inline(always)]
    fn mean(self, sum: f64) -> f32 {
        (sum * self.inverse) as f32
    }
}

/// One image's geometry: `C` interleaved samples a pixel (1, 3 or 4; a fourth is alpha).
struct Geometry<'a, T, const C: usize> {
    src: &'a [T],
    width: usize,
    height: usize,
    radius: usize,
}

impl<T: Copy, const C: usize> Geometry<'_, T, C> {
    /// One band of output rows starting at row `y0`.
    #[inline(always)]
    fn band<S: Lane<T>, M: Mean<S, T>>(&self, y0: usize, out: &mut [T], mean: M) {
        let (row_len, r) = (C * self.width, self.radius);
        let row = |y: isize| clamped_row(self.src, row_len, self.height, y);
        let (r_i, y0_i) = (r as isize, y0 as isize);
        let mut column = vec![S::default(); row_len];
        for k in -r_i..=r_i {
            for (c, &a) in column.iter_mut().zip(row(y0_i + k)) {
                *c = c.plus(S::of(a));
            }
        }
        let mut padded = Vec::with_capacity(row_len + 2 * C * (r + 1));
        let mut sums = vec![S::default(); row_len];
        for (i, out_row) in out.chunks_exact_mut(row_len).enumerate() {
            let y = y0_i + i as isize;
            if i > 0 {
                let (entering, leaving) = (row(y + r_i), row(y - r_i - 1));
                for ((c, &a), &b) in column.iter_mut().zip(entering).zip(leaving) {
                    *c = c.plus(S::of(a)).minus(S::of(b));
                }
            }
            row_sums::<T, S, C>(&column, r, &mut padded, &mut sums);
            let source = row(y);
            let colour = C.min(3);
            for ((o, s), a) in out_row
                .chunks_exact_mut(C)
                .zip(sums.chunks_exact(C))
                .zip(source.chunks_exact(C))
            {
                for k in 0..colour {
                    o[k] = mean.mean(s[k]);
                }
                if C == 4 {
                    o[3] = a[3];
                }
            }
        }
    }
}

/// Window sums along one row of column sums (`C` lanes per pixel), borders clamped:
/// `padded` holds the row with `r + 1` copies of the edge pixels before and `r + 1` after.
#[inline(always)]
fn row_sums<T, S: Lane<T>, const C: usize>(
    column: &[S],
    r: usize,
    padded: &mut Vec<S>,
    sums: &mut [S],
) {
    let (first, last) = (&column[..C], &column[column.len() - C..]);
    padded.clear();
    (0..=r).for_each(|_| padded.extend_from_slice(first));
    padded.extend_from_slice(column);
    (0..=r).for_each(|_| padded.extend_from_slice(last));
    // The window of pixel x is padded pixels x+1 ..= x+2r+1.
    let mut s = [S::default(); C];
    for p in padded[C..C * (2 * r + 2)].chunks_exact(C) {
        (0..C).for_each(|c| s[c] = s[c].plus(p[c]));
    }
    let entering = padded[C * (2 * r + 2)..].chunks_exact(C);
    let leaving = padded[C..].chunks_exact(C);
    for ((out, add), sub) in sums.chunks_exact_mut(C).zip(entering).zip(leaving) {
        out.copy_from_slice(&s);
        (0..C).for_each(|c| s[c] = s[c].plus(add[c]).minus(sub[c]));
    }
}

/// The box filter of `src` (`width × height` pixels of `C` samples) into `out`, bands of
/// rows in parallel, sums in lanes `S`, means stored by `mean`.
fn box_by_bands<T, S, M, const C: usize>(src: &[T], (w, h): (usize, usize), r: usize, mean: M, out: &mut [T])
where
    T: Copy + Send + Sync,
    S: Lane<T>,
    M: Mean<S, T>,
{
    let geometry = Geometry::<T, C> {
        src,
        width: w,
        height: h,
        radius: r,
    };
    by_bands(out, C * w, band_height(h, r), |y0, band| {
        vectorized(|| geometry.band::<S, M>(y0, band, mean))
    });
}

/// Samples the box filter runs on, each with its sums and rounding.
pub trait BoxSample: Sample {
    /// The box filter of `src` (`w × h` pixels of `channels` samples: 1, 3 or 4) into `out`.
    fn box_samples(src: &[Self], size: (usize, usize), channels: usize, r: usize, out: &mut [Self]);
}

/// Pixels of a `(2r + 1)²` window.
fn window(r: usize) -> u32 {
    ((2 * r + 1) * (2 * r + 1)) as u32
}

impl BoxSample for u8 {
    fn box_samples(src: &[u8], size: (usize, usize), c: usize, r: usize, out: &mut [u8]) {
        let mean = RoundedDivision::new(window(r));
        macro_rules! run {
            ($n:literal) => {
                box_by_bands::<u8, u32, _, $n>(src, size, r, mean, out)
            };
        }
        with_channel_count!(c, run)
    }
}

impl BoxSample for u16 {
    fn box_samples(src: &[u16], size: (usize, usize), c: usize, r: usize, out: &mut [u16]) {
        let n = window(r);
        let mean = ReciprocalRounding::new(n);
        let largest = u64::from(n) * 65535 + u64::from(n);
        macro_rules! run {
            ($n:literal) => {
                if largest < 1 << 31 {
                    box_by_bands::<u16, u32, _, $n>(src, size, r, SmallSums(mean), out)
                } else if largest < 1 << 32 {
                    box_by_bands::<u16, u32, _, $n>(src, size, r, mean, out)
                } else {
                    box_by_bands::<u16, u64, _, $n>(src, size, r, mean, out)
                }
            };
        }
        with_channel_count!(c, run)
    }
}

impl BoxSample for f32 {
    fn box_samples(src: &[f32], size: (usize, usize), c: usize, r: usize, out: &mut [f32]) {
        let mean = FloatMean {
            inverse: 1.0 / f64::from(window(r)),
        };
        macro_rules! run {
            ($n:literal) => {
                box_by_bands::<f32, f64, _, $n>(src, size, r, mean, out)
            };
        }
        with_channel_count!(c, run)
    }
}

/// Mean of the `(2R+1)²` window per RGB channel, rounded to nearest; alpha unchanged.
/// `radius` is at most [`super::BOX_RADIUS_MAX`] (as `Filter` validates).
pub fn box_filter(image: &RgbaImage, radius: u32) -> RgbaImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let mut out = RgbaImage::new(image.width(), image.height());
    if w > 0 && h > 0 {
        u8::box_samples(image.as_raw(), (w, h), 4, radius as usize, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::ops::cpu::test_images::{at, random, SIZES};
    use super::*;

    fn naive(img: &RgbaImage, r: i64) -> RgbaImage {
        let mut out = img.clone();
        let n = ((2 * r + 1) * (2 * r + 1)) as u32;
        for (x, y, p) in out.enumerate_pixels_mut() {
            let mut sum = [0u32; 3];
            for dy in -r..=r {
                for dx in -r..=r {
                    let q = at(img, i64::from(x) + dx, i64::from(y) + dy);
                    (0..3).for_each(|c| sum[c] += u32::from(q[c]));
                }
            }
            (0..3).for_each(|c| p.0[c] = ((sum[c] + n / 2) / n) as u8);
        }
        out
    }

    #[test]
    fn equals_the_naive_mean() {
        for (i, &(w, h)) in SIZES.iter().enumerate() {
            let img = random(w, h, i as u64);
            for r in [1, 2, 5, 40] {
                assert_eq!(
                    box_filter(&img, r),
                    naive(&img, i64::from(r)),
                    "{w}x{h} r={r}"
                );
            }
        }
    }

    #[test]
    fn equals_the_naive_mean_across_bands() {
        // Tall enough for several bands, so band starts and ends are covered.
        let img = random(61, 150, 77);
        for r in [1, 9, 40] {
            assert_eq!(box_filter(&img, r), naive(&img, i64::from(r)), "r={r}");
        }
    }

    #[test]
    fn rounded_division_is_exact_at_every_rounding_boundary() {
        for r in 1..=255 {
            let n = (2 * r + 1) * (2 * r + 1);
            let division = RoundedDivision::new(n);
            for q in 0..=255u32 {
                let edge = (q * n).saturating_sub(n / 2);
                for s in [edge.saturating_sub(1), edge, edge + 1, q * n, q * n + n / 2] {
                    if s <= 255 * n {
                        assert_eq!(u32::from(division.mean(s)), (s + n / 2) / n, "n={n} s={s}");
                    }
                }
            }
        }
    }

    #[test]
    fn reciprocal_rounding_is_exact_at_every_rounding_boundary() {
        for r in 1..=255u64 {
            let n = (2 * r + 1) * (2 * r + 1);
            let rounding = ReciprocalRounding::new(n as u32);
            for q in 0..=65535u64 {
                let edge = (q * n).saturating_sub(n / 2);
                for s in [edge.saturating_sub(1), edge, edge + 1, q * n, q * n + n / 2] {
                    if s <= 65535 * n {
                        let want = (s + n / 2) / n;
                        let got: u16 = rounding.mean(s);
                        assert_eq!(u64::from(got), want, "n={n} s={s}");
                        if let Ok(s32) = u32::try_from(s) {
                            let got: u16 = rounding.mean(s32);
                            assert_eq!(u64::from(got), want, "n={n} s={s} (u32)");
                        }
                        if s < 1 << 31 {
                            let got: u16 = SmallSums(rounding).mean(s as u32);
                            assert_eq!(u64::from(got), want, "n={n} s={s} (i32)");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn constant_image_is_unchanged() {
        let img = RgbaImage::from_pixel(9, 5, image::Rgba([10, 200, 77, 3]));
        assert_eq!(box_filter(&img, 255), img);
    }
}
