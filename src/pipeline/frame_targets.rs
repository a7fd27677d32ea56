//! The GL objects a frame writes: the displayed result and the histogram bins.

use crate::gl::{GlBuffer, GlError, GlTexture};
use crate::ops::HISTOGRAM_BINS;

/// Bytes of the bin buffer: 4 channels × 256 bins × u32.
pub const BIN_BUFFER_BYTES: usize = 4 * HISTOGRAM_BINS * 4;

/// Output texture and bin buffer, shared by both backends (and drawn by egui and the
/// histogram shader). Release with [`FrameTargets::destroy`].
pub struct FrameTargets {
    pub output: GlTexture,
    pub bins: GlBuffer,
}

impl FrameTargets {
    pub fn new(gl: &glow::Context, width: u32, height: u32) -> Result<Self, GlError> {
        Ok(Self {
            output: GlTexture::new(gl, width, height, None)?,
            bins: GlBuffer::new(gl, BIN_BUFFER_BYTES)?,
        })
    }

    pub fn destroy(self, gl: &glow::Context) {
        self.output.destroy(gl);
        self.bins.destroy(gl);
    }
}
