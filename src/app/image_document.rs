//! The loaded image: the RGBA8 host pixels (the CPU backend's input), the file's channel
//! count (8-bit results save back in it; typed pixels live in `typed::TypedView`), the egui id of its GL texture (the "before" of the
//! split view; the texture itself is the frame runner's source) and where it came from.

use crate::image_io::LoadedImage;
use crate::pixels::PixelImage;
use image::RgbaImage;
use std::path::PathBuf;
use std::sync::Arc;

pub struct ImageDocument {
    pub path: PathBuf,
    /// Shared with background work on the pixels.
    pub image: Arc<RgbaImage>,
    /// The file's channel count (edits do not change it).
    pub channels: u8,
    /// Points at `FrameRunner::source` (re-pointed every frame: the name changes with the
    /// size on the external-memory path).
    pub texture_id: egui::TextureId,
    pub description: String,
    pub conversion_note: Option<String>,
}

/// What the window does with `pixels`: 8-bit ones run as RGBA8 (the note says when that
/// widens them); 16-bit and float ones show through their display window.
fn rgba8_or_display_note(pixels: &PixelImage) -> Option<String> {
    match super::typed::runs_as_rgba8(pixels) {
        true => crate::image_io::rgba8_note(pixels),
        false => Some(format!(
            "{} shown through Brightness/Contrast (Ctrl+Shift+C)",
            pixels.describe()
        )),
    }
}

impl ImageDocument {
    /// Takes `loaded` as the document, its pixels moved into RGBA8 (no copy when they
    /// already are; typed ones are kept by the typed view): `image` gets them before they
    /// are stored (the runner loads them), and the note says what the RGBA8 form changed.
    pub fn replace<E>(
        &mut self,
        loaded: LoadedImage,
        image: impl FnOnce(&RgbaImage) -> Result<(), E>,
    ) -> Result<(), E> {
        let notes: Vec<String> = loaded
            .conversion_note
            .into_iter()
            .chain(rgba8_or_display_note(&loaded.pixels))
            .collect();
        let channels = loaded.pixels.channels();
        let rgba = loaded.pixels.into_rgba8();
        image(&rgba)?;
        self.path = loaded.path;
        self.channels = channels;
        self.image = Arc::new(rgba);
        self.description = loaded.source_description;
        self.conversion_note = (!notes.is_empty()).then(|| notes.join("; "));
        Ok(())
    }

    pub fn size(&self) -> (u32, u32) {
        (self.image.width(), self.image.height())
    }
}
