//! Headless runs for the command line and the GPU tests: the CPU directly, or CUDA through
//! the same interop path as the window, on a surfaceless EGL context.

use super::backend::{choose_backend, fall_back_after};
use super::cpu_frame::process_on_cpu;
use super::interop_mode::{choose_interop, InteropRequest, InteropStatus};
use super::mandelbrot_renderer::cpu_dwells;
use super::{
    BackendRequest, BackendStatus, FrameReport, FrameRunner, MandelbrotFrame, MandelbrotRenderer,
    MandelbrotSettings, PipelineError,
};
use crate::cuda::{CudaDevice, DeviceInfo, KernelSet};
use crate::filters::{kernel_modules, Filter};
use crate::gl::{GlTexture, HeadlessGl};
use crate::mandelbrot::Dwells;
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
    filters: &[Filter],
    request: BackendRequest,
    interop: InteropRequest,
) -> Result<HeadlessOutput, PipelineError> {
    on_backend(
        request,
        |reason| {
            let (image, report) = process_on_cpu(image, filters);
            HeadlessOutput {
                image,
                report,
                status: BackendStatus::cpu(reason),
                interop: None,
            }
        },
        |gl| process_on_gl(gl, image, filters, request, interop),
    )
}

/// The interop path: source texture → frame → output texture read back.
fn process_on_gl(
    gl: &glow::Context,
    image: &RgbaImage,
    filters: &[Filter],
    request: BackendRequest,
    interop: InteropRequest,
) -> Result<HeadlessOutput, PipelineError> {
    let mut phase = Phases::start();
    super::check_gpu_frame(gl, image.width(), image.height(), filters)?;
    let source = GlTexture::new(gl, image.width(), image.height(), Some(image.as_raw()))?;
    phase.done("upload source texture");
    let result = FrameRunner::new(gl, request, interop, image.width(), image.height()).and_then(
        |mut runner| {
            phase.done("open backend");
            let out = runner.run(gl, &source, image, filters).and_then(|report| {
                phase.done("run frame");
                let pixels = runner.targets.output.read(gl)?;
                phase.done("read output texture");
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
    source.destroy(gl);
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

/// Renders a view headless; on CUDA the image comes through the PBO path and the GL texture.
pub fn render_mandelbrot_headless(
    settings: &MandelbrotSettings,
    request: BackendRequest,
    interop: InteropRequest,
    want_dwells: bool,
) -> Result<MandelbrotOutput, PipelineError> {
    let on_cpu = |reason: String| {
        let (dwells, frame) = cpu_dwells(settings);
        let status = BackendStatus::cpu(reason);
        if want_dwells {
            return MandelbrotOutput {
                dwells: Some(dwells),
                image: None,
                frame,
                status,
            };
        }
        let lut = settings
            .palette
            .lut(settings.view.max_dwell, settings.interior);
        let image = Some(crate::mandelbrot::colorize(&dwells, &lut));
        MandelbrotOutput {
            dwells: None,
            image,
            frame,
            status,
        }
    };
    on_backend(request, on_cpu, |gl| {
        mandelbrot_on_gl(gl, settings, request, interop, want_dwells)
    })
}

fn mandelbrot_on_gl(
    gl: &glow::Context,
    settings: &MandelbrotSettings,
    request: BackendRequest,
    interop: InteropRequest,
    want_dwells: bool,
) -> Result<MandelbrotOutput, PipelineError> {
    let mut renderer = MandelbrotRenderer::new(gl, request, interop, None)?;
    let result = if want_dwells {
        renderer.dwells(settings).map(|(d, f)| (Some(d), None, f))
    } else {
        renderer
            .render(gl, settings)
            .and_then(|f| Ok((None, Some(renderer.texture.read(gl)?), f)))
    };
    let status = renderer.status.clone();
    renderer.destroy(gl);
    result.map(|(dwells, image, frame)| MandelbrotOutput {
        dwells,
        image,
        frame,
        status,
    })
}
