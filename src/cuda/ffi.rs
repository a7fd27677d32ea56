//! Raw FFI for the `cudaGL.h` driver calls that cudarc does not bind, loaded from
//! `libcuda.so.1` at run time, with thin safe wrappers returning `Result`.

use super::CudaError;
use cudarc::driver::sys::{CUdevice, CUgraphicsResource};
use std::ffi::{c_int, c_uint};
use std::sync::OnceLock;

// The status is declared as c_int, not CUresult: an unknown code in a Rust enum is UB.
type RegisterImageFn =
    unsafe extern "C" fn(*mut CUgraphicsResource, c_uint, c_uint, c_uint) -> c_int;
type RegisterBufferFn = unsafe extern "C" fn(*mut CUgraphicsResource, c_uint, c_uint) -> c_int;
type GetDevicesFn = unsafe extern "C" fn(*mut c_uint, *mut CUdevice, c_uint, c_uint) -> c_int;

/// `CU_GL_DEVICE_LIST_ALL`.
const GL_DEVICE_LIST_ALL: c_uint = 1;
/// `CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY`, `..._WRITE_DISCARD`, `..._SURFACE_LDST`.
pub const REGISTER_READ_ONLY: u32 = 1;
pub const REGISTER_WRITE_DISCARD: u32 = 2;
pub const REGISTER_SURFACE_LDST: u32 = 4;

struct GlInterop {
    register_image: RegisterImageFn,
    register_buffer: RegisterBufferFn,
    get_devices: GetDevicesFn,
    _lib: libloading::Library,
}

fn load() -> Result<GlInterop, String> {
    // SAFETY: libcuda's initialisers have no preconditions; loading it has no other effect.
    let lib = unsafe { libloading::Library::new("libcuda.so.1") }.map_err(|e| e.to_string())?;
    // SAFETY: the symbols are looked up by their documented names and given the
    // signatures of cudaGL.h (GLuint and GLenum are 32-bit unsigned integers).
    unsafe {
        let register_image = *lib
            .get::<RegisterImageFn>(b"cuGraphicsGLRegisterImage\0")
            .map_err(|e| e.to_string())?;
        let register_buffer = *lib
            .get::<RegisterBufferFn>(b"cuGraphicsGLRegisterBuffer\0")
            .map_err(|e| e.to_string())?;
        let get_devices = *lib
            .get::<GetDevicesFn>(b"cuGLGetDevices_v2\0")
            .map_err(|e| e.to_string())?;
        Ok(GlInterop {
            register_image,
            register_buffer,
            get_devices,
            _lib: lib,
        })
    }
}

fn interop() -> Result<&'static GlInterop, CudaError> {
    static FNS: OnceLock<Result<GlInterop, String>> = OnceLock::new();
    FNS.get_or_init(load)
        .as_ref()
        .map_err(|e| CudaError::NoDriver(e.clone()))
}

/// Whether `libcuda.so.1` can be loaded at all.
pub fn driver_library_present() -> Result<(), CudaError> {
    interop().map(|_| ())
}

fn status(call: &'static str, code: c_int) -> Result<(), CudaError> {
    if code == 0 {
        Ok(())
    } else {
        Err(CudaError::raw(call, code))
    }
}

/// Registers GL texture `texture` (target `GL_TEXTURE_2D`) with CUDA.
/// Needs a current GL context and a current CUDA context on the same device.
pub fn register_gl_image(
    texture: u32,
    target: u32,
    flags: u32,
) -> Result<CUgraphicsResource, CudaError> {
    let fns = interop()?;
    let mut resource: CUgraphicsResource = std::ptr::null_mut();
    // SAFETY: `resource` is a valid out-pointer; an invalid texture name or a missing
    // context is reported through the status, not UB.
    let code = unsafe { (fns.register_image)(&mut resource, texture, target, flags) };
    status("cuGraphicsGLRegisterImage", code).map(|_| resource)
}

/// Registers GL buffer object `buffer` with CUDA.
pub fn register_gl_buffer(buffer: u32, flags: u32) -> Result<CUgraphicsResource, CudaError> {
    let fns = interop()?;
    let mut resource: CUgraphicsResource = std::ptr::null_mut();
    // SAFETY: as in `register_gl_image`.
    let code = unsafe { (fns.register_buffer)(&mut resource, buffer, flags) };
    status("cuGraphicsGLRegisterBuffer", code).map(|_| resource)
}

/// The CUDA devices that the current GL context runs on (empty or an error when the GL
/// is not NVIDIA's, e.g. Mesa: CUDA_ERROR_UNKNOWN).
pub fn gl_cuda_devices() -> Result<Vec<CUdevice>, CudaError> {
    let fns = interop()?;
    let mut devices = [0 as CUdevice; 8];
    let mut count: c_uint = 0;
    // SAFETY: `devices` has room for the 8 entries we announce; `count` is a valid out-pointer.
    let code = unsafe {
        (fns.get_devices)(
            &mut count,
            devices.as_mut_ptr(),
            devices.len() as c_uint,
            GL_DEVICE_LIST_ALL,
        )
    };
    status("cuGLGetDevices", code)?;
    Ok(devices[..(count as usize).min(devices.len())].to_vec())
}
