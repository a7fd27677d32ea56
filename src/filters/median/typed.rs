//! The median in every sample type: per colour channel the exact middle value of the
//! `(2R+1)²` window (clamp-to-edge), alpha kept. Values are ordered by `f32::total_cmp`
//! (exact for U8 and U16; for F32 NaN sorts above every number).

use super::keys::{median_rows, Keyed};
use crate::pixels::{ImageBuf, Sample};

/// The median filter of the colour channels.
pub fn median_typed<T: Sample + Keyed>(image: &ImageBuf<T>, radius: u32) -> ImageBuf<T> {
    let (w, h, c) = (image.width(), image.height(), image.channels());
    let medians = median_rows(
        image.as_slice(),
        w as usize,
        h as usize,
        usize::from(c),
        radius as usize,
        c == 4,
    );
    ImageBuf::from_vec(w, h, c, medians)
        .unwrap_or_else(|_| unreachable!("the medians hold as many samples as the image"))
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
