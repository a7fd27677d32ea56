//! One frame of the filter stack on CUDA, through GL interop.
//!
//! source GL texture → texture object → stage kernels (ping-pong CUDA arrays) → output GL
//! texture (surface object) → histogram kernel → GL bin buffer. The three GL objects reach
//! CUDA through [`InteropResources`]: on the external-memory path they live in shared
//! memory and a semaphore pair hands them over; on the map/unmap path they are registered
//! (when a texture changes, not every frame) and mapped and unmapped with one call each.

use super::frame_stages::{missing_stage, FrameStages, UserStages};
use super::frame_targets::FrameTargets;
use super::intermediates::Intermediates;
use super::stage::Stage;
use crate::cuda::{ffi, memory, ArrayRef, CudaDevice, CudaError, GpuTimeline, KernelSet};
use crate::filters::kernel_modules;
use crate::gl::TextureRef;
use crate::ops::Histogram;
use crate::pipeline::interop::SharedTargets;
use crate::pipeline::interop::{
    with_cuda_access, with_views, ClassicResources, InteropResources, InteropViews,
};
use crate::pipeline::report::{stages_from, FrameReport, KERNEL_HOST_STAGE};
use crate::pipeline::{BackendKind, GpuPixelFormat, PipelineError};
use crate::user_kernel::cache::compile_cached;
use crate::user_kernel::cache::LoadedKernels;
use crate::user_kernel::device::arch_for;
use crate::user_kernel::device::LoadedKernel;
use crate::user_kernel::sandbox::protocol::{FrameRequest, FrameResult, WireStage};
use crate::user_kernel::sandbox::{
    FrameSandbox, HostCommand, HostFrame, SandboxConfig, SandboxError,
};
use crate::user_kernel::{CompiledKernel, KernelStage};
use cudarc::driver::CudaStream;
use image::RgbaImage;
use std::sync::Arc;
use std::time::Instant;

/// What the registration was made for: re-register when the objects change, or when the
/// source is to be written and was registered for reading only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RegistrationKey {
    source: TextureRef,
    output: TextureRef,
    bins: glow::Buffer,
    /// CUDA writes the source too (a frame decoded on the device).
    writes_source: bool,
}

impl RegistrationKey {
    /// Whether a registration made for `self` serves `want`.
    fn serves(&self, want: &RegistrationKey) -> bool {
        (self.source, self.output, self.bins) == (want.source, want.output, want.bins)
            && (self.writes_source || !want.writes_source)
    }
}

/// CUDA state kept between frames.
pub struct CudaFrame {
    pub device: CudaDevice,
    stages: FrameStages,
    registration: Option<(RegistrationKey, ClassicResources)>,
    /// The source's pixels were replaced since the last frame (the external path copies
    /// them into shared memory then).
    source_changed: bool,
    /// User kernels compiled and loaded in this context (for their attributes, and to
    /// run them here when `in_process`).
    user_kernels: LoadedKernels,
    /// User kernels run in this process (`CUDALENS_USER_KERNELS=in-process`, for
    /// measurements): a kernel that faults or never ends then takes the context with it.
    in_process: bool,
    /// The kernel host user kernels run in otherwise, started on first use.
    kernel_host: Option<FrameSandbox>,
    /// The last user kernel failure of a frame, one line (a frame's error of its own).
    kernel_failure: Option<String>,
    /// The kernel host's command when not this program's own.
    host_command: Option<HostCommand>,
    /// Why whole frames do not run in the kernel host, once it refused the shared
    /// objects (its user kernels then run there stage by stage).
    host_frames_refused: Option<String>,
}

/// Where a frame runs: the one choice between the three ways a stack can run on CUDA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// Every stage in this process (no user kernels, or user kernels run here).
    InProcess,
    /// The whole frame in the kernel host, on the objects the app shares with it.
    HostFrame,
    /// Built-ins here, each user kernel stage in the kernel host on the stage's arrays.
    HostStages,
}

/// How a frame run wholly in the kernel host ended, when not with a report.
enum HostFrameError {
    /// The host could not take the frame's objects: run it stage by stage instead.
    Refused(String),
    /// The frame failed (a user kernel's fault, or the app's own error).
    Failed(PipelineError),
}

impl From<PipelineError> for HostFrameError {
    fn from(e: PipelineError) -> Self {
        HostFrameError::Failed(e)
    }
}

impl CudaFrame {
    pub fn new(device: CudaDevice) -> Result<Self, CudaError> {
        device.bind()?;
        let kernels = KernelSet::load(&device, kernel_modules())?;
        let stages = FrameStages::new(&device, kernels)?;
        Ok(Self {
            device,
            stages,
            registration: None,
            source_changed: true,
            user_kernels: LoadedKernels::default(),
            in_process: std::env::var_os("CUDALENS_USER_KERNELS")
                .is_some_and(|v| v == "in-process"),
            kernel_host: None,
            kernel_failure: None,
            host_command: None,
            host_frames_refused: None,
        })
    }

    /// The frame of the kernel host: user kernels run in this context (the host's own),
    /// loaded by the host.
    pub fn in_kernel_host(device: CudaDevice) -> Result<Self, CudaError> {
        let mut frame = Self::new(device)?;
        frame.in_process = true;
        Ok(frame)
    }

    /// Runs `filters` in the kernel host on objects the app shares with it: after `wait`
    /// (queued first: the app's GL is done with them), from array 0 of `views` (the
    /// source, `source`'s size) into array 1 (the output, which a user kernel never writes
    /// itself), the bins into pointer 0, then `signal`; waits for all of it. The stage
    /// times and the bins.
    ///
    /// # Safety
    /// `views` must be the shared objects as above, alive until this returns.
    pub unsafe fn run_shared(
        &mut self,
        views: &InteropViews<'_>,
        source: (u32, u32),
        filters: &[Stage],
        user_kernels: &[Option<Arc<LoadedKernel>>],
        wait: impl FnOnce(&CudaStream) -> Result<(), CudaError>,
        signal: impl FnOnce(&CudaStream) -> Result<(), CudaError>,
    ) -> Result<FrameResult, CudaError> {
        self.device.bind()?;
        let stream = self.device.stream.clone();
        self.stages
            .ensure_scratch(&stream, filters, source, GpuPixelFormat::RGBA8)?;
        wait(&stream)?;
        let mut timeline = GpuTimeline::start(&self.device.ctx, &stream)?;
        // SAFETY: the caller's contract: the views are the frame's objects, alive until
        // this returns, which is after the stream is synchronized below.
        let queued = unsafe {
            self.stages.run_views(
                &self.device.ctx,
                &stream,
                views,
                (source, GpuPixelFormat::RGBA8),
                filters,
                &mut UserStages::Here(user_kernels),
                true,
                None,
                &mut timeline,
            )
        };
        let signalled = queued.and_then(|()| signal(&stream));
        let synced = self.device.synchronize();
        signalled?;
        synced?;
        let stages = timeline.stage_times()?;
        let bins = self
            .stages
            .bins_host
            .as_slice()
            .map_err(CudaError::driver("cuEventSynchronize"))?
            .to_vec();
        Ok(FrameResult { stages, bins })
    }

    /// Runs user kernels in this process instead of the kernel host (for measurements: a
    /// kernel that faults then takes the context with it).
    pub fn set_user_kernels_in_process(&mut self, in_process: bool) {
        self.in_process = in_process;
    }

    /// Drops the GL registrations (before a registered texture is resized, deleted or
    /// given new pixels).
    pub fn release_registrations(&mut self) {
        self.registration = None;
        self.source_changed = true;
    }

    /// Drops the registrations and frees the scratch and the intermediates.
    pub fn trim(&mut self) {
        self.release_registrations();
        self.stages.scratch = None;
        self.stages.intermediates = Intermediates::default();
    }

    /// Frees the intermediates kept for other sizes; true when there were any.
    pub fn release_spares(&mut self) -> bool {
        self.stages.intermediates.release_spares()
    }

    /// The map/unmap resources for `want` and what they were registered for (the kept
    /// ones where they serve it, else registered again).
    fn classic(
        &mut self,
        want: RegistrationKey,
    ) -> Result<(RegistrationKey, ClassicResources), CudaError> {
        if let Some((k, r)) = self.registration.take() {
            if k.serves(&want) && r.usable() {
                return Ok((k, r));
            }
        }
        // Written by a copy or through a surface (a video frame's conversion).
        let source_flags = match want.writes_source {
            true => ffi::REGISTER_SURFACE_LDST,
            false => ffi::REGISTER_READ_ONLY,
        };
        let registered = ClassicResources::register(
            &self.device.ctx,
            &[
                (want.source.id, source_flags),
                (want.output.id, ffi::REGISTER_SURFACE_LDST),
            ],
            &[(want.bins, 0)],
        )?;
        Ok((want, registered))
    }

    /// Runs `filters` from `source` into `targets` (whose output already has the final
    /// size) and returns the timings and the histogram.
    pub fn run(
        &mut self,
        gl: &glow::Context,
        source: TextureRef,
        targets: &mut FrameTargets,
        filters: &[Stage],
    ) -> Result<FrameReport, PipelineError> {
        self.device.bind()?;
        // User kernels compile and load before any GL object is handed over: a broken one
        // is an error of its own, and the frame is not started.
        let user_kernels = self.load_user_kernels(filters)?;
        let key = RegistrationKey {
            source,
            output: targets.output.texture_ref(),
            bins: targets.bins.id,
            writes_source: false,
        };
        let (width, height) = (targets.output.width, targets.output.height);
        let placement = match self.placement(filters, targets) {
            Placement::HostFrame => match self.run_in_host(gl, source, targets, filters) {
                Ok(report) => return Ok(report),
                Err(HostFrameError::Failed(e)) => return Err(e),
                Err(HostFrameError::Refused(reason)) => {
                    log::warn!(
                        "the kernel host cannot share the frame's objects ({reason}): its kernels run stage by stage"
                    );
                    self.host_frames_refused = Some(reason);
                    Placement::HostStages
                }
            },
            placement => placement,
        };
        let format = GpuPixelFormat::from_gl(source.format)?;
        refuse_typed_user_kernels(filters, format)?;
        let size = (source.width, source.height);
        let compiled = match placement {
            Placement::HostStages => self.prepare_kernel_host(filters, size)?,
            _ => Vec::new(),
        };
        let stream = self.device.stream.clone();
        self.stages.ensure_scratch(&stream, filters, size, format)?;
        if let Some(shared) = targets.external() {
            shared.prepare_source(gl, source, self.source_changed)?;
        }
        self.source_changed = false;
        let shown = targets.shown_selection;
        let mut timeline = GpuTimeline::start(&self.device.ctx, &stream)?;
        let mut classic = None;
        let resources: &mut dyn InteropResources = match targets.external() {
            Some(shared) => shared,
            None => &mut classic.insert(self.classic(key)?).1,
        };
        self.kernel_failure = None;
        let mut users = match (placement, self.kernel_host.as_mut()) {
            (Placement::HostStages, Some(host)) => UserStages::Host {
                host,
                compiled: &compiled,
                failure: &mut self.kernel_failure,
            },
            (Placement::HostStages, None) => return Err(missing_stage().into()),
            _ => UserStages::Here(&user_kernels),
        };
        let (ctx, stages) = (&self.device.ctx, &mut self.stages);
        let ran = with_cuda_access(resources, gl, &stream, &mut timeline, |views, timeline| {
            // SAFETY: `views` come from this frame's `acquire` (array 0 the source texture,
            // array 1 the output, pointer 0 the bin buffer) and stay valid until `release`,
            // which is ordered on the stream after all the work queued here.
            unsafe {
                stages.run_views(
                    ctx,
                    &stream,
                    views,
                    (size, format),
                    filters,
                    &mut users,
                    false,
                    shown,
                    timeline,
                )
            }
        });
        // A user kernel that failed in the kernel host is the kernel's error, not the
        // device's: the frame stops, the context and the last output stay.
        if let Some(message) = self.kernel_failure.take() {
            return Err(PipelineError::Kernel(message));
        }
        ran?;
        let stage_times = timeline.stage_times()?;
        self.device.synchronize()?; // the bins copy is done
        let flat = self
            .stages
            .bins_host
            .as_slice()
            .map_err(CudaError::driver("cuEventSynchronize"))?;
        let histogram = Histogram::from_flat(width, height, flat).ok_or(missing_stage())?;
        if classic.is_some() {
            self.registration = classic;
        }
        Ok(FrameReport {
            backend: BackendKind::Cuda,
            width,
            height,
            histogram,
            stages: stages_from(stage_times),
        })
    }

    /// Where `filters`' user kernels run: none (or `in_process`) here; else the whole frame
    /// in the kernel host where the targets are external memory, which the host imports
    /// (unless it refused to), and the bins count the result alone (a shown selection's
    /// bins are counted here); else the kernel host stage by stage.
    fn placement(&self, filters: &[Stage], targets: &mut FrameTargets) -> Placement {
        if self.in_process || !filters.iter().any(|s| matches!(s, Stage::Kernel(_))) {
            Placement::InProcess
        } else if self.host_frames_refused.is_none()
            && targets.shown_selection.is_none()
            && targets.external().is_some()
        {
            Placement::HostFrame
        } else {
            Placement::HostStages
        }
    }

    /// Runs the kernel host as `command` (another build of this program, for the tests,
    /// whose own binary is not `cudalens`) from the next frame on.
    pub fn use_kernel_host(&mut self, command: HostCommand) {
        self.kernel_host = None;
        self.host_command = Some(command);
    }

    /// The kernel host (this program's `kernel-host`, or the command given), made on
    /// first use.
    fn kernel_host(&mut self) -> Result<&mut FrameSandbox, SandboxError> {
        if self.kernel_host.is_none() {
            let host = match &self.host_command {
                Some(command) => FrameSandbox::with_config(SandboxConfig::new(command.clone())),
                None => FrameSandbox::new(self.device.ctx.ordinal())?,
            };
            self.kernel_host = Some(host);
        }
        self.kernel_host
            .as_mut()
            .ok_or_else(|| SandboxError::Host("no kernel host".into()))
    }

    /// Runs the whole frame in the kernel host: GL hands the shared objects to the host,
    /// which runs every stage, counts the histogram and answers; then GL takes them
    /// back. This process queues no CUDA work, so the GPU does not switch between the
    /// two processes' contexts within the frame. A user kernel that faults or never ends
    /// fails the frame and leaves the output as it was.
    fn run_in_host(
        &mut self,
        gl: &glow::Context,
        source: TextureRef,
        targets: &mut FrameTargets,
        filters: &[Stage],
    ) -> Result<FrameReport, HostFrameError> {
        let labels: Vec<String> = filters
            .iter()
            .filter(|s| matches!(s, Stage::Kernel(_)))
            .map(Stage::label)
            .collect();
        let kernel_error = |e: &dyn std::fmt::Display| {
            PipelineError::Kernel(format!("{}: {e}", labels.join(", ")))
        };
        let host_error = |e: SandboxError| match e {
            SandboxError::DeviceMemory(reason) => HostFrameError::Refused(reason),
            e => HostFrameError::Failed(kernel_error(&e)),
        };
        let (width, height) = (targets.output.width, targets.output.height);
        let shared = targets
            .external()
            .ok_or_else(|| HostFrameError::Refused("no shared targets".into()))?;
        shared.prepare_source(gl, source, self.source_changed)?;
        self.source_changed = false;
        let arch = arch_for(self.device.info.compute_capability);
        let host = self.kernel_host().map_err(|e| kernel_error(&e))?;
        let mut kernels = Vec::new();
        let mut stages = Vec::with_capacity(filters.len());
        for stage in filters {
            stages.push(match stage {
                Stage::Filter(f) => WireStage::Builtin(f.to_string()),
                Stage::Kernel(k) => {
                    let compiled = compile_stage(k, &arch)?;
                    let kernel = host.frame_kernel(k.hash(), k.source(), &compiled);
                    let id = kernel.id();
                    kernels.push(kernel);
                    WireStage::Kernel {
                        id,
                        spec: k.to_string(),
                    }
                }
            });
        }
        let objects = shared.host_objects(gl)?;
        let [source_id, output, bins, gl_done, cuda_done] = objects.map(|(id, _)| id);
        let request = FrameRequest {
            source: source_id,
            output,
            bins,
            gl_done,
            cuda_done,
            width: source.width,
            height: source.height,
            stages,
        };
        // Mapping and loading happen before the frame's timing (once per host), and a
        // host's first frame on them runs once untimed: the report is what a frame
        // costs, not the host's first launches and allocations.
        let fresh = host
            .prepare_frame(&objects, &host_export(shared), &kernels)
            .map_err(host_error)?;
        let mut run_once = || -> Result<(FrameResult, f64), HostFrameError> {
            shared.hand_to_host(gl)?;
            let start = Instant::now();
            let ran = host.run_frame(&HostFrame {
                request: request.clone(),
                objects: &objects,
                export: &host_export(shared),
                kernels: &kernels,
            });
            let wall_ms = start.elapsed().as_secs_f64() * 1e3;
            match ran {
                Ok(result) => {
                    shared.back_from_host(gl)?;
                    Ok((result, wall_ms))
                }
                Err(e) => {
                    shared.abandon_host();
                    Err(host_error(e))
                }
            }
        };
        if fresh {
            run_once()?;
        }
        let (result, wall_ms) = run_once()?;
        let histogram = Histogram::from_flat(width, height, &result.bins)
            .ok_or_else(|| PipelineError::from(missing_stage()))?;
        let host_ms: f64 = result.stages.iter().map(|(_, ms)| ms).sum();
        let mut stages = result.stages;
        stages.push((KERNEL_HOST_STAGE.to_string(), (wall_ms - host_ms).max(0.0)));
        Ok(FrameReport {
            backend: BackendKind::Cuda,
            width,
            height,
            histogram,
            stages: stages_from(stages),
        })
    }

    /// `stage`'s kernel if a frame loaded it (for the editor's figures).
    pub fn user_kernel(&self, stage: &KernelStage) -> Option<Arc<LoadedKernel>> {
        self.user_kernels.loaded(stage)
    }

    /// Compiles and loads the user kernels of `filters` (cached for later frames).
    pub fn prepare(&mut self, filters: &[Stage]) -> Result<(), PipelineError> {
        self.device.bind()?;
        self.load_user_kernels(filters).map(|_| ())
    }

    /// The loaded kernel of each user kernel stage (None for built-ins), in order.
    fn load_user_kernels(
        &mut self,
        filters: &[Stage],
    ) -> Result<Vec<Option<Arc<LoadedKernel>>>, PipelineError> {
        filters
            .iter()
            .map(|s| match s {
                Stage::Kernel(k) => self
                    .user_kernels
                    .get(&self.device, k)
                    .map(Some)
                    .map_err(PipelineError::Kernel),
                Stage::Filter(_) => Ok(None),
            })
            .collect()
    }

    /// Starts the kernel host, loads the frame's user kernels and maps the device frame in
    /// it (each stage's input size) before the frame's timing starts: a kernel stage's time
    /// is its run, not the host's start or the driver's compilation of the PTX. The PTX of
    /// each user kernel stage, in order (None for the built-ins).
    fn prepare_kernel_host(
        &mut self,
        filters: &[Stage],
        (mut w, mut h): (u32, u32),
    ) -> Result<Vec<Option<Arc<CompiledKernel>>>, PipelineError> {
        let arch = arch_for(self.device.info.compute_capability);
        let mut hosted = Vec::with_capacity(filters.len());
        for stage in filters {
            let size = (w, h);
            (w, h) = stage.output_size(w, h);
            let user = match stage {
                Stage::Kernel(k) => k,
                _ => {
                    hosted.push(None);
                    continue;
                }
            };
            let failed =
                |e: &dyn std::fmt::Display| PipelineError::Kernel(format!("{}: {e}", user.label()));
            let compiled = compile_stage(user, &arch)?;
            let ctx = self.device.ctx.clone();
            let host = self.kernel_host().map_err(|e| failed(&e))?;
            host.prepare(&ctx, size, user.hash(), user.source(), &compiled)
                .map_err(|e| failed(&e))?;
            hosted.push(Some(compiled));
        }
        Ok(hosted)
    }

    /// Makes the shared source `size` of `format` and writes `texels` (rows packed) into
    /// it through CUDA, between the two hand-overs; returns the source texture's name, size
    /// and format.
    pub fn upload_texels(
        &mut self,
        gl: &glow::Context,
        shared: &mut SharedTargets,
        (size, format): ((u32, u32), GpuPixelFormat),
        texels: &[u8],
    ) -> Result<TextureRef, PipelineError> {
        let pixel_bytes = format.bytes_per_pixel();
        self.write_source(gl, shared, (size, format), |array, stream| {
            // SAFETY: `array` is the shared source, `size` of `format` (made so by
            // `write_source`), CUDA's until the views are released; `write_texels` waits
            // for the copy.
            unsafe { memory::write_texels(array.raw(), size, pixel_bytes, texels, stream) }
        })
    }

    /// Makes the shared source `size` of `format` and lets `write` fill it on the device
    /// (through a surface or a copy, on the given stream, finished when it returns),
    /// between the two hand-overs; returns the source texture's name, size and format.
    pub fn write_source(
        &mut self,
        gl: &glow::Context,
        shared: &mut SharedTargets,
        (size, format): ((u32, u32), GpuPixelFormat),
        write: impl FnOnce(ArrayRef<'_>, &Arc<CudaStream>) -> Result<(), CudaError>,
    ) -> Result<TextureRef, PipelineError> {
        let source = shared.source_for_upload(gl, size, format)?;
        self.device.bind()?;
        let stream = self.device.stream.clone();
        with_views(shared, gl, &stream, |views| write(views.array(0)?, &stream))?;
        Ok(source)
    }

    /// Lets `write` fill the plain source `source` on the device (map/unmap interop: the
    /// frame's objects registered with the source writable, mapped for the write);
    /// `output` and `bins` are the frame's other objects, registered with it.
    pub fn write_registered_source(
        &mut self,
        gl: &glow::Context,
        source: TextureRef,
        (output, bins): (TextureRef, glow::Buffer),
        write: impl FnOnce(ArrayRef<'_>, &Arc<CudaStream>) -> Result<(), CudaError>,
    ) -> Result<(), PipelineError> {
        self.device.bind()?;
        let want = RegistrationKey {
            source,
            output,
            bins,
            writes_source: true,
        };
        let (key, mut classic) = self.classic(want)?;
        let stream = self.device.stream.clone();
        let written = with_views(&mut classic, gl, &stream, |views| {
            write(views.array(0)?, &stream)
        });
        self.registration = Some((key, classic));
        written
    }

    /// Reads the last frame's output back through CUDA (the output's array, copied to the
    /// host), or None when no frame's views are at hand (no frame since the registration
    /// was released: the caller reads through GL then).
    pub fn read_output(
        &mut self,
        gl: &glow::Context,
        targets: &mut FrameTargets,
    ) -> Option<Result<RgbaImage, PipelineError>> {
        if targets.output.format != GpuPixelFormat::RGBA8.gl() {
            return Some(Err(crate::gl::GlError::NotRgba8 {
                what: "the output's read-back",
                format: targets.output.format.name,
            }
            .into()));
        }
        let (width, height) = (targets.output.width, targets.output.height);
        let read = self.read_output_texels(gl, targets)?;
        Some(read.and_then(|pixels| {
            RgbaImage::from_raw(width, height, pixels).ok_or(missing_stage().into())
        }))
    }

    /// [`CudaFrame::read_output`] for an output of any format: its texels, rows packed.
    pub fn read_output_texels(
        &mut self,
        gl: &glow::Context,
        targets: &mut FrameTargets,
    ) -> Option<Result<Vec<u8>, PipelineError>> {
        let (width, height) = (targets.output.width, targets.output.height);
        let pixel_bytes = targets.output.format.bytes;
        let mut classic = None;
        let resources: &mut dyn InteropResources = match targets.external() {
            Some(shared) => shared,
            None => &mut classic.insert(self.registration.take()?).1,
        };
        let stream = self.device.stream.clone();
        let mut pixels = vec![0u8; width as usize * height as usize * pixel_bytes];
        let read = self
            .device
            .bind()
            .map_err(PipelineError::from)
            .and_then(|()| {
                with_views(resources, gl, &stream, |views| {
                    // SAFETY: array 1 of a frame's views is the output, `width × height` of
                    // `pixel_bytes` (the targets' output, which the last frame wrote), valid
                    // until the views are released; `read_texels` waits for the copy.
                    unsafe {
                        memory::read_texels(
                            views.array(1)?.raw(),
                            (width, height),
                            pixel_bytes,
                            &mut pixels,
                            &stream,
                        )
                    }
                })
            });
        self.registration = classic;
        Some(read.map(|()| pixels))
    }
}

/// The PTX of user kernel stage `stage` for `arch` (cached); an error names the stage.
fn compile_stage(stage: &KernelStage, arch: &str) -> Result<Arc<CompiledKernel>, PipelineError> {
    compile_cached(stage, arch)
        .map_err(|e| PipelineError::Kernel(format!("{}: {e}", stage.label())))
}

/// New descriptors of `shared`'s objects for the kernel host.
fn host_export(
    shared: &SharedTargets,
) -> impl Fn(u64) -> Result<std::os::fd::OwnedFd, String> + '_ {
    move |id| shared.export_for_host(id).map_err(|e| e.to_string())
}

/// Refuses a stack with a user kernel on an image not stored as RGBA8 (user kernels read
/// and write RGBA8; the filters have a kernel for every format).
pub fn refuse_typed_user_kernels(
    filters: &[Stage],
    format: GpuPixelFormat,
) -> Result<(), PipelineError> {
    match filters.iter().find(|s| matches!(s, Stage::Kernel(_))) {
        Some(stage) if format != GpuPixelFormat::RGBA8 => Err(no_typed_kernel(stage, format)),
        _ => Ok(()),
    }
}

/// The refusal of `stage` on an image stored as `format` (its kernels read RGBA8 only).
pub fn no_typed_kernel(stage: &Stage, format: GpuPixelFormat) -> PipelineError {
    let format = match format.sample {
        crate::pixels::SampleType::U8 => format.to_string(),
        sample => sample.to_string(),
    };
    PipelineError::NoTypedKernel {
        stage: stage.label(),
        format,
    }
}
