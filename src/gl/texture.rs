//! A 2-D texture of one [`TexelFormat`] (RGBA8 unless made otherwise): the source image,
//! the displayed result, the Mandelbrot view.

use super::destroy_guard::DestroyGuard;
use super::{check_gl, max_texture_size, GlBuffer, GlError, TexelFormat};
use glow::HasContext;
use image::RgbaImage;

/// A texture's name and size, borrowed for one call (what frame code needs of a source
/// texture that someone else owns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureRef {
    pub id: glow::Texture,
    pub width: u32,
    pub height: u32,
    pub format: TexelFormat,
}

/// GL texture with its size. Release with [`GlTexture::destroy`].
#[derive(Debug)]
pub struct GlTexture {
    pub id: glow::Texture,
    pub width: u32,
    pub height: u32,
    pub format: TexelFormat,
    guard: DestroyGuard,
}

impl GlTexture {
    /// Creates a `width × height` GL_RGBA8 texture, filled from `pixels` when given.
    pub fn new(
        gl: &glow::Context,
        width: u32,
        height: u32,
        pixels: Option<&[u8]>,
    ) -> Result<Self, GlError> {
        Self::with_format(gl, width, height, TexelFormat::RGBA8, pixels)
    }

    /// Creates a `width × height` texture of `format`, filled from `texels` (tightly
    /// packed, in `format`) when given.
    pub fn with_format(
        gl: &glow::Context,
        width: u32,
        height: u32,
        format: TexelFormat,
        texels: Option<&[u8]>,
    ) -> Result<Self, GlError> {
        check_size(gl, width, height)?;
        let id = Self::new_name(gl)?;
        let texture = Self::from_name(id, width, height, format);
        if let Err(e) = texture.specify(gl, texels) {
            texture.destroy(gl);
            return Err(e);
        }
        Ok(texture)
    }

    /// Its name and size.
    pub fn texture_ref(&self) -> TextureRef {
        TextureRef {
            id: self.id,
            width: self.width,
            height: self.height,
            format: self.format,
        }
    }

    /// Wraps a texture name of this context (`destroy` deletes it).
    pub(super) fn from_name(
        id: glow::Texture,
        width: u32,
        height: u32,
        format: TexelFormat,
    ) -> Self {
        Self {
            id,
            width,
            height,
            format,
            guard: DestroyGuard::new("GlTexture"),
        }
    }

    /// A new texture name, bound to TEXTURE_2D, with the sampling every texture here uses
    /// (linear minification, nearest magnification, clamped edges); no storage yet.
    pub(super) fn new_name(gl: &glow::Context) -> Result<glow::Texture, GlError> {
        // SAFETY: a new texture name, bound and given parameters only.
        unsafe {
            let id = gl.create_texture().map_err(|reason| GlError::Create {
                what: "texture",
                reason,
            })?;
            gl.bind_texture(glow::TEXTURE_2D, Some(id));
            for (name, value) in [
                (glow::TEXTURE_MIN_FILTER, glow::LINEAR),
                (glow::TEXTURE_MAG_FILTER, glow::NEAREST),
                (glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE),
                (glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE),
            ] {
                gl.tex_parameter_i32(glow::TEXTURE_2D, name, value as i32);
            }
            Ok(id)
        }
    }

    /// (Re)allocates storage at the current size and format.
    fn specify(&self, gl: &glow::Context, texels: Option<&[u8]>) -> Result<(), GlError> {
        if let Some(t) = texels {
            self.check_texels("glTexImage2D", t.len(), self.height)?;
        }
        let f = self.format;
        // SAFETY: `texels`, when given, holds exactly width·height texels of the format
        // (checked), rows packed (alignment 1).
        unsafe {
            gl.bind_texture(glow::TEXTURE_2D, Some(self.id));
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                f.internal as i32,
                self.width as i32,
                self.height as i32,
                0,
                f.format,
                f.ty,
                glow::PixelUnpackData::Slice(texels),
            );
        }
        check_gl(gl, "glTexImage2D")
    }

    /// Fails unless `bytes` are exactly `rows` rows of the texture's texels.
    fn check_texels(&self, what: &'static str, bytes: usize, rows: u32) -> Result<(), GlError> {
        let expected = self.format.image_bytes(self.width, rows);
        if bytes == expected {
            return Ok(());
        }
        Err(GlError::DataSize {
            what,
            expected,
            got: bytes,
        })
    }

    /// Fails unless the texture holds RGBA8 texels (for the calls that take or give an
    /// `RgbaImage`).
    fn check_rgba8(&self, what: &'static str) -> Result<(), GlError> {
        if self.format == TexelFormat::RGBA8 {
            return Ok(());
        }
        Err(GlError::NotRgba8 {
            what,
            format: self.format.name,
        })
    }

    /// Resizes (contents undefined), keeping the format. Unregister any CUDA registration
    /// first.
    pub fn resize(&mut self, gl: &glow::Context, width: u32, height: u32) -> Result<(), GlError> {
        self.respecify(gl, width, height, self.format)
    }

    /// Gives the texture new storage of `width × height` texels of `format` (contents
    /// undefined). Unregister any CUDA registration first.
    pub fn respecify(
        &mut self,
        gl: &glow::Context,
        width: u32,
        height: u32,
        format: TexelFormat,
    ) -> Result<(), GlError> {
        check_size(gl, width, height)?;
        (self.width, self.height, self.format) = (width, height, format);
        self.specify(gl, None)
    }

    /// Uploads `image`, re-specifying the texture as RGBA8 of its size if it differs.
    pub fn upload(&mut self, gl: &glow::Context, image: &RgbaImage) -> Result<(), GlError> {
        let (w, h) = image.dimensions();
        self.upload_texels(gl, (w, h), TexelFormat::RGBA8, image.as_raw())
    }

    /// Uploads `texels` (`width × height` of `format`, rows packed), re-specifying the
    /// texture when its size or format differs.
    pub fn upload_texels(
        &mut self,
        gl: &glow::Context,
        (width, height): (u32, u32),
        format: TexelFormat,
        texels: &[u8],
    ) -> Result<(), GlError> {
        if (width, height, format) != (self.width, self.height, self.format) {
            check_size(gl, width, height)?;
            let expected = format.image_bytes(width, height);
            if texels.len() != expected {
                let got = texels.len();
                let what = "glTexImage2D";
                return Err(GlError::DataSize {
                    what,
                    expected,
                    got,
                });
            }
            (self.width, self.height, self.format) = (width, height, format);
            return self.specify(gl, Some(texels));
        }
        self.replace_texels(gl, texels)
    }

    /// Replaces the texels of rows `rows` from the same rows of `image`, which has the
    /// texture's size (a large upload spread over several frames).
    pub fn upload_rows(
        &self,
        gl: &glow::Context,
        image: &RgbaImage,
        rows: std::ops::Range<u32>,
    ) -> Result<(), GlError> {
        self.check_rgba8("texture rows")?;
        if (image.width(), image.height()) != (self.width, self.height) {
            return Err(rows_error(rows, image.dimensions(), self));
        }
        self.upload_texel_rows(gl, image.as_raw(), rows)
    }

    /// Replaces the texels of rows `rows` from the same rows of `texels`: a whole image of
    /// the texture's size and format, rows packed (a large upload spread over frames).
    pub fn upload_texel_rows(
        &self,
        gl: &glow::Context,
        texels: &[u8],
        rows: std::ops::Range<u32>,
    ) -> Result<(), GlError> {
        if rows.start >= rows.end || rows.end > self.height {
            return Err(rows_error(rows, (self.width, self.height), self));
        }
        self.check_texels("texture rows", texels.len(), self.height)?;
        let row_bytes = self.format.image_bytes(self.width, 1);
        let band = &texels[rows.start as usize * row_bytes..rows.end as usize * row_bytes];
        // SAFETY: `band` holds exactly width·(rows.end − rows.start) texels of the format,
        // and the rows lie in the texture (both checked above).
        unsafe { self.sub_image(gl, rows, glow::PixelUnpackData::Slice(Some(band))) };
        check_gl(gl, "glTexSubImage2D")
    }

    /// Replaces every texel from `texels` (the texture's size and format, rows packed; so
    /// this also works on immutable storage, e.g. memory shared with CUDA).
    fn replace_texels(&self, gl: &glow::Context, texels: &[u8]) -> Result<(), GlError> {
        self.check_texels("glTexSubImage2D", texels.len(), self.height)?;
        // SAFETY: `texels` holds exactly width·height texels of the format (checked).
        unsafe {
            self.sub_image(
                gl,
                0..self.height,
                glow::PixelUnpackData::Slice(Some(texels)),
            )
        };
        check_gl(gl, "glTexSubImage2D")
    }

    /// Replaces the texels of rows `rows` (whole rows) from `data`.
    ///
    /// # Safety
    /// `rows` must lie in the texture, and `data` cover width·(rows.end − rows.start)
    /// texels of the texture's format: a slice of that size, or an offset into a bound
    /// PIXEL_UNPACK_BUFFER that holds them.
    unsafe fn sub_image(
        &self,
        gl: &glow::Context,
        rows: std::ops::Range<u32>,
        data: glow::PixelUnpackData<'_>,
    ) {
        // SAFETY: guaranteed by the caller (see # Safety).
        unsafe {
            gl.bind_texture(glow::TEXTURE_2D, Some(self.id));
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
            gl.tex_sub_image_2d(
                glow::TEXTURE_2D,
                0,
                0,
                rows.start as i32,
                self.width as i32,
                (rows.end - rows.start) as i32,
                self.format.format,
                self.format.ty,
                data,
            );
        }
    }

    /// Fills the texture with one colour (tests poison outputs with this); RGBA8 only.
    pub fn fill(&self, gl: &glow::Context, rgba: [u8; 4]) -> Result<(), GlError> {
        self.check_rgba8("fill")?;
        self.fill_texel(gl, &rgba)
    }

    /// Fills every texel with `texel`: the bytes of one texel in the texture's format
    /// (tests poison outputs of any format with this).
    pub fn fill_texel(&self, gl: &glow::Context, texel: &[u8]) -> Result<(), GlError> {
        self.check_texels("fill", texel.len() * self.width as usize, 1)?;
        let texels = texel.repeat(self.width as usize * self.height as usize);
        self.replace_texels(gl, &texels)
    }

    /// Copies a pixel buffer of width·height texels into the texture on the GL side.
    pub fn upload_from_pbo(&self, gl: &glow::Context, pbo: &GlBuffer) -> Result<(), GlError> {
        if pbo.size < self.format.image_bytes(self.width, self.height) {
            return Err(GlError::Create {
                what: "PBO upload",
                reason: "buffer smaller than texture".into(),
            });
        }
        // SAFETY: with the PIXEL_UNPACK_BUFFER bound, offset 0 addresses a buffer large
        // enough for the whole texture (checked above); it is unbound afterwards.
        unsafe {
            gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, Some(pbo.id));
            self.sub_image(gl, 0..self.height, glow::PixelUnpackData::BufferOffset(0));
            gl.bind_buffer(glow::PIXEL_UNPACK_BUFFER, None);
        }
        check_gl(gl, "glTexSubImage2D(PBO)")
    }

    /// Reads the texture back (saving results, tests) through a pixel-pack buffer:
    /// `glGetTexImage` into a buffer the driver keeps in cached memory (`STREAM_READ`), then
    /// one copy out. Reading into client memory with `glReadPixels` ran at about 9 MB/s on
    /// the NVIDIA driver (14.6 s for 7680×4320).
    pub fn read(&self, gl: &glow::Context) -> Result<RgbaImage, GlError> {
        self.check_rgba8("readback")?;
        let pixels = self.read_texels(gl)?;
        RgbaImage::from_raw(self.width, self.height, pixels).ok_or(GlError::Create {
            what: "readback image",
            reason: "size".into(),
        })
    }

    /// Reads every texel back in the texture's format, rows packed (as [`GlTexture::read`]).
    pub fn read_texels(&self, gl: &glow::Context) -> Result<Vec<u8>, GlError> {
        let bytes = self.format.image_bytes(self.width, self.height);
        let mut pixels = vec![0u8; bytes];
        // SAFETY: a temporary PIXEL_PACK buffer of exactly `bytes`; with it bound the
        // texture is written at offset 0, then copied into `pixels` (same size); the buffer
        // is unbound and deleted before returning.
        unsafe {
            let pbo = gl.create_buffer().map_err(|reason| GlError::Create {
                what: "pack buffer",
                reason,
            })?;
            gl.bind_buffer(glow::PIXEL_PACK_BUFFER, Some(pbo));
            gl.buffer_data_size(glow::PIXEL_PACK_BUFFER, bytes as i32, glow::STREAM_READ);
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
            gl.bind_texture(glow::TEXTURE_2D, Some(self.id));
            gl.get_tex_image(
                glow::TEXTURE_2D,
                0,
                self.format.format,
                self.format.ty,
                glow::PixelPackData::BufferOffset(0),
            );
            gl.get_buffer_sub_data(glow::PIXEL_PACK_BUFFER, 0, &mut pixels);
            gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
            gl.delete_buffer(pbo);
        }
        check_gl(gl, "glGetTexImage(PBO)")?;
        Ok(pixels)
    }

    /// Reads one texel (the pixel inspector).
    pub fn read_pixel(&self, gl: &glow::Context, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let mut px = [0u8; 4];
        // SAFETY: as in `read`, for a 1×1 region inside the texture.
        unsafe {
            let fbo = gl.create_framebuffer().ok()?;
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, Some(fbo));
            gl.framebuffer_texture_2d(
                glow::READ_FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                Some(self.id),
                0,
            );
            gl.read_pixels(
                x as i32,
                y as i32,
                1,
                1,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut px)),
            );
            gl.bind_framebuffer(glow::READ_FRAMEBUFFER, None);
            gl.delete_framebuffer(fbo);
        }
        check_gl(gl, "glReadPixels(1x1)").ok().map(|_| px)
    }

    /// Deletes the GL texture.
    pub fn destroy(mut self, gl: &glow::Context) {
        // SAFETY: the name belongs to this context and is not used afterwards.
        unsafe { gl.delete_texture(self.id) };
        self.guard.disarm();
    }
}

/// Refuses an empty size or one over the GPU's texture limit.
fn check_size(gl: &glow::Context, width: u32, height: u32) -> Result<(), GlError> {
    let max = max_texture_size(gl);
    if width == 0 || height == 0 || width > max || height > max {
        return Err(GlError::TooLarge { width, height, max });
    }
    Ok(())
}

/// Rows `rows` of an image of `size` that do not fit `texture`.
fn rows_error(rows: std::ops::Range<u32>, size: (u32, u32), texture: &GlTexture) -> GlError {
    GlError::Create {
        what: "texture rows",
        reason: format!(
            "rows {rows:?} of a {}×{} image into a {}×{} texture",
            size.0, size.1, texture.width, texture.height
        ),
    }
}
