//! The external-memory side of the frame targets: the memory behind the output texture and
//! the bin buffer, a shared copy of the source texture (GL copies the app's source into it
//! when the source changes, not per frame) and the semaphores that hand all three between
//! GL and CUDA. The output and the source copy each keep one spare of the last other size
//! (a stack with a transpose alternates). Release with [`SharedTargets::destroy`] after
//! the output texture and the bin buffer.

use super::external::{
    hand_back_to_gl, handed_sync, usable_sync, BufferBacking, ExternalInterop, ExternalSync,
    ImageBacking, SharedImage,
};
use super::resources::{InteropResources, InteropViews};
use crate::cuda::CudaError;
use crate::cuda::SharedObject;
use crate::gl::{check_gl, GlBuffer, GlTexture, SharedObjects, TextureRef};
use crate::pipeline::with_spare::{Size, WithSpare};
use crate::pipeline::{GpuPixelFormat, PipelineError};
use cudarc::driver::CudaStream;
use glow::HasContext;
use std::os::fd::OwnedFd;
use std::sync::Arc;

/// The source as CUDA reads it on this path, and the GL texture last copied into it (None
/// when the pixels were loaded into it directly).
struct SourceCopy {
    image: SharedImage,
    from: Option<TextureRef>,
}

pub struct SharedTargets {
    interop: ExternalInterop,
    output: ImageBacking,
    output_name: glow::Texture,
    /// The last output of another size, kept for when the stack turns the image back.
    spare_output: Option<SharedImage>,
    bins: BufferBacking,
    bins_name: glow::Buffer,
    source: WithSpare<SourceCopy, (Size, GpuPixelFormat)>,
    sync: Option<ExternalSync>,
}

impl SharedTargets {
    /// Shared memory for a `width × height` RGBA8 output and `bin_bytes` of bins; returns
    /// the GL texture and buffer on it too.
    pub fn new(
        interop: ExternalInterop,
        gl: &glow::Context,
        width: u32,
        height: u32,
        bin_bytes: usize,
    ) -> Result<(Self, GlTexture, GlBuffer), PipelineError> {
        let (output, texture) =
            ImageBacking::new(&interop, gl, (width, height), GpuPixelFormat::RGBA8)?;
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
            spare_output: None,
            bins,
            bins_name: buffer.id,
            source: WithSpare::default(),
            sync: None,
        };
        Ok((shared, texture, buffer))
    }

    /// Makes the output `width × height` of `format` and puts its texture in `output`: the
    /// spare when it has that size and format, else new memory (the spare freed first).
    /// The old output becomes the spare. On failure the old output stays.
    pub fn resize_output(
        &mut self,
        gl: &glow::Context,
        output: &mut GlTexture,
        (width, height): (u32, u32),
        format: GpuPixelFormat,
    ) -> Result<(), PipelineError> {
        let fits = |s: &SharedImage| {
            let t = &s.texture;
            (t.width, t.height, t.format) == (width, height, format.gl())
        };
        let next = match self.spare_output.take() {
            Some(spare) if fits(&spare) => spare,
            other => {
                if let Some(old) = other {
                    old.destroy(gl);
                }
                SharedImage::new(&self.interop, gl, (width, height), format)?
            }
        };
        self.output_name = next.texture.id;
        self.spare_output = Some(SharedImage {
            texture: std::mem::replace(output, next.texture),
            backing: std::mem::replace(&mut self.output, next.backing),
        });
        Ok(())
    }

    /// Makes the shared source hold `source`'s pixels for the next frame: nothing to do when
    /// `source` is the shared source itself (loaded by [`SharedTargets::load_texels`]);
    /// otherwise a copy, made again when `source` is another texture or size or `changed`
    /// (its pixels were replaced). Memory of the same size is reused; the last other size
    /// is kept as a spare.
    pub fn prepare_source(
        &mut self,
        gl: &glow::Context,
        source: TextureRef,
        changed: bool,
    ) -> Result<(), PipelineError> {
        let current = self.source.current();
        if current.is_some_and(|s| s.image.texture.id == source.id) {
            return Ok(());
        }
        if !changed && current.is_some_and(|s| s.from == Some(source)) {
            return Ok(());
        }
        let format = GpuPixelFormat::from_gl(source.format)?;
        let copy = self.select_source(gl, (source.width, source.height), format)?;
        // SAFETY: both textures are live 2-D textures of this size and format, level 0.
        unsafe {
            gl.copy_image_sub_data(
                source.id,
                glow::TEXTURE_2D,
                0,
                0,
                0,
                0,
                copy.image.texture.id,
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
        check_gl(gl, "glCopyImageSubData(source)")?;
        copy.from = Some(source);
        Ok(())
    }

    /// Uploads `texels` of `format` (`size`, rows packed) into the shared source itself:
    /// memory that GL shows and CUDA reads with no copy, allocated by Vulkan (freed at once,
    /// where GL's own textures of changing sizes linger in its pools). Returns the GL
    /// texture, whose name changes with the size.
    pub fn load_texels(
        &mut self,
        gl: &glow::Context,
        size: (u32, u32),
        format: GpuPixelFormat,
        texels: &[u8],
    ) -> Result<&GlTexture, PipelineError> {
        let copy = self.select_source(gl, size, format)?;
        copy.image
            .texture
            .upload_texels(gl, size, format.gl(), texels)?;
        Ok(&copy.image.texture)
    }

    /// Makes the shared source `size` of `format` for pixels that CUDA will write into it
    /// (`CudaFrame::upload_texels`), and returns its texture's name, size and format.
    pub fn source_for_upload(
        &mut self,
        gl: &glow::Context,
        size: (u32, u32),
        format: GpuPixelFormat,
    ) -> Result<TextureRef, PipelineError> {
        let copy = self.select_source(gl, size, format)?;
        Ok(copy.image.texture.texture_ref())
    }

    /// The shared source's GL texture, once there is one.
    pub fn source(&self) -> Option<&GlTexture> {
        self.source.current().map(|s| &s.image.texture)
    }

    /// The shared source of `size` and `format`, kept or made, about to get new pixels (so
    /// nothing is recorded as copied into it).
    fn select_source(
        &mut self,
        gl: &glow::Context,
        size: (u32, u32),
        format: GpuPixelFormat,
    ) -> Result<&mut SourceCopy, PipelineError> {
        let make = || {
            SharedImage::new(&self.interop, gl, size, format)
                .map(|image| SourceCopy { image, from: None })
        };
        self.source
            .select((size, format), make, |old| old.image.destroy(gl))?;
        let copy = self.source.current_mut().ok_or(missing_source())?;
        copy.from = None;
        Ok(copy)
    }

    /// Frees the output and source kept for other sizes; true when there were any.
    pub fn release_spares(&mut self, gl: &glow::Context) -> bool {
        let output = self.spare_output.take().map(|s| s.destroy(gl)).is_some();
        output | self.source.release_spare(|s| s.image.destroy(gl))
    }

    fn objects(&self) -> Result<([glow::Texture; 2], [glow::Buffer; 1]), CudaError> {
        let source = self.source.current().ok_or(missing_source())?;
        Ok((
            [source.image.texture.id, self.output_name],
            [self.bins_name],
        ))
    }

    /// The frame's objects as the kernel host imports them, in a frame request's order:
    /// the source, the output, the bins, then the semaphores `gl_done` and `cuda_done`
    /// (made if there are none usable).
    pub fn host_objects(
        &mut self,
        gl: &glow::Context,
    ) -> Result<[(u64, SharedObject); 5], PipelineError> {
        let source = self.source.current().ok_or(missing_source())?;
        let sync = usable_sync(&mut self.sync, &self.interop, gl)?;
        let (gl_done, cuda_done) = sync.shared_ids();
        Ok([
            source.image.backing.shared_object(),
            self.output.shared_object(),
            self.bins.shared_object(),
            (gl_done, SharedObject::Semaphore),
            (cuda_done, SharedObject::Semaphore),
        ])
    }

    /// A new descriptor of `id`, one of [`SharedTargets::host_objects`], for the host.
    pub fn export_for_host(&self, id: u64) -> Result<OwnedFd, PipelineError> {
        let source = self.source.current().ok_or(missing_source())?;
        if source.image.backing.shared_object().0 == id {
            return source.image.backing.export_fd();
        }
        if self.output.shared_object().0 == id {
            return self.output.export_fd();
        }
        if self.bins.shared_object().0 == id {
            return self.bins.export_fd();
        }
        self.sync
            .as_ref()
            .and_then(|sync| sync.export_fd(id))
            .unwrap_or_else(|| {
                Err(CudaError::Driver {
                    call: "SharedTargets::export_for_host",
                    reason: format!("internal: no shared object {id}"),
                }
                .into())
            })
    }

    /// Runs the hand-over `hand` on the semaphores' slot with the GL objects every
    /// hand-over names (the source, the output and the bins).
    fn hand_over(
        &mut self,
        hand: impl FnOnce(
            &mut Option<ExternalSync>,
            &ExternalInterop,
            &SharedObjects<'_>,
        ) -> Result<(), PipelineError>,
    ) -> Result<(), PipelineError> {
        let (textures, buffers) = self.objects()?;
        let objects = SharedObjects {
            buffers: &buffers,
            textures: &textures,
        };
        hand(&mut self.sync, &self.interop, &objects)
    }

    /// GL → the kernel host, for a frame run there (see `ExternalSync::hand_to_host`).
    pub fn hand_to_host(&mut self, gl: &glow::Context) -> Result<(), PipelineError> {
        self.hand_over(|sync, interop, objects| {
            usable_sync(sync, interop, gl)?.hand_to_host(gl, objects)
        })
    }

    /// The kernel host → GL, after its frame is done (see `ExternalSync::back_from_host`).
    pub fn back_from_host(&mut self, gl: &glow::Context) -> Result<(), PipelineError> {
        self.hand_over(|sync, _, objects| {
            handed_sync(sync, "ExternalSync::back_from_host")?.back_from_host(gl, objects)
        })
    }

    /// The host's frame failed after the hand-over: new semaphores for the next frame.
    pub fn abandon_host(&mut self) {
        if let Some(sync) = self.sync.as_mut() {
            sync.abandon();
        }
    }

    /// Deletes everything but the output texture and the bin buffer (the caller's).
    pub fn destroy(mut self, gl: &glow::Context) {
        if let Some(sync) = self.sync {
            sync.destroy(gl);
        }
        self.source.release_all(|s| s.image.destroy(gl));
        if let Some(spare) = self.spare_output {
            spare.destroy(gl);
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
    ) -> Result<InteropViews<'_>, PipelineError> {
        self.hand_over(|sync, interop, objects| {
            usable_sync(sync, interop, gl)?.hand_to_cuda(gl, objects, stream)
        })?;
        let source = self.source.current().ok_or(missing_source())?;
        Ok(InteropViews {
            arrays: vec![source.image.backing.array(), self.output.array()],
            pointers: vec![self.bins.pointer()],
        })
    }

    fn release(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
    ) -> Result<(), PipelineError> {
        self.hand_over(|sync, _, objects| hand_back_to_gl(sync, gl, objects, stream))
    }
}
