//! The kernel host's side (`cudalens kernel-host`): its own CUDA context, a loop that
//! serves the parent's requests on the socket, and an exit after any fault that poisons
//! the context. The work itself is behind [`Executor`], so tests can serve the protocol
//! with a fake one and no GPU. `cudalens kernel-host --compile` serves the same protocol
//! with NVRTC only ([`NvrtcExecutor`]): compiles, no GPU.

use super::device_memory::{copy_pitched, frame_pitch, PitchTexture, Pitched, SharedDeviceBuffer};
use super::error::cuda_error_name;
use super::protocol::{
    FailStage, Failure, FrameRequest, FrameResult, Header, HostInfo, Reply, Request, SharedObject,
    WireStage, HEADER_BYTES, MAX_REQUEST_BODY, NOT_LOADED,
};
use super::shm::SharedPixels;
use super::socket::{self, ChannelError};
use crate::cuda::{memory, CudaDevice, GpuTimeline, ImageArray};
use crate::user_kernel::compile::{
    nvrtc_options, valid_arch, CompileError, CompiledKernel, KernelAttributes, UNIT_NAME,
};
use crate::user_kernel::device::{LoadedKernel, POISON};
use crate::user_kernel::nvrtc;
/// NVRTC's output for one translation unit, as [`Executor::compile`] gives it.
pub use crate::user_kernel::nvrtc::Output as NvrtcOutput;
use crate::user_kernel::params::ParamBlock;
use crate::user_kernel::prelude::ENTRY_NAME;
use crate::user_kernel::source::KernelSource;
use std::collections::VecDeque;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The descriptor the parent gives the host its socket on.
pub const HOST_FD: i32 = 3;

/// Kernels a host keeps loaded at once (the oldest is dropped first; the parent reloads
/// a kernel the host no longer has).
pub const MAX_LOADED: usize = 16;

/// What runs kernels in the host.
pub trait Executor {
    fn info(&self) -> HostInfo;
    /// Loads kernel `id` from its source and PTX.
    fn load(&mut self, id: u64, source: &str, ptx: &str) -> Result<KernelAttributes, Failure>;
    /// Runs kernel `id` on `input` (a `width × height` RGBA8 image) into `output`
    /// (prefilled with [`POISON`]); the kernel's own GPU time in nanoseconds where measured.
    fn run(
        &mut self,
        id: u64,
        width: u32,
        height: u32,
        params: &ParamBlock,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<Option<u64>, Failure>;

    /// Imports the device memory of frame `frame` from `fd` (see `Request::MapDevice`).
    fn map_device(
        &mut self,
        _frame: u64,
        _geometry: FrameGeometry,
        _fd: OwnedFd,
    ) -> Result<(), Failure> {
        Err(request_failure(false, "this host has no device memory"))
    }

    /// Runs kernel `id` on the mapped frame `frame`; the kernel's own GPU time in
    /// nanoseconds where measured.
    fn run_device(
        &mut self,
        _id: u64,
        _frame: u64,
        _params: &ParamBlock,
    ) -> Result<Option<u64>, Failure> {
        Err(request_failure(false, "this host has no device memory"))
    }

    /// Compiles the translation unit `unit` for `arch` with NVRTC.
    fn compile(&mut self, _arch: &str, _unit: &str) -> Result<NvrtcOutput, Failure> {
        Err(request_failure(false, "this host does not compile"))
    }

    /// Imports `object` from `fd` as shared object `id` (see `Request::MapShared`).
    fn map_shared(&mut self, _id: u64, _object: SharedObject, _fd: OwnedFd) -> Result<(), Failure> {
        Err(request_failure(false, "this host runs no frames"))
    }

    /// Runs a whole frame (see `Request::RunFrame`).
    fn run_frame(&mut self, _frame: &FrameRequest) -> Result<FrameResult, Failure> {
        Err(request_failure(false, "this host runs no frames"))
    }
}

/// A frame's stage as the host runs it: a built-in filter's spec, or a loaded user kernel
/// with its stage spec.
pub enum HostedStage<'a> {
    Builtin(&'a str),
    Kernel {
        kernel: Arc<LoadedKernel>,
        spec: &'a str,
    },
}

/// Whole frames in the host: the stack's built-in stages run beside the user's kernels,
/// on objects the app shares through its external-memory interop. Implemented by the
/// frame code (`pipeline::frame::hosted`) and given to [`run_cuda_host`].
pub trait FrameWork {
    fn map_shared(&mut self, id: u64, object: SharedObject, fd: OwnedFd) -> Result<(), Failure>;
    fn run_frame(
        &mut self,
        frame: &FrameRequest,
        stages: &[HostedStage<'_>],
    ) -> Result<FrameResult, Failure>;
}

/// Makes the host's [`FrameWork`] on its device, on the first frame request.
pub type FrameWorkFactory = Box<dyn FnOnce(&CudaDevice) -> Result<Box<dyn FrameWork>, Failure>>;

/// The compiler host: NVRTC and nothing else (no CUDA context).
pub struct NvrtcExecutor;

impl Executor for NvrtcExecutor {
    fn info(&self) -> HostInfo {
        let version = nvrtc::version().map_or("none".into(), |(a, b)| format!("{a}.{b}"));
        HostInfo {
            device_name: format!("NVRTC {version}"),
            compute_capability: (0, 0),
            pid: std::process::id(),
        }
    }

    fn load(&mut self, _: u64, _: &str, _: &str) -> Result<KernelAttributes, Failure> {
        Err(request_failure(false, "this host only compiles"))
    }

    fn run(
        &mut self,
        _: u64,
        _: u32,
        _: u32,
        _: &ParamBlock,
        _: &[u8],
        _: &mut [u8],
    ) -> Result<Option<u64>, Failure> {
        Err(request_failure(false, "this host only compiles"))
    }

    fn compile(&mut self, arch: &str, unit: &str) -> Result<NvrtcOutput, Failure> {
        if !valid_arch(arch) {
            return Err(request_failure(
                false,
                format!("`{arch}` is not a virtual architecture"),
            ));
        }
        if !nvrtc::available() {
            return Err(request_failure(
                false,
                CompileError::NvrtcMissing.to_string(),
            ));
        }
        nvrtc::compile(unit, UNIT_NAME, &nvrtc_options(arch)).map_err(|m| request_failure(false, m))
    }
}

/// The layout of a device frame: two images of `height` rows of `pitch` bytes in `size`
/// bytes, the input first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameGeometry {
    pub width: u32,
    pub height: u32,
    pub pitch: usize,
    pub size: usize,
}

impl FrameGeometry {
    /// Checked: a non-empty image within the limits, the pitch of
    /// `device_memory::frame_pitch`, both images inside `size`.
    pub fn new(width: u32, height: u32, pitch: u32, size: u64) -> Option<Self> {
        image_bytes(width, height)?;
        let pitch = pitch as usize;
        let size = usize::try_from(size).ok()?;
        (pitch == frame_pitch(width) && 2 * pitch * height as usize <= size).then_some(Self {
            width,
            height,
            pitch,
            size,
        })
    }

    /// Where the output image starts.
    pub fn output_offset(&self) -> usize {
        self.pitch * self.height as usize
    }
}

/// How serving ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServeEnd {
    /// The parent closed the socket.
    Closed,
    Shutdown,
    /// A fatal failure was reported (or could not be): the host must exit.
    Fatal,
}

/// A request the host cannot serve (not CUDA's, not the kernel's fault).
pub fn request_failure(fatal: bool, message: impl Into<String>) -> Failure {
    Failure {
        stage: FailStage::Request,
        code: 0,
        fatal,
        name: "REQUEST".into(),
        message: message.into(),
    }
}

/// Ends this process when its parent is gone, even while a kernel never returns: the
/// socket's end of file is only seen between requests.
fn exit_with_parent() {
    // SAFETY: getppid has no preconditions.
    let parent = unsafe { libc::getppid() };
    let spawned = std::thread::Builder::new()
        .name("kernel-host-watchdog".into())
        .spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            // SAFETY: as above; _exit ends the process without running anything else.
            unsafe {
                if libc::getppid() != parent {
                    libc::_exit(0);
                }
            }
        });
    if let Err(e) = spawned {
        log::warn!("kernel host: no watchdog thread: {e}");
    }
}

/// Serves requests on `socket` with the executor `start` makes, until the parent closes
/// the socket, asks to shut down, or a fatal failure.
pub fn serve<E: Executor>(socket: OwnedFd, start: impl FnOnce() -> Result<E, Failure>) -> ServeEnd {
    exit_with_parent();
    let mut exec = match start() {
        Ok(e) => e,
        Err(f) => {
            let _ = send(&socket, &Reply::Failed(f), 0);
            return ServeEnd::Fatal;
        }
    };
    if send(&socket, &Reply::Hello(exec.info()), 0).is_err() {
        return ServeEnd::Closed;
    }
    let mut fds = VecDeque::new();
    loop {
        let (seq, request) = match receive(&socket, &mut fds) {
            Ok(r) => r,
            Err(None) => return ServeEnd::Closed,
            Err(Some(f)) => {
                let _ = send(&socket, &Reply::Failed(f), 0);
                return ServeEnd::Fatal;
            }
        };
        let reply = match request {
            Request::Shutdown => return ServeEnd::Shutdown,
            Request::Load { id, source, ptx } => match exec.load(id, &source, &ptx) {
                Ok(attributes) => Reply::Loaded { id, attributes },
                Err(f) => Reply::Failed(f),
            },
            Request::RunHost {
                id,
                width,
                height,
                params,
            } => match run_host(&mut exec, id, width, height, params, fds.pop_front()) {
                Ok((kernel_micros, gpu_nanos)) => Reply::Done {
                    kernel_micros,
                    gpu_nanos,
                },
                Err(f) => Reply::Failed(f),
            },
            Request::MapDevice {
                frame,
                width,
                height,
                pitch,
                size,
            } => {
                let mapped = match (
                    FrameGeometry::new(width, height, pitch, size),
                    fds.pop_front(),
                ) {
                    (Some(geometry), Some(fd)) => exec.map_device(frame, geometry, fd),
                    (None, _) => Err(request_failure(
                        false,
                        format!("a frame of {width}×{height}, pitch {pitch}, {size} bytes"),
                    )),
                    (_, None) => Err(request_failure(
                        false,
                        "no device memory came with the frame",
                    )),
                };
                match mapped {
                    Ok(()) => Reply::Mapped { frame },
                    Err(f) => Reply::Failed(f),
                }
            }
            Request::Compile { arch, unit } => match exec.compile(&arch, &unit) {
                Ok(out) => Reply::Compiled {
                    ptx: out.ptx,
                    log: out.log,
                    failure: out.failure,
                },
                Err(f) => Reply::Failed(f),
            },
            Request::MapShared { id, object } => match fds.pop_front() {
                Some(fd) => match exec.map_shared(id, object, fd) {
                    Ok(()) => Reply::Mapped { frame: id },
                    Err(f) => Reply::Failed(f),
                },
                None => Reply::Failed(request_failure(
                    false,
                    "no descriptor came with the shared object",
                )),
            },
            Request::RunFrame(frame) => match exec.run_frame(&frame) {
                Ok(result) => Reply::FrameDone(result),
                Err(f) => Reply::Failed(f),
            },
            Request::RunDevice { id, frame, params } => {
                let start = Instant::now();
                match exec.run_device(id, frame, &ParamBlock { words: params }) {
                    Ok(gpu_nanos) => Reply::Done {
                        kernel_micros: start.elapsed().as_micros() as u64,
                        gpu_nanos,
                    },
                    Err(f) => Reply::Failed(f),
                }
            }
        };
        // Descriptors that came with anything else are not kept.
        fds.clear();
        let fatal = matches!(&reply, Reply::Failed(f) if f.fatal);
        if send(&socket, &reply, seq).is_err() {
            return ServeEnd::Closed;
        }
        if fatal {
            return ServeEnd::Fatal;
        }
    }
}

fn send(socket: &OwnedFd, reply: &Reply, seq: u32) -> Result<(), ChannelError> {
    socket::send_all(socket, &reply.encode(seq), None, None)
}

/// The next request; Err(None) when the parent closed the socket, Err(Some) for a frame
/// that cannot be served.
fn receive(
    socket: &OwnedFd,
    fds: &mut VecDeque<OwnedFd>,
) -> Result<(u32, Request), Option<Failure>> {
    let broken = |e: ChannelError| match e {
        ChannelError::Closed => None,
        e => Some(request_failure(true, format!("reading a request: {e}"))),
    };
    let mut header = [0u8; HEADER_BYTES];
    socket::recv_exact(socket, &mut header, fds, None).map_err(broken)?;
    let header =
        Header::decode(&header, MAX_REQUEST_BODY).map_err(|e| Some(request_failure(true, e.0)))?;
    let mut body = vec![0u8; header.len as usize];
    socket::recv_exact(socket, &mut body, fds, None).map_err(broken)?;
    let request =
        Request::decode(header.kind, &body).map_err(|e| Some(request_failure(true, e.0)))?;
    Ok((header.seq, request))
}

/// Maps the run's shared memory and runs the kernel on it: the run's wall time in µs, and
/// the kernel's GPU time in ns where measured.
fn run_host<E: Executor>(
    exec: &mut E,
    id: u64,
    width: u32,
    height: u32,
    params: [u32; 16],
    shm: Option<OwnedFd>,
) -> Result<(u64, Option<u64>), Failure> {
    let shm = shm.ok_or_else(|| request_failure(false, "no shared memory came with the run"))?;
    let bytes = image_bytes(width, height)
        .ok_or_else(|| request_failure(false, format!("a run of {width}×{height} pixels")))?;
    let mut pixels = SharedPixels::open(shm, 2 * bytes)
        .map_err(|e| request_failure(false, format!("the run's shared memory: {e}")))?;
    let (input, output) = pixels.bytes_mut().split_at_mut(bytes);
    let start = Instant::now();
    let gpu_nanos = exec.run(
        id,
        width,
        height,
        &ParamBlock { words: params },
        input,
        output,
    )?;
    Ok((start.elapsed().as_micros() as u64, gpu_nanos))
}

/// Most pixels in one run (1 GiB of RGBA8 each way).
pub const MAX_PIXELS: u64 = 1 << 28;

/// Bytes of a `width × height` RGBA8 image, or None when empty or over [`MAX_PIXELS`].
pub fn image_bytes(width: u32, height: u32) -> Option<usize> {
    let pixels = u64::from(width) * u64::from(height);
    (pixels > 0 && pixels <= MAX_PIXELS).then_some(pixels as usize * 4)
}

/// The arrays of the last image size, each with its objects.
struct Buffers {
    input: ImageArray,
    output: ImageArray,
}

/// A device frame imported from the parent (objects first: dropped before the memory).
struct HostFrame {
    id: u64,
    geometry: FrameGeometry,
    tex: PitchTexture,
    output: ImageArray,
    shared: SharedDeviceBuffer,
}

/// Runs kernels on the GPU: device 0, its own context.
pub struct CudaExecutor {
    device: CudaDevice,
    kernels: VecDeque<(u64, Arc<LoadedKernel>)>,
    buffers: Option<Buffers>,
    frame: Option<HostFrame>,
    /// Whole frames, made on the first frame request.
    frames: Option<Box<dyn FrameWork>>,
    make_frames: Option<FrameWorkFactory>,
}

/// The failure for an error while the kernel ran (`cuStreamSynchronize`): fatal.
fn sync_failure(e: cudarc::driver::DriverError) -> Failure {
    Failure {
        stage: FailStage::Run,
        code: e.0 as i32,
        fatal: true,
        name: format!("{:?}", e.0),
        message: e
            .error_string()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|_| format!("{:?}", e.0)),
    }
}

/// Loaded kernel `id`, or the failure that has the parent load it again.
fn loaded(
    kernels: &VecDeque<(u64, Arc<LoadedKernel>)>,
    id: u64,
) -> Result<&Arc<LoadedKernel>, Failure> {
    kernels
        .iter()
        .find(|(k, _)| *k == id)
        .map(|(_, kernel)| kernel)
        .ok_or_else(|| not_loaded(id))
}

/// Launches `kernel` from `src` into `dst` (`width × height`) on the device's stream,
/// between two timing events.
///
/// # Safety
/// `src` and `dst` must be live texture and surface objects over RGBA8 images of
/// `width × height`, kept alive until the stream is synchronized.
unsafe fn launch_timed(
    device: &CudaDevice,
    kernel: &LoadedKernel,
    (src, dst): (u64, u64),
    (width, height): (u32, u32),
    params: &ParamBlock,
) -> Result<GpuTimeline, Failure> {
    let refused = |e| cuda_failure(FailStage::Launch, false, e);
    let stream = &device.stream;
    let mut timeline = GpuTimeline::start(&device.ctx, stream).map_err(refused)?;
    // SAFETY: the caller's contract.
    unsafe { kernel.launch(stream, src, dst, width, height, params) }
        .map_err(|e| cuda_failure(FailStage::Launch, false, e))?;
    timeline.mark("kernel", stream).map_err(refused)?;
    Ok(timeline)
}

/// The timed launch's GPU time in nanoseconds, once its stream has completed (None when
/// the events cannot be read).
fn launch_nanos(timeline: &GpuTimeline) -> Option<u64> {
    let times = timeline.stage_times().ok()?;
    times.first().map(|(_, ms)| (ms * 1e6) as u64)
}

fn not_loaded(id: u64) -> Failure {
    Failure {
        name: NOT_LOADED.into(),
        ..request_failure(false, format!("kernel {id} is not loaded"))
    }
}

/// A CUDA error at `stage`, named after its `CUDA_ERROR_...` where the text has one.
pub fn cuda_failure(stage: FailStage, fatal: bool, e: impl std::fmt::Display) -> Failure {
    let message = e.to_string();
    Failure {
        stage,
        code: 0,
        fatal,
        name: cuda_error_name(&message).unwrap_or("CUDA").to_string(),
        message,
    }
}

impl CudaExecutor {
    /// Opens CUDA device `ordinal` (the parent's, so that its frames import); whole
    /// frames run with what `frames` makes, if given.
    pub fn start(ordinal: usize, frames: Option<FrameWorkFactory>) -> Result<Self, Failure> {
        let device =
            CudaDevice::new(ordinal).map_err(|e| cuda_failure(FailStage::Start, true, e))?;
        Ok(Self {
            device,
            kernels: VecDeque::new(),
            buffers: None,
            frame: None,
            frames: None,
            make_frames: frames,
        })
    }

    fn frame_work(&mut self) -> Result<&mut Box<dyn FrameWork>, Failure> {
        if self.frames.is_none() {
            let make = self
                .make_frames
                .take()
                .ok_or_else(|| request_failure(false, "this host runs no frames"))?;
            self.frames = Some(make(&self.device)?);
        }
        self.frames
            .as_mut()
            .ok_or_else(|| request_failure(false, "this host runs no frames"))
    }

    fn buffers(&mut self, width: u32, height: u32) -> Result<&Buffers, Failure> {
        let fits = self
            .buffers
            .as_ref()
            .is_some_and(|b| (b.input.array().width, b.input.array().height) == (width, height));
        if !fits {
            self.buffers = None;
            let refused = |e| cuda_failure(FailStage::Launch, false, e);
            let ctx = &self.device.ctx;
            let input = ImageArray::new(ctx, width, height).map_err(refused)?;
            let output = ImageArray::new(ctx, width, height).map_err(refused)?;
            self.buffers = Some(Buffers { input, output });
        }
        self.buffers
            .as_ref()
            .ok_or_else(|| request_failure(true, "no buffers"))
    }
}

impl Executor for CudaExecutor {
    fn info(&self) -> HostInfo {
        HostInfo {
            device_name: self.device.info.name.clone(),
            compute_capability: self.device.info.compute_capability,
            pid: std::process::id(),
        }
    }

    fn load(&mut self, id: u64, source: &str, ptx: &str) -> Result<KernelAttributes, Failure> {
        let load_failure = |message: String| Failure {
            stage: FailStage::Load,
            code: 0,
            fatal: false,
            name: cuda_error_name(&message).unwrap_or("LOAD").to_string(),
            message,
        };
        let source = KernelSource::parse(source).map_err(|e| load_failure(e.to_string()))?;
        let compiled = CompiledKernel {
            ptx: ptx.to_string(),
            log: String::new(),
            diagnostics: Vec::new(),
            entry: ENTRY_NAME,
            elapsed: Duration::ZERO,
        };
        let kernel = LoadedKernel::load(&self.device, &source, &compiled)
            .map_err(|e| load_failure(e.to_string()))?;
        let attributes = kernel.attributes;
        self.kernels.retain(|(k, _)| *k != id);
        if self.kernels.len() >= MAX_LOADED {
            self.kernels.pop_front();
        }
        self.kernels.push_back((id, Arc::new(kernel)));
        Ok(attributes)
    }

    fn run(
        &mut self,
        id: u64,
        width: u32,
        height: u32,
        params: &ParamBlock,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<Option<u64>, Failure> {
        let kernel = loaded(&self.kernels, id)?.clone();
        self.device
            .bind()
            .map_err(|e| cuda_failure(FailStage::Run, true, e))?;
        self.buffers(width, height)?;
        let Some(b) = self.buffers.as_ref() else {
            return Err(request_failure(true, "no buffers"));
        };
        let stream = &self.device.stream;
        let poisoned = |e| cuda_failure(FailStage::Run, true, e);
        // SAFETY: both are live width × height RGBA8 arrays; each copy is waited for.
        unsafe {
            memory::write_array(b.input.array().view().raw(), width, height, input, stream)
                .map_err(poisoned)?;
            memory::write_array(b.output.array().view().raw(), width, height, output, stream)
                .map_err(poisoned)?;
        }
        let objects = (b.input.texture().handle(), b.output.surface().handle());
        // SAFETY: the objects are over width × height arrays that live in `self.buffers`
        // until the stream is synchronized below.
        let timeline =
            unsafe { launch_timed(&self.device, &kernel, objects, (width, height), params) }?;
        stream.synchronize().map_err(sync_failure)?;
        // SAFETY: `output` is a live width × height RGBA8 array; read_array waits.
        unsafe { memory::read_array(b.output.array().view().raw(), width, height, output, stream) }
            .map_err(poisoned)?;
        Ok(launch_nanos(&timeline))
    }

    fn map_device(
        &mut self,
        frame: u64,
        geometry: FrameGeometry,
        fd: OwnedFd,
    ) -> Result<(), Failure> {
        self.frame = None;
        let refused = |e| cuda_failure(FailStage::Request, false, e);
        let ctx = &self.device.ctx;
        let shared = SharedDeviceBuffer::import(ctx, &fd, geometry.size).map_err(refused)?;
        let (width, height) = (geometry.width, geometry.height);
        let output = ImageArray::new(ctx, width, height).map_err(refused)?;
        // SAFETY: the input image is the first `height` rows of `pitch` bytes (a multiple
        // of every texture pitch alignment) of `shared`, which lives in the same
        // `HostFrame` as the texture and is dropped after it.
        let tex = unsafe {
            PitchTexture::new(ctx, shared.ptr(), width, height, geometry.pitch).map_err(refused)?
        };
        self.frame = Some(HostFrame {
            id: frame,
            geometry,
            tex,
            output,
            shared,
        });
        Ok(())
    }

    fn run_device(
        &mut self,
        id: u64,
        frame: u64,
        params: &ParamBlock,
    ) -> Result<Option<u64>, Failure> {
        let kernel = loaded(&self.kernels, id)?;
        let Some(f) = self.frame.as_ref().filter(|f| f.id == frame) else {
            return Err(request_failure(
                false,
                format!("frame {frame} is not mapped"),
            ));
        };
        self.device
            .bind()
            .map_err(|e| cuda_failure(FailStage::Run, true, e))?;
        let stream = &self.device.stream;
        let FrameGeometry {
            width,
            height,
            pitch,
            ..
        } = f.geometry;
        let objects = (f.tex.handle(), f.output.surface().handle());
        // SAFETY: the objects are over the frame's input rows and its output array, kept
        // alive in `self.frame` until the stream is synchronized below.
        let timeline =
            unsafe { launch_timed(&self.device, kernel, objects, (width, height), params) }?;
        let out = Pitched::Device {
            ptr: f.shared.ptr() + f.geometry.output_offset() as u64,
            pitch,
        };
        // SAFETY: the array holds the image; the output rows lie inside the mapping
        // (checked by FrameGeometry); the copy is waited for below.
        unsafe {
            copy_pitched(
                Pitched::Array(f.output.array().view().raw()),
                out,
                width,
                height,
                stream.cu_stream(),
            )
        }
        .map_err(|e| cuda_failure(FailStage::Run, true, e))?;
        stream.synchronize().map_err(sync_failure)?;
        Ok(launch_nanos(&timeline))
    }

    fn map_shared(&mut self, id: u64, object: SharedObject, fd: OwnedFd) -> Result<(), Failure> {
        self.device
            .bind()
            .map_err(|e| cuda_failure(FailStage::Run, true, e))?;
        self.frame_work()?.map_shared(id, object, fd)
    }

    fn run_frame(&mut self, frame: &FrameRequest) -> Result<FrameResult, Failure> {
        let mut stages = Vec::with_capacity(frame.stages.len());
        for stage in &frame.stages {
            stages.push(match stage {
                WireStage::Builtin(spec) => HostedStage::Builtin(spec),
                WireStage::Kernel { id, spec } => HostedStage::Kernel {
                    kernel: loaded(&self.kernels, *id)?.clone(),
                    spec,
                },
            });
        }
        self.device
            .bind()
            .map_err(|e| cuda_failure(FailStage::Run, true, e))?;
        self.frame_work()?.run_frame(frame, &stages)
    }
}

/// Whether this process was given its socket on [`HOST_FD`] (not started by hand).
pub fn started_by_parent() -> bool {
    socket::is_socket(HOST_FD)
}

/// `cudalens kernel-host`: serves the parent on [`HOST_FD`] with the GPU, whole frames
/// with what `frames` makes. Err when started by hand (no socket there) or after a fatal
/// failure.
pub fn run_cuda_host(device: usize, frames: Option<FrameWorkFactory>) -> Result<(), String> {
    serve_parent(|| CudaExecutor::start(device, frames))
}

/// `cudalens kernel-host --compile`: serves the parent on [`HOST_FD`] with NVRTC.
pub fn run_compile_host() -> Result<(), String> {
    serve_parent(|| Ok(NvrtcExecutor))
}

/// Serves the parent on [`HOST_FD`] with the executor `start` makes.
fn serve_parent<E: Executor>(start: impl FnOnce() -> Result<E, Failure>) -> Result<(), String> {
    if !started_by_parent() {
        return Err(format!(
            "kernel-host is started by cudalens itself (descriptor {HOST_FD} must be its socket)"
        ));
    }
    // SAFETY: HOST_FD is an open socket (checked) that this process inherited: nothing
    // opened since can have its number, so nothing else owns it.
    let socket = unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(HOST_FD) };
    match serve(socket, start) {
        ServeEnd::Closed | ServeEnd::Shutdown => Ok(()),
        ServeEnd::Fatal => Err("the kernel host stopped after a fatal failure".into()),
    }
}

/// [`POISON`] repeated over `out` (what pixels the kernel does not write keep).
pub fn fill_poison(out: &mut [u8]) {
    for px in out.chunks_exact_mut(4) {
        px.copy_from_slice(&POISON);
    }
}
