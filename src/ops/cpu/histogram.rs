//! Histogram of R, G, B and luma over all pixels.
//!
//! Each band of rows (one rayon task) computes the luma bins of a row in a whole-row loop,
//! then counts into two private sets of bins (even and odd pixels, so that runs of equal
//! values do not serialise on one counter); the sets are merged at the end.

use super::super::{luma, Histogram, HISTOGRAM_BINS};
use super::rows::band_height;
use super::simd::vectorized;
use super::to_u8;
use image::RgbaImage;
use rayon::prelude::*;

type Bins = [[u32; HISTOGRAM_BINS]; 4];

#[inline(always)]
fn count_pixel(bins: &mut Bins, p: &[u8], luma: u8) {
    bins[0][usize::from(p[0])] += 1;
    bins[1][usize::from(p[1])] += 1;
    bins[2][usize::from(p[2])] += 1;
    bins[3][usize::from(luma)] += 1;
}

fn merge(mut a: Bins, b: Bins) -> Bins {
    for (ca, cb) in a.iter_mut().zip(&b) {
        for (x, y) in ca.iter_mut().zip(cb) {
            *x += y;
        }
    }
    a
}

/// The bins of a band of whole rows of `width` pixels.
#[inline(always)]
fn count_band(band: &[u8], width: usize) -> Bins {
    let mut even = [[0u32; HISTOGRAM_BINS]; 4];
    let mut odd = even;
    let mut lumas = vec![0u8; width];
    for row in band.chunks_exact(4 * width) {
        for (l, p) in lumas.iter_mut().zip(row.chunks_exact(4)) {
            // `luma_bin`'s round-then-clamp, converted straight to u8 so that the loop
            // vectorises (there is no vector f32 → u64 conversion below AVX-512).
            *l = to_u8(luma(p[0], p[1], p[2]));
        }
        let pairs = row.chunks_exact(8).zip(lumas.chunks_exact(2));
        for (p, l) in pairs {
            count_pixel(&mut even, &p[..4], l[0]);
            count_pixel(&mut odd, &p[4..], l[1]);
        }
        if width % 2 == 1 {
            count_pixel(&mut even, &row[row.len() - 4..], lumas[width - 1]);
        }
    }
    merge(even, odd)
}

/// The four 256-bin histograms of `image`, bands of rows counted in parallel.
pub fn histogram(image: &RgbaImage) -> Histogram {
    let width = image.width() as usize;
    let band = band_height(image.height() as usize, 0);
    let empty = || [[0u32; HISTOGRAM_BINS]; 4];
    let bins = if width == 0 {
        empty()
    } else {
        image
            .as_raw()
            .par_chunks(4 * width * band)
            .map(|rows| vectorized(|| count_band(rows, width)))
            .reduce(empty, merge)
    };
    Histogram {
        width: image.width(),
        height: image.height(),
        bins,
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::luma_bin;
    use super::super::test_images::random;
    use super::*;

    #[test]
    fn counts_every_pixel_once_per_channel() {
        let img = random(37, 21, 9);
        let h = histogram(&img);
        for c in 0..4 {
            assert_eq!(h.bins[c].iter().sum::<u32>(), 37 * 21);
        }
        let mut red = [0u32; 256];
        img.pixels().for_each(|p| red[usize::from(p.0[0])] += 1);
        assert_eq!(h.bins[0], red);
    }

    #[test]
    fn equals_a_plain_count_across_bands() {
        for (w, h) in [(37, 150), (1, 9), (64, 3)] {
            let img = random(w, h, 12);
            let mut want = [[0u32; HISTOGRAM_BINS]; 4];
            for p in img.pixels() {
                (0..3).for_each(|c| want[c][usize::from(p.0[c])] += 1);
                want[3][luma_bin(p.0[0], p.0[1], p.0[2])] += 1;
            }
            assert_eq!(histogram(&img).bins, want, "{w}x{h}");
        }
    }

    #[test]
    fn luma_of_grey_pixels_is_their_value() {
        let img = RgbaImage::from_fn(16, 16, |x, y| {
            let v = (x * 16 + y) as u8;
            image::Rgba([v, v, v, 0])
        });
        assert!(histogram(&img).bins[3].iter().all(|&c| c == 1));
    }
}
