//! Box filter: the exact mean of the `(2R+1)²` window, by running sums (cost independent
//! of the radius), integer arithmetic throughout.

use super::rows::{clamp_index, rgb_plane, separable, with_rgb};
use image::RgbaImage;

/// Running sum of `2r+1` clamped neighbours along one row.
fn box_row(src: &[[u32; 3]], out: &mut [[u32; 3]], r: usize) {
    let n = src.len();
    let r = r as isize;
    let mut sum = [0u32; 3];
    for k in -r..=r {
        let v = src[clamp_index(k, n)];
        (0..3).for_each(|c| sum[c] += v[c]);
    }
    for x in 0..n {
        out[x] = sum;
        let add = src[clamp_index(x as isize + r + 1, n)];
        let sub = src[clamp_index(x as isize - r, n)];
        (0..3).for_each(|c| sum[c] = sum[c] + add[c] - sub[c]);
    }
}

/// Mean of the `(2R+1)²` window per RGB channel, rounded to nearest; alpha unchanged.
pub fn box_filter(image: &RgbaImage, radius: u32) -> RgbaImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    if w == 0 || h == 0 {
        return image.clone();
    }
    let r = radius as usize;
    let sums = separable(&rgb_plane::<u32>(image.as_raw()), w, h, |row, out| {
        box_row(row, out, r)
    });
    let n = ((2 * r + 1) * (2 * r + 1)) as u32;
    with_rgb(image, |i| sums[i].map(|s| ((s + n / 2) / n) as u8))
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
