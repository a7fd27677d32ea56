//! A decoder's result, made upright and sRGB: the last step of every load.

use super::colour::{cmyk_to_rgb, Samples, SourceProfile};
use super::orient::orient;
use crate::pixels::PixelImage;
use image::metadata::Orientation;
use image::RgbaImage;
use std::path::{Path, PathBuf};

/// An image decoded to upright sRGB in the file's own sample type and channels (grey 1,
/// RGB 3, RGBA 4), with what was converted.
#[derive(Debug, Clone)]
pub struct LoadedImage {
    pub pixels: PixelImage,
    pub path: PathBuf,
    /// Format and layout of the file, e.g. "PNG, 16-bit grey".
    pub source_description: String,
    /// Set when the pixels were converted (grey with alpha, a PGM's maxval, EXIF rotation,
    /// ICC profile...): what the window's info panel shows.
    pub conversion_note: Option<String>,
    /// The EXIF orientation applied (1 to 8; 1 when the file has none).
    pub exif_orientation: u8,
    /// The description of the ICC profile the pixels were converted from, if any.
    pub source_profile: Option<String>,
}

impl LoadedImage {
    /// The pixels as 8-bit RGBA (a copy), by the depth and channel rules.
    pub fn rgba8(&self) -> RgbaImage {
        self.pixels.clone().into_rgba8()
    }

    /// The pixels as 8-bit RGBA, without copying when they already are.
    pub fn into_rgba8(self) -> RgbaImage {
        self.pixels.into_rgba8()
    }

    /// What showing or filtering the image as 8-bit RGBA changes, if anything.
    pub fn rgba8_note(&self) -> Option<String> {
        rgba8_note(&self.pixels)
    }
}

/// What [`PixelImage::into_rgba8`] changes in `pixels`, if anything.
pub fn rgba8_note(pixels: &PixelImage) -> Option<String> {
    (pixels.sample_type() != crate::pixels::SampleType::U8 || pixels.channels() != 4)
        .then(|| format!("{} processed as 8-bit RGBA", pixels.describe()))
}

/// A decoder's result before orientation and colour management.
pub(super) struct Decoded {
    pub image: PixelImage,
    pub description: String,
    pub note: Option<String>,
    pub samples: Samples,
    pub icc: Option<Vec<u8>>,
    pub orientation: Orientation,
}

impl Decoded {
    /// Converts to sRGB per the embedded profile, turns upright per EXIF, and says so.
    pub fn finish(mut self, path: &Path) -> LoadedImage {
        let mut notes: Vec<String> = self.note.take().into_iter().collect();
        let mut source_profile = None;
        if let Some(bytes) = self.icc.as_deref() {
            let converted = SourceProfile::parse(bytes).and_then(|p| {
                let note = p.convert_to_srgb(&mut self.image, self.samples)?;
                Ok((p.description, note))
            });
            match converted {
                Ok((name, extra)) => {
                    notes.push(format!(
                        "converted from ICC profile “{name}” to sRGB{extra}"
                    ));
                    source_profile = Some(name);
                }
                Err(e) => notes.push(format!("{e}: ignored")),
            }
        }
        if self.samples == Samples::Cmyk {
            if source_profile.is_none() {
                cmyk_to_rgb(&mut self.image);
            }
            // Ink has no alpha: the picture is RGB.
            if let Ok(rgb) = self.image.with_channels(3) {
                self.image = rgb;
            }
        }
        let value = self.orientation.to_exif();
        if self.orientation != Orientation::NoTransforms {
            self.image = crate::map_pixels!(&self.image, b => orient(b, self.orientation));
            notes.push(format!("rotated per EXIF (value {value})"));
        }
        LoadedImage {
            pixels: self.image,
            path: path.to_path_buf(),
            source_description: self.description,
            conversion_note: (!notes.is_empty()).then(|| notes.join("; ")),
            exif_orientation: value,
            source_profile,
        }
    }
}
