//! A decoder's result, made upright and sRGB: the last step of every load.

use super::colour::{cmyk_to_rgb, Samples, SourceProfile};
use crate::pixels::PixelImage;
use image::metadata::Orientation;
use image::RgbaImage;
use std::path::{Path, PathBuf};

/// An image decoded to upright sRGB RGBA8, with what was converted.
#[derive(Debug, Clone)]
pub struct LoadedImage {
    pub image: RgbaImage,
    pub path: PathBuf,
    /// Format and colour type of the file, e.g. "PNG, L8".
    pub source_description: String,
    /// Set when the pixels were converted (greyscale, 16-bit, palette, no alpha, EXIF
    /// rotation, ICC profile...): what the window's info panel shows.
    pub conversion_note: Option<String>,
    /// The EXIF orientation applied (1 to 8; 1 when the file has none).
    pub exif_orientation: u8,
    /// The description of the ICC profile the pixels were converted from, if any.
    pub source_profile: Option<String>,
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
    pub fn finish(self, path: &Path) -> LoadedImage {
        let mut notes: Vec<String> = self.note.into_iter().collect();
        let mut image = self.image.into_rgba8();
        let mut source_profile = None;
        if let Some(bytes) = self.icc.as_deref() {
            let converted = SourceProfile::parse(bytes).and_then(|p| {
                p.convert_to_srgb(&mut image, self.samples)?;
                Ok(p.description)
            });
            match converted {
                Ok(name) => {
                    notes.push(format!("converted from ICC profile “{name}” to sRGB"));
                    source_profile = Some(name);
                }
                Err(e) => notes.push(format!("{e}: ignored")),
            }
        }
        if self.samples == Samples::Cmyk && source_profile.is_none() {
            cmyk_to_rgb(&mut image);
        }
        let value = self.orientation.to_exif();
        if self.orientation != Orientation::NoTransforms {
            let mut upright = image::DynamicImage::ImageRgba8(image);
            upright.apply_orientation(self.orientation);
            image = upright.into_rgba8();
            notes.push(format!("rotated per EXIF (value {value})"));
        }
        LoadedImage {
            image,
            path: path.to_path_buf(),
            source_description: self.description,
            conversion_note: (!notes.is_empty()).then(|| notes.join("; ")),
            exif_orientation: value,
            source_profile,
        }
    }
}
