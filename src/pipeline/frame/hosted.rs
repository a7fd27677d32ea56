//! Whole frames in the kernel host: when a stack has a user kernel and the app shares its
//! frame objects through external memory, the host imports the source, the output, the
//! bin buffer and the two semaphores once, and runs every stage of each frame, built-ins
//! and the user's kernels alike, in its own context. The app's process then queues no
//! CUDA work in such a frame, so the GPU never switches between the two processes'
//! contexts within it. This is the host's side; the app's is `CudaFrame::run_in_host`.

use super::cuda_frame::CudaFrame;
use super::stage::Stage;
use crate::cuda::{ArrayFormat, CudaDevice, ExternalArray, ExternalBuffer, ExternalSemaphore};
use crate::filters::Filter;
use crate::pipeline::interop::InteropViews;
use crate::user_kernel::device::LoadedKernel;
use crate::user_kernel::sandbox::host::{
    self, cuda_failure, FrameWork, FrameWorkFactory, HostedStage,
};
use crate::user_kernel::sandbox::protocol::{
    FailStage, Failure, FrameRequest, FrameResult, SharedObject, NOT_MAPPED,
};
use crate::user_kernel::KernelStage;
use std::collections::VecDeque;
use std::os::fd::OwnedFd;
use std::sync::Arc;

/// Shared objects a host keeps imported at once: a frame's five and the app's spares of
/// another size. Older ones are dropped, which frees memory the app has already deleted;
/// the app maps an object the host no longer has again.
const MAX_SHARED: usize = 10;

/// One imported object.
enum Imported {
    Image(ExternalArray),
    Buffer(ExternalBuffer),
    Semaphore(ExternalSemaphore),
}

/// The host's frames: a CUDA frame of its own and the objects it imported.
pub struct HostedFrames {
    frame: CudaFrame,
    shared: Shared,
}

/// What the kernel host runs whole frames with (for `run_cuda_host`).
pub fn frame_work() -> FrameWorkFactory {
    Box::new(|device: &CudaDevice| {
        let frame = CudaFrame::in_kernel_host(device.clone())
            .map_err(|e| cuda_failure(FailStage::Start, true, e))?;
        let work: Box<dyn FrameWork> = Box::new(HostedFrames {
            frame,
            shared: VecDeque::new(),
        });
        Ok(work)
    })
}

fn request_failure(e: impl std::fmt::Display) -> Failure {
    host::request_failure(false, e.to_string())
}

fn not_mapped(id: u64) -> Failure {
    Failure {
        name: NOT_MAPPED.into(),
        ..request_failure(format!("shared object {id} is not mapped"))
    }
}

type Shared = VecDeque<(u64, Imported)>;

fn get(shared: &Shared, id: u64) -> Result<&Imported, Failure> {
    shared
        .iter()
        .find(|(k, _)| *k == id)
        .map(|(_, o)| o)
        .ok_or_else(|| not_mapped(id))
}

fn wrong_kind(id: u64, what: &str) -> Failure {
    request_failure(format!("shared object {id} is not {what}"))
}

fn image(shared: &Shared, id: u64) -> Result<&ExternalArray, Failure> {
    match get(shared, id)? {
        Imported::Image(a) => Ok(a),
        _ => Err(wrong_kind(id, "an image")),
    }
}

fn buffer(shared: &Shared, id: u64) -> Result<&ExternalBuffer, Failure> {
    match get(shared, id)? {
        Imported::Buffer(b) => Ok(b),
        _ => Err(wrong_kind(id, "a buffer")),
    }
}

fn semaphore(shared: &Shared, id: u64) -> Result<&ExternalSemaphore, Failure> {
    match get(shared, id)? {
        Imported::Semaphore(s) => Ok(s),
        _ => Err(wrong_kind(id, "a semaphore")),
    }
}

/// The stack of a frame request, and each user kernel's loaded kernel (None for built-ins).
type Stack = (Vec<Stage>, Vec<Option<Arc<LoadedKernel>>>);

fn stages_of(stages: &[HostedStage<'_>]) -> Result<Stack, Failure> {
    let mut out = Vec::with_capacity(stages.len());
    let mut kernels = Vec::with_capacity(stages.len());
    for stage in stages {
        match stage {
            HostedStage::Builtin(spec) => {
                let filter: Filter = spec.parse().map_err(request_failure)?;
                out.push(Stage::Filter(filter));
                kernels.push(None);
            }
            HostedStage::Kernel { kernel, spec } => {
                let stage = KernelStage::from_spec_with_source(spec, kernel.source().clone())
                    .map_err(request_failure)?;
                out.push(Stage::Kernel(stage));
                kernels.push(Some(kernel.clone()));
            }
        }
    }
    Ok((out, kernels))
}

impl FrameWork for HostedFrames {
    fn map_shared(&mut self, id: u64, object: SharedObject, fd: OwnedFd) -> Result<(), Failure> {
        let ctx = self.frame.device.ctx.clone();
        let refused = |e| cuda_failure(FailStage::Load, false, e);
        let imported = match object {
            SharedObject::Image {
                width,
                height,
                size,
            } => Imported::Image(
                ExternalArray::import(&ctx, fd, size, (width, height), ArrayFormat::RGBA8)
                    .map_err(refused)?,
            ),
            SharedObject::Buffer { size, memory_size } => {
                let size = usize::try_from(size).map_err(request_failure)?;
                Imported::Buffer(
                    ExternalBuffer::import(&ctx, fd, memory_size, size).map_err(refused)?,
                )
            }
            SharedObject::Semaphore => {
                Imported::Semaphore(ExternalSemaphore::import(&ctx, fd).map_err(refused)?)
            }
        };
        self.shared.retain(|(k, _)| *k != id);
        if self.shared.len() >= MAX_SHARED {
            self.shared.pop_front();
        }
        self.shared.push_back((id, imported));
        Ok(())
    }

    fn run_frame(
        &mut self,
        request: &FrameRequest,
        stages: &[HostedStage<'_>],
    ) -> Result<FrameResult, Failure> {
        let (filters, kernels) = stages_of(stages)?;
        let Self { frame, shared } = self;
        let views = InteropViews {
            arrays: vec![
                image(shared, request.source)?.view(),
                image(shared, request.output)?.view(),
            ],
            pointers: vec![buffer(shared, request.bins)?.view()],
        };
        let gl_done = semaphore(shared, request.gl_done)?;
        let cuda_done = semaphore(shared, request.cuda_done)?;
        // SAFETY: the views are the imported source, output and bins, alive in `shared`
        // (not changed meanwhile) until `run_shared` returns.
        let ran = unsafe {
            frame.run_shared(
                &views,
                (request.width, request.height),
                &filters,
                &kernels,
                |stream| gl_done.wait(stream),
                |stream| cuda_done.signal(stream),
            )
        };
        // A failure once the frame's work was queued poisons the context: fatal.
        ran.map_err(|e| cuda_failure(FailStage::Run, true, e))
    }
}
