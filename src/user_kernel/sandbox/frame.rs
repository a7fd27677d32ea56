//! A frame's user-kernel stage run in the kernel host: the stage's input array is copied
//! into a device frame the host maps (no host copy), the host runs the kernel and copies its
//! output into the frame, and the output is copied into the stage's output array, on the
//! app's stream. Where the device cannot share memory as file descriptors, the pixels go
//! through host shared memory instead.

use super::device_memory::{copy_pitched, Pitched};
use super::protocol::{FrameResult, SharedObject};
use super::{DeviceFrame, HostFrame, Sandbox, SandboxConfig, SandboxError, SandboxKernel};
use crate::cuda::{memory, ArrayRef, CudaError};
use crate::user_kernel::{CompiledKernel, KernelSource, ParamBlock};
use cudarc::driver::{CudaContext, CudaStream};
use image::RgbaImage;
use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::Arc;

/// How many compiled kernels keep their sandbox identity (a new one reloads in the host).
const MAX_KERNELS: usize = 64;

/// The sandbox a CUDA frame runs its user kernels in, with its device frame.
pub struct FrameSandbox {
    sandbox: Sandbox,
    frame: Option<DeviceFrame>,
    /// Device frames are refused here (the reason); host memory is used instead.
    no_device_frames: Option<String>,
    kernels: HashMap<u64, SandboxKernel>,
}

/// One stage's work: `input` and `output` are `width × height` RGBA8 arrays of the
/// frame's context.
pub struct StageRun<'a, 'k> {
    pub ctx: &'a Arc<CudaContext>,
    pub stream: &'a Arc<CudaStream>,
    pub hash: u64,
    pub source: &'a KernelSource,
    pub compiled: &'a CompiledKernel,
    pub params: &'a ParamBlock,
    pub input: ArrayRef<'k>,
    pub output: ArrayRef<'k>,
    pub width: u32,
    pub height: u32,
}

fn no_device_frame() -> SandboxError {
    SandboxError::DeviceMemory("no device frame".into())
}

fn copy_failed(e: CudaError) -> SandboxError {
    SandboxError::DeviceMemory(e.to_string())
}

impl FrameSandbox {
    /// The kernel host of this binary on CUDA device `device` (the frames' device), with
    /// the default deadlines.
    pub fn new(device: usize) -> Result<Self, SandboxError> {
        Ok(Self::with_config(SandboxConfig::this_binary(device)?))
    }

    /// The kernel host `config` says.
    pub fn with_config(config: SandboxConfig) -> Self {
        Self {
            sandbox: Sandbox::new(config),
            frame: None,
            no_device_frames: None,
            kernels: HashMap::new(),
        }
    }

    /// The host's handle of a compiled kernel (source `hash`), for a whole frame's request.
    pub fn frame_kernel(
        &mut self,
        hash: u64,
        source: &KernelSource,
        compiled: &CompiledKernel,
    ) -> SandboxKernel {
        self.kernel(hash, source, compiled)
    }

    /// Maps a whole frame's objects and loads its kernels in the host (see
    /// [`Sandbox::prepare_frame`]): true when it did.
    pub fn prepare_frame(
        &mut self,
        objects: &[(u64, SharedObject)],
        export: &dyn Fn(u64) -> Result<OwnedFd, String>,
        kernels: &[SandboxKernel],
    ) -> Result<bool, SandboxError> {
        self.sandbox.prepare_frame(objects, export, kernels)
    }

    /// Runs a whole frame in the host (see [`Sandbox::run_frame`]).
    pub fn run_frame(&mut self, frame: &HostFrame<'_>) -> Result<FrameResult, SandboxError> {
        self.sandbox.run_frame(frame)
    }

    /// Why device frames are not used, if they are not (host memory is used instead).
    pub fn host_memory_reason(&self) -> Option<&str> {
        self.no_device_frames.as_deref()
    }

    fn kernel(
        &mut self,
        hash: u64,
        source: &KernelSource,
        compiled: &CompiledKernel,
    ) -> SandboxKernel {
        if self.kernels.len() >= MAX_KERNELS && !self.kernels.contains_key(&hash) {
            self.kernels.clear();
        }
        self.kernels
            .entry(hash)
            .or_insert_with(|| SandboxKernel::new(source, compiled))
            .clone()
    }

    /// Does before a frame what the first run of a kernel would otherwise do inside the
    /// frame's timing: starts the host, loads the kernel (source `hash`) and maps a device
    /// frame of `width × height` in it.
    pub fn prepare(
        &mut self,
        ctx: &Arc<CudaContext>,
        (width, height): (u32, u32),
        hash: u64,
        source: &KernelSource,
        compiled: &CompiledKernel,
    ) -> Result<(), SandboxError> {
        let kernel = self.kernel(hash, source, compiled);
        if self.device_frame(ctx, width, height)? {
            let frame = self.frame.as_ref().ok_or_else(no_device_frame)?;
            return self.sandbox.prepare_device(&kernel, frame);
        }
        self.sandbox.load(&kernel).map(|_| ())
    }

    /// Runs the stage. Waits for the stream's earlier work (the host reads the input), then
    /// queues the copy of the result into `output` on the stream. On an error `output` is
    /// left as it was. Gives the kernel's own GPU time in the host (ms) where measured: the
    /// rest of the stage's time is the hand-over.
    pub fn run(&mut self, run: &StageRun<'_, '_>) -> Result<Option<f64>, SandboxError> {
        let kernel = self.kernel(run.hash, run.source, run.compiled);
        if self.device_frame(run.ctx, run.width, run.height)? {
            return self.run_on_device(run, &kernel);
        }
        self.run_on_host(run, &kernel)
    }

    /// Makes the device frame `width × height`; false when device frames cannot be made
    /// here (the first refusal is logged and kept: host memory is used from then on).
    fn device_frame(
        &mut self,
        ctx: &Arc<CudaContext>,
        width: u32,
        height: u32,
    ) -> Result<bool, SandboxError> {
        if self.no_device_frames.is_some() {
            return Ok(false);
        }
        if self.frame.as_ref().map(DeviceFrame::dimensions) != Some((width, height)) {
            self.frame = None;
            match DeviceFrame::new(ctx, width, height) {
                Ok(frame) => self.frame = Some(frame),
                Err(e @ SandboxError::DeviceMemory(_)) => {
                    log::warn!("user kernels go through host memory: {e}");
                    self.no_device_frames = Some(e.to_string());
                    return Ok(false);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    fn run_on_device(
        &mut self,
        run: &StageRun<'_, '_>,
        kernel: &SandboxKernel,
    ) -> Result<Option<f64>, SandboxError> {
        let frame = self.frame.as_ref().ok_or_else(no_device_frame)?;
        let (w, h) = (run.width, run.height);
        let into_frame = Pitched::Device {
            ptr: frame.input_ptr(),
            pitch: frame.pitch(),
        };
        // SAFETY: `input` is a live w × h array (the borrow) and the frame holds w × h
        // rows of its pitch; the copy is waited for before the host reads it.
        unsafe {
            copy_pitched(
                Pitched::Array(run.input.raw()),
                into_frame,
                w,
                h,
                run.stream.cu_stream(),
            )
        }
        .map_err(copy_failed)?;
        run.stream
            .synchronize()
            .map_err(|e| copy_failed(CudaError::driver("cuStreamSynchronize")(e)))?;
        let kernel_ms = self.sandbox.run_on_device(kernel, frame, run.params)?;
        let from_frame = Pitched::Device {
            ptr: frame.output_ptr(),
            pitch: frame.pitch(),
        };
        // SAFETY: as above; the frame lives in `self` and the output array for the frame's
        // work (the caller orders its release after the stream's work).
        unsafe {
            copy_pitched(
                from_frame,
                Pitched::Array(run.output.raw()),
                w,
                h,
                run.stream.cu_stream(),
            )
        }
        .map_err(copy_failed)?;
        Ok(kernel_ms)
    }

    fn run_on_host(
        &mut self,
        run: &StageRun<'_, '_>,
        kernel: &SandboxKernel,
    ) -> Result<Option<f64>, SandboxError> {
        let (w, h) = (run.width, run.height);
        let mut pixels = vec![0u8; w as usize * h as usize * 4];
        // SAFETY: `input` is a live w × h RGBA8 array; read_array waits for the stream.
        unsafe { memory::read_array(run.input.raw(), w, h, &mut pixels, run.stream) }
            .map_err(copy_failed)?;
        let image = RgbaImage::from_raw(w, h, pixels).ok_or(SandboxError::EmptyImage)?;
        let (out, kernel_ms) = self.sandbox.run_on_host_timed(kernel, &image, run.params)?;
        // SAFETY: `output` is a live w × h RGBA8 array; write_array waits for the copy.
        unsafe { memory::write_array(run.output.raw(), w, h, out.as_raw(), run.stream) }
            .map_err(copy_failed)?;
        Ok(kernel_ms)
    }
}
