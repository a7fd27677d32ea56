//! A field that warns when a GL object is dropped without its `destroy(&gl)`: GL names can
//! only be deleted with the context at hand, so a forgotten `destroy` leaks the object. As
//! egui_glow's painter does, say so rather than fail silently.

/// Armed until [`DestroyGuard::disarm`]; dropping it armed logs a warning.
#[derive(Debug)]
pub struct DestroyGuard {
    what: &'static str,
    armed: bool,
}

impl DestroyGuard {
    pub fn new(what: &'static str) -> Self {
        Self { what, armed: true }
    }

    /// Called by `destroy(&gl)` once the GL name is deleted.
    pub fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for DestroyGuard {
    fn drop(&mut self) {
        if self.armed {
            log::warn!(
                "{} dropped without destroy(&gl): its OpenGL object leaks",
                self.what
            );
        }
    }
}
