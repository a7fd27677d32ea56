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
    /// Takes `loaded` as the document (its pixels already loaded into the runner).
    pub fn replace(&mut self, loaded: LoadedImage) {
        self.path = loaded.path;
        self.image = Arc::new(loaded.image);
        self.description = loaded.source_description;
        self.conversion_note = loaded.conversion_note;
    }

    pub fn size(&self) -> (u32, u32) {
        (self.image.width(), self.image.height())
    }
}
