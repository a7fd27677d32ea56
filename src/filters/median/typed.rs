//! The median in every sample type: per colour channel the exact middle value of the
//! `(2R+1)²` window (clamp-to-edge), alpha kept. Values are ordered by `f32::total_cmp`
//! (exact for U8 and U16; for F32 NaN sorts above every number).

use crate::filters::typed::{clamp_to_edge, with_colour};
use crate::pixels::{ImageBuf, Sample};

/// The median filter of the colour channels.
pub fn median_typed<T: Sample>(image: &ImageBuf<T>, radius: u32) -> ImageBuf<T> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    if w == 0 || h == 0 {
        return image.clone();
    }
    let (c, r) = (usize::from(image.channels()), radius as isize);
    let side = 2 * radius as usize + 1;
    let rank = (side * side - 1) / 2;
    let src = image.as_slice();
    with_colour(image, |i, ch| {
        let (x, y) = ((i % w) as isize, (i / w) as isize);
        let mut window: Vec<T> = (-r..=r)
            .flat_map(|dy| (-r..=r).map(move |dx| (dx, dy)))
            .map(|(dx, dy)| {
                src[(clamp_to_edge(y + dy, h) * w + clamp_to_edge(x + dx, w)) * c + ch]
            })
            .collect();
        let (_, m, _) =
            window.select_nth_unstable_by(rank, |a, b| a.to_f32().total_cmp(&b.to_f32()));
        *m
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::typed::test_inputs::random;
    use crate::pixels::SampleType;

    #[test]
    fn is_the_middle_of_each_sorted_window_in_every_type() {
        for ty in SampleType::ALL {
            let img = random(ty, 7, 6, 3, 8);
            crate::with_pixels!(&img, b => {
                let out = median_typed(b, 2);
                for y in 0..6i64 {
                    for x in 0..7i64 {
                        for c in 0..3 {
                            let mut v: Vec<f64> = (-2..=2)
                                .flat_map(|dy| (-2..=2).map(move |dx| (dx, dy)))
                                .map(|(dx, dy)| {
                                    let xx = (x + dx).clamp(0, 6) as u32;
                                    let yy = (y + dy).clamp(0, 5) as u32;
                                    b.pixel(xx, yy)[c].to_f64()
                                })
                                .collect();
                            v.sort_by(f64::total_cmp);
                            assert_eq!(out.pixel(x as u32, y as u32)[c].to_f64(), v[12]);
                        }
                    }
                }
            });
        }
    }
}
