//! What each output format holds, and the conversions an image needs to be saved in one:
//! by the depth and channel rules of `crate::pixels`, each listed so the caller can say so.

use crate::pixels::{PixelImage, PixelsError, SampleType};
use std::borrow::Cow;
use std::fmt;
use std::path::Path;

/// A format images are saved in, named by the output's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveFormat {
    Png,
    Jpeg,
    Tiff,
    Bmp,
    WebP,
    Exr,
    /// `.pgm`: grey only.
    Pgm,
    /// `.ppm`: RGB only.
    Ppm,
    /// `.pnm`: grey or RGB.
    Pnm,
}

impl SaveFormat {
    /// The format an extension names (any case), if it can be written.
    pub fn from_extension(ext: &str) -> Option<Self> {
        Some(match ext.to_ascii_lowercase().as_str() {
            "png" => Self::Png,
            "jpg" | "jpeg" => Self::Jpeg,
            "tif" | "tiff" => Self::Tiff,
            "bmp" => Self::Bmp,
            "webp" => Self::WebP,
            "exr" => Self::Exr,
            "pgm" => Self::Pgm,
            "ppm" => Self::Ppm,
            "pnm" => Self::Pnm,
            _ => return None,
        })
    }

    /// The format of `path`'s extension.
    pub fn of_path(path: &Path) -> Option<Self> {
        Self::from_extension(path.extension()?.to_str()?)
    }

    /// The name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Png => "PNG",
            Self::Jpeg => "JPEG",
            Self::Tiff => "TIFF",
            Self::Bmp => "BMP",
            Self::WebP => "WebP",
            Self::Exr => "EXR",
            Self::Pgm => "PGM",
            Self::Ppm => "PPM",
            Self::Pnm => "PNM",
        }
    }

    /// The sample types it holds.
    pub fn holds_type(self, t: SampleType) -> bool {
        match self {
            Self::Tiff => true,
            Self::Exr => t == SampleType::F32,
            Self::Png | Self::Pgm | Self::Ppm | Self::Pnm => t != SampleType::F32,
            Self::Jpeg | Self::Bmp | Self::WebP => t == SampleType::U8,
        }
    }

    /// The channel counts it holds.
    pub fn holds_channels(self, channels: u8) -> bool {
        match self {
            Self::Pgm => channels == 1,
            Self::Ppm => channels == 3,
            Self::Pnm => channels != 4,
            Self::Jpeg => channels != 4,
            // The image crate writes grey BMP and WebP as colour.
            Self::Bmp | Self::WebP => channels != 1,
            _ => true,
        }
    }

    /// The type `t` is saved as: itself if held, else the nearest the format holds.
    fn type_for(self, t: SampleType) -> SampleType {
        if self.holds_type(t) {
            t
        } else if self.holds_type(SampleType::U16) {
            SampleType::U16
        } else if self.holds_type(SampleType::U8) {
            SampleType::U8
        } else {
            SampleType::F32
        }
    }

    /// The channels `c` are saved as: itself if held, else RGB (for alpha or grey) or grey.
    fn channels_for(self, c: u8) -> u8 {
        if self.holds_channels(c) {
            c
        } else if self.holds_channels(3) {
            3
        } else {
            1
        }
    }
}

/// A change made to an image so that its format can hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaveConversion {
    /// Samples stored as `to`: the format holds no `from` samples.
    Depth {
        from: SampleType,
        to: SampleType,
        format: SaveFormat,
    },
    /// Channels changed (grey repeated as RGB, or RGB to luma, or an opaque alpha dropped).
    Channels {
        from: u8,
        to: u8,
        format: SaveFormat,
    },
    /// A non-opaque alpha channel dropped.
    Transparency { format: SaveFormat },
}

fn layout(channels: u8) -> &'static str {
    match channels {
        1 => "grey",
        3 => "RGB",
        _ => "RGBA",
    }
}

impl SaveConversion {
    /// Whether information that matters is lost (printed as a warning).
    pub fn is_warning(&self) -> bool {
        matches!(self, Self::Transparency { .. })
    }
}

impl fmt::Display for SaveConversion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Depth { from, to, format } => write!(
                f,
                "saved as {to}: {} holds no {from} samples",
                format.name()
            ),
            Self::Channels { from, to, format } => write!(
                f,
                "saved as {}: {} holds no {} images",
                layout(*to),
                format.name(),
                layout(*from)
            ),
            Self::Transparency { format } => write!(
                f,
                "saved without alpha: {} has no alpha channel, the transparency is dropped",
                format.name()
            ),
        }
    }
}

/// `image` as `format` holds it, asked for in `depth` (or its own type), and the
/// conversions that took (a borrowed image when none did).
pub fn fit_to_format(
    image: &PixelImage,
    format: SaveFormat,
    depth: Option<SampleType>,
) -> Result<(Cow<'_, PixelImage>, Vec<SaveConversion>), PixelsError> {
    let mut notes = Vec::new();
    let mut out = Cow::Borrowed(image);
    let (from_c, to_c) = (image.channels(), format.channels_for(image.channels()));
    if to_c != from_c {
        if from_c == 4 && image.has_transparency() {
            notes.push(SaveConversion::Transparency { format });
        } else if from_c != 4 {
            notes.push(SaveConversion::Channels {
                from: from_c,
                to: to_c,
                format,
            });
        }
        out = Cow::Owned(out.with_channels(to_c)?);
    }
    let wanted = depth.unwrap_or(image.sample_type());
    if wanted != out.sample_type() {
        out = Cow::Owned(out.to_type(wanted));
    }
    let stored = format.type_for(wanted);
    if stored != wanted {
        notes.push(SaveConversion::Depth {
            from: wanted,
            to: stored,
            format,
        });
        out = Cow::Owned(out.to_type(stored));
    }
    Ok((out, notes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pixels::ImageBuf;

    fn image(t: SampleType, c: u8) -> PixelImage {
        let b = ImageBuf::<u16>::from_fn(3, 2, c, |x, y, ch| {
            (x * 20000 + y * 9 + u32::from(ch)) as u16
        })
        .expect("size");
        PixelImage::U16(b).to_type(t)
    }

    #[test]
    fn held_layouts_are_borrowed_unchanged() {
        for (format, t, c) in [
            (SaveFormat::Tiff, SampleType::F32, 1),
            (SaveFormat::Png, SampleType::U16, 4),
            (SaveFormat::Exr, SampleType::F32, 3),
            (SaveFormat::Pgm, SampleType::U16, 1),
            (SaveFormat::Ppm, SampleType::U8, 3),
            (SaveFormat::Jpeg, SampleType::U8, 1),
        ] {
            let img = image(t, c);
            let (out, notes) = fit_to_format(&img, format, None).expect("fits");
            assert!(matches!(out, Cow::Borrowed(_)), "{format:?}");
            assert!(notes.is_empty());
        }
    }

    #[test]
    fn conversions_are_listed_in_words() {
        let img = image(SampleType::U16, 3);
        let (out, notes) = fit_to_format(&img, SaveFormat::Jpeg, None).expect("fits");
        assert_eq!(out.sample_type(), SampleType::U8);
        assert_eq!(notes.len(), 1);
        assert_eq!(
            notes[0].to_string(),
            "saved as 8-bit: JPEG holds no 16-bit samples"
        );
        let (out, notes) = fit_to_format(&img, SaveFormat::Pgm, None).expect("fits");
        assert_eq!(out.describe(), "16-bit grey");
        assert_eq!(
            notes[0].to_string(),
            "saved as grey: PGM holds no RGB images"
        );
        let float_grey = image(SampleType::F32, 1);
        let (out, notes) = fit_to_format(&float_grey, SaveFormat::Png, None).expect("fits");
        assert_eq!(out.describe(), "16-bit grey");
        assert_eq!(
            notes[0].to_string(),
            "saved as 16-bit: PNG holds no 32-bit float samples"
        );
        let (_, notes) =
            fit_to_format(&image(SampleType::U8, 4), SaveFormat::Exr, None).expect("fits");
        assert_eq!(
            notes[0].to_string(),
            "saved as 32-bit float: EXR holds no 8-bit samples"
        );
        let (out, notes) =
            fit_to_format(&img, SaveFormat::Tiff, Some(SampleType::F32)).expect("fits");
        assert_eq!(out.describe(), "32-bit float RGB");
        assert!(notes.is_empty(), "asked for: no note");
        let translucent = image(SampleType::U8, 4);
        let (_, notes) = fit_to_format(&translucent, SaveFormat::Jpeg, None).expect("fits");
        assert!(notes[0].is_warning(), "{notes:?}");
    }
}
