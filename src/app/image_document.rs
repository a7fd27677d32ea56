//! The loaded image: host pixels (the CPU backend's input), the egui id of its GL texture
//! (the "before" of the split view; the texture itself is the frame runner's source) and
//! where it came from.

use crate::image_io::LoadedImage;
use image::RgbaImage;
use std::path::PathBuf;
use std::sync::Arc;

pub struct ImageDocument {
    pub path: PathBuf,
    /// Shared with background work on the pixels.
    pub image: Arc<RgbaImage>,
    /// Points at `FrameRunner::source` (re-pointed every frame: the name changes with the
    /// size on the external-memory path).
    pub texture_id: egui::TextureId,
    pub description: String,
    pub conversion_note: Option<String>,
}

impl ImageDocument {
    /// Takes `loaded` as the document, with `image` its RGBA8 pixels (already loaded into
    /// the runner); the note says what the RGBA8 form changed.
    pub fn replace(&mut self, loaded: LoadedImage, image: RgbaImage) {
        let notes: Vec<String> = loaded
            .conversion_note
            .clone()
            .into_iter()
            .chain(loaded.rgba8_note())
            .collect();
        self.path = loaded.path;
        self.image = Arc::new(image);
        self.description = loaded.source_description;
        self.conversion_note = (!notes.is_empty()).then(|| notes.join("; "));
    }

    pub fn size(&self) -> (u32, u32) {
        (self.image.width(), self.image.height())
    }
}
