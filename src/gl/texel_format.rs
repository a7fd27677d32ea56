//! How a GL texture stores its texels and how client memory lays them out for uploads and
//! reads (the GL side of the project's GPU pixel formats; `pipeline::GpuPixelFormat` picks
//! one per image).

/// A texture's internal format and the client format and type of its texels, tightly
/// packed (rows of width × `bytes`, no padding).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TexelFormat {
    /// `GL_RGBA8`, `GL_R16`, `GL_RGBA32F`, …
    pub internal: u32,
    /// `GL_RED` or `GL_RGBA`.
    pub format: u32,
    /// `GL_UNSIGNED_BYTE`, `GL_UNSIGNED_SHORT` or `GL_FLOAT`.
    pub ty: u32,
    /// Bytes of one texel in client memory.
    pub bytes: usize,
    /// The internal format's name, for messages.
    pub name: &'static str,
}

impl TexelFormat {
    /// 8-bit RGBA: what the window shows and every filter reads and writes.
    pub const RGBA8: TexelFormat = TexelFormat {
        internal: glow::RGBA8,
        format: glow::RGBA,
        ty: glow::UNSIGNED_BYTE,
        bytes: 4,
        name: "RGBA8",
    };

    /// Bytes of `width × height` texels.
    pub fn image_bytes(self, width: u32, height: u32) -> usize {
        self.bytes * width as usize * height as usize
    }
}
