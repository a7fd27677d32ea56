//! Colour management on load: pixels described by an embedded ICC profile are converted
//! to sRGB with moxcms (pure Rust, already the image crate's colour engine). An image
//! without a profile is taken as sRGB and left untouched.

use image::RgbaImage;
use moxcms::{ColorProfile, DataColorSpace, Layout, ProfileText, TransformOptions};
use rayon::prelude::*;

/// Pixels per parallel task of a conversion.
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
    /// RGBA8 (greyscale already expanded to R = G = B).
    Rgba,
    /// CMYK ink amounts, one byte each, in the four channels.
    Cmyk,
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

    /// Converts `image` (holding `samples`) to sRGB RGBA8 in place; alpha is kept.
    pub fn convert_to_srgb(
        &self,
        image: &mut RgbaImage,
        samples: Samples,
    ) -> Result<(), ProfileError> {
        let space = self.profile.color_space;
        let src_layout = match (space, samples) {
            (DataColorSpace::Rgb, Samples::Rgba) => Layout::Rgba,
            (DataColorSpace::Gray, Samples::Rgba) => Layout::GrayAlpha,
            (DataColorSpace::Cmyk, Samples::Cmyk) => Layout::Rgba,
            (_, Samples::Rgba) => {
                return Err(ProfileError::Mismatch {
                    profile: space_name(space),
                    image: "RGB",
                })
            }
            (_, Samples::Cmyk) => {
                return Err(ProfileError::Mismatch {
                    profile: space_name(space),
                    image: "CMYK",
                })
            }
        };
        let srgb = ColorProfile::new_srgb();
        let transform = self
            .profile
            .create_transform_8bit(src_layout, &srgb, Layout::Rgba, TransformOptions::default())
            .map_err(|e| ProfileError::Transform(e.to_string()))?;
        let row = image.width() as usize * 4;
        if row == 0 {
            return Ok(());
        }
        let gray = src_layout == Layout::GrayAlpha;
        image
            .par_chunks_mut(row * ROWS_PER_TASK)
            .try_for_each(|chunk| {
                let src: Vec<u8> = if gray {
                    chunk.chunks_exact(4).flat_map(|p| [p[0], p[3]]).collect()
                } else {
                    chunk.to_vec()
                };
                transform
                    .transform(&src, chunk)
                    .map_err(|e| ProfileError::Transform(e.to_string()))?;
                if samples == Samples::Cmyk {
                    // The CMYK source has no alpha: the fourth byte was black ink.
                    chunk.chunks_exact_mut(4).for_each(|p| p[3] = 255);
                }
                Ok(())
            })
    }
}

/// CMYK ink amounts to RGB without a profile, as libjpeg-based tools do:
/// R = (255 − C)(255 − K) / 255, rounded; alpha becomes opaque.
pub fn cmyk_to_rgb(image: &mut RgbaImage) {
    fn times(a: u8, b: u8) -> u8 {
        let t = u32::from(a) * u32::from(b) + 128;
        ((t + (t >> 8)) >> 8) as u8
    }
    image.par_chunks_mut(4 * 1024).for_each(|chunk| {
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

    fn profile_bytes(profile: &ColorProfile) -> Vec<u8> {
        profile.encode().expect("encode profile")
    }

    #[test]
    fn display_p3_red_leaves_the_srgb_gamut() {
        let p3 =
            SourceProfile::parse(&profile_bytes(&ColorProfile::new_display_p3())).expect("parses");
        let mut image = RgbaImage::from_pixel(3, 2, image::Rgba([255, 0, 0, 77]));
        image.put_pixel(1, 1, image::Rgba([128, 128, 128, 255]));
        p3.convert_to_srgb(&mut image, Samples::Rgba)
            .expect("converts");
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
        srgb.convert_to_srgb(&mut image, Samples::Rgba)
            .expect("converts");
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
        let mut image = RgbaImage::from_fn(4000, 3000, |x, y| {
            image::Rgba([(x * 7) as u8, (y * 3) as u8, ((x ^ y) * 5) as u8, 255])
        });
        let mut best = f64::MAX;
        for _ in 0..3 {
            let start = std::time::Instant::now();
            p3.convert_to_srgb(&mut image, Samples::Rgba)
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
        let mut image = RgbaImage::new(2, 2);
        let err = grey
            .convert_to_srgb(&mut image, Samples::Cmyk)
            .expect_err("grey profile on CMYK");
        assert!(err.to_string().contains("greyscale"), "{err}");
    }
}
