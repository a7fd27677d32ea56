//! The GL objects a frame writes: the displayed result and the histogram bins. On the
//! external-memory path they live in memory CUDA imported once (see `shared_targets.rs`);
//! otherwise they are plain GL objects that CUDA registers and maps per frame.

use crate::gl::{GlBuffer, GlError, GlTexture};
use crate::ops::{ShownSelection, HISTOGRAM_BINS};
use crate::pipeline::interop::ExternalInterop;
use crate::pipeline::interop::SharedTargets;
use crate::pipeline::{GpuPixelFormat, PipelineError};

/// Bytes of the bin buffer: 4 channels × 256 bins × u32.
pub const BIN_BUFFER_BYTES: usize = 4 * HISTOGRAM_BINS * 4;

/// Output texture and bin buffer, shared by both backends (and drawn by egui and the
/// histogram shader). Release with [`FrameTargets::destroy`].
pub struct FrameTargets {
    pub output: GlTexture,
    pub bins: GlBuffer,
    shared: Option<SharedTargets>,
    /// The loaded source when there is no shared memory (see `load_source`).
    plain_source: Option<GlTexture>,
    /// Where the result shows inside a selection only (the source outside it): the bins
    /// count what is shown. None: the bins count the result.
    pub shown_selection: Option<ShownSelection>,
}

impl FrameTargets {
    /// Plain GL objects (the CPU backend and the map/unmap path).
    pub fn new(gl: &glow::Context, width: u32, height: u32) -> Result<Self, GlError> {
        Ok(Self {
            output: GlTexture::new(gl, width, height, None)?,
            bins: GlBuffer::new(gl, BIN_BUFFER_BYTES)?,
            shared: None,
            plain_source: None,
            shown_selection: None,
        })
    }

    /// GL objects on memory shared with CUDA for the whole session (the output texture's
    /// name changes when it is resized).
    pub fn shared(
        gl: &glow::Context,
        interop: ExternalInterop,
        width: u32,
        height: u32,
    ) -> Result<Self, PipelineError> {
        let (shared, output, bins) =
            SharedTargets::new(interop, gl, width, height, BIN_BUFFER_BYTES)?;
        Ok(Self {
            output,
            bins,
            shared: Some(shared),
            plain_source: None,
            shown_selection: None,
        })
    }

    /// Gives the output `size` and `format` (contents undefined). CUDA registrations of it
    /// must be released first on the map/unmap path.
    pub fn shape_output(
        &mut self,
        gl: &glow::Context,
        size: (u32, u32),
        format: GpuPixelFormat,
    ) -> Result<(), PipelineError> {
        match self.shared.as_mut() {
            Some(shared) => shared.resize_output(gl, &mut self.output, size, format),
            None => Ok(self.output.respecify(gl, size.0, size.1, format.gl())?),
        }
    }

    /// Whether the output has `size` and `format`.
    pub fn output_is(&self, (width, height): (u32, u32), format: GpuPixelFormat) -> bool {
        let o = &self.output;
        (o.width, o.height, o.format) == (width, height, format.gl())
    }

    /// The plain source (no shared memory) made `size` of `format` for pixels CUDA writes:
    /// kept where it already is, else made or re-specified (its CUDA registrations must be
    /// released first).
    pub fn plain_source_for_device(
        &mut self,
        gl: &glow::Context,
        (w, h): (u32, u32),
        format: GpuPixelFormat,
    ) -> Result<&GlTexture, PipelineError> {
        match self.plain_source {
            Some(ref mut texture) => {
                if (texture.width, texture.height, texture.format) != (w, h, format.gl()) {
                    texture.respecify(gl, w, h, format.gl())?;
                }
                Ok(texture)
            }
            None => {
                let texture = GlTexture::with_format(gl, w, h, format.gl(), None)?;
                Ok(self.plain_source.insert(texture))
            }
        }
    }

    /// Loads `texels` of `format` (`size`, rows packed) as the frames' source and returns its
    /// GL texture (the "before" the app shows): on the external-memory path into the shared
    /// source itself (CUDA reads it with no copy; the name changes with the size), otherwise
    /// into a plain texture, re-specified when its size or format changes. CUDA
    /// registrations of it must be released first.
    pub fn load_texels(
        &mut self,
        gl: &glow::Context,
        size: (u32, u32),
        format: GpuPixelFormat,
        texels: &[u8],
    ) -> Result<&GlTexture, PipelineError> {
        if let Some(shared) = self.shared.as_mut() {
            return shared.load_texels(gl, size, format, texels);
        }
        match self.plain_source {
            Some(ref mut texture) => {
                texture.upload_texels(gl, size, format.gl(), texels)?;
                Ok(texture)
            }
            None => {
                let (w, h) = size;
                let texture = GlTexture::with_format(gl, w, h, format.gl(), Some(texels))?;
                Ok(self.plain_source.insert(texture))
            }
        }
    }

    /// The source loaded by `load_source`, if any.
    pub fn source(&self) -> Option<&GlTexture> {
        match &self.shared {
            Some(shared) => shared.source(),
            None => self.plain_source.as_ref(),
        }
    }

    /// Frees the memory kept for other sizes (external-memory path); true when there was
    /// any.
    pub fn release_spares(&mut self, gl: &glow::Context) -> bool {
        self.shared.as_mut().is_some_and(|s| s.release_spares(gl))
    }

    /// The external-memory side, when the targets have one.
    pub fn external(&mut self) -> Option<&mut SharedTargets> {
        self.shared.as_mut()
    }

    pub fn destroy(self, gl: &glow::Context) {
        self.output.destroy(gl);
        self.bins.destroy(gl);
        if let Some(source) = self.plain_source {
            source.destroy(gl);
        }
        if let Some(shared) = self.shared {
            shared.destroy(gl);
        }
    }
}
