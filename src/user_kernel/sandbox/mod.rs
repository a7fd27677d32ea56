//! The user-kernel sandbox: user kernels run in a helper process, `cudalens kernel-host`,
//! with its own CUDA context, so a kernel that faults (a sticky error poisons its
//! context) or never ends (nothing stops a running kernel short of ending its process)
//! takes only that process with it. See docs/design/user-kernels.md, "The sandbox".
//!
//! [`Sandbox`] is the parent's side: it starts the host lazily, loads kernels into it,
//! sends runs with a deadline, kills the host on timeout, reports how it ended, and
//! starts a new one on the next request. [`host`] is the host's side; [`protocol`] the
//! frames between them on a Unix socket; pixels travel in host shared memory
//! ([`shm`], `run_on_host`) or in device memory shared without host copies
//! ([`device_memory`], `run_on_device`).

pub mod compiler;
pub mod device_memory;
pub mod error;
mod frame;
pub mod host;
pub mod process;
pub mod protocol;
pub mod shm;
mod socket;

pub use error::{ErrorClass, SandboxError};
pub use frame::{FrameSandbox, StageRun};
pub use process::HostCommand;
pub use protocol::HostInfo;

use super::compile::{CompiledKernel, KernelAttributes};
use super::params::ParamBlock;
use super::source::KernelSource;
use cudarc::driver::{CudaContext, CudaStream};
use device_memory::{frame_pitch, image_span, Pitched, SharedDeviceBuffer};
use image::RgbaImage;
use process::{HostProcess, Phase};
use protocol::{FrameRequest, FrameResult, Reply, Request, SharedObject, NOT_LOADED, NOT_MAPPED};
use shm::SharedPixels;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long a frame's kernel may run before its host is killed.
pub const DEFAULT_FRAME_DEADLINE: Duration = Duration::from_secs(1);
/// How long a new host may take to create its context and say hello.
pub const DEFAULT_START_DEADLINE: Duration = Duration::from_secs(15);
/// How long loading (the driver's PTX compilation) may take.
pub const DEFAULT_LOAD_DEADLINE: Duration = Duration::from_secs(15);

#[derive(Debug, Clone)]
pub struct SandboxConfig {
    pub command: HostCommand,
    pub frame_deadline: Duration,
    pub start_deadline: Duration,
    pub load_deadline: Duration,
}

impl SandboxConfig {
    /// The default deadlines with `command`.
    pub fn new(command: HostCommand) -> Self {
        Self {
            command,
            frame_deadline: DEFAULT_FRAME_DEADLINE,
            start_deadline: DEFAULT_START_DEADLINE,
            load_deadline: DEFAULT_LOAD_DEADLINE,
        }
    }

    /// `cudalens kernel-host` of this binary on CUDA device `device`, with the default
    /// deadlines.
    pub fn this_binary(device: usize) -> Result<Self, SandboxError> {
        HostCommand::this_binary(device).map(Self::new)
    }
}

/// A compiled kernel the sandbox can load: its source (the host parses it again for the
/// launch geometry) and PTX, under an id unique in this process.
#[derive(Debug, Clone)]
pub struct SandboxKernel {
    id: u64,
    source: Arc<str>,
    ptx: Arc<str>,
}

impl SandboxKernel {
    pub fn new(source: &KernelSource, compiled: &CompiledKernel) -> Self {
        Self::from_parts(&source.text, &compiled.ptx)
    }

    /// A kernel from raw parts (tests and hostile requests).
    pub fn from_parts(source: &str, ptx: &str) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            source: source.into(),
            ptx: ptx.into(),
        }
    }

    pub fn id(&self) -> u64 {
        self.id
    }
}

/// Runs user kernels in a kernel host. Never panics; a call never blocks past its
/// deadline plus about 100 ms.
pub struct Sandbox {
    config: SandboxConfig,
    host: Option<HostProcess>,
    shm: Option<SharedPixels>,
    spawns: u32,
}

impl Sandbox {
    /// A sandbox; the host starts with the first request.
    pub fn new(config: SandboxConfig) -> Self {
        Self {
            config,
            host: None,
            shm: None,
            spawns: 0,
        }
    }

    pub fn config(&self) -> &SandboxConfig {
        &self.config
    }

    /// Changes the deadline of the next runs.
    pub fn set_frame_deadline(&mut self, deadline: Duration) {
        self.config.frame_deadline = deadline;
    }

    /// How many hosts this sandbox has started.
    pub fn spawn_count(&self) -> u32 {
        self.spawns
    }

    /// The running host's process id.
    pub fn host_pid(&self) -> Option<u32> {
        self.host.as_ref().and_then(HostProcess::pid)
    }

    /// Kills the host now (the next request starts a new one).
    pub fn stop(&mut self) {
        self.host = None;
    }

    fn host(&mut self) -> Result<&mut HostProcess, SandboxError> {
        if self.host.is_none() {
            self.spawns += 1;
            let host = HostProcess::spawn(&self.config.command, self.config.start_deadline)?;
            self.host = Some(host);
        }
        self.host
            .as_mut()
            .ok_or_else(|| SandboxError::Host("no host".into()))
    }

    /// The host's device (starts the host): its compute capability picks NVRTC's arch.
    pub fn host_info(&mut self) -> Result<HostInfo, SandboxError> {
        Ok(self.host()?.info.clone())
    }

    /// Sends `request`; drops the host on any error or fatal failure.
    fn ask(
        &mut self,
        request: &Request,
        pass: Option<std::os::fd::RawFd>,
        phase: Phase,
        budget: Duration,
    ) -> Result<Reply, SandboxError> {
        let host = self.host()?;
        match host.request(request, pass, phase, budget) {
            Ok(Reply::Failed(f)) if f.fatal => {
                self.host = None;
                Err(SandboxError::from_failure(&f))
            }
            Ok(reply) => Ok(reply),
            Err(e) => {
                self.host = None;
                Err(e)
            }
        }
    }

    /// Loads `kernel` into the host (once per host): its attributes.
    pub fn load(&mut self, kernel: &SandboxKernel) -> Result<KernelAttributes, SandboxError> {
        if let Some(a) = self.host()?.loaded.get(&kernel.id) {
            return Ok(*a);
        }
        let request = Request::Load {
            id: kernel.id,
            source: kernel.source.to_string(),
            ptx: kernel.ptx.to_string(),
        };
        let budget = self.config.load_deadline;
        match self.ask(&request, None, Phase::Load, budget)? {
            Reply::Loaded { id, attributes } if id == kernel.id => {
                self.host()?.loaded.insert(id, attributes);
                Ok(attributes)
            }
            Reply::Failed(f) => Err(SandboxError::from_failure(&f)),
            other => {
                self.host = None;
                Err(SandboxError::Protocol(format!(
                    "an unexpected reply to load: {other:?}"
                )))
            }
        }
    }

    /// Runs `kernel` on `image` in the host through shared memory and returns its output
    /// (pixels the kernel does not write are [`crate::user_kernel::device::POISON`]).
    pub fn run_on_host(
        &mut self,
        kernel: &SandboxKernel,
        image: &RgbaImage,
        params: &ParamBlock,
    ) -> Result<RgbaImage, SandboxError> {
        self.run_on_host_timed(kernel, image, params)
            .map(|(output, _)| output)
    }

    /// As [`Sandbox::run_on_host`], with the kernel's own GPU time in the host (ms) where
    /// the host measured it.
    pub fn run_on_host_timed(
        &mut self,
        kernel: &SandboxKernel,
        image: &RgbaImage,
        params: &ParamBlock,
    ) -> Result<(RgbaImage, Option<f64>), SandboxError> {
        let (width, height) = image.dimensions();
        if width == 0 || height == 0 {
            return Err(SandboxError::EmptyImage);
        }
        let bytes = host::image_bytes(width, height)
            .ok_or(SandboxError::ImageTooLarge { width, height })?;
        self.load(kernel)?;
        if self.shm.as_ref().map(SharedPixels::len) != Some(2 * bytes) {
            self.shm = None;
            let shm = SharedPixels::create(2 * bytes)
                .map_err(|e| SandboxError::SharedMemory(e.to_string()))?;
            self.shm = Some(shm);
        }
        let shm = self
            .shm
            .as_mut()
            .ok_or_else(|| SandboxError::SharedMemory("not mapped".into()))?;
        let (input, output) = shm.bytes_mut().split_at_mut(bytes);
        input.copy_from_slice(image.as_raw());
        host::fill_poison(output);
        let request = Request::RunHost {
            id: kernel.id,
            width,
            height,
            params: params.words,
        };
        let fd = shm.fd().as_raw_fd();
        match self.run_loaded(kernel, &request, Some(fd))? {
            Reply::Done { gpu_nanos, .. } => {
                let shm = self
                    .shm
                    .as_ref()
                    .ok_or_else(|| SandboxError::SharedMemory("not mapped".into()))?;
                let pixels = shm.bytes()[bytes..].to_vec();
                let output =
                    RgbaImage::from_raw(width, height, pixels).ok_or(SandboxError::EmptyImage)?;
                Ok((output, gpu_nanos.map(nanos_to_ms)))
            }
            Reply::Failed(f) => Err(SandboxError::from_failure(&f)),
            other => {
                self.host = None;
                Err(SandboxError::Protocol(format!(
                    "an unexpected reply to a run: {other:?}"
                )))
            }
        }
    }
}

/// Input and output images in device memory the kernel host maps too: write the input
/// (and synchronize) before `Sandbox::run_on_device`, read the output after it.
pub struct DeviceFrame {
    id: u64,
    width: u32,
    height: u32,
    buffer: SharedDeviceBuffer,
}

impl DeviceFrame {
    /// A `width × height` frame in `ctx` (the app's context).
    pub fn new(ctx: &Arc<CudaContext>, width: u32, height: u32) -> Result<Self, SandboxError> {
        if width == 0 || height == 0 {
            return Err(SandboxError::EmptyImage);
        }
        host::image_bytes(width, height).ok_or(SandboxError::ImageTooLarge { width, height })?;
        if !device_memory::supported(ctx) {
            return Err(SandboxError::DeviceMemory(
                "the device cannot share memory as file descriptors".into(),
            ));
        }
        let buffer = SharedDeviceBuffer::create(ctx, 2 * image_span(width, height))
            .map_err(|e| SandboxError::DeviceMemory(e.to_string()))?;
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Ok(Self {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            width,
            height,
            buffer,
        })
    }

    pub fn dimensions(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Row pitch of both images, bytes.
    pub fn pitch(&self) -> usize {
        frame_pitch(self.width)
    }

    /// The input image's first row (the caller's kernels or copies write it).
    pub fn input_ptr(&self) -> u64 {
        self.buffer.ptr()
    }

    /// The output image's first row.
    pub fn output_ptr(&self) -> u64 {
        self.buffer.ptr() + image_span(self.width, self.height) as u64
    }

    /// Copies `image` into the input and waits.
    pub fn write_input(&self, stream: &CudaStream, image: &RgbaImage) -> Result<(), SandboxError> {
        if image.dimensions() != (self.width, self.height) {
            return Err(SandboxError::DeviceMemory(format!(
                "a {:?} image for a {}×{} frame",
                image.dimensions(),
                self.width,
                self.height
            )));
        }
        let src = Pitched::Host {
            ptr: image.as_raw().as_ptr().cast_mut(),
            pitch: self.width as usize * 4,
        };
        let dst = Pitched::Device {
            ptr: self.input_ptr(),
            pitch: self.pitch(),
        };
        // SAFETY: `image` holds the pixels (only read) and the frame the rows; waited for.
        unsafe {
            device_memory::copy_pitched(src, dst, self.width, self.height, stream.cu_stream())
        }
        .and_then(|()| {
            stream
                .synchronize()
                .map_err(crate::cuda::CudaError::driver("cuStreamSynchronize"))
        })
        .map_err(|e| SandboxError::DeviceMemory(e.to_string()))
    }

    /// Copies the output into a new image and waits.
    pub fn read_output(&self, stream: &CudaStream) -> Result<RgbaImage, SandboxError> {
        let mut pixels = vec![0u8; self.width as usize * self.height as usize * 4];
        let src = Pitched::Device {
            ptr: self.output_ptr(),
            pitch: self.pitch(),
        };
        let dst = Pitched::Host {
            ptr: pixels.as_mut_ptr(),
            pitch: self.width as usize * 4,
        };
        // SAFETY: the frame holds the rows and `pixels` the image; waited for.
        unsafe {
            device_memory::copy_pitched(src, dst, self.width, self.height, stream.cu_stream())
        }
        .and_then(|()| {
            stream
                .synchronize()
                .map_err(crate::cuda::CudaError::driver("cuStreamSynchronize"))
        })
        .map_err(|e| SandboxError::DeviceMemory(e.to_string()))?;
        RgbaImage::from_raw(self.width, self.height, pixels).ok_or(SandboxError::EmptyImage)
    }
}

impl Sandbox {
    /// Starts the host if needed, loads `kernel` and maps `frame` in it (each once per
    /// host), so that a run that follows only runs.
    pub fn prepare_device(
        &mut self,
        kernel: &SandboxKernel,
        frame: &DeviceFrame,
    ) -> Result<(), SandboxError> {
        self.load(kernel)?;
        if self.host()?.mapped_frame != Some(frame.id) {
            let fd = frame
                .buffer
                .export_fd()
                .map_err(|e| SandboxError::DeviceMemory(e.to_string()))?;
            let request = Request::MapDevice {
                frame: frame.id,
                width: frame.width,
                height: frame.height,
                pitch: frame.pitch() as u32,
                size: frame.buffer.size() as u64,
            };
            self.map_in_host(&request, fd, frame.id)?;
            self.host()?.mapped_frame = Some(frame.id);
        }
        Ok(())
    }

    /// Sends `request`, a run of `kernel` (with `fd`, if any), within the frame deadline;
    /// when the host has dropped the kernel to make room, loads it again and sends the
    /// request once more.
    fn run_loaded(
        &mut self,
        kernel: &SandboxKernel,
        request: &Request,
        fd: Option<std::os::fd::RawFd>,
    ) -> Result<Reply, SandboxError> {
        let budget = self.config.frame_deadline;
        let reply = self.ask(request, fd, Phase::Run, budget)?;
        if !matches!(&reply, Reply::Failed(f) if f.name == NOT_LOADED) {
            return Ok(reply);
        }
        if let Some(host) = self.host.as_mut() {
            host.loaded.remove(&kernel.id);
        }
        self.load(kernel)?;
        self.ask(request, fd, Phase::Run, budget)
    }

    /// Sends `request` (a mapping of object `id`) with `fd`; Ok once the host mapped it.
    /// A refusal is [`SandboxError::DeviceMemory`].
    fn map_in_host(&mut self, request: &Request, fd: OwnedFd, id: u64) -> Result<(), SandboxError> {
        let budget = self.config.load_deadline;
        match self.ask(request, Some(fd.as_raw_fd()), Phase::Load, budget)? {
            Reply::Mapped { frame } if frame == id => Ok(()),
            Reply::Failed(f) => Err(SandboxError::DeviceMemory(
                SandboxError::from_failure(&f).to_string(),
            )),
            other => {
                self.host = None;
                Err(SandboxError::Protocol(format!(
                    "an unexpected reply to a mapping: {other:?}"
                )))
            }
        }
    }

    /// Runs `kernel` on `frame` in the host without host copies: the host maps the
    /// frame's memory once (per host), reads the input through a texture, and has copied
    /// the kernel's output into the frame's output when this returns. Gives the kernel's
    /// own GPU time in the host (ms) where the host measured it.
    pub fn run_on_device(
        &mut self,
        kernel: &SandboxKernel,
        frame: &DeviceFrame,
        params: &ParamBlock,
    ) -> Result<Option<f64>, SandboxError> {
        self.prepare_device(kernel, frame)?;
        let request = Request::RunDevice {
            id: kernel.id,
            frame: frame.id,
            params: params.words,
        };
        match self.run_loaded(kernel, &request, None)? {
            Reply::Done { gpu_nanos, .. } => Ok(gpu_nanos.map(nanos_to_ms)),
            Reply::Failed(f) => Err(SandboxError::from_failure(&f)),
            other => {
                self.host = None;
                Err(SandboxError::Protocol(format!(
                    "an unexpected reply to a run: {other:?}"
                )))
            }
        }
    }
}

/// A whole frame for the host: the request, the shared objects it names (id and kind, each
/// mapped once per host with a descriptor from `export`), and the user kernels its stages
/// name.
pub struct HostFrame<'a> {
    pub request: FrameRequest,
    pub objects: &'a [(u64, SharedObject)],
    pub export: &'a dyn Fn(u64) -> Result<OwnedFd, String>,
    pub kernels: &'a [SandboxKernel],
}

impl Sandbox {
    /// Runs a whole frame in the host: maps the objects and loads the kernels it has not
    /// (once per host), then runs it. An object or kernel the host dropped to make room is
    /// mapped or loaded again, once. A mapping that fails, for whatever reason, is
    /// [`SandboxError::DeviceMemory`].
    pub fn run_frame(&mut self, frame: &HostFrame<'_>) -> Result<FrameResult, SandboxError> {
        for attempt in 0..2 {
            self.prepare_frame(frame.objects, frame.export, frame.kernels)?;
            let budget = self.config.frame_deadline;
            let request = Request::RunFrame(frame.request.clone());
            match self.ask(&request, None, Phase::Run, budget)? {
                Reply::FrameDone(result) => return Ok(result),
                Reply::Failed(f)
                    if attempt == 0 && (f.name == NOT_LOADED || f.name == NOT_MAPPED) =>
                {
                    if let Some(host) = self.host.as_mut() {
                        host.loaded.clear();
                        host.mapped_shared.clear();
                    }
                }
                Reply::Failed(f) => return Err(SandboxError::from_failure(&f)),
                other => {
                    self.host = None;
                    return Err(SandboxError::Protocol(format!(
                        "an unexpected reply to a frame: {other:?}"
                    )));
                }
            }
        }
        Err(SandboxError::Protocol(
            "the host lost the frame's objects twice".into(),
        ))
    }

    /// Starts the host if needed, maps `objects` (descriptors from `export`) and loads
    /// `kernels` where it has not, so that a frame that follows only runs. True when it did
    /// any of that (the host's next frame is its first on these objects or kernels).
    pub fn prepare_frame(
        &mut self,
        objects: &[(u64, SharedObject)],
        export: &dyn Fn(u64) -> Result<OwnedFd, String>,
        kernels: &[SandboxKernel],
    ) -> Result<bool, SandboxError> {
        let spawns = self.spawns;
        let mut fresh = false;
        for &(id, object) in objects {
            if self.host()?.mapped_shared.contains(&id) {
                continue;
            }
            fresh = true;
            let fd = export(id).map_err(SandboxError::DeviceMemory)?;
            // Whatever stops the host importing an object refuses whole frames.
            self.map_in_host(&Request::MapShared { id, object }, fd, id)
                .map_err(|e| match e {
                    SandboxError::DeviceMemory(_) => e,
                    e => SandboxError::DeviceMemory(e.to_string()),
                })?;
            self.host()?.mapped_shared.insert(id);
        }
        for kernel in kernels {
            fresh |= !self.host()?.loaded.contains_key(&kernel.id);
            self.load(kernel)?;
        }
        Ok(fresh || self.spawns != spawns)
    }
}

fn nanos_to_ms(nanos: u64) -> f64 {
    nanos as f64 * 1e-6
}
