//! Headless runs for the command line and the GPU tests: the CPU directly, or CUDA through
//! the same interop path as the window, on a surfaceless EGL context.

use super::backend::{choose_backend, fall_back_after};
use super::cpu_frame::process_on_cpu;
use super::cpu_mandelbrot::cpu_dwells;
use super::interop::{choose_interop, InteropRequest, InteropStatus};
use super::mandelbrot_frame::MandelbrotFrame;
use super::{cpu_filters, Stage};
use super::{
    BackendRequest, BackendStatus, FrameReport, FrameRunner, MandelbrotRenderer, PipelineError,
};
use crate::cuda::{CudaDevice, DeviceInfo, KernelSet};
use crate::filters::kernel_modules;
use crate::gl::HeadlessGl;
use crate::mandelbrot::{Dwells, MandelbrotSettings};
use image::RgbaImage;

/// A processed image with its report and the backend (and interop path) that made it.
pub struct HeadlessOutput {
    pub image: RgbaImage,
    pub report: FrameReport,
    pub status: BackendStatus,
    pub interop: Option<InteropStatus>,
}

/// Why CUDA cannot be used here, checked without creating any GL context.
fn cuda_absent_reason() -> Option<String> {
    match CudaDevice::count() {
        Ok(0) => Some("no CUDA device".into()),
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    }
}

/// A headless GL context on a machine with a CUDA device, or why there is none.
pub fn cuda_headless_gl() -> Result<HeadlessGl, String> {
    match cuda_absent_reason() {
        Some(reason) => Err(reason),
        None => HeadlessGl::new().map_err(|e| format!("headless OpenGL: {e}")),
    }
}

/// Headless runs under the one backend policy ([`choose_backend`]): `on_gl` on a headless GL
/// context with CUDA behind it, or `on_cpu` with the reason; with `auto`, also `on_cpu` when
/// the GPU path cannot do the work (an image over the texture limit, GPU memory exhausted…).
fn on_backend<T>(
    request: BackendRequest,
    on_cpu: impl FnOnce(String) -> T,
    on_gl: impl FnOnce(&glow::Context) -> Result<T, PipelineError>,
) -> Result<T, PipelineError> {
    match choose_backend(request, cuda_headless_gl, |gl| gl.renderer.clone())? {
        (None, status) => Ok(on_cpu(status.reason)),
        (Some(gl), _) => match on_gl(&gl.gl) {
            Ok(out) => Ok(out),
            Err(e) => Ok(on_cpu(fall_back_after(request, e)?.reason)),
        },
    }
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
    super::check_gpu_frame(gl, image.width(), image.height(), filters)?;
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

/// A Mandelbrot view rendered headless: the dwells (`want_dwells`) or the coloured image.
pub struct MandelbrotOutput {
    pub dwells: Option<Dwells>,
    pub image: Option<RgbaImage>,
    pub frame: MandelbrotFrame,
    pub status: BackendStatus,
}

/// One view on the CPU.
fn mandelbrot_on_cpu(
    s: &MandelbrotSettings,
    want_dwells: bool,
    status: &BackendStatus,
) -> MandelbrotOutput {
    let (dwells, frame) = cpu_dwells(s);
    let (dwells, image) = if want_dwells {
        (Some(dwells), None)
    } else {
        (None, Some(s.coloring.colorize(&dwells, s.view.max_dwell)))
    };
    MandelbrotOutput {
        dwells,
        image,
        frame,
        status: status.clone(),
    }
}

/// Renders views headless one after the other on one renderer, handing each to `sink`
/// (which may stop the sequence with its error). On CUDA the images come through the PBO
/// path and the GL texture. With `auto`, a failing GPU path starts over on the CPU.
pub fn render_mandelbrot_frames<E>(
    frames: &[MandelbrotSettings],
    request: BackendRequest,
    want_dwells: bool,
    sink: impl FnMut(usize, MandelbrotOutput) -> Result<(), E>,
) -> Result<Result<(), E>, PipelineError> {
    let sink = std::cell::RefCell::new(sink);
    let on_cpu = |reason: String| {
        let status = BackendStatus::cpu(reason);
        frames.iter().enumerate().try_for_each(|(i, s)| {
            (sink.borrow_mut())(i, mandelbrot_on_cpu(s, want_dwells, &status))
        })
    };
    on_backend(request, on_cpu, |gl| {
        let mut renderer = MandelbrotRenderer::new(gl, request, None, InteropRequest::Auto)?;
        let result = frames_on_gl(
            gl,
            &mut renderer,
            frames,
            want_dwells,
            &mut *sink.borrow_mut(),
        );
        renderer.destroy(gl);
        result
    })
}

fn frames_on_gl<E>(
    gl: &glow::Context,
    renderer: &mut MandelbrotRenderer,
    frames: &[MandelbrotSettings],
    want_dwells: bool,
    sink: &mut impl FnMut(usize, MandelbrotOutput) -> Result<(), E>,
) -> Result<Result<(), E>, PipelineError> {
    for (i, s) in frames.iter().enumerate() {
        let (dwells, image, frame) = if want_dwells {
            let (d, f) = renderer.dwells(s)?;
            (Some(d), None, f)
        } else {
            let f = renderer.render(gl, s)?;
            (None, Some(renderer.texture().read(gl)?), f)
        };
        let out = MandelbrotOutput {
            dwells,
            image,
            frame,
            status: renderer.status.clone(),
        };
        if let Err(e) = sink(i, out) {
            return Ok(Err(e));
        }
    }
    Ok(Ok(()))
}

/// Renders one view headless.
pub fn render_mandelbrot_headless(
    settings: &MandelbrotSettings,
    request: BackendRequest,
    want_dwells: bool,
) -> Result<MandelbrotOutput, PipelineError> {
    let mut out = None;
    let done: Result<(), std::convert::Infallible> = render_mandelbrot_frames(
        std::slice::from_ref(settings),
        request,
        want_dwells,
        |_, o| {
            out = Some(o);
            Ok(())
        },
    )?;
    match (done, out) {
        (Ok(()), Some(o)) => Ok(o),
        _ => Err(PipelineError::Cuda(crate::cuda::CudaError::Missing(
            "headless render output",
        ))),
    }
}
