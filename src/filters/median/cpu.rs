//! The median's RGBA8 reference: up to radius 2 the order-key path (`keys.rs`: sorted
//! column triples for 3×3, selection for 5×5); above, Huang's sliding histogram along each
//! row (rows in parallel), the median tracked by a pointer that moves with the window.

use super::keys::median_rows;
use image::RgbaImage;
use rayon::prelude::*;

/// A 256-bin histogram of one channel over the window with the running median: `median`
/// is the smallest value with more than `rank` window values at or below it, `below` the
/// count of window values under `median`.
struct RunningMedian {
    bins: [u32; 256],
    median: usize,
    below: u32,
    rank: u32,
}

impl RunningMedian {
    fn new(rank: u32) -> Self {
        Self {
            bins: [0; 256],
            median: 0,
            below: 0,
            rank,
        }
    }

    fn add(&mut self, v: u8) {
        self.bins[usize::from(v)] += 1;
        if usize::from(v) < self.median {
            self.below += 1;
        }
    }

    fn remove(&mut self, v: u8) {
        self.bins[usize::from(v)] -= 1;
        if usize::from(v) < self.median {
            self.below -= 1;
        }
    }

    fn median(&mut self) -> u8 {
        while self.below > self.rank {
            self.median -= 1;
            self.below -= self.bins[self.median];
        }
        while self.below + self.bins[self.median] <= self.rank {
            self.below += self.bins[self.median];
            self.median += 1;
        }
        self.median as u8
    }
}

/// Radii up to this take the order-key path: on noisy images Huang's median pointer
/// walks far at every pixel, while a small window is cheap to select from.
const KEYS_MAX_RADIUS: u32 = 2;

/// The median filter of the contract.
pub fn median(image: &RgbaImage, radius: u32) -> RgbaImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    if w == 0 || h == 0 {
        return image.clone();
    }
    if radius <= KEYS_MAX_RADIUS {
        let medians = median_rows(image.as_raw(), w, h, 4, radius as usize, true);
        return RgbaImage::from_raw(image.width(), image.height(), medians)
            .unwrap_or_else(|| unreachable!("the medians hold as many samples as the image"));
    }
    let r = radius as isize;
    let side = 2 * radius as usize + 1;
    let rank = ((side * side - 1) / 2) as u32;
    let src = image.as_raw();
    let mut out = image.clone();
    let at = |x: isize, y: isize, c: usize| {
        let x = x.clamp(0, w as isize - 1) as usize;
        let y = y.clamp(0, h as isize - 1) as usize;
        src[4 * (y * w + x) + c]
    };
    out.par_chunks_mut(4 * w).enumerate().for_each(|(y, row)| {
        let y = y as isize;
        let mut hist: [RunningMedian; 3] = std::array::from_fn(|_| RunningMedian::new(rank));
        for (c, hc) in hist.iter_mut().enumerate() {
            for dy in -r..=r {
                for dx in -r..=r {
                    hc.add(at(dx, y + dy, c));
                }
            }
        }
        for x in 0..w as isize {
            if x > 0 {
                for (c, hc) in hist.iter_mut().enumerate() {
                    for dy in -r..=r {
                        hc.remove(at(x - r - 1, y + dy, c));
                        hc.add(at(x + r, y + dy, c));
                    }
                }
            }
            for (c, hc) in hist.iter_mut().enumerate() {
                row[4 * x as usize + c] = hc.median();
            }
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::random_image;

    /// The median by sorting each window.
    fn plain(img: &RgbaImage, radius: u32) -> RgbaImage {
        let (w, h) = (img.width() as i64, img.height() as i64);
        let r = i64::from(radius);
        let mut out = img.clone();
        for y in 0..h {
            for x in 0..w {
                for c in 0..3 {
                    let mut v: Vec<u8> = (-r..=r)
                        .flat_map(|dy| (-r..=r).map(move |dx| (dx, dy)))
                        .map(|(dx, dy)| {
                            let px = (x + dx).clamp(0, w - 1) as u32;
                            let py = (y + dy).clamp(0, h - 1) as u32;
                            img.get_pixel(px, py).0[c]
                        })
                        .collect();
                    v.sort_unstable();
                    out.get_pixel_mut(x as u32, y as u32).0[c] = v[v.len() / 2];
                }
            }
        }
        out
    }

    #[test]
    fn matches_sorting_each_window() {
        for (i, (w, h)) in [(1, 1), (7, 3), (3, 7), (1, 9), (16, 16), (33, 20)]
            .into_iter()
            .enumerate()
        {
            let img = random_image(w, h, 40 + i as u64);
            for r in [1, 2, 7] {
                assert_eq!(median(&img, r), plain(&img, r), "{w}x{h} r={r}");
            }
        }
    }

    #[test]
    fn removes_an_isolated_outlier_and_keeps_alpha() {
        let mut img = RgbaImage::from_pixel(9, 9, image::Rgba([10, 20, 30, 77]));
        img.put_pixel(4, 4, image::Rgba([255, 0, 255, 5]));
        let out = median(&img, 1);
        assert_eq!(out.get_pixel(4, 4).0, [10, 20, 30, 5]);
    }
}
