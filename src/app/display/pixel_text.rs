//! A pixel's values in its own units, for the pixel inspector: "grey 40123",
//! "R 0.1234 G 1.5 B −0.25", "R 12 G 200 B 7 A 255".

use crate::pixels::{PixelImage, Sample, SampleType};

/// The samples of one pixel (1, 3 or 4 channels), labelled.
pub fn samples_text<T: Sample>(samples: &[T]) -> String {
    let labels: &[&str] = match samples.len() {
        1 => &["grey"],
        3 => &["R", "G", "B"],
        _ => &["R", "G", "B", "A"],
    };
    labels
        .iter()
        .zip(samples)
        .map(|(l, &v)| format!("{l} {}", sample_text(v)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The values of pixel (`x`, `y`) of `image` (None outside it).
pub fn pixel_values_text(image: &PixelImage, x: u32, y: u32) -> Option<String> {
    if x >= image.width() || y >= image.height() {
        return None;
    }
    Some(crate::with_pixels!(image, b => samples_text(b.pixel(x, y))))
}

/// One sample: integers as they are; floats with up to 4 decimals (trailing zeros cut),
/// in scientific notation when very small or large, with a true minus sign.
pub fn sample_text<T: Sample>(v: T) -> String {
    match T::TYPE {
        SampleType::U8 | SampleType::U16 => format!("{}", v.to_f64()),
        SampleType::F32 => float_text(v.to_f32()),
    }
}

fn float_text(v: f32) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "∞" } else { "−∞" }.into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    let text = if !(1e-3..1e6).contains(&a) {
        format!("{v:.3e}")
    } else {
        let fixed = format!("{v:.4}");
        fixed
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    };
    text.replace('-', "−")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pixels::ImageBuf;

    #[test]
    fn pixels_in_their_own_units() {
        assert_eq!(samples_text(&[40123u16]), "grey 40123");
        assert_eq!(
            samples_text(&[0.1234f32, 1.5, -0.25]),
            "R 0.1234 G 1.5 B −0.25"
        );
        assert_eq!(samples_text(&[12u8, 200, 7, 255]), "R 12 G 200 B 7 A 255");
        assert_eq!(
            samples_text(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0]),
            "R NaN G ∞ B −∞ A 0"
        );
        assert_eq!(samples_text(&[2.5e-5f32]), "grey 2.500e−5");
        assert_eq!(samples_text(&[-1234567.0f32]), "grey −1.235e6");
        assert_eq!(samples_text(&[65535.0f32]), "grey 65535");
        assert_eq!(samples_text(&[0.33333334f32]), "grey 0.3333");
    }

    #[test]
    fn an_images_pixel() {
        let b =
            ImageBuf::<u16>::from_fn(3, 2, 3, |x, y, c| (x * 100 + y * 10 + u32::from(c)) as u16);
        let image = PixelImage::U16(b.expect("size"));
        assert_eq!(
            pixel_values_text(&image, 2, 1).as_deref(),
            Some("R 210 G 211 B 212")
        );
        assert_eq!(pixel_values_text(&image, 3, 0), None);
    }
}
