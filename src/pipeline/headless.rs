//! What the headless runs of the frame and the explorer share: a GL context with CUDA behind
//! it, and the one backend policy applied to a headless run.

use super::backend::{choose_backend, fall_back_after};
use super::{BackendRequest, PipelineError};
use crate::cuda::CudaDevice;
use crate::gl::HeadlessGl;

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
pub(super) fn on_backend<T>(
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
