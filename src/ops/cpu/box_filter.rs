//! Box filter: the exact mean of the `(2R+1)²` window, by running sums (cost independent
//! of the radius), integer arithmetic throughout.

use super::rows::clamp_index;
use super::stripes::{for_each_stripe, Passes, Ring};
use image::RgbaImage;
use std::ops::Range;

/// Sum of `2r+1` clamped neighbours of each column of `columns` in one RGBA row: the
/// first by adding, the rest by a running sum.
fn box_row(rgba: &[u8], columns: &Range<usize>, out: &mut [[u32; 3]], r: usize) {
    let n = rgba.len() / 4;
    let r = r as isize;
    let at = |x: isize| {
        let i = 4 * clamp_index(x, n);
        [rgba[i], rgba[i + 1], rgba[i + 2]].map(u32::from)
    };
    let x0 = columns.start as isize;
    let mut sum = [0u32; 3];
    for k in -r..=r {
        let v = at(x0 + k);
        (0..3).for_each(|c| sum[c] += v[c]);
    }
    for (o, x) in out.iter_mut().zip(x0..) {
        *o = sum;
        let (add, sub) = (at(x + r + 1), at(x - r));
        (0..3).for_each(|c| sum[c] = sum[c] + add[c] - sub[c]);
    }
}

/// Mean of the `(2R+1)²` window per RGB channel, rounded to nearest; alpha unchanged.
/// Rows by running sums in the row pass, columns by running sums kept per stripe column.
pub fn box_filter(image: &RgbaImage, radius: u32) -> RgbaImage {
    let h = image.height() as usize;
    let r = radius as usize;
    let n = ((2 * r + 1) * (2 * r + 1)) as u32;
    let passes = Passes {
        behind: r,
        ahead: r + 1,
        row_pass: move |row: &[u8], columns: &Range<usize>, out: &mut [[u32; 3]]| {
            box_row(row, columns, out, r)
        },
        make_column: move |width| {
            let mut sums = vec![[0u32; 3]; width];
            move |y: usize, ring: &Ring<u32>, out: &mut [u8]| {
                let row = |dy: isize| ring.row(clamp_index(y as isize + dy, h));
                if y == 0 {
                    sums.fill([0; 3]);
                    for k in -(r as isize)..=(r as isize) {
                        for (s, v) in sums.iter_mut().zip(row(k)) {
                            (0..3).for_each(|c| s[c] += v[c]);
                        }
                    }
                }
                for (p, s) in out.chunks_exact_mut(4).zip(&sums) {
                    p[..3].copy_from_slice(&s.map(|s| ((s + n / 2) / n) as u8));
                }
                let (add, sub) = (row(r as isize + 1), row(-(r as isize)));
                for ((s, a), d) in sums.iter_mut().zip(add).zip(sub) {
                    (0..3).for_each(|c| s[c] = s[c] + a[c] - d[c]);
                }
            }
        },
    };
    for_each_stripe(image, passes)
}

#[cfg(test)]
mod tests {
    use super::super::test_images::{at, random, SIZES};
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
    fn constant_image_is_unchanged() {
        let img = RgbaImage::from_pixel(9, 5, image::Rgba([10, 200, 77, 3]));
        assert_eq!(box_filter(&img, 255), img);
    }
}
