//! The stages of one CUDA frame on views of its objects, whatever runs its user kernels:
//! source (texture object) → each stage (ping-pong intermediates) → output (surface
//! object) → histogram → bins on the host. Built-ins always run here; a user kernel stage
//! runs where [`UserStages`] says (this process, or the kernel host on the stage's arrays),
//! so a frame's stages have one loop for every placement.

use super::intermediates::Intermediates;
use super::stage::Stage;
use crate::cuda::{
    memory, ArrayRef, CudaDevice, CudaError, GpuTimeline, KernelSet, SurfaceObject, TextureObject,
};
use crate::filters::{launch_histogram, launch_histogram_swap_rect, launch_typed_copy, GpuStage};
use crate::ops::{ShownSelection, HISTOGRAM_BINS};
use crate::pipeline::interop::InteropViews;
use crate::pipeline::report::hand_over_stage;
use crate::pipeline::GpuPixelFormat;
use crate::user_kernel::device::LoadedKernel;
use crate::user_kernel::sandbox::{FrameSandbox, StageRun};
use crate::user_kernel::{CompiledKernel, KernelStage};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};
use std::sync::Arc;

use super::frame_targets::BIN_BUFFER_BYTES;

/// Where a frame's user kernel stages run when the frame's stages run in this process.
pub(super) enum UserStages<'a> {
    /// Loaded in this process (the kernel host's own frames, and measurements): a kernel
    /// that faults takes this context with it.
    Here(&'a [Option<Arc<LoadedKernel>>]),
    /// In the kernel host, one stage at a time on the stage's arrays: `compiled` holds
    /// each stage's PTX (None for built-ins); a kernel's failure is kept in `failure`.
    Host {
        host: &'a mut FrameSandbox,
        compiled: &'a [Option<Arc<CompiledKernel>>],
        failure: &'a mut Option<String>,
    },
}

/// A stage's input and output, as objects (for kernels of this context) and as arrays
/// (for the kernel host, which maps the arrays in its own).
pub(super) struct StageIo<'a> {
    pub ctx: &'a Arc<CudaContext>,
    pub stream: &'a Arc<CudaStream>,
    pub input: (&'a TextureObject<'a>, ArrayRef<'a>),
    pub output: (&'a SurfaceObject<'a>, ArrayRef<'a>),
    pub size: (u32, u32),
}

impl UserStages<'_> {
    /// Runs stage `k`, user kernel `user`, on `io`; where the kernel host ran it, the
    /// kernel's own GPU milliseconds (the rest of the stage is the hand-over).
    fn run(
        &mut self,
        k: usize,
        user: &KernelStage,
        io: &StageIo<'_>,
    ) -> Result<Option<f64>, CudaError> {
        let (width, height) = io.size;
        match self {
            UserStages::Here(loaded) => {
                let kernel = loaded
                    .get(k)
                    .and_then(Option::as_ref)
                    .ok_or(missing_stage())?;
                // SAFETY: the input and output are live objects of this context over RGBA8
                // arrays of `width × height` (a kernel keeps the size), kept until the
                // queued work has run (`FrameStages::run_views`' contract).
                unsafe {
                    kernel.launch(
                        io.stream,
                        io.input.0.handle(),
                        io.output.0.handle(),
                        width,
                        height,
                        &user.param_block(),
                    )
                }
                .map_err(|e| CudaError::Launch {
                    kernel: "user kernel",
                    reason: format!("{}: {e}", user.label()),
                })?;
                Ok(None)
            }
            UserStages::Host {
                host,
                compiled,
                failure,
            } => {
                let compiled = compiled
                    .get(k)
                    .and_then(Option::as_ref)
                    .ok_or(missing_stage())?;
                let run = StageRun {
                    ctx: io.ctx,
                    stream: io.stream,
                    hash: user.hash(),
                    source: user.source(),
                    compiled,
                    params: &user.param_block(),
                    input: io.input.1,
                    output: io.output.1,
                    width,
                    height,
                };
                host.run(&run).map_err(|e| {
                    let message = format!("{}: {e}", user.label());
                    **failure = Some(message.clone());
                    CudaError::Launch {
                        kernel: "user kernel",
                        reason: message,
                    }
                })
            }
        }
    }
}

/// The device state a frame's stages use, kept between frames.
pub(super) struct FrameStages {
    pub kernels: KernelSet,
    pub intermediates: Intermediates,
    pub scratch: Option<CudaSlice<u8>>,
    /// The bins on the host, copied without blocking so that the hand-back to GL is queued
    /// right after the histogram (read after the stream synchronizes).
    pub bins_host: PinnedHostSlice<u32>,
}

impl FrameStages {
    pub fn new(device: &CudaDevice, kernels: KernelSet) -> Result<Self, CudaError> {
        // SAFETY: the bins are only read after a copy into them completed.
        let bins_host = unsafe { device.ctx.alloc_pinned_with_flags(4 * HISTOGRAM_BINS, 0) }
            .map_err(CudaError::driver("cuMemHostAlloc(bins)"))?;
        Ok(Self {
            kernels,
            intermediates: Intermediates::default(),
            scratch: None,
            bins_host,
        })
    }

    /// Makes the scratch hold what the largest stage needs (at least one byte).
    pub fn ensure_scratch(
        &mut self,
        stream: &Arc<CudaStream>,
        filters: &[Stage],
        (mut w, mut h): (u32, u32),
        format: GpuPixelFormat,
    ) -> Result<(), CudaError> {
        let mut need = 1usize;
        for f in filters {
            need = need.max(f.scratch_bytes(w, h, format.layout()));
            (w, h) = f.output_size(w, h);
        }
        if need > self.scratch.as_ref().map_or(0, |s| s.len()) {
            self.scratch = None;
            if crate::fault::injected(crate::fault::Fault::OomScratch) {
                return Err(CudaError::OutOfMemory {
                    call: "cuMemAlloc(scratch)",
                });
            }
            self.scratch = Some(
                stream
                    .alloc_zeros::<u8>(need)
                    .map_err(CudaError::driver("cuMemAlloc(scratch)"))?,
            );
        }
        Ok(())
    }

    /// Queues the frame's kernels on the acquired views, user kernels where `users` runs
    /// them. With `guard_output`, a user kernel never writes the output itself: the last
    /// stage, if it is one, writes an intermediate that is copied to the output after it,
    /// so that a kernel that faults or never ends leaves the last output as it was. With
    /// `shown`, the bins count what is shown: the result inside the selection, the source
    /// outside (where the result has the source's size).
    ///
    /// # Safety
    /// `mapped` must hold this frame's objects (array 0: the source, `source`'s size and
    /// format; array 1: the output, the size of the chain's result, of the same format;
    /// pointer 0: the bin buffer), and the owner must order its release after the queued
    /// work on `stream` (both interop paths do). That they stay alive meanwhile is the
    /// views' borrow.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn run_views(
        &mut self,
        ctx: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        mapped: &InteropViews<'_>,
        (source, format): ((u32, u32), GpuPixelFormat),
        filters: &[Stage],
        users: &mut UserStages<'_>,
        guard_output: bool,
        shown: Option<ShownSelection>,
        timeline: &mut GpuTimeline,
    ) -> Result<(), CudaError> {
        let source_array = mapped.array(0)?;
        let output_array = mapped.array(1)?;
        let bins = mapped.pointer(0)?;
        let (bins_ptr, bins_size) = (bins.ptr, bins.size);
        if bins_size < BIN_BUFFER_BYTES {
            return Err(CudaError::Launch {
                kernel: "histogram",
                reason: format!("bin buffer of {bins_size} B"),
            });
        }
        let source_texture = TextureObject::from_typed_array(ctx, source_array, format.cuda())?;
        // The output is registered (or imported) for surface stores.
        let output_surface = SurfaceObject::from_array(ctx, output_array)?;
        let (mut w, mut h) = source;
        let copy_out = guard_output && matches!(filters.last(), Some(Stage::Kernel(_)));
        for (k, filter) in filters.iter().enumerate() {
            let (ow, oh) = filter.output_size(w, h);
            let last = k + 1 == filters.len() && !copy_out;
            if !last {
                self.intermediates.ensure(ctx, k, (ow, oh), format)?;
            }
            let input = match k {
                0 => (&source_texture, source_array),
                _ => {
                    let i = self.intermediates.get(k - 1).ok_or(missing_stage())?;
                    (i.texture(), i.array().view())
                }
            };
            let output = match last {
                true => (&output_surface, output_array),
                false => {
                    let o = self.intermediates.get(k).ok_or(missing_stage())?;
                    (o.surface(), o.array().view())
                }
            };
            let label = filter.label();
            match filter {
                Stage::Filter(f) => {
                    let scratch = self.scratch.as_mut().ok_or(missing_stage())?;
                    let mut stage = GpuStage {
                        kernels: &self.kernels,
                        stream,
                        input: input.0,
                        output: output.0,
                        width: w,
                        height: h,
                        layout: format.layout(),
                        scratch,
                    };
                    f.def().ops.launch(&mut stage, f.params())?;
                    timeline.mark(label, stream)?;
                }
                Stage::Kernel(user) => {
                    let io = StageIo {
                        ctx,
                        stream,
                        input,
                        output,
                        size: (w, h),
                    };
                    match users.run(k, user, &io)? {
                        Some(ms) => timeline.mark_part(
                            label.clone(),
                            ms,
                            hand_over_stage(&label),
                            stream,
                        )?,
                        None => timeline.mark(label, stream)?,
                    }
                }
            }
            (w, h) = (ow, oh);
        }
        if filters.is_empty() || copy_out {
            let input = match filters.len() {
                0 => &source_texture,
                n => self
                    .intermediates
                    .get(n - 1)
                    .ok_or(missing_stage())?
                    .texture(),
            };
            let layout = (format.sample, format.channels);
            let objects = (input, &output_surface);
            launch_typed_copy(&self.kernels, stream, objects, (w, h), layout)?;
            timeline.mark("copy", stream)?;
        }
        // SAFETY: the bin buffer holds BIN_BUFFER_BYTES = 4 × HISTOGRAM_BINS u32 (checked
        // above) and stays mapped until the fill has run.
        unsafe { memory::fill_u32(bins_ptr, 0, 4 * HISTOGRAM_BINS, stream)? };
        // The histogram kernel reads RGBA8; other formats keep empty bins for now.
        if format == GpuPixelFormat::RGBA8 {
            let output_texture = TextureObject::from_array(ctx, output_array)?;
            // With a selection (on a result of the source's size) the source is counted,
            // then the selection's pixels swapped for the result's.
            let shown = shown.filter(|_| (w, h) == source);
            let counted = match shown {
                Some(_) => &source_texture,
                None => &output_texture,
            };
            // SAFETY: `bins_ptr` is the frame's bin buffer, checked above to hold
            // BIN_BUFFER_BYTES, valid until the frame's work is released; the selection
            // lies inside both textures, of one size (`within`, and the test above).
            unsafe {
                launch_histogram(&self.kernels, stream, counted, w, h, bins_ptr)?;
                if let Some(s) = shown.and_then(|s| s.within((w, h))) {
                    launch_histogram_swap_rect(
                        &self.kernels,
                        stream,
                        (&source_texture, &output_texture),
                        (s.x, s.y, s.width, s.height),
                        bins_ptr,
                    )?;
                }
            }
        }
        // The histogram's own stage ends here: what NPP's peer does too (zeroed bins, counted
        // on the device); the copy to the host that the UI reads is a stage of its own.
        timeline.mark("histogram", stream)?;
        // SAFETY: `bins_host` holds 4 × HISTOGRAM_BINS u32 and lives in `self`, which the
        // caller synchronizes before reading it; the bin buffer is valid as for the fill.
        unsafe { memory::read_u32_async(bins_ptr, &mut self.bins_host, stream)? };
        timeline.mark(BINS_TO_HOST, stream)
    }
}

/// The stage that copies the frame's bins to the host, after the histogram kernel.
const BINS_TO_HOST: &str = "bins to host";

pub(super) fn missing_stage() -> CudaError {
    CudaError::Launch {
        kernel: "pipeline",
        reason: "internal: stage buffer missing".into(),
    }
}
