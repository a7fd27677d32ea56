//! Headless runs of the filter stack for the command line and the GPU tests: the CPU
//! directly, or CUDA through the same interop path as the window, on a surfaceless EGL
//! context.

use super::cpu_frame::{process_on_cpu, typed_frame_on_cpu};
use super::cuda_frame::refuse_typed_user_kernels;
use super::frame_runner::FrameRunner;
use super::stage::{cpu_filters, Stage};
use super::working_set::{check_gpu_frame, check_gpu_frame_as};
use crate::cuda::{CudaDevice, DeviceInfo, KernelSet};
use crate::filters::kernel_modules;
use crate::pipeline::headless::{cuda_headless_gl, on_backend};
use crate::pipeline::interop::{choose_interop, InteropRequest, InteropStatus};
use crate::pipeline::{
    choose_backend, BackendRequest, BackendStatus, FrameReport, GpuPixelFormat, PipelineError,
};
use crate::pixels::PixelImage;
use crate::video::demux::Demuxer;
use crate::video::nvdec::NvdecReader;
use crate::video::{HostDecoder, HostFrames, NvdecError, VideoError, VideoFile};
use image::RgbaImage;

/// A processed image with its report and the backend (and interop path) that made it.
pub struct HeadlessOutput {
    pub image: RgbaImage,
    pub report: FrameReport,
    pub status: BackendStatus,
    pub interop: Option<InteropStatus>,
}

/// Logs the wall time of each phase of a headless run (`RUST_LOG=info`).
struct Phases(std::time::Instant);

impl Phases {
    fn start() -> Self {
        Self(std::time::Instant::now())
    }

    fn done(&mut self, what: &str) {
        log::info!("{what}: {:.1} ms", self.0.elapsed().as_secs_f64() * 1e3);
        self.0 = std::time::Instant::now();
    }
}

/// Runs `filters` on `image` with the requested backend and interop path.
pub fn process_headless(
    image: &RgbaImage,
    filters: &[Stage],
    request: BackendRequest,
    interop: InteropRequest,
) -> Result<HeadlessOutput, PipelineError> {
    // A user kernel needs CUDA: refused before any backend is opened when the CPU is asked
    // for, and the reason given when the CPU is what there is.
    if request == BackendRequest::Cpu {
        cpu_filters(filters).map_err(PipelineError::KernelNeedsCuda)?;
    }
    on_backend(
        request,
        |reason| {
            let filters = cpu_filters(filters)
                .map_err(|e| PipelineError::KernelNeedsCuda(format!("{e} ({reason})")))?;
            let (image, report) = process_on_cpu(image, &filters);
            Ok(HeadlessOutput {
                image,
                report,
                status: BackendStatus::cpu(reason),
                interop: None,
            })
        },
        // A user kernel that does not compile is not CUDA failing: no fallback.
        |gl| match process_on_gl(gl, image, filters, request, interop) {
            Err(e @ PipelineError::Kernel(_)) => Ok(Err(e)),
            other => other.map(Ok),
        },
    )?
}

/// The interop path: source texture → frame → output texture read back.
fn process_on_gl(
    gl: &glow::Context,
    image: &RgbaImage,
    filters: &[Stage],
    request: BackendRequest,
    interop: InteropRequest,
) -> Result<HeadlessOutput, PipelineError> {
    let mut phase = Phases::start();
    check_gpu_frame(gl, image.width(), image.height(), filters)?;
    let result = FrameRunner::new(gl, request, interop, image.width(), image.height()).and_then(
        |mut runner| {
            phase.done("open backend");
            let out = runner
                .load_source(gl, image)
                .and_then(|_| {
                    phase.done("upload source");
                    runner.run_loaded(gl, image, filters)
                })
                .and_then(|report| {
                    phase.done("run frame");
                    let pixels = runner.read_output(gl)?;
                    phase.done("read output");
                    Ok((pixels, report))
                });
            let (status, interop) = (runner.status.clone(), runner.interop.clone());
            runner.destroy(gl);
            out.map(|(image, report)| HeadlessOutput {
                image,
                report,
                status,
                interop,
            })
        },
    );
    phase.done("release");
    result
}

/// A processed image of any sample type, with its report and backend.
pub struct HeadlessPixels {
    pub image: PixelImage,
    pub report: FrameReport,
    pub status: BackendStatus,
}

/// Runs `filters` on an image of any sample type in that type: on CUDA through the typed
/// kernels and the same interop path as RGBA8 (read back in the image's type and
/// channels), on the CPU by the typed references. User kernels read RGBA8 and are refused
/// for other formats.
pub fn process_pixels_headless(
    image: &PixelImage,
    filters: &[Stage],
    request: BackendRequest,
    interop: InteropRequest,
) -> Result<HeadlessPixels, PipelineError> {
    let format = GpuPixelFormat::of(image);
    refuse_typed_user_kernels(filters, format)?;
    let on_cpu = |reason: String| -> Result<HeadlessPixels, PipelineError> {
        let filters = cpu_filters(filters)
            .map_err(|e| PipelineError::KernelNeedsCuda(format!("{e} ({reason})")))?;
        let (image, report) = typed_frame_on_cpu(image, &filters);
        Ok(HeadlessPixels {
            image,
            report,
            status: BackendStatus::cpu(reason),
        })
    };
    on_backend(request, on_cpu, |gl| {
        check_gpu_frame_as(gl, image.dimensions(), format, filters)?;
        let (w, h) = image.dimensions();
        let mut runner = FrameRunner::new(gl, request, interop, w, h)?;
        let out = runner
            .load_pixels(gl, image)
            .and_then(|_| runner.run_loaded_pixels(gl, image, filters))
            .and_then(|report| Ok((runner.read_output_pixels(gl)?, report)));
        let status = runner.status.clone();
        runner.destroy(gl);
        out.map(|(image, report)| {
            Ok(HeadlessPixels {
                image,
                report,
                status,
            })
        })
    })?
}

/// Runs `filters` on every frame `next_frame` gives (all `width × height`), on one backend
/// opened once, handing each result to `sink` in order; stops at the first error of
/// either. A video's frames take the path a still takes: on CUDA each is uploaded into the
/// source texture, run through the same frame, and read back.
pub fn process_frames_headless<E: From<PipelineError>>(
    (width, height): (u32, u32),
    filters: &[Stage],
    request: BackendRequest,
    interop: InteropRequest,
    mut next_frame: impl FnMut() -> Result<Option<RgbaImage>, E>,
    mut sink: impl FnMut(HeadlessOutput) -> Result<(), E>,
) -> Result<(), E> {
    if request == BackendRequest::Cpu {
        cpu_filters(filters).map_err(PipelineError::KernelNeedsCuda)?;
    }
    let mut on_cpu = |reason: String| -> Result<(), E> {
        let filters = cpu_filters(filters)
            .map_err(|e| PipelineError::KernelNeedsCuda(format!("{e} ({reason})")))?;
        while let Some(frame) = next_frame()? {
            let (image, report) = process_on_cpu(&frame, &filters);
            let status = BackendStatus::cpu(reason.clone());
            sink(HeadlessOutput {
                image,
                report,
                status,
                interop: None,
            })?;
        }
        Ok(())
    };
    let opened = match choose_backend(request, cuda_headless_gl, |gl| gl.renderer.clone())? {
        (None, status) => return on_cpu(status.reason),
        (Some(gl), _) => gl,
    };
    let gl = &opened.gl;
    check_gpu_frame(gl, width, height, filters)?;
    let mut runner = FrameRunner::new(gl, request, interop, width, height)?;
    let result = run_host_frames(gl, &mut runner, filters, next_frame, sink);
    runner.destroy(gl);
    result
}

/// Runs `filters` on every frame `next_frame` gives, uploaded into `runner`'s source, and
/// hands each result to `sink`.
fn run_host_frames<E: From<PipelineError>>(
    gl: &glow::Context,
    runner: &mut FrameRunner,
    filters: &[Stage],
    mut next_frame: impl FnMut() -> Result<Option<RgbaImage>, E>,
    mut sink: impl FnMut(HeadlessOutput) -> Result<(), E>,
) -> Result<(), E> {
    while let Some(frame) = next_frame()? {
        let report = runner
            .load_source(gl, &frame)
            .and_then(|_| runner.run_loaded(gl, &frame, filters))?;
        hand_over(gl, runner, report, &mut sink)?;
    }
    Ok(())
}

/// Reads the frame's output back and hands it to `sink` with its report.
fn hand_over<E: From<PipelineError>>(
    gl: &glow::Context,
    runner: &mut FrameRunner,
    report: FrameReport,
    sink: &mut dyn FnMut(HeadlessOutput) -> Result<(), E>,
) -> Result<(), E> {
    let image = runner.read_output(gl)?;
    sink(HeadlessOutput {
        image,
        report,
        status: runner.status.clone(),
        interop: runner.interop.clone(),
    })
}

/// Which decoder a video's frames came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VideoDecoder {
    /// NVDEC, into the frame's source on the GPU.
    Nvdec,
    /// The `ffmpeg` program, frames uploaded from the host; why NVDEC did not decode.
    Ffmpeg(String),
    /// OpenH264 on the CPU, frames uploaded from the host; why neither NVDEC nor ffmpeg.
    OpenH264(String),
}

impl VideoDecoder {
    /// The decoder of host frames from `decoder`, NVDEC not decoding for `why`.
    pub fn host(decoder: HostDecoder, why: String) -> Self {
        match decoder {
            HostDecoder::Ffmpeg => VideoDecoder::Ffmpeg(why),
            HostDecoder::OpenH264 => {
                VideoDecoder::OpenH264(format!("{why}; the ffmpeg program is not on the PATH"))
            }
        }
    }

    /// The decoder's name alone.
    pub fn name(&self) -> &'static str {
        match self {
            VideoDecoder::Nvdec => "NVDEC",
            VideoDecoder::Ffmpeg(_) => "ffmpeg",
            VideoDecoder::OpenH264(_) => "openh264",
        }
    }
}

impl std::fmt::Display for VideoDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VideoDecoder::Nvdec => write!(f, "NVDEC"),
            VideoDecoder::Ffmpeg(why) | VideoDecoder::OpenH264(why) => {
                write!(f, "{} ({why})", self.name())
            }
        }
    }
}

/// `video`'s frames in host memory (ffmpeg, else OpenH264; `demuxer` the file's where still
/// held), NVDEC not decoding for `why`; a refusal carries NVDEC's reason (`nvdec`).
fn host_frames(
    video: &VideoFile,
    demuxer: Option<Demuxer>,
    why: String,
    nvdec: Option<&VideoError>,
) -> Result<(HostFrames, VideoDecoder), VideoError> {
    let frames = HostFrames::open(&video.path, Some(video.info.clone()), demuxer)
        .map_err(|e| e.with_nvdec_reason(nvdec))?;
    let decoder = VideoDecoder::host(frames.decoder(), why);
    Ok((frames, decoder))
}

/// Runs `filters` on every frame of `video` and hands each result to `sink` in
/// presentation order. On CUDA (either interop path) NVDEC decodes each frame straight
/// into the frame's source (no host copy); otherwise, or where NVDEC cannot take the file,
/// ffmpeg (else OpenH264) decodes and frames go through the host as stills do.
pub fn process_video_headless<E: From<PipelineError> + From<VideoError>>(
    video: &mut VideoFile,
    filters: &[Stage],
    request: BackendRequest,
    interop: InteropRequest,
    mut sink: impl FnMut(HeadlessOutput) -> Result<(), E>,
) -> Result<VideoDecoder, E> {
    let demuxer = video.take_demuxer();
    let (path, info) = (video.path.as_path(), &video.info);
    let size = (info.width, info.height);
    let on_host = |why: String,
                   demuxer: Option<Demuxer>,
                   sink: &mut dyn FnMut(HeadlessOutput) -> Result<(), E>| {
        let (mut frames, decoder) = host_frames(video, demuxer, why, None)?;
        process_frames_headless(
            size,
            filters,
            request,
            interop,
            || frames.next_frame().map_err(E::from),
            sink,
        )?;
        Ok(decoder)
    };
    if request == BackendRequest::Cpu {
        return on_host("the CPU backend".into(), demuxer, &mut sink);
    }
    let opened = match choose_backend(request, cuda_headless_gl, |gl| gl.renderer.clone())? {
        (None, status) => return on_host(status.reason, demuxer, &mut sink),
        (Some(gl), _) => gl,
    };
    let gl = &opened.gl;
    check_gpu_frame(gl, size.0, size.1, filters)?;
    let mut runner = FrameRunner::new(gl, request, interop, size.0, size.1)?;
    let nvdec = match runner.cuda_device() {
        Some(device) => match demuxer {
            Some(demux) => NvdecReader::with_demuxer(path, demux, device),
            None => NvdecReader::open(path, device),
        },
        None => Err(VideoError::NoNvdec {
            path: path.to_path_buf(),
            reason: NvdecError::NoCuda(runner.status.reason.clone()),
        }),
    };
    let result = match nvdec {
        Ok(mut reader) => run_nvdec_frames(gl, &mut runner, filters, &mut reader, &mut sink)
            .map(|()| VideoDecoder::Nvdec),
        Err(refused) => {
            log::info!("{refused}: decoding on the host");
            host_frames(video, None, refused.to_string(), Some(&refused))
                .map_err(E::from)
                .and_then(|(mut frames, decoder)| {
                    run_host_frames(
                        gl,
                        &mut runner,
                        filters,
                        || frames.next_frame().map_err(E::from),
                        &mut sink,
                    )?;
                    Ok(decoder)
                })
        }
    };
    runner.destroy(gl);
    result
}

/// Runs `filters` on every frame NVDEC decodes, converted into `runner`'s source on the
/// device, and hands each result to `sink`.
fn run_nvdec_frames<E: From<PipelineError> + From<VideoError>>(
    gl: &glow::Context,
    runner: &mut FrameRunner,
    filters: &[Stage],
    reader: &mut NvdecReader,
    sink: &mut dyn FnMut(HeadlessOutput) -> Result<(), E>,
) -> Result<(), E> {
    while let Some(frame) = reader.next_frame()? {
        runner.load_video_frame(gl, &frame)?;
        drop(frame);
        let report = runner.run_loaded_on_device(gl, filters)?;
        hand_over(gl, runner, report, sink)?;
    }
    Ok(())
}

/// What `doctor` reports about CUDA: the GL renderer CUDA would share, the device, and
/// the interop path `auto` would take, with its reason.
pub fn probe_cuda() -> Result<(String, DeviceInfo, InteropStatus), String> {
    let gl = cuda_headless_gl()?;
    let device = CudaDevice::for_current_gl().map_err(|e| e.to_string())?;
    KernelSet::load(&device, kernel_modules()).map_err(|e| e.to_string())?;
    let (_, interop) =
        choose_interop(&gl.gl, &device, InteropRequest::Auto).map_err(|e| e.to_string())?;
    Ok((gl.renderer.clone(), device.info, interop))
}
