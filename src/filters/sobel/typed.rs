//! Sobel in every sample type: the gradient magnitude of luma ([`luma_of`], grey counting
//! as R = G = B) in the type's units, `S · sqrt(Gx² + Gy²)` in f32 with the RGBA8
//! reference's operation order, written to every colour channel; alpha kept. Stored by
//! `Sample::from_f32`: U8 and U16 round and saturate at 255 and 65535, F32 is unclamped.
//! `Gx` and `Gy` are OpenCV's `Sobel(dx=1)` and `Sobel(dy=1)` with ksize 3 and
//! `BORDER_REPLICATE` (right minus left, bottom minus top), so the magnitude is
//! `S · magnitude(Gx, Gy)`.

use crate::filters::typed::{clamp_to_edge, luma_plane, with_colour};
use crate::pixels::{ImageBuf, Sample};

/// Sobel edge magnitude scaled by `scale`; alpha kept.
pub fn sobel_typed<T: Sample>(image: &ImageBuf<T>, scale: f32) -> ImageBuf<T> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    if w == 0 || h == 0 {
        return image.clone();
    }
    let luma = luma_plane(image);
    let at = |x: usize, y: usize, dx: isize, dy: isize| {
        luma[clamp_to_edge(y as isize + dy, h) * w + clamp_to_edge(x as isize + dx, w)]
    };
    with_colour(image, |i, _| {
        let (x, y) = (i % w, i / w);
        let l = |dx, dy| at(x, y, dx, dy);
        let gx = (l(1, -1) + 2.0 * l(1, 0) + l(1, 1)) - (l(-1, -1) + 2.0 * l(-1, 0) + l(-1, 1));
        let gy = (l(-1, 1) + 2.0 * l(0, 1) + l(1, 1)) - (l(-1, -1) + 2.0 * l(0, -1) + l(1, -1));
        T::from_f32(scale * (gx * gx + gy * gy).sqrt())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pixels::{ImageBuf, PixelImage};

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
