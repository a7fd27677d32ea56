//! The NVRTC calls of user kernels (through cudarc's thin wrappers): a program that is
//! destroyed on drop, compiled with explicit options, giving its log even on success.

use cudarc::nvrtc::result;
use cudarc::nvrtc::sys::nvrtcProgram;
use std::ffi::{c_char, CString};

/// Whether libnvrtc can be loaded (cudarc panics on first use when it cannot).
pub fn available() -> bool {
    // SAFETY: only tries to open the library; nothing is called through it.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// NVRTC's version (major, minor), or None when the library is missing.
pub fn version() -> Option<(i32, i32)> {
    if !available() {
        return None;
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: the library is present; both pointers are valid for the call.
    let status = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    status.result().ok().map(|_| (major, minor))
}

/// What one compilation gave: PTX on success, and NVRTC's log either way.
pub struct Output {
    pub ptx: Option<String>,
    pub log: String,
    /// NVRTC's status when it failed (e.g. `NVRTC_ERROR_COMPILATION`).
    pub failure: Option<String>,
}

struct Program {
    handle: nvrtcProgram,
    // NVRTC may keep pointers to these until the program is destroyed.
    _source: CString,
    _name: CString,
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the handle came from create_program and is destroyed only here. An error
        // here is ignored: there is nothing to do about it and Drop must not panic.
        let _ = unsafe { result::destroy_program(self.handle) };
    }
}

fn c_text(raw: &[c_char]) -> String {
    // c_char as bytes, up to the first NUL.
    let bytes: Vec<u8> = raw.iter().map(|&c| c as u8).collect();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Compiles `source` (named `name` in the log) with `options`. The caller checked that
/// NVRTC is [`available`] and that the strings hold no NUL.
pub fn compile(source: &str, name: &str, options: &[String]) -> Result<Output, String> {
    let source = CString::new(source).map_err(|_| "NUL byte in the source".to_string())?;
    let name = CString::new(name).map_err(|_| "NUL byte in the program name".to_string())?;
    if options.iter().any(|o| o.contains('\0')) {
        return Err("NUL byte in an option".into());
    }
    let handle = result::create_program(&source, Some(name.as_c_str()))
        .map_err(|e| format!("NVRTC cannot create the program: {e:?}"))?;
    let program = Program {
        handle,
        _source: source,
        _name: name,
    };
    // SAFETY: the program is live (dropped at the end of this function); no option holds a
    // NUL (cudarc would panic on one).
    let status = unsafe { result::compile_program(program.handle, options) };
    // SAFETY: as above.
    let log = unsafe { result::get_program_log(program.handle) }
        .map(|raw| c_text(&raw))
        .unwrap_or_default();
    match status {
        Ok(()) => {
            // SAFETY: as above; the compilation succeeded so the PTX exists.
            let ptx = unsafe { result::get_ptx(program.handle) }
                .map_err(|e| format!("NVRTC gave no PTX: {e:?}"))?;
            Ok(Output {
                ptx: Some(c_text(&ptx)),
                log,
                failure: None,
            })
        }
        Err(e) => Ok(Output {
            ptx: None,
            log,
            failure: Some(format!("{:?}", e.0)),
        }),
    }
}
