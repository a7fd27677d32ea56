//! Colour management on load: pixels described by an embedded ICC profile are converted
//! to sRGB with moxcms (pure Rust, already the image crate's colour engine). An image
//! without a profile is taken as sRGB and left untouched.

use crate::pixels::{ImageBuf, PixelImage, Sample};
use moxcms::{
    ColorProfile, DataColorSpace, Layout, ProfileText, TransformExecutor, TransformOptions,
};
use rayon::prelude::*;
use std::sync::Arc;

/// Rows per parallel task of a conversion.
const ROWS_PER_TASK: usize = 16;

/// Why an embedded profile was not used (the image is then taken as sRGB).
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("unreadable ICC profile ({0})")]
    Unreadable(String),
    #[error("ICC profile for {profile} data does not fit a {image} image")]
    Mismatch {
        profile: &'static str,
        image: &'static str,
    },
    #[error("ICC profile cannot be applied ({0})")]
    Transform(String),
}

/// An embedded ICC profile, parsed.
pub struct SourceProfile {
    profile: ColorProfile,
    /// The profile's description tag, or "unnamed ICC profile".
    pub description: String,
}

/// What the pixels handed to [`SourceProfile::convert_to_srgb`] hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Samples {
    /// Grey, RGB or RGBA (grey with alpha already expanded to R = G = B).
    Colour,
    /// CMYK ink amounts, one byte each, in the four channels of an 8-bit image.
    Cmyk,
}

/// One transform of samples of type `T`.
type Executor<T> = Arc<dyn TransformExecutor<T> + Send + Sync>;

/// How a profile applies to an image's channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Whole pixels through the transform, `Layout` in and out.
    Pixels(Layout),
    /// A grey profile: channel 0 through a grey-to-grey transform, copied to R, G and B.
    Grey,
}

fn text_of(text: &ProfileText) -> Option<String> {
    let s = match text {
        ProfileText::PlainString(s) => s.clone(),
        ProfileText::Localizable(list) => list.first()?.value.clone(),
        ProfileText::Description(d) if !d.ascii_string.is_empty() => d.ascii_string.clone(),
        ProfileText::Description(d) => d.unicode_string.clone(),
    };
    let s = s.trim_matches(|c: char| c == '\0' || c.is_whitespace());
    (!s.is_empty()).then(|| s.chars().filter(|c| !c.is_control()).take(80).collect())
}

fn space_name(space: DataColorSpace) -> &'static str {
    match space {
        DataColorSpace::Rgb => "RGB",
        DataColorSpace::Gray => "greyscale",
        DataColorSpace::Cmyk => "CMYK",
        _ => "other",
    }
}

impl SourceProfile {
    /// Parses the bytes of an embedded profile.
    pub fn parse(bytes: &[u8]) -> Result<Self, ProfileError> {
        let profile = ColorProfile::new_from_slice(bytes)
            .map_err(|e| ProfileError::Unreadable(e.to_string()))?;
        let description = profile
            .description
            .as_ref()
            .and_then(text_of)
            .unwrap_or_else(|| "unnamed ICC profile".into());
        Ok(Self {
            profile,
            description,
        })
    }

    fn plan(&self, channels: u8, samples: Samples) -> Result<Plan, ProfileError> {
        let space = self.profile.color_space;
        let image = match (samples, channels) {
            (Samples::Cmyk, _) => "CMYK",
            (_, 1) => "grey",
            _ => "RGB",
        };
        match (space, samples, channels) {
            (DataColorSpace::Rgb, Samples::Colour, 3) => Ok(Plan::Pixels(Layout::Rgb)),
            (DataColorSpace::Rgb, Samples::Colour, 4) => Ok(Plan::Pixels(Layout::Rgba)),
            (DataColorSpace::Gray, Samples::Colour, _) => Ok(Plan::Grey),
            (DataColorSpace::Cmyk, Samples::Cmyk, 4) => Ok(Plan::Pixels(Layout::Rgba)),
            _ => Err(ProfileError::Mismatch {
                profile: space_name(space),
                image,
            }),
        }
    }

    /// The destination: sRGB, or for a grey profile grey with the sRGB curve.
    fn destination(plan: Plan) -> ColorProfile {
        let srgb = ColorProfile::new_srgb();
        match plan {
            Plan::Pixels(_) => srgb,
            Plan::Grey => {
                let mut grey = ColorProfile::new_gray_with_gamma(2.2);
                grey.gray_trc = srgb.red_trc.clone();
                grey
            }
        }
    }

    /// Converts `image` (holding `samples`) to sRGB in place, in its own sample type and
    /// channels; alpha is kept. Returns what the note should add (float precision).
    pub fn convert_to_srgb(
        &self,
        image: &mut PixelImage,
        samples: Samples,
    ) -> Result<&'static str, ProfileError> {
        let plan = self.plan(image.channels(), samples)?;
        let dst = Self::destination(plan);
        let (src_layout, dst_layout) = match plan {
            Plan::Pixels(l) => (l, l),
            Plan::Grey => (Layout::Gray, Layout::Gray),
        };
        let options = TransformOptions::default();
        let err = |e: moxcms::CmsError| ProfileError::Transform(e.to_string());
        match image {
            PixelImage::U8(b) => {
                let t = self
                    .profile
                    .create_transform_8bit(src_layout, &dst, dst_layout, options)
                    .map_err(err)?;
                run(b, &t, plan, samples)?;
                Ok("")
            }
            PixelImage::U16(b) => {
                let t = self
                    .profile
                    .create_transform_16bit(src_layout, &dst, dst_layout, options)
                    .map_err(err)?;
                run(b, &t, plan, samples)?;
                Ok("")
            }
            PixelImage::F32(b) => {
                let t = self
                    .profile
                    .create_transform_f32(src_layout, &dst, dst_layout, options)
                    .map_err(err)?;
                b.as_mut_slice()
                    .iter_mut()
                    .for_each(|v| *v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) });
                run(b, &t, plan, samples)?;
                Ok(" (float samples clipped to 0..1 first)")
            }
        }
    }
}

/// Runs `transform` over `image` in bands of rows, per `plan`.
fn run<T: Sample + Default>(
    image: &mut ImageBuf<T>,
    transform: &Executor<T>,
    plan: Plan,
    samples: Samples,
) -> Result<(), ProfileError> {
    let row = image.row_len();
    let c = usize::from(image.channels());
    if row == 0 {
        return Ok(());
    }
    let fail = |e: moxcms::CmsError| ProfileError::Transform(e.to_string());
    image
        .as_mut_slice()
        .par_chunks_mut(row * ROWS_PER_TASK)
        .try_for_each(|chunk| {
            match plan {
                Plan::Pixels(_) => {
                    let src = chunk.to_vec();
                    transform.transform(&src, chunk).map_err(fail)?;
                }
                Plan::Grey => {
                    let grey: Vec<T> = chunk.iter().step_by(c).copied().collect();
                    let mut out = vec![T::default(); grey.len()];
                    transform.transform(&grey, &mut out).map_err(fail)?;
                    for (px, v) in chunk.chunks_exact_mut(c).zip(out) {
                        px[..c.min(3)].iter_mut().for_each(|s| *s = v);
                    }
                }
            }
            if samples == Samples::Cmyk {
                // The CMYK source has no alpha: the fourth sample was black ink.
                chunk.chunks_exact_mut(4).for_each(|p| p[3] = T::FULL);
            }
            Ok(())
        })
}

/// CMYK ink amounts to RGB without a profile, as libjpeg-based tools do:
/// R = (255 − C)(255 − K) / 255, rounded; alpha becomes opaque.
pub fn cmyk_to_rgb(image: &mut PixelImage) {
    fn times(a: u8, b: u8) -> u8 {
        let t = u32::from(a) * u32::from(b) + 128;
        ((t + (t >> 8)) >> 8) as u8
    }
    let PixelImage::U8(image) = image else {
        return;
    };
    image
        .as_mut_slice()
        .par_chunks_mut(4 * 1024)
        .for_each(|chunk| {
            for p in chunk.chunks_exact_mut(4) {
                let white = 255 - p[3];
                let rgba = [
                    times(255 - p[0], white),
                    times(255 - p[1], white),
                    times(255 - p[2], white),
                    255,
                ];
                p.copy_from_slice(&rgba);
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::RgbaImage;

    fn typed(image: &RgbaImage) -> PixelImage {
        PixelImage::from_rgba8(image.clone())
    }

    fn profile_bytes(profile: &ColorProfile) -> Vec<u8> {
        profile.encode().expect("encode profile")
    }

    #[test]
    fn display_p3_red_leaves_the_srgb_gamut() {
        let p3 =
            SourceProfile::parse(&profile_bytes(&ColorProfile::new_display_p3())).expect("parses");
        let mut image = RgbaImage::from_pixel(3, 2, image::Rgba([255, 0, 0, 77]));
        image.put_pixel(1, 1, image::Rgba([128, 128, 128, 255]));
        let mut pixels = typed(&image);
        p3.convert_to_srgb(&mut pixels, Samples::Colour)
            .expect("converts");
        let image = pixels.into_rgba8();
        // P3 red is outside sRGB: clipped red with no green or blue; alpha untouched.
        assert_eq!(image.get_pixel(0, 0).0, [255, 0, 0, 77]);
        // Neutral grey stays neutral (same white point and transfer curve).
        let g = image.get_pixel(1, 1).0;
        assert!(g[0].abs_diff(128) <= 1 && g[1].abs_diff(128) <= 1 && g[2].abs_diff(128) <= 1);
    }

    #[test]
    fn srgb_profile_is_near_identity_and_named() {
        let srgb = SourceProfile::parse(&profile_bytes(&ColorProfile::new_srgb())).expect("parses");
        let mut image = RgbaImage::from_fn(64, 40, |x, y| {
            image::Rgba([(x * 4) as u8, (y * 6) as u8, ((x + y) * 2) as u8, 200])
        });
        let before = image.clone();
        let mut pixels = typed(&image);
        srgb.convert_to_srgb(&mut pixels, Samples::Colour)
            .expect("converts");
        image = pixels.into_rgba8();
        for (a, b) in image.pixels().zip(before.pixels()) {
            for c in 0..4 {
                assert!(a.0[c].abs_diff(b.0[c]) <= 1, "{a:?} vs {b:?}");
            }
        }
    }

    /// The cost of a conversion on a 12 MP image (run with `--ignored --nocapture`;
    /// `RAYON_NUM_THREADS=1` for one core).
    #[test]
    #[ignore]
    fn time_display_p3_to_srgb_on_12_mp() {
        let p3 =
            SourceProfile::parse(&profile_bytes(&ColorProfile::new_display_p3())).expect("parses");
        let mut image = typed(&RgbaImage::from_fn(4000, 3000, |x, y| {
            image::Rgba([(x * 7) as u8, (y * 3) as u8, ((x ^ y) * 5) as u8, 255])
        }));
        let mut best = f64::MAX;
        for _ in 0..3 {
            let start = std::time::Instant::now();
            p3.convert_to_srgb(&mut image, Samples::Colour)
                .expect("converts");
            best = best.min(start.elapsed().as_secs_f64() * 1e3);
        }
        println!(
            "moxcms Display P3 to sRGB, 4000×3000 RGBA8: {best:.0} ms on {} threads",
            rayon::current_num_threads()
        );
    }

    #[test]
    fn garbage_and_mismatched_profiles_are_refused() {
        assert!(SourceProfile::parse(b"not a profile").is_err());
        assert!(SourceProfile::parse(&[]).is_err());
        let grey = SourceProfile::parse(&profile_bytes(&ColorProfile::new_gray_with_gamma(2.2)))
            .expect("parses");
        let mut image = typed(&RgbaImage::new(2, 2));
        let err = grey
            .convert_to_srgb(&mut image, Samples::Cmyk)
            .expect_err("grey profile on CMYK");
        assert!(err.to_string().contains("greyscale"), "{err}");
    }

    /// The 16-bit and float transforms agree with the 8-bit one (to its precision), grey
    /// stays grey.
    #[test]
    fn wide_and_grey_images_convert_in_their_own_type() {
        let p3 =
            SourceProfile::parse(&profile_bytes(&ColorProfile::new_display_p3())).expect("parses");
        let rgb = ImageBuf::<u8>::from_fn(16, 8, 3, |x, y, c| {
            (x * 13 + y * 29 + u32::from(c) * 50) as u8
        })
        .expect("size");
        let mut narrow = PixelImage::U8(rgb.clone());
        p3.convert_to_srgb(&mut narrow, Samples::Colour)
            .expect("8-bit");
        for t in [
            crate::pixels::SampleType::U16,
            crate::pixels::SampleType::F32,
        ] {
            let mut wide = PixelImage::U8(rgb.clone()).to_type(t);
            let note = p3
                .convert_to_srgb(&mut wide, Samples::Colour)
                .expect("wide");
            assert_eq!(note.is_empty(), t != crate::pixels::SampleType::F32);
            assert_eq!(wide.sample_type(), t);
            let back = wide.to_type(crate::pixels::SampleType::U8);
            let (PixelImage::U8(a), PixelImage::U8(b)) = (&back, &narrow) else {
                panic!("U8")
            };
            for (x, y) in a.as_slice().iter().zip(b.as_slice()) {
                assert!(x.abs_diff(*y) <= 1, "{t}: {x} vs {y}");
            }
        }
        let grey_profile =
            SourceProfile::parse(&profile_bytes(&ColorProfile::new_gray_with_gamma(2.2)))
                .expect("parses");
        let mut grey = PixelImage::U16(
            ImageBuf::from_fn(9, 4, 1, |x, y, _| (x * 7000 + y * 300) as u16).expect("size"),
        );
        grey_profile
            .convert_to_srgb(&mut grey, Samples::Colour)
            .expect("grey");
        assert_eq!(grey.channels(), 1);
        let PixelImage::U16(g) = &grey else {
            panic!("U16")
        };
        // Gamma 2.2 is close to the sRGB curve: values move little, black stays black.
        assert_eq!(g.pixel(0, 0)[0], 0);
        assert!(
            g.pixel(8, 3)[0].abs_diff(56900) < 1500,
            "{}",
            g.pixel(8, 3)[0]
        );
    }
}
