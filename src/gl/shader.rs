//! GLSL programs built from `shaders/*.glsl`.

use super::destroy_guard::DestroyGuard;
use super::GlError;
use glow::HasContext;

/// A linked program. Release with [`Program::destroy`].
pub struct Program {
    pub id: glow::Program,
    guard: DestroyGuard,
}

impl Program {
    /// Compiles and links a vertex + fragment pair.
    pub fn new(
        gl: &glow::Context,
        name: &str,
        vertex: &str,
        fragment: &str,
    ) -> Result<Self, GlError> {
        let fail = |log: String| GlError::Shader {
            name: name.to_string(),
            log,
        };
        // SAFETY: standard compile/link sequence on fresh objects; shaders are deleted
        // after linking, the program on error.
        unsafe {
            let program = gl.create_program().map_err(fail)?;
            let mut shaders = Vec::new();
            for (kind, source) in [
                (glow::VERTEX_SHADER, vertex),
                (glow::FRAGMENT_SHADER, fragment),
            ] {
                let shader = gl.create_shader(kind).map_err(fail)?;
                gl.shader_source(shader, source);
                gl.compile_shader(shader);
                if !gl.get_shader_compile_status(shader) {
                    let log = gl.get_shader_info_log(shader);
                    gl.delete_shader(shader);
                    gl.delete_program(program);
                    return Err(fail(log));
                }
                gl.attach_shader(program, shader);
                shaders.push(shader);
            }
            gl.link_program(program);
            for s in shaders {
                gl.detach_shader(program, s);
                gl.delete_shader(s);
            }
            if !gl.get_program_link_status(program) {
                let log = gl.get_program_info_log(program);
                gl.delete_program(program);
                return Err(fail(log));
            }
            Ok(Self {
                id: program,
                guard: DestroyGuard::new("Program"),
            })
        }
    }

    pub fn destroy(mut self, gl: &glow::Context) {
        // SAFETY: the program belongs to this context and is not used afterwards.
        unsafe { gl.delete_program(self.id) };
        self.guard.disarm();
    }
}
