//! OpenGL: the window context (winit + glutin), a headless EGL context for the command
//! line and GPU tests, textures (RGBA8 and typed), buffers, shader programs (from
//! `shaders/`), the display mapping and reading pixels back. Knows nothing of CUDA.

mod buffer;
mod destroy_guard;
mod display_renderer;
pub mod ext_ffi;
mod headless;
mod histogram_renderer;
mod memory_object;
mod semaphore;
mod shader;
mod texel_format;
mod texture;
mod typed_texture;
mod window;

pub use buffer::GlBuffer;
pub use display_renderer::{DisplayRenderer, DisplayUniforms};
pub use headless::HeadlessGl;
pub use histogram_renderer::{HistogramRenderer, HistogramStyle};
pub use memory_object::GlMemoryObject;
pub use semaphore::{GlSemaphore, SharedObjects};
pub use shader::Program;
pub use texel_format::TexelFormat;
pub use texture::{GlTexture, TextureRef};
pub use typed_texture::{TexelData, TexelKind, TypedTexture};
pub use window::GlWindow;

use glow::HasContext;

/// Errors of the GL layer.
#[derive(Debug, thiserror::Error)]
pub enum GlError {
    #[error("cannot create an OpenGL context: {0}")]
    Context(String),
    #[error("cannot create {what}: {reason}")]
    Create { what: &'static str, reason: String },
    #[error("image of {width}×{height} exceeds this GPU's texture limit of {max}")]
    TooLarge { width: u32, height: u32, max: u32 },
    #[error("shader {name}: {log}")]
    Shader { name: String, log: String },
    #[error("{what}: {got} bytes of pixels for a texture that needs {expected}")]
    DataSize {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("{what} needs an RGBA8 texture, not {format}")]
    NotRgba8 {
        what: &'static str,
        format: &'static str,
    },
    #[error("OpenGL error 0x{code:04X} in {call}")]
    Call { call: &'static str, code: u32 },
    #[error("OpenGL external objects: {0}")]
    Extension(String),
}

/// Fails if GL recorded an error since the last check.
pub fn check_gl(gl: &glow::Context, call: &'static str) -> Result<(), GlError> {
    // SAFETY: glGetError has no preconditions beyond a current context.
    let code = unsafe { gl.get_error() };
    if code == glow::NO_ERROR {
        Ok(())
    } else {
        Err(GlError::Call { call, code })
    }
}

/// "renderer (version)" of the current context.
pub fn renderer_description(gl: &glow::Context) -> String {
    // SAFETY: string queries valid on any current context.
    unsafe {
        format!(
            "{} — OpenGL {} ({})",
            gl.get_parameter_string(glow::RENDERER),
            gl.get_parameter_string(glow::VERSION),
            gl.get_parameter_string(glow::VENDOR)
        )
    }
}

/// Largest texture side of the current context.
pub fn max_texture_size(gl: &glow::Context) -> u32 {
    // SAFETY: integer query valid on any current context.
    unsafe { gl.get_parameter_i32(glow::MAX_TEXTURE_SIZE).max(0) as u32 }
}

/// Video memory free now, from NVIDIA's `GL_NVX_gpu_memory_info` (None elsewhere).
pub fn free_video_memory(gl: &glow::Context) -> Option<u64> {
    const CURRENT_AVAILABLE_VIDMEM_NVX: u32 = 0x9049;
    if !gl.supported_extensions().contains("GL_NVX_gpu_memory_info") {
        return None;
    }
    // SAFETY: the extension is present, so the query is valid; it returns KiB.
    let kib = unsafe { gl.get_parameter_i32(CURRENT_AVAILABLE_VIDMEM_NVX) };
    check_gl(gl, "glGetIntegerv(GPU_MEMORY_INFO)").ok()?;
    (kib > 0).then(|| kib as u64 * 1024)
}

/// Largest viewport (and so window) width and height of the current context.
pub fn max_viewport(gl: &glow::Context) -> (u32, u32) {
    let mut dims = [0i32; 2];
    // SAFETY: MAX_VIEWPORT_DIMS writes exactly two integers.
    unsafe { gl.get_parameter_i32_slice(glow::MAX_VIEWPORT_DIMS, &mut dims) };
    let renderbuffer = {
        // SAFETY: integer query valid on any current context.
        unsafe { gl.get_parameter_i32(glow::MAX_RENDERBUFFER_SIZE) }
    };
    let cap = |v: i32| v.min(renderbuffer).max(0) as u32;
    (cap(dims[0]), cap(dims[1]))
}

/// Reads `width × height` RGBA8 pixels of the bound read framebuffer, in GL row order
/// (row 0 = GL's y = 0: the bottom of a window, the first row of a texture).
pub fn read_pixels(
    gl: &glow::Context,
    width: u32,
    height: u32,
) -> Result<image::RgbaImage, GlError> {
    let mut pixels = vec![0u8; width as usize * height as usize * 4];
    // SAFETY: `pixels` holds exactly width·height RGBA8 texels with PACK_ALIGNMENT 4.
    unsafe {
        gl.pixel_store_i32(glow::PACK_ALIGNMENT, 4);
        gl.read_pixels(
            0,
            0,
            width as i32,
            height as i32,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelPackData::Slice(Some(&mut pixels)),
        );
    }
    check_gl(gl, "glReadPixels")?;
    image::RgbaImage::from_raw(width, height, pixels).ok_or(GlError::Create {
        what: "readback image",
        reason: "size".into(),
    })
}
