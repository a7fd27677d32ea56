//! Draws typed pixels into an RGBA8 texture through window/level, gamma and a LUT (the
//! GLSL in `shaders/display.*`), so the view keeps drawing an RGBA8 texture.

use super::{check_gl, GlError, GlTexture, Program, TexelKind, TypedTexture};
use glow::HasContext;

/// The mapping's parameters, in image units (per colour channel; grey uses the first).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DisplayUniforms {
    pub min: [f32; 3],
    pub max: [f32; 3],
    /// 1 / gamma.
    pub inv_gamma: [f32; 3],
}

/// The program, an empty VAO, a framebuffer and the 256 × 1 LUT texture. Release with
/// [`DisplayRenderer::destroy`].
pub struct DisplayRenderer {
    program: Program,
    vao: glow::VertexArray,
    fbo: glow::Framebuffer,
    lut: GlTexture,
}

impl DisplayRenderer {
    /// Builds the renderer with a grey LUT.
    pub fn new(gl: &glow::Context) -> Result<Self, GlError> {
        let program = Program::new(
            gl,
            "display",
            include_str!("../../shaders/display.vert"),
            include_str!("../../shaders/display.frag"),
        )?;
        let grey: Vec<u8> = (0..=255u8).flat_map(|l| [l, l, l, 255]).collect();
        let lut = GlTexture::new(gl, 256, 1, Some(&grey))?;
        // SAFETY: fresh objects of this context.
        unsafe {
            gl.bind_texture(glow::TEXTURE_2D, Some(lut.id));
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MIN_FILTER,
                glow::NEAREST as i32,
            );
            let vao = gl.create_vertex_array().map_err(|reason| GlError::Create {
                what: "vertex array",
                reason,
            })?;
            let fbo = gl.create_framebuffer().map_err(|reason| GlError::Create {
                what: "framebuffer",
                reason,
            })?;
            Ok(Self {
                program,
                vao,
                fbo,
                lut,
            })
        }
    }

    /// Replaces the LUT: 256 RGBA8 entries (1024 bytes).
    pub fn set_lut(&mut self, gl: &glow::Context, rgba: &[u8]) -> Result<(), GlError> {
        let image = image::RgbaImage::from_raw(256, 1, rgba.to_vec()).ok_or(GlError::DataSize {
            what: "display LUT",
            expected: 1024,
            got: rgba.len(),
        })?;
        self.lut.upload(gl, &image)
    }

    /// Renders `source` into `target` (resized to the source's size when it differs).
    /// Leaves the default framebuffer bound and the viewport as it was.
    pub fn render(
        &self,
        gl: &glow::Context,
        source: &TypedTexture,
        uniforms: &DisplayUniforms,
        target: &mut GlTexture,
    ) -> Result<(), GlError> {
        if (target.width, target.height) != (source.width, source.height) {
            target.resize(gl, source.width, source.height)?;
        }
        let mut viewport = [0i32; 4];
        // SAFETY: objects of this context; the FBO's only attachment is `target`, which has
        // the viewport's size; state changed here (program, VAO, texture units 0 and 1,
        // blend, scissor, framebuffer, viewport) is restored or left as egui_glow resets it.
        unsafe {
            gl.get_parameter_i32_slice(glow::VIEWPORT, &mut viewport);
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.fbo));
            gl.framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                Some(target.id),
                0,
            );
            let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
            if status != glow::FRAMEBUFFER_COMPLETE {
                gl.bind_framebuffer(glow::FRAMEBUFFER, None);
                return Err(GlError::Create {
                    what: "display framebuffer",
                    reason: format!("status 0x{status:04X}"),
                });
            }
            gl.viewport(0, 0, source.width as i32, source.height as i32);
            gl.disable(glow::BLEND);
            gl.disable(glow::SCISSOR_TEST);
            self.set_uniforms(gl, source, uniforms);
            gl.bind_vertex_array(Some(self.vao));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            gl.bind_vertex_array(None);
            gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            gl.viewport(viewport[0], viewport[1], viewport[2], viewport[3]);
            gl.active_texture(glow::TEXTURE1);
            gl.bind_texture(glow::TEXTURE_2D, None);
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D, None);
        }
        check_gl(gl, "display render")
    }

    /// Binds the program, the source on unit 0, the LUT on unit 1 and the uniforms.
    ///
    /// # Safety
    /// A current context owning `source` and this renderer.
    unsafe fn set_uniforms(&self, gl: &glow::Context, source: &TypedTexture, u: &DisplayUniforms) {
        // SAFETY: guaranteed by the caller.
        unsafe {
            gl.use_program(Some(self.program.id));
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D, Some(source.id));
            gl.active_texture(glow::TEXTURE1);
            gl.bind_texture(glow::TEXTURE_2D, Some(self.lut.id));
            let loc = |name| gl.get_uniform_location(self.program.id, name);
            gl.uniform_1_i32(loc("u_source").as_ref(), 0);
            gl.uniform_1_i32(loc("u_lut").as_ref(), 1);
            let scale = match source.kind {
                TexelKind::U8 => 255.0,
                TexelKind::U16 => 65535.0,
                TexelKind::F32 => 1.0,
            };
            gl.uniform_1_f32(loc("u_scale").as_ref(), scale);
            let v3 = |name, v: [f32; 3]| gl.uniform_3_f32(loc(name).as_ref(), v[0], v[1], v[2]);
            v3("u_min", u.min);
            v3("u_max", u.max);
            v3("u_inv_gamma", u.inv_gamma);
            gl.uniform_1_i32(loc("u_grey").as_ref(), i32::from(source.channels == 1));
        }
    }

    pub fn destroy(self, gl: &glow::Context) {
        // SAFETY: the objects belong to this context and are not used afterwards.
        unsafe {
            gl.delete_vertex_array(self.vao);
            gl.delete_framebuffer(self.fbo);
        }
        self.lut.destroy(gl);
        self.program.destroy(gl);
    }
}
