//! Runs frames on the chosen backend and falls back to the CPU when CUDA fails (in
//! `auto` mode), keeping the reason for the status bar.

use super::cpu_frame::{run_cpu_frame, run_cpu_typed};
use super::cuda_frame::{refuse_typed_user_kernels, CudaFrame};
use super::frame_targets::FrameTargets;
use super::stage::{cpu_filters, Stage};
use crate::cuda::{kernel_build_description, CudaDevice};
use crate::gl::{GlError, GlTexture, TextureRef};
use crate::pipeline::backend::{choose_backend, fall_back_after};
use crate::pipeline::interop::ExternalInterop;
use crate::pipeline::interop::{
    choose_interop, CudaShare, InteropKind, InteropRequest, InteropStatus,
};
use crate::pipeline::{BackendRequest, BackendStatus, FrameReport, GpuPixelFormat, PipelineError};
use crate::pixels::PixelImage;
use image::RgbaImage;

/// The host pixels of a frame's source, for the CPU backend (and the fallback to it).
#[derive(Clone, Copy)]
enum HostPixels<'a> {
    Rgba8(&'a RgbaImage),
    Typed(&'a PixelImage),
    /// A source written on the device: no fallback to the CPU.
    None,
}

/// The frame pipeline of one GL context.
pub struct FrameRunner {
    pub targets: FrameTargets,
    pub status: BackendStatus,
    /// The interop path of the CUDA backend (None on the CPU).
    pub interop: Option<InteropStatus>,
    /// The external-memory interop the targets live on (None on map/unmap and the CPU).
    external: Option<ExternalInterop>,
    request: BackendRequest,
    cuda: Option<CudaFrame>,
    /// Trimmed since the last frame: the next frame frees the spares it leaves (the
    /// previous image's sizes).
    trimmed: bool,
    /// The stored format and channel count (1, 3 or 4) of the last loaded source: an
    /// output of that format reads back with those channels.
    loaded: Option<(GpuPixelFormat, u8)>,
}

/// Opens CUDA on the current GL context's device and loads the filter kernels.
fn open_cuda() -> Result<CudaFrame, String> {
    let device = CudaDevice::for_current_gl().map_err(|e| e.to_string())?;
    CudaFrame::new(device).map_err(|e| e.to_string())
}

impl FrameRunner {
    /// Creates the backend and the targets (`width × height`). With
    /// [`BackendRequest::Cuda`], CUDA not working is an error; with `Auto` it is a reason.
    /// `interop` chooses how CUDA reaches the GL objects (see [`choose_interop`]).
    pub fn new(
        gl: &glow::Context,
        request: BackendRequest,
        interop: InteropRequest,
        width: u32,
        height: u32,
    ) -> Result<Self, PipelineError> {
        let describe = |frame: &CudaFrame| {
            format!(
                "{}; kernels: {}",
                frame.device.info,
                kernel_build_description()
            )
        };
        let (frame, status) = choose_backend(request, open_cuda, describe)?;
        let Some(frame) = frame else {
            return Ok(Self {
                targets: FrameTargets::new(gl, width, height)?,
                status,
                interop: None,
                external: None,
                request,
                cuda: None,
                trimmed: false,
                loaded: None,
            });
        };
        let (targets, interop, external) = cuda_targets(gl, &frame, interop, width, height)?;
        Ok(Self {
            targets,
            status,
            interop: Some(interop),
            external,
            request,
            cuda: Some(frame),
            trimmed: false,
            loaded: None,
        })
    }

    /// Drops CUDA's registrations of GL objects (before the source texture is re-specified).
    pub fn release_registrations(&mut self) {
        if let Some(cuda) = self.cuda.as_mut() {
            cuda.release_registrations();
        }
    }

    /// Drops the registrations and frees the scratch, the intermediates and the spares
    /// sized for earlier images (when a new image is loaded: memory follows the image, not
    /// the largest one seen).
    pub fn trim(&mut self, gl: &glow::Context) {
        if let Some(cuda) = self.cuda.as_mut() {
            cuda.trim();
        }
        self.targets.release_spares(gl);
        self.trimmed = true;
    }

    /// Frees what is kept for sizes other than the last frame's; true when there was any.
    fn release_spares(&mut self, gl: &glow::Context) -> bool {
        let intermediates = self.cuda.as_mut().is_some_and(|c| c.release_spares());
        intermediates | self.targets.release_spares(gl)
    }

    /// The CUDA device in use, if any.
    pub fn cuda_device(&self) -> Option<&CudaDevice> {
        self.cuda.as_ref().map(|c| &c.device)
    }

    /// The CUDA device and interop path in use, for the Mandelbrot renderer of the same
    /// context (None on the CPU).
    pub fn cuda_share(&self) -> Option<CudaShare> {
        Some(CudaShare {
            device: self.cuda.as_ref()?.device.clone(),
            external: self.external.clone(),
            interop: self.interop.clone()?,
        })
    }

    /// Loads `image` as the source of [`FrameRunner::run_loaded`] and of the app's "before"
    /// ([`FrameRunner::source`]). On the external-memory path it goes into memory that GL
    /// shows and CUDA reads (no copy per load; allocated by Vulkan, so it is freed at once
    /// when the size changes, where GL's own textures linger in its pools); otherwise into
    /// a plain GL texture.
    pub fn load_source(
        &mut self,
        gl: &glow::Context,
        image: &RgbaImage,
    ) -> Result<TextureRef, PipelineError> {
        let format = GpuPixelFormat::RGBA8;
        self.load_texels(gl, (image.dimensions(), format), 4, image.as_raw())
    }

    /// [`FrameRunner::load_source`] for an image of any type and channel count, stored as
    /// [`GpuPixelFormat::of`] says (RGB with opaque alpha); [`FrameRunner::run_loaded_pixels`]
    /// runs it and [`FrameRunner::read_output_pixels`] reads the result back in its type
    /// and channels.
    pub fn load_pixels(
        &mut self,
        gl: &glow::Context,
        image: &PixelImage,
    ) -> Result<TextureRef, PipelineError> {
        let format = GpuPixelFormat::of(image);
        let texels = GpuPixelFormat::texels(image)?;
        let stored = (image.dimensions(), format);
        self.load_texels(gl, stored, image.channels(), &texels)
    }

    /// Loads `texels` (`size` of `format`, rows packed) of an image of `channels`.
    fn load_texels(
        &mut self,
        gl: &glow::Context,
        (size, format): ((u32, u32), GpuPixelFormat),
        channels: u8,
        texels: &[u8],
    ) -> Result<TextureRef, PipelineError> {
        self.release_registrations_unless_source_is(size, format);
        self.loaded = None;
        let source =
            self.freeing_spares_on_failure(gl, |r| r.load_texels_once(gl, (size, format), texels))?;
        self.loaded = Some((format, channels));
        Ok(source)
    }

    /// A plain source is re-specified when its size or format changes: its registration
    /// goes first. (Pixels replaced alike keep it; shared memory has none.)
    fn release_registrations_unless_source_is(&mut self, size: (u32, u32), format: GpuPixelFormat) {
        let kept = self.targets.source().map(|t| (t.width, t.height, t.format));
        if kept != Some((size.0, size.1, format.gl())) {
            if let Some(cuda) = self.cuda.as_mut() {
                cuda.release_registrations();
            }
        }
    }

    /// The pixels go in through CUDA where the source is shared memory and CUDA is open
    /// (GL's uploads from client memory stage through blocks its driver maps and unmaps,
    /// 4 MiB at a time), through GL otherwise.
    fn load_texels_once(
        &mut self,
        gl: &glow::Context,
        stored: ((u32, u32), GpuPixelFormat),
        texels: &[u8],
    ) -> Result<TextureRef, PipelineError> {
        match (self.cuda.as_mut(), self.targets.external()) {
            (Some(cuda), Some(shared)) => cuda.upload_texels(gl, shared, stored, texels),
            _ => {
                let (size, format) = stored;
                let source = self.targets.load_texels(gl, size, format, texels)?;
                Ok(source.texture_ref())
            }
        }
    }

    /// Loads an RGBA8 source of `size` that `write` fills on the device (a decoded video
    /// frame): [`FrameRunner::run_loaded_on_device`] runs it. On the external-memory path
    /// the source is memory both share; on map/unmap the plain source, registered for
    /// surface stores and mapped for the write. Needs CUDA.
    pub fn load_source_on_device(
        &mut self,
        gl: &glow::Context,
        size: (u32, u32),
        write: impl FnOnce(
            crate::cuda::ArrayRef<'_>,
            &std::sync::Arc<cudarc::driver::CudaStream>,
        ) -> Result<(), crate::cuda::CudaError>,
    ) -> Result<TextureRef, PipelineError> {
        let format = GpuPixelFormat::RGBA8;
        if self.targets.external().is_none() {
            self.release_registrations_unless_source_is(size, format);
        }
        let Some(cuda) = self.cuda.as_mut() else {
            return Err(PipelineError::InteropUnavailable(
                "frames decoded on the GPU need the CUDA backend".into(),
            ));
        };
        self.loaded = None;
        let source = match self.targets.external() {
            Some(shared) => cuda.write_source(gl, shared, (size, format), write)?,
            None => {
                let source = self
                    .targets
                    .plain_source_for_device(gl, size, format)?
                    .texture_ref();
                let frame = (self.targets.output.texture_ref(), self.targets.bins.id);
                cuda.write_registered_source(gl, source, frame, write)?;
                source
            }
        };
        self.loaded = Some((format, 4));
        Ok(source)
    }

    /// Loads a frame NVDEC decoded as the source, converted on the device (see
    /// [`FrameRunner::load_source_on_device`]).
    pub fn load_video_frame(
        &mut self,
        gl: &glow::Context,
        frame: &crate::video::nvdec::MappedFrame<'_>,
    ) -> Result<TextureRef, PipelineError> {
        self.load_source_on_device(gl, frame.size(), |array, _| frame.write_rgba(array))
    }

    /// Runs `filters` on the source [`FrameRunner::load_source_on_device`] wrote.
    pub fn run_loaded_on_device(
        &mut self,
        gl: &glow::Context,
        filters: &[Stage],
    ) -> Result<FrameReport, PipelineError> {
        let source = self.loaded_source()?;
        self.run_from(gl, source, HostPixels::None, filters)
    }

    /// The texture [`FrameRunner::load_source`] loaded (its name changes with the size on
    /// the external-memory path).
    pub fn source(&self) -> Option<&GlTexture> {
        self.targets.source()
    }

    /// `stage`'s kernel as loaded by a CUDA frame (None before one ran it, or on the CPU).
    pub fn user_kernel(
        &self,
        stage: &crate::user_kernel::KernelStage,
    ) -> Option<std::sync::Arc<crate::user_kernel::device::LoadedKernel>> {
        self.cuda.as_ref()?.user_kernel(stage)
    }

    /// Compiles and loads the user kernels of `filters` now (on CUDA; nothing on the CPU),
    /// so that a broken one is one error before any frame.
    pub fn prepare(&mut self, filters: &[Stage]) -> Result<(), PipelineError> {
        match self.cuda.as_mut() {
            Some(cuda) => cuda.prepare(filters),
            None => cpu_filters(filters)
                .map(|_| ())
                .map_err(PipelineError::KernelNeedsCuda),
        }
    }

    /// Runs `filters` on the loaded source (`image`: its host pixels) into the targets.
    pub fn run_loaded(
        &mut self,
        gl: &glow::Context,
        image: &RgbaImage,
        filters: &[Stage],
    ) -> Result<FrameReport, PipelineError> {
        let source = self.loaded_source()?;
        self.run_from(gl, source, HostPixels::Rgba8(image), filters)
    }

    /// The texture [`FrameRunner::load_source`] or [`FrameRunner::load_pixels`] loaded.
    fn loaded_source(&self) -> Result<TextureRef, GlError> {
        let source = self.targets.source().ok_or(GlError::Create {
            what: "source texture",
            reason: "no image loaded".into(),
        })?;
        Ok(source.texture_ref())
    }

    /// Runs `filters` on the source [`FrameRunner::load_pixels`] loaded (`image`: its host
    /// pixels). An 8-bit RGB or RGBA image runs as [`FrameRunner::run_loaded`] does; other
    /// formats run the filters' typed kernels (or typed CPU references) in their own type.
    /// User kernels read RGBA8: a stack with one is refused with
    /// [`PipelineError::NoTypedKernel`] before any work.
    pub fn run_loaded_pixels(
        &mut self,
        gl: &glow::Context,
        image: &PixelImage,
        filters: &[Stage],
    ) -> Result<FrameReport, PipelineError> {
        let format = GpuPixelFormat::of(image);
        if format == GpuPixelFormat::RGBA8 {
            let rgba = image.clone().into_rgba8();
            return self.run_loaded(gl, &rgba, filters);
        }
        let source = self.loaded_source()?;
        if source.format != format.gl() || (source.width, source.height) != image.dimensions() {
            return Err(GlError::Create {
                what: "typed frame",
                reason: format!("the loaded source is not this {}", image.describe()),
            }
            .into());
        }
        self.run_from(gl, source, HostPixels::Typed(image), filters)
    }

    /// Runs user kernels in this process instead of the kernel host (measurements only:
    /// see `CUDALENS_USER_KERNELS`).
    pub fn set_user_kernels_in_process(&mut self, in_process: bool) {
        if let Some(cuda) = self.cuda.as_mut() {
            cuda.set_user_kernels_in_process(in_process);
        }
    }

    /// Runs the kernel host as `command` (see `CudaFrame::use_kernel_host`).
    pub fn use_kernel_host(&mut self, command: crate::user_kernel::sandbox::HostCommand) {
        if let Some(cuda) = self.cuda.as_mut() {
            cuda.use_kernel_host(command);
        }
    }

    /// Runs `filters` on `source` (a GL texture of the caller's and its host pixels) into
    /// the targets; on the external-memory path the source is copied into shared memory
    /// when it changed.
    pub fn run(
        &mut self,
        gl: &glow::Context,
        source: &GlTexture,
        image: &RgbaImage,
        filters: &[Stage],
    ) -> Result<FrameReport, PipelineError> {
        self.run_from(gl, source.texture_ref(), HostPixels::Rgba8(image), filters)
    }

    fn run_from(
        &mut self,
        gl: &glow::Context,
        source: TextureRef,
        host: HostPixels<'_>,
        filters: &[Stage],
    ) -> Result<FrameReport, PipelineError> {
        let format = GpuPixelFormat::from_gl(source.format)?;
        refuse_typed_user_kernels(filters, format)?;
        let (w, h) = Stage::chain_size(filters, source.width, source.height);
        self.freeing_spares_on_failure(gl, |r| r.shape_output(gl, (w, h), format))?;
        if self.cuda.is_some() {
            match self.freeing_spares_on_failure(gl, |r| r.run_cuda(gl, source, filters)) {
                Ok(report) => {
                    if std::mem::take(&mut self.trimmed) {
                        self.release_spares(gl);
                    }
                    return Ok(report);
                }
                // A user kernel that does not compile is not CUDA failing.
                Err(e @ PipelineError::Kernel(_)) => return Err(e),
                Err(e) => {
                    self.status = fall_back_after(self.request, e)?;
                    self.cuda = None;
                    self.interop = None;
                    self.external = None;
                }
            }
        }
        let filters = cpu_filters(filters).map_err(PipelineError::KernelNeedsCuda)?;
        match host {
            HostPixels::Rgba8(image) => Ok(run_cpu_frame(gl, image, &mut self.targets, &filters)?),
            HostPixels::Typed(image) => run_cpu_typed(gl, image, &mut self.targets, &filters),
            HostPixels::None => Err(PipelineError::CudaUnavailable(format!(
                "{}; the frame was on the GPU",
                self.status.reason
            ))),
        }
    }

    /// Runs `step`; when it fails while memory is kept for other sizes (a cache), frees that
    /// and runs it once more before the failure counts.
    fn freeing_spares_on_failure<T>(
        &mut self,
        gl: &glow::Context,
        mut step: impl FnMut(&mut Self) -> Result<T, PipelineError>,
    ) -> Result<T, PipelineError> {
        let first = step(self);
        if first.is_err() && self.release_spares(gl) {
            return step(self);
        }
        first
    }

    /// Gives the output the frame's size (releasing CUDA's registration of it first);
    /// nothing to do at the size it has.
    pub fn resize_output(
        &mut self,
        gl: &glow::Context,
        w: u32,
        h: u32,
    ) -> Result<(), PipelineError> {
        self.shape_output(gl, (w, h), GpuPixelFormat::RGBA8)
    }

    /// Gives the output `size` and `format` (releasing CUDA's registration of it first);
    /// nothing to do when it has them.
    pub fn shape_output(
        &mut self,
        gl: &glow::Context,
        size: (u32, u32),
        format: GpuPixelFormat,
    ) -> Result<(), PipelineError> {
        if self.targets.output_is(size, format) {
            return Ok(());
        }
        if let Some(cuda) = self.cuda.as_mut() {
            cuda.release_registrations();
        }
        self.targets.shape_output(gl, size, format)
    }

    /// The frame on CUDA (the backend must be CUDA).
    fn run_cuda(
        &mut self,
        gl: &glow::Context,
        source: TextureRef,
        filters: &[Stage],
    ) -> Result<FrameReport, PipelineError> {
        let Some(cuda) = self.cuda.as_mut() else {
            return Err(PipelineError::CudaUnavailable(
                "internal: CUDA is closed".into(),
            ));
        };
        cuda.run(gl, source, &mut self.targets, filters)
    }

    /// The last frame's output: read through CUDA on the CUDA backend (no GL pixel-pack
    /// buffer the size of the image, which the GL driver keeps for a while after each read),
    /// through GL otherwise.
    pub fn read_output(&mut self, gl: &glow::Context) -> Result<RgbaImage, PipelineError> {
        if let Some(read) = self
            .cuda
            .as_mut()
            .and_then(|c| c.read_output(gl, &mut self.targets))
        {
            return read;
        }
        Ok(self.targets.output.read(gl)?)
    }

    /// The last frame's output as an image of its stored type, with the channels of the
    /// loaded source when the output has its format (RGB drops the stored alpha): read
    /// through CUDA on the CUDA backend, through GL otherwise.
    pub fn read_output_pixels(&mut self, gl: &glow::Context) -> Result<PixelImage, PipelineError> {
        let format = GpuPixelFormat::from_gl(self.targets.output.format)?;
        let channels = match self.loaded {
            Some((loaded, channels)) if loaded == format => channels,
            _ => format.channels,
        };
        let size = (self.targets.output.width, self.targets.output.height);
        let texels = match self
            .cuda
            .as_mut()
            .and_then(|c| c.read_output_texels(gl, &mut self.targets))
        {
            Some(read) => read?,
            None => self.targets.output.read_texels(gl)?,
        };
        Ok(format.image(size, channels, &texels)?)
    }

    /// Releases the GL objects (CUDA registrations first).
    pub fn destroy(mut self, gl: &glow::Context) {
        self.cuda = None;
        self.targets.destroy(gl);
    }
}

/// The targets for a CUDA frame on the interop path `request` allows, that path, and the
/// external-memory interop the targets live on.
fn cuda_targets(
    gl: &glow::Context,
    frame: &CudaFrame,
    request: InteropRequest,
    width: u32,
    height: u32,
) -> Result<(FrameTargets, InteropStatus, Option<ExternalInterop>), PipelineError> {
    let (external, status) = choose_interop(gl, &frame.device, request)?;
    let Some(external) = external else {
        return Ok((FrameTargets::new(gl, width, height)?, status, None));
    };
    match FrameTargets::shared(gl, external.clone(), width, height) {
        Ok(targets) => Ok((targets, status, Some(external))),
        Err(e) if request == InteropRequest::External => {
            Err(PipelineError::InteropUnavailable(e.to_string()))
        }
        Err(e) => Ok((
            FrameTargets::new(gl, width, height)?,
            InteropStatus {
                kind: InteropKind::Classic,
                reason: format!("external memory failed ({e})"),
            },
            None,
        )),
    }
}
