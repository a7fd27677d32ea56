//! The few POSIX calls image I/O needs beyond std: clearing `O_NONBLOCK` on an opened
//! input, and the signal handling that removes a half-written output when the process is
//! interrupted. Every call is checked; nothing here panics.

use std::ffi::CString;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Makes reads on `file` block again (it was opened with `O_NONBLOCK` so that opening a
/// FIFO with no writer returns at once instead of hanging).
pub fn clear_nonblocking(file: &std::fs::File) -> std::io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is a valid descriptor owned by `file` for the duration of the calls;
    // F_GETFL/F_SETFL only read and set its status flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Paths of temporary files being written, removed by the signal handler. A slot holds a
/// leaked `CString` (never freed, so the handler can never read freed memory) or null.
const SLOTS: usize = 16;
static PARTS: [AtomicPtr<libc::c_char>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

/// A registration of a temporary file; dropping it forgets the path (the file itself is
/// removed or renamed by its owner).
pub struct PartGuard(Option<usize>);

impl Drop for PartGuard {
    fn drop(&mut self) {
        if let Some(i) = self.0 {
            PARTS[i].store(std::ptr::null_mut(), Ordering::SeqCst);
        }
    }
}

/// Registers `path` for removal if the process is interrupted before the guard drops.
pub fn register_part(path: &std::path::Path) -> PartGuard {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return PartGuard(None);
    };
    let raw = c.into_raw(); // leaked on purpose: see PARTS
    for (i, slot) in PARTS.iter().enumerate() {
        if slot
            .compare_exchange(
                std::ptr::null_mut(),
                raw,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
        {
            return PartGuard(Some(i));
        }
    }
    PartGuard(None)
}

extern "C" fn remove_parts_and_reraise(signal: libc::c_int) {
    for slot in &PARTS {
        let p = slot.load(Ordering::SeqCst);
        if !p.is_null() {
            // SAFETY: `p` is a leaked, NUL-terminated CString that is never freed; unlink
            // is async-signal-safe.
            unsafe { libc::unlink(p) };
        }
    }
    // SAFETY: restoring the default action and re-raising are async-signal-safe; the
    // process then ends as it would have without this handler (status: killed by signal).
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Installs the cleanup for SIGINT, SIGTERM and SIGHUP, and ignores SIGXFSZ so that a
/// file-size limit makes the write fail (EFBIG, reported and cleaned up like any write
/// error) instead of killing the process mid-file. Call once, first thing in `main`.
pub fn install_interrupt_cleanup() {
    let handler = remove_parts_and_reraise as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only performs async-signal-safe calls (see above).
        unsafe { libc::signal(signal, handler) };
    }
    // SAFETY: ignoring SIGXFSZ is always valid; writes past the limit then fail with EFBIG.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
}
