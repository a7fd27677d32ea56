//! The unsharp mask in every sample type: `v + amount · (v − g)` per colour channel in
//! f32, `g` the Gaussian's unrounded plane ([`gaussian_plane_typed`]); alpha kept; stored
//! by `Sample::from_f32` (integers round half away from zero and saturate, F32 unclamped).
//! U8 equals the RGBA8 reference bit for bit.

use crate::filters::gaussian::gaussian_plane_typed;
use crate::filters::typed::{colour_channels, with_colour};
use crate::pixels::{ImageBuf, Sample};

/// The unsharp mask of the colour channels.
pub fn unsharp_typed<T: Sample>(
    image: &ImageBuf<T>,
    sigma: f32,
    amount: f32,
    radius: u32,
) -> ImageBuf<T> {
    let blurred = gaussian_plane_typed(image, sigma, radius);
    let (c, cc) = (
        usize::from(image.channels()),
        colour_channels(image.channels()),
    );
    let src = image.as_slice();
    with_colour(image, |i, ch| {
        let v = src[i * c + ch].to_f32();
        T::from_f32(v + amount * (v - blurred[i * cc + ch]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::typed::test_inputs::random;
    use crate::pixels::SampleType;

    #[test]
    fn amount_zero_is_the_identity_in_every_type() {
        for ty in SampleType::ALL {
            for channels in [1, 3, 4] {
                let img = random(ty, 9, 7, channels, 5);
                crate::with_pixels!(&img, b => assert_eq!(&unsharp_typed(b, 2.0, 0.0, 6), b));
            }
        }
    }

    #[test]
    fn follows_the_formula_unclamped_in_f32() {
        let crate::pixels::PixelImage::F32(b) = random(SampleType::F32, 9, 7, 3, 6) else {
            panic!("F32")
        };
        let g = gaussian_plane_typed(&b, 1.5, 4);
        let out = unsharp_typed(&b, 1.5, 2.5, 4);
        for ((v, o), g) in b.as_slice().iter().zip(out.as_slice()).zip(&g) {
            assert_eq!(*o, v + 2.5 * (v - g));
        }
    }
}
