//! The median in every sample type: per colour channel the exact middle value of the
//! `(2R+1)²` window (clamp-to-edge), alpha kept. Values are ordered by `f32::total_cmp`
//! (exact for U8 and U16; for F32 NaN sorts above every number).

use super::keys::{key_of, median_keys, value_of};
use crate::filters::typed::colour_channels;
use crate::pixels::{ImageBuf, Sample};
use rayon::prelude::*;

/// The median filter of the colour channels.
pub fn median_typed<T: Sample>(image: &ImageBuf<T>, radius: u32) -> ImageBuf<T> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let c = usize::from(image.channels());
    let keys: Vec<u32> = image
        .as_slice()
        .par_iter()
        .map(|v| key_of(v.to_f32()))
        .collect();
    let medians = median_keys(&keys, w, h, c, radius as usize);
    let colour = colour_channels(image.channels());
    let mut out = image.clone();
    out.as_mut_slice()
        .par_chunks_mut(c)
        .zip(medians.par_chunks(c))
        .for_each(|(px, m)| {
            for (v, &k) in px.iter_mut().zip(m).take(colour) {
                *v = T::from_f32(value_of(k));
            }
        });
    out
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
