//! An RGBA8 2-D texture: the source image, the displayed result, the Mandelbrot view.

use super::destroy_guard::DestroyGuard;
use super::{check_gl, max_texture_size, GlBuffer, GlError};
use glow::HasContext;
use image::RgbaImage;

/// A texture's name and size, borrowed for one call (what frame code needs of a source
/// texture that someone else owns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureRef {
    pub id: glow::Texture,
    pub width: u32,
    pub height: u32,
}

/// GL texture with its size. Release with [`GlTexture::destroy`].
#[derive(Debug)]
pub struct GlTexture {
    pub id: glow::Texture,
    pub width: u32,
    pub height: u32,
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
        let max = max_texture_size(gl);
        if width == 0 || height == 0 || width > max || height > max {
            return Err(GlError::TooLarge { width, height, max });
        }
        let id = Self::new_name(gl)?;
        let texture = Self::from_name(id, width, height);
        texture.specify(gl, pixels)?;
        Ok(texture)
    }

    /// Its name and size.
    pub fn texture_ref(&self) -> TextureRef {
        TextureRef {
            id: self.id,
            width: self.width,
            height: self.height,
        }
    }

    /// Wraps a texture name of this context (`destroy` deletes it).
    pub(super) fn from_name(id: glow::Texture, width: u32, height: u32) -> Self {
        Self {
            id,
            width,
            height,
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

    /// (Re)allocates storage at the current size.
    fn specify(&self, gl: &glow::Context, pixels: Option<&[u8]>) -> Result<(), GlError> {
        let expected = 4 * self.width as usize * self.height as usize;
        if let Some(p) = pixels.filter(|p| p.len() != expected) {
            return Err(GlError::DataSize {
                what: "glTexImage2D",
                expected,
                got: p.len(),
            });
        }
        // SAFETY: `pixels`, when given, holds exactly width·height RGBA8 texels (checked).
        unsafe {
            gl.bind_texture(glow::TEXTURE_2D, Some(self.id));
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 4);
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                glow::RGBA8 as i32,
                self.width as i32,
                self.height as i32,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(pixels),
            );
        }
        check_gl(gl, "glTexImage2D")
    }

    /// Resizes (contents undefined). Unregister any CUDA registration first.
    pub fn resize(&mut self, gl: &glow::Context, width: u32, height: u32) -> Result<(), GlError> {
        let max = max_texture_size(gl);
        if width == 0 || height == 0 || width > max || height > max {
            return Err(GlError::TooLarge { width, height, max });
        }
        (self.width, self.height) = (width, height);
        self.specify(gl, None)
    }

    /// Uploads `image`, resizing if its size differs.
    pub fn upload(&mut self, gl: &glow::Context, image: &RgbaImage) -> Result<(), GlError> {
        if (image.width(), image.height()) != (self.width, self.height) {
            (self.width, self.height) = (image.width(), image.height());
            return self.specify(gl, Some(image.as_raw()));
        }
        self.replace_texels(gl, image)
    }

    /// Replaces the texels of rows `rows` from the same rows of `image`, which has the
    /// texture's size (a large upload spread over several frames).
    pub fn upload_rows(
        &self,
        gl: &glow::Context,
        image: &RgbaImage,
        rows: std::ops::Range<u32>,
    ) -> Result<(), GlError> {
        if (image.width(), image.height()) != (self.width, self.height)
            || rows.start >= rows.end
            || rows.end > self.height
        {
            return Err(GlError::Create {
                what: "texture rows",
                reason: format!(
                    "rows {rows:?} of a {}×{} image into a {}×{} texture",
                    image.width(),
                    image.height(),
                    self.width,
                    self.height
                ),
            });
        }
        let row_bytes = self.width as usize * 4;
        let band = &image.as_raw()[rows.start as usize * row_bytes..rows.end as usize * row_bytes];
        // SAFETY: `band` holds exactly width·(rows.end − rows.start) RGBA8 texels, and the
        // rows lie in the texture (both checked above).
        unsafe { self.sub_image(gl, rows, glow::PixelUnpackData::Slice(Some(band))) };
        check_gl(gl, "glTexSubImage2D")
    }

    /// Replaces every texel from `image`, which has the texture's size (so this also works
    /// on immutable storage, e.g. memory shared with CUDA).
    fn replace_texels(&self, gl: &glow::Context, image: &RgbaImage) -> Result<(), GlError> {
        debug_assert_eq!((image.width(), image.height()), (self.width, self.height));
        // SAFETY: the image has exactly width·height RGBA8 texels.
        unsafe {
            self.sub_image(
                gl,
                0..self.height,
                glow::PixelUnpackData::Slice(Some(image.as_raw())),
            )
        };
        check_gl(gl, "glTexSubImage2D")
    }

    /// Replaces the texels of rows `rows` (whole rows) from `data`.
    ///
    /// # Safety
    /// `rows` must lie in the texture, and `data` cover width·(rows.end − rows.start) RGBA8
    /// texels: a slice of that size, or an offset into a bound PIXEL_UNPACK_BUFFER that
    /// holds them.
    unsafe fn sub_image(
        &self,
        gl: &glow::Context,
        rows: std::ops::Range<u32>,
        data: glow::PixelUnpackData<'_>,
    ) {
        // SAFETY: guaranteed by the caller (see # Safety).
        unsafe {
            gl.bind_texture(glow::TEXTURE_2D, Some(self.id));
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 4);
            gl.tex_sub_image_2d(
                glow::TEXTURE_2D,
                0,
                0,
                rows.start as i32,
                self.width as i32,
                (rows.end - rows.start) as i32,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                data,
            );
        }
    }

    /// Fills the texture with one colour (tests poison outputs with this).
    pub fn fill(&self, gl: &glow::Context, rgba: [u8; 4]) -> Result<(), GlError> {
        let img = RgbaImage::from_pixel(self.width, self.height, image::Rgba(rgba));
        self.replace_texels(gl, &img)
    }

    /// Copies a pixel buffer of width·height RGBA8 texels into the texture on the GL side.
    pub fn upload_from_pbo(&self, gl: &glow::Context, pbo: &GlBuffer) -> Result<(), GlError> {
        if pbo.size < self.width as usize * self.height as usize * 4 {
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
        let bytes = self.width as usize * self.height as usize * 4;
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
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 4);
            gl.bind_texture(glow::TEXTURE_2D, Some(self.id));
            gl.get_tex_image(
                glow::TEXTURE_2D,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::BufferOffset(0),
            );
            gl.get_buffer_sub_data(glow::PIXEL_PACK_BUFFER, 0, &mut pixels);
            gl.bind_buffer(glow::PIXEL_PACK_BUFFER, None);
            gl.delete_buffer(pbo);
        }
        check_gl(gl, "glGetTexImage(PBO)")?;
        RgbaImage::from_raw(self.width, self.height, pixels).ok_or(GlError::Create {
            what: "readback image",
            reason: "size".into(),
        })
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
