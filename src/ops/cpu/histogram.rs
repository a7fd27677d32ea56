//! Histogram of R, G, B and luma over all pixels.

use super::super::{luma_bin, Histogram, HISTOGRAM_BINS};
use image::RgbaImage;
use rayon::prelude::*;

type Bins = [[u32; HISTOGRAM_BINS]; 4];

fn count_row(mut bins: Bins, row: &[u8]) -> Bins {
    for p in row.chunks_exact(4) {
        bins[0][usize::from(p[0])] += 1;
        bins[1][usize::from(p[1])] += 1;
        bins[2][usize::from(p[2])] += 1;
        bins[3][luma_bin(p[0], p[1], p[2])] += 1;
    }
    bins
}

fn merge(mut a: Bins, b: Bins) -> Bins {
    for (ca, cb) in a.iter_mut().zip(&b) {
        for (x, y) in ca.iter_mut().zip(cb) {
            *x += y;
        }
    }
    a
}

/// The four 256-bin histograms of `image`, rows counted in parallel.
pub fn histogram(image: &RgbaImage) -> Histogram {
    let row_bytes = (4 * image.width() as usize).max(4);
    let empty = || [[0u32; HISTOGRAM_BINS]; 4];
    let bins = image
        .as_raw()
        .par_chunks(row_bytes)
        .fold(empty, count_row)
        .reduce(empty, merge);
    Histogram {
        width: image.width(),
        height: image.height(),
        bins,
    }
}

#[cfg(test)]
mod tests {
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
    fn luma_of_grey_pixels_is_their_value() {
        let img = RgbaImage::from_fn(16, 16, |x, y| {
            let v = (x * 16 + y) as u8;
            image::Rgba([v, v, v, 0])
        });
        assert!(histogram(&img).bins[3].iter().all(|&c| c == 1));
    }
}
