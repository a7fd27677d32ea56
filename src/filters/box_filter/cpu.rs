//! Box filter: the exact mean of the `(2R+1)²` window per RGB channel, rounded to nearest,
//! in integers throughout, at a cost independent of the radius.
//!
//! Each band of output rows (one rayon task) keeps a running column sum of all four RGBA
//! lanes of one row: the source row entering the window is added and the one leaving it
//! subtracted, whole-row loops over `u8 → u32` that vectorise. A running sum along that
//! row then gives the window sums, and the division by `(2R+1)²` is an exact
//! multiply-shift. Alpha is copied from the source.

use crate::ops::cpu::rows::{band_height, clamped_row, rgba_by_bands};
use crate::ops::cpu::simd::vectorized;
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

    #[inline(always)]
    fn apply(self, sum: u32) -> u8 {
        ((u64::from(sum + self.half) * u64::from(self.multiplier)) >> self.shift) as u8
    }
}

/// `column += entering − leaving`, lane by lane.
#[inline(always)]
fn slide_column(column: &mut [u32], entering: &[u8], leaving: &[u8]) {
    for ((c, &a), &b) in column.iter_mut().zip(entering).zip(leaving) {
        *c = c.wrapping_add(u32::from(a)).wrapping_sub(u32::from(b));
    }
}

#[inline(always)]
fn add_row(column: &mut [u32], row: &[u8]) {
    for (c, &a) in column.iter_mut().zip(row) {
        *c += u32::from(a);
    }
}

/// Window sums along one row of column sums (4 lanes per pixel), borders clamped:
/// `padded` holds the row with `r + 1` copies of the edge pixels before and `r + 1` after.
#[inline(always)]
fn row_sums(column: &[u32], r: usize, padded: &mut Vec<u32>, sums: &mut [u32]) {
    let (first, last) = (&column[..4], &column[column.len() - 4..]);
    padded.clear();
    (0..=r).for_each(|_| padded.extend_from_slice(first));
    padded.extend_from_slice(column);
    (0..=r).for_each(|_| padded.extend_from_slice(last));
    // The window of pixel x is padded pixels x+1 ..= x+2r+1.
    let mut s = [0u32; 4];
    for p in padded[4..4 * (2 * r + 2)].chunks_exact(4) {
        (0..4).for_each(|c| s[c] += p[c]);
    }
    let entering = padded[4 * (2 * r + 2)..].chunks_exact(4);
    let leaving = padded[4..].chunks_exact(4);
    for ((out, add), sub) in sums.chunks_exact_mut(4).zip(entering).zip(leaving) {
        out.copy_from_slice(&s);
        (0..4).for_each(|c| s[c] = s[c].wrapping_add(add[c]).wrapping_sub(sub[c]));
    }
}

/// Divides the RGB sums into `out`, alpha from `source`.
#[inline(always)]
fn divide_row(out: &mut [u8], sums: &[u32], source: &[u8], division: RoundedDivision) {
    for ((o, s), a) in out
        .chunks_exact_mut(4)
        .zip(sums.chunks_exact(4))
        .zip(source.chunks_exact(4))
    {
        o[0] = division.apply(s[0]);
        o[1] = division.apply(s[1]);
        o[2] = division.apply(s[2]);
        o[3] = a[3];
    }
}

/// One band of output rows starting at row `y0`.
#[inline(always)]
fn box_band(src: &[u8], width: usize, height: usize, r: usize, y0: usize, out: &mut [u8]) {
    let row_len = 4 * width;
    let row = |y: isize| clamped_row(src, row_len, height, y);
    let division = RoundedDivision::new(((2 * r + 1) * (2 * r + 1)) as u32);
    let (r_i, y0_i) = (r as isize, y0 as isize);
    let mut column = vec![0u32; row_len];
    for k in -r_i..=r_i {
        add_row(&mut column, row(y0_i + k));
    }
    let mut padded = Vec::with_capacity(row_len + 8 * (r + 1));
    let mut sums = vec![0u32; row_len];
    for (i, out_row) in out.chunks_exact_mut(row_len).enumerate() {
        let y = y0_i + i as isize;
        if i > 0 {
            slide_column(&mut column, row(y + r_i), row(y - r_i - 1));
        }
        row_sums(&column, r, &mut padded, &mut sums);
        divide_row(out_row, &sums, row(y), division);
    }
}

/// Mean of the `(2R+1)²` window per RGB channel, rounded to nearest; alpha unchanged.
/// `radius` is at most [`super::BOX_RADIUS_MAX`] (as `Filter` validates).
pub fn box_filter(image: &RgbaImage, radius: u32) -> RgbaImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    if w == 0 || h == 0 {
        return image.clone();
    }
    let r = radius as usize;
    let src = image.as_raw();
    rgba_by_bands(
        image.width(),
        image.height(),
        band_height(h, r),
        |y0, out| vectorized(|| box_band(src, w, h, r, y0, out)),
    )
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
                        assert_eq!(u32::from(division.apply(s)), (s + n / 2) / n, "n={n} s={s}");
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
