//! The per-frame ordering of the external path: two binary semaphores allocated with
//! Vulkan and imported by both APIs. GL signals `gl_done` after its work on the shared
//! objects and the CUDA stream waits on it; the stream signals `cuda_done` after its work
//! and GL waits on it. Neither call blocks the CPU. Release with [`ExternalSync::destroy`].

use super::ExternalInterop;
use crate::cuda::ExternalSemaphore;
use crate::gl::{GlSemaphore, SharedObjects};
use crate::pipeline::PipelineError;
use crate::vk::ExportedSemaphore;
use cudarc::driver::CudaStream;

/// One semaphore as Vulkan made it and as GL and CUDA imported it.
struct SemaphorePair {
    gl: GlSemaphore,
    cuda: ExternalSemaphore,
    vk: ExportedSemaphore,
    id: u64,
}

impl SemaphorePair {
    fn new(interop: &ExternalInterop, gl: &glow::Context) -> Result<Self, PipelineError> {
        let vk = ExportedSemaphore::new(&interop.exporter)?;
        let gl_side = GlSemaphore::import(gl, vk.export_fd()?)?;
        let cuda = vk
            .export_fd()
            .map_err(PipelineError::from)
            .and_then(|fd| Ok(ExternalSemaphore::import(&interop.ctx, fd)?));
        match cuda {
            Ok(cuda) => Ok(Self {
                gl: gl_side,
                cuda,
                vk,
                id: super::backing::next_shared_id(),
            }),
            Err(e) => {
                gl_side.destroy(gl);
                Err(e)
            }
        }
    }

    fn destroy(self, gl: &glow::Context) {
        drop(self.cuda);
        self.gl.destroy(gl);
    }
}

/// Who may use the shared objects now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    Gl,
    Cuda,
    /// The kernel host, which imported the semaphores (a frame run there).
    Host,
    /// A hand-over failed half-way: the semaphores' states are unknown; make new ones.
    Unknown,
}

pub struct ExternalSync {
    gl_done: SemaphorePair,
    cuda_done: SemaphorePair,
    owner: Owner,
}

impl ExternalSync {
    pub fn new(interop: &ExternalInterop, gl: &glow::Context) -> Result<Self, PipelineError> {
        let gl_done = SemaphorePair::new(interop, gl)?;
        match SemaphorePair::new(interop, gl) {
            Ok(cuda_done) => Ok(Self {
                gl_done,
                cuda_done,
                owner: Owner::Gl,
            }),
            Err(e) => {
                gl_done.destroy(gl);
                Err(e)
            }
        }
    }

    /// Whether the semaphores can still be used (false after a failed hand-over).
    pub fn usable(&self) -> bool {
        self.owner != Owner::Unknown
    }

    fn expect_owner(&mut self, owner: Owner, call: &'static str) -> Result<(), PipelineError> {
        if self.owner == owner {
            self.owner = Owner::Unknown; // until the hand-over completes
            Ok(())
        } else {
            self.owner = Owner::Unknown;
            Err(crate::cuda::CudaError::Driver {
                call,
                reason: format!("shared objects held by {:?}", owner),
            }
            .into())
        }
    }

    /// GL → CUDA: work queued on `stream` from now on runs after every GL command issued
    /// so far (which is flushed).
    pub fn hand_to_cuda(
        &mut self,
        gl: &glow::Context,
        objects: &SharedObjects<'_>,
        stream: &CudaStream,
    ) -> Result<(), PipelineError> {
        self.expect_owner(Owner::Gl, "ExternalSync::hand_to_cuda")?;
        self.gl_done.gl.signal(gl, objects)?;
        self.gl_done.cuda.wait(stream)?;
        self.owner = Owner::Cuda;
        Ok(())
    }

    /// CUDA → GL: GL commands issued from now on run after the work queued on `stream`.
    pub fn hand_to_gl(
        &mut self,
        gl: &glow::Context,
        objects: &SharedObjects<'_>,
        stream: &CudaStream,
    ) -> Result<(), PipelineError> {
        self.expect_owner(Owner::Cuda, "ExternalSync::hand_to_gl")?;
        self.cuda_done.cuda.signal(stream)?;
        self.cuda_done.gl.wait(gl, objects)?;
        self.owner = Owner::Gl;
        Ok(())
    }

    /// GL → the kernel host: signals `gl_done` after every GL command issued so far (which
    /// is flushed); the host's stream waits on it.
    pub fn hand_to_host(
        &mut self,
        gl: &glow::Context,
        objects: &SharedObjects<'_>,
    ) -> Result<(), PipelineError> {
        self.expect_owner(Owner::Gl, "ExternalSync::hand_to_host")?;
        self.gl_done.gl.signal(gl, objects)?;
        self.owner = Owner::Host;
        Ok(())
    }

    /// The kernel host → GL, after the host answered that its frame is done (it signals
    /// `cuda_done` and waits for it before it answers, so GL never waits on a host that
    /// died): GL commands issued from now on see the host's work.
    pub fn back_from_host(
        &mut self,
        gl: &glow::Context,
        objects: &SharedObjects<'_>,
    ) -> Result<(), PipelineError> {
        self.expect_owner(Owner::Host, "ExternalSync::back_from_host")?;
        self.cuda_done.gl.wait(gl, objects)?;
        self.owner = Owner::Gl;
        Ok(())
    }

    /// The host's frame failed after the hand-over: the semaphores' states are unknown
    /// (new ones are made for the next frame).
    pub fn abandon(&mut self) {
        self.owner = Owner::Unknown;
    }

    /// The ids of `gl_done` and `cuda_done` as shared objects.
    pub fn shared_ids(&self) -> (u64, u64) {
        (self.gl_done.id, self.cuda_done.id)
    }

    /// A new descriptor of semaphore `id` (one of [`ExternalSync::shared_ids`]).
    pub fn export_fd(&self, id: u64) -> Option<Result<std::os::fd::OwnedFd, PipelineError>> {
        [&self.gl_done, &self.cuda_done]
            .into_iter()
            .find(|p| p.id == id)
            .map(|p| Ok(p.vk.export_fd()?))
    }

    pub fn destroy(self, gl: &glow::Context) {
        self.gl_done.destroy(gl);
        self.cuda_done.destroy(gl);
    }
}

/// The usable semaphore pair in `slot`, made anew when there is none or the last hand-over
/// failed half-way.
pub fn usable_sync<'a>(
    slot: &'a mut Option<ExternalSync>,
    interop: &ExternalInterop,
    gl: &glow::Context,
) -> Result<&'a mut ExternalSync, PipelineError> {
    if !slot.as_ref().is_some_and(ExternalSync::usable) {
        if let Some(old) = slot.take() {
            old.destroy(gl);
        }
        *slot = Some(ExternalSync::new(interop, gl)?);
    }
    slot.as_mut().ok_or_else(|| {
        crate::cuda::CudaError::Driver {
            call: "ExternalSync",
            reason: "internal: no semaphores".into(),
        }
        .into()
    })
}

/// The semaphores in `slot`, for handing the objects back to GL (`call` names the
/// hand-over); an error if nothing was handed over (no semaphores yet).
pub fn handed_sync<'a>(
    slot: &'a mut Option<ExternalSync>,
    call: &'static str,
) -> Result<&'a mut ExternalSync, PipelineError> {
    slot.as_mut().ok_or_else(|| {
        crate::cuda::CudaError::Driver {
            call,
            reason: "internal: handed back before it was handed over".into(),
        }
        .into()
    })
}

/// CUDA → GL with the semaphores in `slot` ([`ExternalSync::hand_to_gl`]); an error if
/// nothing was handed to CUDA (no semaphores yet).
pub fn hand_back_to_gl(
    slot: &mut Option<ExternalSync>,
    gl: &glow::Context,
    objects: &SharedObjects<'_>,
    stream: &CudaStream,
) -> Result<(), PipelineError> {
    handed_sync(slot, "ExternalSync::hand_to_gl")?.hand_to_gl(gl, objects, stream)
}
