//! Draws histogram bins from a GL buffer with the GLSL shader in `shaders/histogram.*`.
//! One renderer serves both backends: CUDA writes the bins into the buffer through
//! interop, the CPU backend uploads them.

use super::{check_gl, GlBuffer, GlError, Program};
use glow::HasContext;

/// How to draw the bins.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistogramStyle {
    pub max_count: f32,
    pub log_scale: bool,
    pub channels: [bool; 4],
    pub hover_bin: Option<usize>,
}

/// The program, an empty VAO (core profile needs one) and a texture-buffer view of the
/// bins. Release with [`HistogramRenderer::destroy`].
pub struct HistogramRenderer {
    program: Program,
    vao: glow::VertexArray,
    bins_view: glow::Texture,
}

impl HistogramRenderer {
    /// Builds the renderer over `bins` (4 × 256 `u32`).
    pub fn new(gl: &glow::Context, bins: &GlBuffer) -> Result<Self, GlError> {
        let program = Program::new(
            gl,
            "histogram",
            include_str!("../../shaders/histogram.vert"),
            include_str!("../../shaders/histogram.frag"),
        )?;
        // SAFETY: fresh objects; the texture buffer aliases `bins` as R32UI texels.
        unsafe {
            let vao = gl.create_vertex_array().map_err(|reason| GlError::Create {
                what: "vertex array",
                reason,
            })?;
            let bins_view = gl.create_texture().map_err(|reason| GlError::Create {
                what: "texture buffer",
                reason,
            })?;
            gl.bind_texture(glow::TEXTURE_BUFFER, Some(bins_view));
            gl.tex_buffer(glow::TEXTURE_BUFFER, glow::R32UI, Some(bins.id));
            gl.bind_texture(glow::TEXTURE_BUFFER, None);
            check_gl(gl, "glTexBuffer")?;
            Ok(Self {
                program,
                vao,
                bins_view,
            })
        }
    }

    /// Draws into the current viewport (egui_glow sets it to the callback's rectangle).
    pub fn draw(&self, gl: &glow::Context, style: &HistogramStyle) {
        // SAFETY: all objects belong to this context; state touched here (program, VAO,
        // texture unit 0, blending) is reset by egui_glow after a paint callback.
        unsafe {
            gl.use_program(Some(self.program.id));
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_BUFFER, Some(self.bins_view));
            let loc = |name| gl.get_uniform_location(self.program.id, name);
            gl.uniform_1_i32(loc("u_bins").as_ref(), 0);
            gl.uniform_1_f32(loc("u_max_count").as_ref(), style.max_count);
            gl.uniform_1_i32(loc("u_log_scale").as_ref(), i32::from(style.log_scale));
            let ch = style.channels.map(|on| if on { 1.0 } else { 0.0 });
            gl.uniform_4_f32(loc("u_channels").as_ref(), ch[0], ch[1], ch[2], ch[3]);
            gl.uniform_1_i32(
                loc("u_hover_bin").as_ref(),
                style.hover_bin.map_or(-1, |b| b as i32),
            );
            gl.enable(glow::BLEND);
            gl.blend_func(glow::SRC_ALPHA, glow::ONE_MINUS_SRC_ALPHA);
            gl.bind_vertex_array(Some(self.vao));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl.bind_vertex_array(None);
            gl.bind_texture(glow::TEXTURE_BUFFER, None);
        }
    }

    pub fn destroy(self, gl: &glow::Context) {
        // SAFETY: the objects belong to this context and are not used afterwards.
        unsafe {
            gl.delete_vertex_array(self.vao);
            gl.delete_texture(self.bins_view);
        }
        self.program.destroy(gl);
    }
}
