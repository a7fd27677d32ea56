//! One frame of the filter stack on CUDA, through GL interop.
//!
//! source GL texture (registered read-only) → texture object → stage kernels (ping-pong
//! CUDA arrays) → output GL texture (registered surface load/store) → histogram kernel →
//! GL bin buffer (registered). The three resources are mapped with one call and unmapped
//! with one call; registration happens when a texture changes, not every frame.

use super::frame_targets::{FrameTargets, BIN_BUFFER_BYTES};
use super::intermediates::Intermediates;
use super::report::{stages_from, FrameReport};
use super::BackendKind;
use crate::cuda::interop::{GraphicsResource, Mapped, Registered};
use crate::cuda::{
    ffi, memory, CudaDevice, CudaError, GpuTimeline, KernelSet, SurfaceObject, TextureObject,
};
use crate::filters::{kernel_modules, launch_histogram, Filter, GpuStage};
use crate::gl::GlTexture;
use crate::ops::{Histogram, HISTOGRAM_BINS};
use cudarc::driver::CudaSlice;

/// What the registration was made for: re-register when any of it changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RegistrationKey {
    source: (glow::Texture, u32, u32),
    output: (glow::Texture, u32, u32),
    bins: glow::Buffer,
}

/// CUDA state kept between frames.
pub struct CudaFrame {
    pub device: CudaDevice,
    kernels: KernelSet,
    registration: Option<(RegistrationKey, Registered)>,
    intermediates: Intermediates,
    scratch: Option<CudaSlice<u8>>,
}

impl CudaFrame {
    pub fn new(device: CudaDevice) -> Result<Self, CudaError> {
        device.bind()?;
        let kernels = KernelSet::load(&device, kernel_modules())?;
        Ok(Self {
            device,
            kernels,
            registration: None,
            intermediates: Intermediates::default(),
            scratch: None,
        })
    }

    /// Drops the GL registrations (before a registered texture is resized or deleted).
    pub fn release_registrations(&mut self) {
        self.registration = None;
    }

    fn registered(&mut self, key: RegistrationKey) -> Result<Registered, CudaError> {
        if let Some((k, r)) = self.registration.take() {
            if k == key {
                return Ok(r);
            }
        }
        Ok(Registered::new(vec![
            GraphicsResource::texture(&self.device.ctx, key.source.0, ffi::REGISTER_READ_ONLY)?,
            GraphicsResource::texture(&self.device.ctx, key.output.0, ffi::REGISTER_SURFACE_LDST)?,
            GraphicsResource::buffer(&self.device.ctx, key.bins, 0)?,
        ]))
    }

    /// Makes the scratch hold what the largest stage needs (at least one byte).
    fn ensure_scratch(
        &mut self,
        filters: &[Filter],
        mut w: u32,
        mut h: u32,
    ) -> Result<(), CudaError> {
        let mut need = 1usize;
        for f in filters {
            need = need.max(f.def().scratch_bytes(w, h, f.params()));
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
                self.device
                    .stream
                    .alloc_zeros::<u8>(need)
                    .map_err(CudaError::driver("cuMemAlloc(scratch)"))?,
            );
        }
        Ok(())
    }

    /// Runs `filters` from `source` into `targets` (whose output already has the final
    /// size) and returns the timings and the histogram.
    pub fn run(
        &mut self,
        source: &GlTexture,
        targets: &FrameTargets,
        filters: &[Filter],
    ) -> Result<FrameReport, CudaError> {
        self.device.bind()?;
        let key = RegistrationKey {
            source: (source.id, source.width, source.height),
            output: (
                targets.output.id,
                targets.output.width,
                targets.output.height,
            ),
            bins: targets.bins.id,
        };
        self.ensure_scratch(filters, source.width, source.height)?;
        let stream = self.device.stream.clone();
        let mut timeline = GpuTimeline::start(&self.device.ctx, &stream)?;
        let mapped = self.registered(key)?.map(&stream)?;
        timeline.mark("map", &stream)?;
        let histogram = self.run_mapped(&mapped, source, filters, &mut timeline)?;
        let registered = mapped.unmap()?;
        timeline.mark("unmap", &stream)?;
        let stages = timeline.stage_times()?;
        self.registration = Some((key, registered));
        Ok(FrameReport {
            backend: BackendKind::Cuda,
            width: targets.output.width,
            height: targets.output.height,
            histogram,
            stages: stages_from(stages),
        })
    }

    fn run_mapped(
        &mut self,
        mapped: &Mapped,
        source: &GlTexture,
        filters: &[Filter],
        timeline: &mut GpuTimeline,
    ) -> Result<Histogram, CudaError> {
        let stream = self.device.stream.clone();
        let source_array = mapped.array(0)?;
        let output_array = mapped.array(1)?;
        let (bins_ptr, bins_size) = mapped.pointer(2)?;
        if bins_size < BIN_BUFFER_BYTES {
            return Err(CudaError::Launch {
                kernel: "histogram",
                reason: format!("bin buffer of {bins_size} B"),
            });
        }
        let ctx = self.device.ctx.clone();
        let source_texture = TextureObject::from_array(&ctx, source_array)?;
        let output_surface = SurfaceObject::from_array(&ctx, output_array)?;
        let (mut w, mut h) = (source.width, source.height);
        for (k, filter) in filters.iter().enumerate() {
            let (ow, oh) = filter.output_size(w, h);
            let last = k + 1 == filters.len();
            if !last {
                self.intermediates.ensure(&ctx, k, ow, oh)?;
            }
            let input = if k == 0 {
                &source_texture
            } else {
                &self
                    .intermediates
                    .get(k - 1)
                    .ok_or(missing_stage())?
                    .texture
            };
            let output = if last {
                &output_surface
            } else {
                &self.intermediates.get(k).ok_or(missing_stage())?.surface
            };
            let scratch = self.scratch.as_mut().ok_or(missing_stage())?;
            let mut stage = GpuStage {
                kernels: &self.kernels,
                stream: &stream,
                input,
                output,
                width: w,
                height: h,
                scratch,
            };
            filter.def().launch(&mut stage, filter.params())?;
            timeline.mark(filter.name(), &stream)?;
            (w, h) = (ow, oh);
        }
        if filters.is_empty() {
            memory::copy_array(source_array, output_array, w, h, &stream)?;
            timeline.mark("copy", &stream)?;
        }
        let output_texture = TextureObject::from_array(&ctx, output_array)?;
        memory::fill_u32(bins_ptr, 0, 4 * HISTOGRAM_BINS, &stream)?;
        // SAFETY: `bins_ptr` is the mapped GL bin buffer, checked above to hold
        // BIN_BUFFER_BYTES, mapped until `unmap` after this frame's work.
        unsafe { launch_histogram(&self.kernels, &stream, &output_texture, w, h, bins_ptr)? };
        timeline.mark("histogram", &stream)?;
        let mut flat = vec![0u32; 4 * HISTOGRAM_BINS];
        memory::read_u32(bins_ptr, &mut flat, &stream)?;
        Histogram::from_flat(w, h, &flat).ok_or(missing_stage())
    }
}

fn missing_stage() -> CudaError {
    CudaError::Launch {
        kernel: "pipeline",
        reason: "internal: stage buffer missing".into(),
    }
}
