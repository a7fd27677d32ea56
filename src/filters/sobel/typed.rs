//! Sobel in every sample type: the gradient magnitude of luma ([`luma_of`], grey counting
//! as R = G = B) in the type's units, `S · sqrt(Gx² + Gy²)` in f32 with the RGBA8
//! reference's operation order, written to every colour channel; alpha kept. Stored by
//! `Sample::from_f32`: U8 and U16 round and saturate at 255 and 65535, F32 is unclamped.
//! `Gx` and `Gy` are OpenCV's `Sobel(dx=1)` and `Sobel(dy=1)` with ksize 3 and
//! `BORDER_REPLICATE` (right minus left, bottom minus top), so the magnitude is
//! `S · magnitude(Gx, Gy)`.

use super::cpu::sobel_samples;
use crate::pixels::{ImageBuf, Sample};

/// Sobel edge magnitude scaled by `scale`; alpha kept (the bands of `cpu.rs`).
pub fn sobel_typed<T: Sample>(image: &ImageBuf<T>, scale: f32) -> ImageBuf<T> {
    let (w, h, c) = (image.width(), image.height(), image.channels());
    let mut out = image.zeroed_like();
    sobel_samples(image.as_slice(), (w as usize, h as usize), usize::from(c), scale, out.as_mut_slice());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::typed::test_inputs::random;
    use crate::filters::typed::{clamp_to_edge, colour_channels, luma_plane};
    use crate::pixels::{ImageBuf, PixelImage, SampleType};

    /// The operator pixel by pixel on a luma plane.
    fn plain<T: Sample>(image: &ImageBuf<T>, scale: f32) -> ImageBuf<T> {
        let (w, h) = (image.width() as usize, image.height() as usize);
        let luma = luma_plane(image);
        let l = |x: usize, y: usize, dx: isize, dy: isize| {
            luma[clamp_to_edge(y as isize + dy, h) * w + clamp_to_edge(x as isize + dx, w)]
        };
        let colour = colour_channels(image.channels());
        ImageBuf::from_fn(image.width(), image.height(), image.channels(), |x, y, c| {
            let (x, y) = (x as usize, y as usize);
            if usize::from(c) >= colour {
                return image.pixel(x as u32, y as u32)[usize::from(c)];
            }
            let l = |dx, dy| l(x, y, dx, dy);
            let gx = (l(1, -1) + 2.0 * l(1, 0) + l(1, 1)) - (l(-1, -1) + 2.0 * l(-1, 0) + l(-1, 1));
            let gy = (l(-1, 1) + 2.0 * l(0, 1) + l(1, 1)) - (l(-1, -1) + 2.0 * l(0, -1) + l(1, -1));
            T::from_f32(scale * (gx * gx + gy * gy).sqrt())
        })
        .expect("size")
    }

    #[test]
    fn equals_the_plain_operator_in_every_type_and_layout() {
        for (i, ty) in SampleType::ALL.into_iter().enumerate() {
            for (channels, (w, h)) in [(1, (23, 9)), (3, (17, 60)), (4, (21, 70)), (4, (1, 3))] {
                let img = random(ty, w, h, channels, 60 + i as u64);
                for scale in [1.0, 0.3] {
                    crate::with_pixels!(&img, b => {
                        let (got, want) = (sobel_typed(b, scale), plain(b, scale));
                        assert!(
                            got.as_slice().iter().zip(want.as_slice()).all(|(g, w)| g.to_f64().to_bits() == w.to_f64().to_bits()),
                            "{ty} c{channels} {w}x{h}"
                        );
                    });
                }
            }
        }
    }

    #[test]
    fn a_vertical_step_in_u16_saturates_and_in_f32_does_not() {
        let step = |x: u32| if x < 2 { 0.0 } else { 1.0 };
        let f = ImageBuf::<f32>::from_fn(4, 3, 1, |x, _, _| step(x)).expect("size");
        let out = sobel_typed(&f, 1.0);
        // Gx = 4 at the step, Gy = 0.
        assert!((out.pixel(1, 1)[0] - 4.0).abs() < 1e-5);
        let PixelImage::U16(u) = PixelImage::F32(f).to_type(crate::pixels::SampleType::U16)
        else {
            panic!("U16")
        };
        assert_eq!(sobel_typed(&u, 1.0).pixel(1, 1)[0], 65535);
        assert_eq!(sobel_typed(&u, 0.1).pixel(1, 1)[0], 26214);
    }
}
