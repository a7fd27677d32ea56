//! Histogram of R, G, B and luma over all pixels.
//!
//! Each band of rows (one rayon task) computes the luma bins of a row in a whole-row loop,
//! then counts into two private sets of bins (even and odd pixels, so that runs of equal
//! values do not serialise on one counter); the sets are merged at the end.

use super::super::{luma, Histogram, ShownSelection, HISTOGRAM_BINS};
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

/// The histogram of what is shown where the filters' result `output` shows inside
/// `selection` only and `source` (the same size) outside it (of `source` where the
/// selection lies outside the image); of `output` where there is no selection (or the
/// sizes differ: the whole result is shown then).
pub fn histogram_shown(
    source: &RgbaImage,
    output: &RgbaImage,
    selection: Option<ShownSelection>,
) -> Histogram {
    let Some(selection) = selection.filter(|_| source.dimensions() == output.dimensions()) else {
        return histogram(output);
    };
    let mut shown = histogram(source);
    let Some(s) = selection.within(output.dimensions()) else {
        return shown;
    };
    let (x, w) = (s.x as usize * 4, s.width as usize * 4);
    let row_bytes = source.width() as usize * 4;
    let rows = s.y as usize..(s.y + s.height) as usize;
    let inside = |image: &RgbaImage| {
        let raw = image.as_raw();
        rows.clone()
            .map(|r| count_band(&raw[r * row_bytes + x..][..w], s.width as usize))
            .fold([[0u32; HISTOGRAM_BINS]; 4], merge)
    };
    let (before, after) = (inside(source), inside(output));
    for c in 0..4 {
        for b in 0..HISTOGRAM_BINS {
            shown.bins[c][b] = shown.bins[c][b] - before[c][b] + after[c][b];
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::super::super::luma_bin;
    use super::super::test_images::random;
    use super::*;

    /// What is shown with filters on a selection only, counted as the composite image
    /// itself: the result inside (cut to the image), the source outside; the result's
    /// own histogram without a selection or where the sizes differ.
    #[test]
    fn what_is_shown_counts_the_result_inside_the_selection_only() {
        let (source, output) = (random(41, 29, 3), random(41, 29, 4));
        for selection in [
            ShownSelection {
                x: 5,
                y: 7,
                width: 13,
                height: 11,
            },
            ShownSelection {
                x: 30,
                y: 20,
                width: 50,
                height: 50,
            },
            ShownSelection {
                x: 0,
                y: 0,
                width: 41,
                height: 29,
            },
        ] {
            let mut composite = source.clone();
            for (x, y, p) in composite.enumerate_pixels_mut() {
                let inside = (selection.x..selection.x + selection.width).contains(&x)
                    && (selection.y..selection.y + selection.height).contains(&y);
                if inside {
                    *p = *output.get_pixel(x, y);
                }
            }
            let shown = histogram_shown(&source, &output, Some(selection));
            assert_eq!(shown, histogram(&composite), "{selection:?}");
        }
        let outside = ShownSelection {
            x: 50,
            y: 0,
            width: 3,
            height: 3,
        };
        assert_eq!(
            histogram_shown(&source, &output, Some(outside)),
            histogram(&source)
        );
        assert_eq!(histogram_shown(&source, &output, None), histogram(&output));
        let smaller = random(40, 29, 5);
        let some = Some(ShownSelection {
            x: 1,
            y: 1,
            width: 2,
            height: 2,
        });
        assert_eq!(
            histogram_shown(&source, &smaller, some),
            histogram(&smaller)
        );
    }

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
