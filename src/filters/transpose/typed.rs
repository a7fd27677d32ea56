//! Transpose in every sample type: `out(x, y) = in(y, x)`, every channel (alpha moves with
//! its pixel); exact. The cache-blocked bands of `cpu.rs` serve every type.

use super::cpu::transpose_samples;
use crate::pixels::{ImageBuf, Sample};

/// The H×W transpose of a W×H image.
pub fn transpose_typed<T: Sample>(image: &ImageBuf<T>) -> ImageBuf<T> {
    let (w, h, c) = (image.width(), image.height(), image.channels());
    let mut out = vec![T::default(); image.as_slice().len()];
    transpose_samples(image.as_slice(), (w as usize, h as usize), usize::from(c), &mut out);
    ImageBuf::from_vec(h, w, c, out)
        .unwrap_or_else(|_| unreachable!("the transposed size holds as many samples"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::typed::test_inputs::random;
    use crate::pixels::SampleType;

    #[test]
    fn swaps_coordinates_in_every_type_and_layout() {
        for (i, ty) in SampleType::ALL.into_iter().enumerate() {
            for (channels, (w, h)) in [(1, (40, 37)), (3, (17, 50)), (4, (33, 20)), (4, (1, 7))] {
                let img = random(ty, w, h, channels, 50 + i as u64);
                crate::with_pixels!(&img, b => {
                    let t = transpose_typed(b);
                    assert_eq!((t.width(), t.height()), (h, w));
                    for y in 0..h {
                        for x in 0..w {
                            assert_eq!(t.pixel(y, x), b.pixel(x, y), "{ty} c{channels}");
                        }
                    }
                });
            }
        }
    }
}
