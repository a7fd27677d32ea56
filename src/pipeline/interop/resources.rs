//! The one interface the CUDA frame code uses to reach GL objects: acquire CUDA views of
//! them (arrays for textures, device pointers for buffers) after GL's work, release them to
//! GL after CUDA's. Two implementations: [`ClassicResources`] (registered GL objects,
//! mapped and unmapped every frame) and the external-memory owners (`SharedTargets`,
//! `SharedDisplay`), whose views exist for the whole session and whose hand-over is a pair
//! of semaphores.

use crate::cuda::interop::{GraphicsResource, Mapped, Registered};
use crate::cuda::{ArrayRef, BufferRef, CudaError, GpuTimeline};
use crate::pipeline::report::CPU_STAGE_SUFFIX;
use crate::pipeline::PipelineError;
use cudarc::driver::{CudaContext, CudaStream};
use std::sync::Arc;
use std::time::Instant;

/// CUDA's views of the GL objects, textures first (in the order the owner lists them), then
/// buffers. They borrow the owner from `acquire` on, so `release` cannot be called while a
/// view, or a texture or surface object over one, still exists.
#[derive(Debug, Default)]
pub struct InteropViews<'a> {
    pub arrays: Vec<ArrayRef<'a>>,
    pub pointers: Vec<BufferRef<'a>>,
}

fn missing(what: &str, index: usize) -> CudaError {
    CudaError::Driver {
        call: "InteropViews",
        reason: format!("no {what} {index}"),
    }
}

impl<'a> InteropViews<'a> {
    /// The CUDA array of texture `index`.
    pub fn array(&self, index: usize) -> Result<ArrayRef<'a>, CudaError> {
        self.arrays
            .get(index)
            .copied()
            .ok_or_else(|| missing("texture", index))
    }

    /// Buffer `index`.
    pub fn pointer(&self, index: usize) -> Result<BufferRef<'a>, CudaError> {
        self.pointers
            .get(index)
            .copied()
            .ok_or_else(|| missing("buffer", index))
    }
}

/// GL objects that CUDA borrows for a frame.
pub trait InteropResources {
    /// Hands the objects to CUDA: work queued on `stream` afterwards sees every GL command
    /// issued before.
    fn acquire(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
    ) -> Result<InteropViews<'_>, PipelineError>;

    /// Hands them back to GL: GL commands issued afterwards see the stream's work.
    fn release(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
    ) -> Result<(), PipelineError>;
}

/// Hands `access` to CUDA (marking "interop in" on the timeline), runs `write` on its views
/// and the timeline, and hands it back to GL ("interop out"), also when `write` failed. The
/// driver calls of each hand-over are timed on the CPU too ("interop in (CPU)", "interop out
/// (CPU)"): on an idle stream an event's time is when the CPU queued it, so the GPU stage
/// alone cannot tell the wait on the GPU from the calls that queue it.
pub fn with_cuda_access<T>(
    access: &mut dyn InteropResources,
    gl: &glow::Context,
    stream: &Arc<CudaStream>,
    timeline: &mut GpuTimeline,
    write: impl FnOnce(&InteropViews<'_>, &mut GpuTimeline) -> Result<T, CudaError>,
) -> Result<T, PipelineError> {
    let cpu_ms = |start: Instant| start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    let views = access.acquire(gl, stream)?;
    timeline.note_cpu(format!("interop in{CPU_STAGE_SUFFIX}"), cpu_ms(start));
    timeline.mark("interop in", stream)?;
    let written = write(&views, timeline);
    drop(views);
    let start = Instant::now();
    let released = access.release(gl, stream);
    timeline.note_cpu(format!("interop out{CPU_STAGE_SUFFIX}"), cpu_ms(start));
    timeline.mark("interop out", stream)?;
    let value = written?;
    released.map(|()| value)
}

/// Hands `access` to CUDA, runs `work` on its views and hands it back to GL, also when
/// `work` failed (whose error then comes first). Untimed: for work outside a frame (an
/// upload, a read-back); a frame's work goes through [`with_cuda_access`].
pub fn with_views<T>(
    access: &mut dyn InteropResources,
    gl: &glow::Context,
    stream: &Arc<CudaStream>,
    work: impl FnOnce(&InteropViews<'_>) -> Result<T, CudaError>,
) -> Result<T, PipelineError> {
    let views = access.acquire(gl, stream)?;
    let done = work(&views);
    drop(views);
    let released = access.release(gl, stream);
    let value = done?;
    released.map(|()| value)
}

/// Registered GL textures and buffers, mapped with one call per frame and unmapped with
/// one. A failed map or unmap drops the registration (unregistering it); the owner
/// registers again.
pub struct ClassicResources {
    registered: Option<Registered>,
    mapped: Option<Mapped>,
    textures: usize,
    buffers: usize,
}

impl ClassicResources {
    /// Registers `textures` then `buffers` (GL name, `cuda::ffi::REGISTER_*` flags).
    pub fn register(
        ctx: &Arc<CudaContext>,
        textures: &[(glow::Texture, u32)],
        buffers: &[(glow::Buffer, u32)],
    ) -> Result<Self, CudaError> {
        let mut resources = Vec::with_capacity(textures.len() + buffers.len());
        for &(texture, flags) in textures {
            resources.push(GraphicsResource::texture(ctx, texture, flags)?);
        }
        for &(buffer, flags) in buffers {
            resources.push(GraphicsResource::buffer(ctx, buffer, flags)?);
        }
        Ok(Self {
            registered: Some(Registered::new(resources)),
            mapped: None,
            textures: textures.len(),
            buffers: buffers.len(),
        })
    }

    /// Whether the registration is intact (false after a failed map or unmap).
    pub fn usable(&self) -> bool {
        self.registered.is_some()
    }

    fn views(
        textures: usize,
        buffers: usize,
        mapped: &Mapped,
    ) -> Result<InteropViews<'_>, CudaError> {
        Ok(InteropViews {
            arrays: (0..textures)
                .map(|i| mapped.array(i))
                .collect::<Result<_, _>>()?,
            pointers: (0..buffers)
                .map(|i| mapped.pointer(textures + i))
                .collect::<Result<_, _>>()?,
        })
    }
}

impl InteropResources for ClassicResources {
    fn acquire(
        &mut self,
        _gl: &glow::Context,
        stream: &Arc<CudaStream>,
    ) -> Result<InteropViews<'_>, PipelineError> {
        let registered = self.registered.take().ok_or(CudaError::Driver {
            call: "cuGraphicsMapResources",
            reason: "resources already mapped or lost".into(),
        })?;
        // A failed view leaves the resources mapped and unregistered: not `usable`, so the
        // owner drops them (unmapping) and registers again.
        let mapped = self.mapped.insert(registered.map(stream)?);
        Ok(Self::views(self.textures, self.buffers, mapped)?)
    }

    fn release(
        &mut self,
        _gl: &glow::Context,
        _stream: &Arc<CudaStream>,
    ) -> Result<(), PipelineError> {
        let mapped = self.mapped.take().ok_or(CudaError::Driver {
            call: "cuGraphicsUnmapResources",
            reason: "resources not mapped".into(),
        })?;
        self.registered = Some(mapped.unmap()?);
        Ok(())
    }
}
