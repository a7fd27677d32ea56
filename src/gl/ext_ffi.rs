//! Raw FFI for the OpenGL entry points glow lacks: `GL_EXT_memory_object(_fd)` and
//! `GL_EXT_semaphore(_fd)`, loaded through the context's `get_proc_address` when a context
//! is created (GLVND hands out the same dispatching entry points for every context), with
//! thin wrappers. Callers check the extension strings of their context first
//! ([`external_objects_missing`]).

use super::GlError;
use std::ffi::{c_void, CStr};
use std::sync::OnceLock;

pub const HANDLE_TYPE_OPAQUE_FD: u32 = 0x9586;
pub const DEDICATED_MEMORY_OBJECT: u32 = 0x9581;
pub const TEXTURE_TILING: u32 = 0x9580;
pub const OPTIMAL_TILING: u32 = 0x9584;
pub const LAYOUT_GENERAL: u32 = 0x958D;
pub const NUM_DEVICE_UUIDS: u32 = 0x9596;
pub const DEVICE_UUID: u32 = 0x9597;

/// The extensions the external-memory path needs from the GL context.
pub const REQUIRED_EXTENSIONS: [&str; 4] = [
    "GL_EXT_memory_object",
    "GL_EXT_memory_object_fd",
    "GL_EXT_semaphore",
    "GL_EXT_semaphore_fd",
];

type CreateObjectsFn = unsafe extern "system" fn(i32, *mut u32);
type DeleteObjectsFn = unsafe extern "system" fn(i32, *const u32);
type MemoryObjectParameterFn = unsafe extern "system" fn(u32, u32, *const i32);
type ImportMemoryFdFn = unsafe extern "system" fn(u32, u64, u32, i32);
type TexStorageMem2dFn = unsafe extern "system" fn(u32, i32, u32, i32, i32, u32, u64);
type BufferStorageMemFn = unsafe extern "system" fn(u32, isize, u32, u64);
type ImportSemaphoreFdFn = unsafe extern "system" fn(u32, u32, i32);
pub type SemaphoreBarrierFn =
    unsafe extern "system" fn(u32, u32, *const u32, u32, *const u32, *const u32);
type GetUnsignedBytesIndexedFn = unsafe extern "system" fn(u32, u32, *mut u8);

/// The entry points, all present (a context without them fails [`load`]).
pub struct GlExtFns {
    pub create_memory_objects: CreateObjectsFn,
    pub delete_memory_objects: DeleteObjectsFn,
    pub memory_object_parameteriv: MemoryObjectParameterFn,
    pub import_memory_fd: ImportMemoryFdFn,
    pub tex_storage_mem_2d: TexStorageMem2dFn,
    pub buffer_storage_mem: BufferStorageMemFn,
    pub gen_semaphores: CreateObjectsFn,
    pub delete_semaphores: DeleteObjectsFn,
    pub import_semaphore_fd: ImportSemaphoreFdFn,
    pub signal_semaphore: SemaphoreBarrierFn,
    pub wait_semaphore: SemaphoreBarrierFn,
    pub get_unsigned_bytei_v: GetUnsignedBytesIndexedFn,
}

static FNS: OnceLock<Result<GlExtFns, String>> = OnceLock::new();

fn load(mut loader: impl FnMut(&CStr) -> *const c_void) -> Result<GlExtFns, String> {
    let mut get = |name: &CStr| {
        let p = loader(name);
        if p.is_null() {
            Err(format!("{} not found", name.to_string_lossy()))
        } else {
            Ok(p)
        }
    };
    // SAFETY: each pointer is the entry point of that name; `entry` gives it the
    // signature of the extension specifications (GLuint/GLenum = u32, GLsizei/GLint = i32,
    // GLsizeiptr = isize, GLuint64 = u64) through the field's type.
    unsafe {
        Ok(GlExtFns {
            create_memory_objects: entry(get(c"glCreateMemoryObjectsEXT")?),
            delete_memory_objects: entry(get(c"glDeleteMemoryObjectsEXT")?),
            memory_object_parameteriv: entry(get(c"glMemoryObjectParameterivEXT")?),
            import_memory_fd: entry(get(c"glImportMemoryFdEXT")?),
            tex_storage_mem_2d: entry(get(c"glTexStorageMem2DEXT")?),
            buffer_storage_mem: entry(get(c"glBufferStorageMemEXT")?),
            gen_semaphores: entry(get(c"glGenSemaphoresEXT")?),
            delete_semaphores: entry(get(c"glDeleteSemaphoresEXT")?),
            import_semaphore_fd: entry(get(c"glImportSemaphoreFdEXT")?),
            signal_semaphore: entry(get(c"glSignalSemaphoreEXT")?),
            wait_semaphore: entry(get(c"glWaitSemaphoreEXT")?),
            get_unsigned_bytei_v: entry(get(c"glGetUnsignedBytei_vEXT")?),
        })
    }
}

/// Reinterprets a non-null entry point as the function pointer type `F`.
///
/// # Safety
/// `F` must be an `extern "system" fn` type matching the entry point's C signature.
unsafe fn entry<F: Copy>(p: *const c_void) -> F {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<*const c_void>()) };
    // SAFETY: same size (checked above); the signature is the caller's promise.
    unsafe { std::mem::transmute_copy(&p) }
}

/// Loads the entry points through a context's `get_proc_address` (the first context
/// created does it; later calls keep the first table).
pub fn install(loader: impl FnMut(&CStr) -> *const c_void) {
    FNS.get_or_init(|| load(loader));
}

/// The entry points, or why they are missing.
pub fn fns() -> Result<&'static GlExtFns, GlError> {
    match FNS.get() {
        Some(Ok(f)) => Ok(f),
        Some(Err(e)) => Err(GlError::Extension(e.clone())),
        None => Err(GlError::Extension(
            "GL external-object entry points not loaded".into(),
        )),
    }
}

/// The extensions of `REQUIRED_EXTENSIONS` that the current context lacks.
pub fn external_objects_missing(gl: &glow::Context) -> Vec<&'static str> {
    use glow::HasContext;
    let have = gl.supported_extensions();
    REQUIRED_EXTENSIONS
        .into_iter()
        .filter(|e| !have.contains(*e))
        .collect()
}

/// The UUIDs of the devices the current context runs on (`GL_DEVICE_UUID_EXT`).
pub fn device_uuids(gl: &glow::Context) -> Result<Vec<[u8; 16]>, GlError> {
    use glow::HasContext;
    let f = fns()?;
    // SAFETY: integer query valid with GL_EXT_memory_object (checked by the caller).
    let n = unsafe { gl.get_parameter_i32(NUM_DEVICE_UUIDS) }.max(0) as u32;
    let mut out = Vec::new();
    for i in 0..n.min(8) {
        let mut uuid = [0u8; 16];
        // SAFETY: `uuid` has room for GL_UUID_SIZE_EXT (16) bytes; `i` < the count.
        unsafe { (f.get_unsigned_bytei_v)(DEVICE_UUID, i, uuid.as_mut_ptr()) };
        out.push(uuid);
    }
    super::check_gl(gl, "glGetUnsignedBytei_vEXT(DEVICE_UUID)")?;
    Ok(out)
}
