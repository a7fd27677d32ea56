//! The external-memory side of the frame targets: the memory behind the output texture and
//! the bin buffer, a shared copy of the source texture (GL copies the app's source into it
//! when the source changes, not per frame) and the semaphores that hand all three between
//! GL and CUDA. Release with [`SharedTargets::destroy`] after the output texture and the
//! bin buffer.

use super::external::{
    hand_back_to_gl, usable_sync, BufferBacking, ExternalInterop, ExternalSync, ImageBacking,
};
use super::interop_resources::{InteropResources, InteropViews};
use super::PipelineError;
use crate::cuda::CudaError;
use crate::gl::{check_gl, GlBuffer, GlTexture, SharedObjects};
use cudarc::driver::CudaStream;
use glow::HasContext;
use std::sync::Arc;

/// The source as CUDA reads it on this path, and the GL texture it was copied from.
struct SourceCopy {
    backing: ImageBacking,
    texture: GlTexture,
    from: (glow::Texture, u32, u32),
}

impl SourceCopy {
    fn destroy(self, gl: &glow::Context) {
        self.texture.destroy(gl);
        self.backing.destroy(gl);
    }
}

pub struct SharedTargets {
    interop: ExternalInterop,
    output: ImageBacking,
    output_name: glow::Texture,
    bins: BufferBacking,
    bins_name: glow::Buffer,
    source: Option<SourceCopy>,
    sync: Option<ExternalSync>,
}

impl SharedTargets {
    /// Shared memory for a `width × height` output and `bin_bytes` of bins; returns the GL
    /// texture and buffer on it too.
    pub fn new(
        interop: ExternalInterop,
        gl: &glow::Context,
        width: u32,
        height: u32,
        bin_bytes: usize,
    ) -> Result<(Self, GlTexture, GlBuffer), PipelineError> {
        let (output, texture) = ImageBacking::new(&interop, gl, width, height)?;
        let (bins, buffer) = match BufferBacking::new(&interop, gl, bin_bytes) {
            Ok(b) => b,
            Err(e) => {
                texture.destroy(gl);
                output.destroy(gl);
                return Err(e);
            }
        };
        let shared = Self {
            interop,
            output,
            output_name: texture.id,
            bins,
            bins_name: buffer.id,
            source: None,
            sync: None,
        };
        Ok((shared, texture, buffer))
    }

    /// Re-makes the output memory at `width × height` and puts its texture in `output`
    /// (deleting the old one). On failure the old output stays.
    pub fn resize_output(
        &mut self,
        gl: &glow::Context,
        output: &mut GlTexture,
        width: u32,
        height: u32,
    ) -> Result<(), PipelineError> {
        let (backing, texture) = ImageBacking::new(&self.interop, gl, width, height)?;
        self.output_name = texture.id;
        std::mem::replace(output, texture).destroy(gl);
        std::mem::replace(&mut self.output, backing).destroy(gl);
        Ok(())
    }

    /// Makes the shared source a copy of `source`: re-made when `source` is another texture
    /// or size, copied again when `changed` (its pixels were replaced).
    pub fn prepare_source(
        &mut self,
        gl: &glow::Context,
        source: &GlTexture,
        changed: bool,
    ) -> Result<(), PipelineError> {
        let from = (source.id, source.width, source.height);
        if self.source.as_ref().is_some_and(|s| s.from == from) && !changed {
            return Ok(());
        }
        if self.source.as_ref().is_none_or(|s| s.from != from) {
            if let Some(old) = self.source.take() {
                old.destroy(gl);
            }
            let (backing, texture) =
                ImageBacking::new(&self.interop, gl, source.width, source.height)?;
            self.source = Some(SourceCopy {
                backing,
                texture,
                from,
            });
        }
        let copy = self.source.as_ref().ok_or(missing_source())?;
        // SAFETY: both textures are live RGBA8 2-D textures of this size, level 0.
        unsafe {
            gl.copy_image_sub_data(
                source.id,
                glow::TEXTURE_2D,
                0,
                0,
                0,
                0,
                copy.texture.id,
                glow::TEXTURE_2D,
                0,
                0,
                0,
                0,
                source.width as i32,
                source.height as i32,
                1,
            );
        }
        Ok(check_gl(gl, "glCopyImageSubData(source)")?)
    }

    fn objects(&self) -> Result<([glow::Texture; 2], [glow::Buffer; 1]), CudaError> {
        let source = self.source.as_ref().ok_or(missing_source())?;
        Ok(([source.texture.id, self.output_name], [self.bins_name]))
    }

    /// Deletes everything but the output texture and the bin buffer (the caller's).
    pub fn destroy(self, gl: &glow::Context) {
        if let Some(sync) = self.sync {
            sync.destroy(gl);
        }
        if let Some(source) = self.source {
            source.destroy(gl);
        }
        self.output.destroy(gl);
        self.bins.destroy(gl);
    }
}

fn missing_source() -> CudaError {
    CudaError::Driver {
        call: "SharedTargets",
        reason: "internal: the shared source copy was not prepared".into(),
    }
}

impl InteropResources for SharedTargets {
    fn acquire(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
    ) -> Result<InteropViews, PipelineError> {
        let (textures, buffers) = self.objects()?;
        let objects = SharedObjects {
            buffers: &buffers,
            textures: &textures,
        };
        usable_sync(&mut self.sync, &self.interop, gl)?.hand_to_cuda(gl, &objects, stream)?;
        let source = self.source.as_ref().ok_or(missing_source())?;
        Ok(InteropViews {
            arrays: vec![source.backing.array(), self.output.array()],
            pointers: vec![self.bins.pointer()],
        })
    }

    fn release(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
    ) -> Result<(), PipelineError> {
        let (textures, buffers) = self.objects()?;
        let objects = SharedObjects {
            buffers: &buffers,
            textures: &textures,
        };
        hand_back_to_gl(&mut self.sync, gl, &objects, stream)
    }
}
