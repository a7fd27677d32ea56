//! Headless Mandelbrot renders for the command line and the GPU tests: the CPU directly,
//! or the renderer on a surfaceless EGL context.

use super::cpu_mandelbrot::{cpu_dwells, cpu_picture};
use super::mandelbrot_frame::MandelbrotFrame;
use super::mandelbrot_frame::RenderControl;
use super::mandelbrot_renderer::MandelbrotRenderer;
use crate::mandelbrot::{Dwells, MandelbrotSettings};
use crate::pipeline::headless::on_backend;
use crate::pipeline::interop::InteropRequest;
use crate::pipeline::{BackendRequest, BackendStatus, PipelineError};
use image::RgbaImage;
use std::sync::atomic::AtomicBool;

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
    let (dwells, image, frame) = if want_dwells {
        let (dwells, frame) = cpu_dwells(s);
        (Some(dwells), None, frame)
    } else {
        let never = AtomicBool::new(false);
        let (image, frame) = cpu_picture(s, RenderControl::cancel_only(&never));
        (None, Some(image), frame)
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
