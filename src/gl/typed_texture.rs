//! A 2-D texture of typed samples (8-bit, 16-bit or float; 1, 3 or 4 channels) in the
//! matching internal format: R8, R16, R32F for grey; RGBA8, RGBA16, RGBA32F for colour.
//! Three-channel pixels go up as GL_RGB with unpack alignment 1 (GL adds alpha = 1), so no
//! host copy widens them. Sampled with `texelFetch` (nearest, no mipmaps).

use super::destroy_guard::DestroyGuard;
use super::{check_gl, max_texture_size, GlError};
use glow::HasContext;

/// Samples of one type, interleaved, rows top to bottom without padding.
#[derive(Debug, Clone, Copy)]
pub enum TexelData<'a> {
    U8(&'a [u8]),
    U16(&'a [u16]),
    F32(&'a [f32]),
}

impl TexelData<'_> {
    fn len(&self) -> usize {
        match self {
            TexelData::U8(s) => s.len(),
            TexelData::U16(s) => s.len(),
            TexelData::F32(s) => s.len(),
        }
    }

    /// The samples' bytes in native order.
    fn bytes(&self) -> &[u8] {
        match self {
            TexelData::U8(s) => s,
            // SAFETY: u16 and f32 have no padding and every byte pattern is a valid u8; the
            // byte slice covers exactly the same memory (size_of_val) with alignment 1.
            TexelData::U16(s) => unsafe {
                std::slice::from_raw_parts(s.as_ptr().cast(), std::mem::size_of_val(*s))
            },
            // SAFETY: as above.
            TexelData::F32(s) => unsafe {
                std::slice::from_raw_parts(s.as_ptr().cast(), std::mem::size_of_val(*s))
            },
        }
    }

    /// GL's pixel type of the samples.
    fn gl_type(&self) -> u32 {
        match self {
            TexelData::U8(_) => glow::UNSIGNED_BYTE,
            TexelData::U16(_) => glow::UNSIGNED_SHORT,
            TexelData::F32(_) => glow::FLOAT,
        }
    }

    /// The internal format for `channels` channels of these samples.
    fn internal_format(&self, channels: u8) -> u32 {
        match (self, channels) {
            (TexelData::U8(_), 1) => glow::R8,
            (TexelData::U16(_), 1) => glow::R16,
            (TexelData::F32(_), 1) => glow::R32F,
            (TexelData::U8(_), _) => glow::RGBA8,
            (TexelData::U16(_), _) => glow::RGBA16,
            (TexelData::F32(_), _) => glow::RGBA32F,
        }
    }
}

/// The kind of samples a [`TypedTexture`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexelKind {
    U8,
    U16,
    F32,
}

/// Typed pixels on the GPU. Release with [`TypedTexture::destroy`].
#[derive(Debug)]
pub struct TypedTexture {
    pub id: glow::Texture,
    pub width: u32,
    pub height: u32,
    pub channels: u8,
    pub kind: TexelKind,
    guard: DestroyGuard,
}

impl TypedTexture {
    /// A `width × height` texture of `channels` (1, 3 or 4) channels holding `data`.
    pub fn new(
        gl: &glow::Context,
        width: u32,
        height: u32,
        channels: u8,
        data: TexelData<'_>,
    ) -> Result<Self, GlError> {
        let max = max_texture_size(gl);
        if width == 0 || height == 0 || width > max || height > max {
            return Err(GlError::TooLarge { width, height, max });
        }
        let id = super::texture::GlTexture::new_name(gl)?;
        let mut texture = Self {
            id,
            width,
            height,
            channels,
            kind: TexelKind::U8,
            guard: DestroyGuard::new("TypedTexture"),
        };
        // SAFETY: the texture is bound by new_name; nearest sampling suits texelFetch.
        unsafe {
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MIN_FILTER,
                glow::NEAREST as i32,
            );
        }
        texture.upload(gl, width, height, channels, data)?;
        Ok(texture)
    }

    /// Replaces the pixels (and the size, channels and kind).
    pub fn upload(
        &mut self,
        gl: &glow::Context,
        width: u32,
        height: u32,
        channels: u8,
        data: TexelData<'_>,
    ) -> Result<(), GlError> {
        let format = match channels {
            1 => glow::RED,
            3 => glow::RGB,
            4 => glow::RGBA,
            _ => {
                return Err(GlError::Create {
                    what: "typed texture",
                    reason: format!("{channels} channels (1, 3 or 4)"),
                })
            }
        };
        let expected = width as usize * height as usize * usize::from(channels);
        if data.len() != expected {
            return Err(GlError::DataSize {
                what: "typed texture",
                expected,
                got: data.len(),
            });
        }
        // SAFETY: `data` holds exactly width·height·channels samples of the given type
        // (checked), rows packed: unpack alignment 1 reads them without row padding.
        unsafe {
            gl.bind_texture(glow::TEXTURE_2D, Some(self.id));
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                data.internal_format(channels) as i32,
                width as i32,
                height as i32,
                0,
                format,
                data.gl_type(),
                glow::PixelUnpackData::Slice(Some(data.bytes())),
            );
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 4);
        }
        check_gl(gl, "glTexImage2D(typed)")?;
        (self.width, self.height, self.channels) = (width, height, channels);
        self.kind = match data {
            TexelData::U8(_) => TexelKind::U8,
            TexelData::U16(_) => TexelKind::U16,
            TexelData::F32(_) => TexelKind::F32,
        };
        Ok(())
    }

    /// Deletes the GL texture.
    pub fn destroy(mut self, gl: &glow::Context) {
        // SAFETY: the name belongs to this context and is not used afterwards.
        unsafe { gl.delete_texture(self.id) };
        self.guard.disarm();
    }
}
