//! EXIF orientation for images of any sample type: rotations and flips as the image crate's
//! `apply_orientation` makes them.

use crate::pixels::{ImageBuf, Sample};
use image::metadata::Orientation;

/// The source pixel shown at (`x`, `y`) of the upright image, for a `w × h` source.
fn source_of(o: Orientation, x: u32, y: u32, w: u32, h: u32) -> (u32, u32) {
    match o {
        Orientation::NoTransforms => (x, y),
        Orientation::Rotate90 => (y, h - 1 - x),
        Orientation::Rotate180 => (w - 1 - x, h - 1 - y),
        Orientation::Rotate270 => (w - 1 - y, x),
        Orientation::FlipHorizontal => (w - 1 - x, y),
        Orientation::FlipVertical => (x, h - 1 - y),
        Orientation::Rotate90FlipH => (y, x),
        Orientation::Rotate270FlipH => (w - 1 - y, h - 1 - x),
    }
}

fn swaps_sides(o: Orientation) -> bool {
    matches!(
        o,
        Orientation::Rotate90
            | Orientation::Rotate270
            | Orientation::Rotate90FlipH
            | Orientation::Rotate270FlipH
    )
}

/// `image` turned upright per `o` (a copy).
pub fn orient<T: Sample>(image: &ImageBuf<T>, o: Orientation) -> ImageBuf<T> {
    let (w, h) = (image.width(), image.height());
    let (ow, oh) = if swaps_sides(o) { (h, w) } else { (w, h) };
    let c = usize::from(image.channels());
    let mut data = Vec::with_capacity(image.as_slice().len());
    for y in 0..oh {
        for x in 0..ow {
            let (sx, sy) = source_of(o, x, y, w, h);
            data.extend_from_slice(&image.pixel(sx, sy)[..c]);
        }
    }
    match ImageBuf::from_vec(ow, oh, image.channels(), data) {
        Ok(b) => b,
        Err(_) => unreachable!("the same samples in a turned frame"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_image_crate_for_every_orientation() {
        let rgba = image::RgbaImage::from_fn(5, 3, |x, y| {
            image::Rgba([x as u8, y as u8, (x * 7 + y * 3) as u8, 200])
        });
        let buf = ImageBuf::from_vec(5, 3, 4, rgba.as_raw().clone()).expect("size");
        for value in 1..=8 {
            let o = Orientation::from_exif(value).expect("valid");
            let mut want = image::DynamicImage::ImageRgba8(rgba.clone());
            want.apply_orientation(o);
            let got = orient(&buf, o);
            assert_eq!(
                (got.width(), got.height()),
                (want.width(), want.height()),
                "{value}"
            );
            assert_eq!(got.as_slice(), want.as_bytes(), "{value}");
        }
    }

    #[test]
    fn keeps_wide_samples_and_grey() {
        let buf = ImageBuf::<u16>::from_fn(4, 2, 1, |x, y, _| (x * 1000 + y) as u16).expect("size");
        let turned = orient(&buf, Orientation::Rotate90);
        assert_eq!(
            (turned.width(), turned.height(), turned.channels()),
            (2, 4, 1)
        );
        assert_eq!(turned.pixel(0, 0)[0], 1);
        assert_eq!(turned.pixel(1, 3)[0], 3000);
    }
}
