//! The display on the GPU: typed pixels into a [`TypedTexture`], the settings as the
//! shader's uniforms and LUT (`gl::DisplayRenderer` draws them into an RGBA8 texture).

use super::mapping::DisplaySettings;
use crate::gl::{DisplayRenderer, DisplayUniforms, GlError, GlTexture, TexelData, TypedTexture};
use crate::pixels::PixelImage;

/// The samples of `image` as texel data.
fn texel_data(image: &PixelImage) -> TexelData<'_> {
    match image {
        PixelImage::U8(b) => TexelData::U8(b.as_slice()),
        PixelImage::U16(b) => TexelData::U16(b.as_slice()),
        PixelImage::F32(b) => TexelData::F32(b.as_slice()),
    }
}

/// A texture holding `image`'s samples in their own type.
pub fn upload_pixels(gl: &glow::Context, image: &PixelImage) -> Result<TypedTexture, GlError> {
    let (w, h) = image.dimensions();
    TypedTexture::new(gl, w, h, image.channels(), texel_data(image))
}

/// Replaces a texture's samples with `image`'s.
pub fn reupload_pixels(
    gl: &glow::Context,
    texture: &mut TypedTexture,
    image: &PixelImage,
) -> Result<(), GlError> {
    let (w, h) = image.dimensions();
    texture.upload(gl, w, h, image.channels(), texel_data(image))
}

/// The shader's uniforms for `settings`.
pub fn display_uniforms(settings: &DisplaySettings) -> DisplayUniforms {
    let r = &settings.ranges;
    DisplayUniforms {
        min: r.map(|r| r.min as f32),
        max: r.map(|r| r.max as f32),
        inv_gamma: r.map(|r| (1.0 / r.gamma) as f32),
    }
}

/// Draws `source` into `target` as `settings` show it (LUT included).
pub fn render_display(
    gl: &glow::Context,
    renderer: &mut DisplayRenderer,
    source: &TypedTexture,
    settings: &DisplaySettings,
    target: &mut GlTexture,
) -> Result<(), GlError> {
    renderer.set_lut(gl, &settings.lut.rgba_table())?;
    renderer.render(gl, source, &display_uniforms(settings), target)
}
