//! `PixelImage`: an image of any sample type, as the application holds it.

use super::buffer::{sample_count, ImageBuf, PixelsError};
use super::sample::SampleType;

/// An image of 8-bit, 16-bit or float samples with 1, 3 or 4 channels.
#[derive(Debug, Clone, PartialEq)]
pub enum PixelImage {
    U8(ImageBuf<u8>),
    U16(ImageBuf<u16>),
    F32(ImageBuf<f32>),
}

impl PixelImage {
    pub fn width(&self) -> u32 {
        crate::with_pixels!(self, b => b.width())
    }
    pub fn height(&self) -> u32 {
        crate::with_pixels!(self, b => b.height())
    }
    pub fn dimensions(&self) -> (u32, u32) {
        (self.width(), self.height())
    }
    /// 1 (grey), 3 (RGB) or 4 (RGBA).
    pub fn channels(&self) -> u8 {
        crate::with_pixels!(self, b => b.channels())
    }
    pub fn sample_type(&self) -> SampleType {
        match self {
            PixelImage::U8(_) => SampleType::U8,
            PixelImage::U16(_) => SampleType::U16,
            PixelImage::F32(_) => SampleType::F32,
        }
    }
    /// Bytes the samples take.
    pub fn byte_len(&self) -> usize {
        sample_count(self.width(), self.height(), self.channels()).unwrap_or(usize::MAX)
            * self.sample_type().bytes()
    }

    /// "16-bit grey", "8-bit RGBA", "32-bit float RGB".
    pub fn describe(&self) -> String {
        let layout = match self.channels() {
            1 => "grey",
            3 => "RGB",
            _ => "RGBA",
        };
        format!("{} {layout}", self.sample_type())
    }

    /// The image in `sample_type` by the depth rules (a clone when it already is).
    pub fn to_type(&self, sample_type: SampleType) -> PixelImage {
        match sample_type {
            SampleType::U8 => PixelImage::U8(crate::with_pixels!(self, b => b.convert())),
            SampleType::U16 => PixelImage::U16(crate::with_pixels!(self, b => b.convert())),
            SampleType::F32 => PixelImage::F32(crate::with_pixels!(self, b => b.convert())),
        }
    }

    /// The image with `channels` channels (see [`ImageBuf::with_channels`]).
    pub fn with_channels(&self, channels: u8) -> Result<PixelImage, PixelsError> {
        Ok(crate::map_pixels!(self, b => b.with_channels(channels)?))
    }

    /// Whether some pixel's alpha is not opaque.
    pub fn has_transparency(&self) -> bool {
        crate::with_pixels!(self, b => b.has_transparency())
    }

    /// An 8-bit RGBA image: an RGBA8 image's own samples, others by the depth and channel
    /// rules. Takes the samples without copying when they already are RGBA8.
    pub fn into_rgba8(self) -> image::RgbaImage {
        let (w, h) = self.dimensions();
        let data = match self {
            PixelImage::U8(b) => match b.channels() {
                4 => b.into_vec(),
                // Widened in one pass: an 8000×6000 photo loads as RGB.
                3 => {
                    let mut rgba = Vec::with_capacity(b.as_slice().len() / 3 * 4);
                    for px in b.as_slice().chunks_exact(3) {
                        rgba.extend_from_slice(&[px[0], px[1], px[2], u8::MAX]);
                    }
                    rgba
                }
                _ => b
                    .as_slice()
                    .iter()
                    .flat_map(|&v| [v, v, v, u8::MAX])
                    .collect(),
            },
            other => {
                let PixelImage::U8(b) = other.to_type(SampleType::U8) else {
                    unreachable!("to_type(U8) gives U8")
                };
                return PixelImage::U8(b).into_rgba8();
            }
        };
        image::RgbaImage::from_raw(w, h, data)
            .unwrap_or_else(|| unreachable!("an RGBA8 buffer of its own size"))
    }

    /// An RGBA8 result given back the channels of the image it came from (`channels`), where
    /// that loses nothing: grey when every pixel is opaque with R = G = B, RGB when every
    /// pixel is opaque; otherwise it stays RGBA (a stage made colour or transparency).
    pub fn from_rgba8_as(image: image::RgbaImage, channels: u8) -> PixelImage {
        let rgba = PixelImage::from_rgba8(image);
        let PixelImage::U8(b) = &rgba else {
            return rgba;
        };
        let opaque = b.as_slice().chunks_exact(4).all(|p| p[3] == u8::MAX);
        let grey = opaque
            && b.as_slice()
                .chunks_exact(4)
                .all(|p| p[0] == p[1] && p[1] == p[2]);
        let target = match channels {
            1 if grey => 1,
            1 | 3 if opaque => 3,
            _ => 4,
        };
        if target == 4 {
            return rgba;
        }
        let data: Vec<u8> = b
            .as_slice()
            .chunks_exact(4)
            .flat_map(|p| p[..usize::from(target)].iter().copied())
            .collect();
        match ImageBuf::from_vec(b.width(), b.height(), target, data) {
            Ok(buf) => PixelImage::U8(buf),
            Err(_) => rgba,
        }
    }

    /// An RGBA8 image's samples, without copying.
    pub fn from_rgba8(image: image::RgbaImage) -> PixelImage {
        let (w, h) = image.dimensions();
        match ImageBuf::from_vec(w, h, 4, image.into_raw()) {
            Ok(b) => PixelImage::U8(b),
            Err(_) => unreachable!("an RgbaImage holds w·h·4 samples"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rgba8_results_take_back_their_source_channels_where_nothing_is_lost() {
        let grey = image::RgbaImage::from_fn(4, 3, |x, y| {
            let v = (x * 40 + y) as u8;
            image::Rgba([v, v, v, 255])
        });
        let back = PixelImage::from_rgba8_as(grey.clone(), 1);
        assert_eq!(back.describe(), "8-bit grey");
        assert_eq!(back.clone().into_rgba8(), grey);
        assert_eq!(
            PixelImage::from_rgba8_as(grey.clone(), 3).describe(),
            "8-bit RGB"
        );
        let mut colour = grey.clone();
        colour.put_pixel(1, 1, image::Rgba([1, 2, 3, 255]));
        assert_eq!(
            PixelImage::from_rgba8_as(colour.clone(), 1).describe(),
            "8-bit RGB"
        );
        colour.put_pixel(0, 0, image::Rgba([1, 1, 1, 7]));
        assert_eq!(
            PixelImage::from_rgba8_as(colour, 1).describe(),
            "8-bit RGBA"
        );
    }

    #[test]
    fn eight_bit_grey_and_rgb_widen_as_the_channel_rules_say() {
        for channels in [1u8, 3] {
            let b = ImageBuf::<u8>::from_fn(7, 5, channels, |x, y, c| {
                (x * 31 + y * 7 + u32::from(c) * 50) as u8
            })
            .expect("size");
            let want = b.with_channels(4).expect("rgba").into_vec();
            assert_eq!(
                PixelImage::U8(b).into_rgba8().into_raw(),
                want,
                "{channels}"
            );
        }
    }

    #[test]
    fn rgba8_round_trips_without_change() {
        let rgba = image::RgbaImage::from_fn(5, 3, |x, y| image::Rgba([x as u8, y as u8, 7, 200]));
        let pixels = PixelImage::from_rgba8(rgba.clone());
        assert_eq!(pixels.describe(), "8-bit RGBA");
        assert_eq!(pixels.into_rgba8(), rgba);
    }

    #[test]
    fn grey16_shows_as_rounded_opaque_grey() {
        let b = ImageBuf::<u16>::from_vec(3, 1, 1, vec![0, 128, 65535]).expect("size");
        let rgba = PixelImage::U16(b).into_rgba8();
        assert_eq!(rgba.get_pixel(0, 0).0, [0, 0, 0, 255]);
        assert_eq!(rgba.get_pixel(1, 0).0, [0, 0, 0, 255]);
        assert_eq!(rgba.get_pixel(2, 0).0, [255, 255, 255, 255]);
    }

    #[test]
    fn channels_convert_both_ways() {
        let rgb = ImageBuf::<f32>::from_vec(1, 1, 3, vec![1.0, 0.0, 0.0]).expect("size");
        let grey = rgb.with_channels(1).expect("grey");
        assert!((grey.as_slice()[0] - 0.2126).abs() < 1e-7);
        let rgba = grey.with_channels(4).expect("rgba");
        assert_eq!(rgba.pixel(0, 0)[3], 1.0);
        assert!(!rgba.has_transparency());
        assert_eq!(rgba.with_channels(3).expect("rgb").channels(), 3);
        assert_eq!(ImageBuf::<u8>::new(2, 2, 2), Err(PixelsError::Channels(2)));
        assert!(matches!(
            ImageBuf::<u8>::from_vec(2, 2, 1, vec![0; 3]),
            Err(PixelsError::Length { want: 4, got: 3 })
        ));
    }

    #[test]
    fn types_convert_by_the_rules() {
        let b = ImageBuf::<u16>::from_fn(4, 4, 3, |x, y, c| {
            (x * 5000 + y * 300 + u32::from(c)) as u16
        })
        .expect("size");
        let image = PixelImage::U16(b.clone());
        let back = image.to_type(SampleType::F32).to_type(SampleType::U16);
        assert_eq!(back, image, "U16 → F32 → U16 is exact");
        assert_eq!(image.to_type(SampleType::U16), image);
        let PixelImage::U8(narrow) = image.to_type(SampleType::U8) else {
            panic!("U8")
        };
        assert_eq!(
            narrow.pixel(3, 3)[2],
            ((15000u32 + 900 + 2 + 128) / 257) as u8
        );
    }
}
