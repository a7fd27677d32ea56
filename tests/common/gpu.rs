//! Contexts for the tests that reach GL or CUDA, each skipping cleanly without them.

use super::skip_gpu_test;
use cudalens::cuda::CudaDevice;
use cudalens::gl::HeadlessGl;

/// How many CUDA devices there are, or None where there are none (with the skip message).
pub fn cuda_devices() -> Option<usize> {
    let reason = match CudaDevice::count() {
        Ok(n) if n > 0 => return Some(n),
        Ok(_) => "no device".to_string(),
        Err(e) => e.to_string(),
    };
    skip_gpu_test(&format!("no CUDA device ({reason})"));
    None
}

/// A headless GL context on any driver, or None (with the skip message).
pub fn headless_gl() -> Option<HeadlessGl> {
    match HeadlessGl::new() {
        Ok(gl) => Some(gl),
        Err(e) => {
            skip_gpu_test(&format!("no headless OpenGL ({e})"));
            None
        }
    }
}

/// A headless GL context with CUDA behind it, or None (with the skip message).
pub fn cuda_gl() -> Option<HeadlessGl> {
    let reason = match CudaDevice::count() {
        Ok(0) => "no device".to_string(),
        Ok(_) => {
            let gl = HeadlessGl::new().expect("a CUDA machine must offer headless EGL");
            hold_primary_context();
            return Some(gl);
        }
        Err(e) => e.to_string(),
    };
    skip_gpu_test(&format!("no CUDA device ({reason})"));
    None
}

/// Keeps device 0's primary CUDA context for the rest of the test process (made after the
/// GL context, as the interop needs). Every runner a check makes retains that context and
/// releases it when destroyed; without a holder the last release destroys it and the next
/// check creates it again, which cost each check most of its time.
fn hold_primary_context() {
    static HELD: std::sync::OnceLock<Option<std::sync::Arc<cudarc::driver::CudaContext>>> =
        std::sync::OnceLock::new();
    HELD.get_or_init(|| cudarc::driver::CudaContext::new(0).ok());
}
