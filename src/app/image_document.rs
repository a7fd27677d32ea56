//! The loaded image: host pixels (the CPU backend's input), its GL texture (the CUDA
//! backend's input and the "before" of the split view) and where it came from.

use crate::gl::GlTexture;
use crate::image_io::LoadedImage;
use image::RgbaImage;
use std::path::PathBuf;

pub struct ImageDocument {
    pub path: PathBuf,
    pub image: RgbaImage,
    pub texture: GlTexture,
    pub texture_id: egui::TextureId,
    pub description: String,
    pub conversion_note: Option<String>,
}

impl ImageDocument {
    /// Replaces the pixels with `loaded` (the GL texture keeps its name, so the egui id
    /// stays valid). CUDA registrations of the texture must be released first.
    pub fn replace(
        &mut self,
        gl: &glow::Context,
        loaded: LoadedImage,
    ) -> Result<(), crate::gl::GlError> {
        self.texture.upload(gl, &loaded.image)?;
        self.path = loaded.path;
        self.image = loaded.image;
        self.description = loaded.source_description;
        self.conversion_note = loaded.conversion_note;
        Ok(())
    }

    pub fn size(&self) -> (u32, u32) {
        (self.image.width(), self.image.height())
    }
}
