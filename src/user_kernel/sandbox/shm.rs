//! Host shared memory for a run's pixels: a sealed memfd (its size can no longer change,
//! so neither side can make the other's mapping fault with SIGBUS) mapped by the parent
//! and, through the descriptor passed with the run, by the kernel host.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// A shared mapping of a memfd; unmapped on drop.
pub struct SharedPixels {
    fd: OwnedFd,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain memory owned by this value; access goes through &self /
// &mut self like a Vec's.
unsafe impl Send for SharedPixels {}

fn check(r: libc::c_int) -> io::Result<()> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

impl SharedPixels {
    /// A new memfd of `len` bytes (zeroed), sealed against resizing, mapped read-write.
    pub fn create(len: usize) -> io::Result<Self> {
        if len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "empty shared memory",
            ));
        }
        // SAFETY: the name is a NUL-terminated literal; the flags are valid.
        let raw = unsafe {
            libc::memfd_create(
                c"cudalens-kernel-pixels".as_ptr(),
                libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING,
            )
        };
        check(raw)?;
        // SAFETY: memfd_create returned a new descriptor owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let size = libc::off_t::try_from(len)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "too large"))?;
        // SAFETY: plain calls on our descriptor.
        unsafe {
            check(libc::ftruncate(fd.as_raw_fd(), size))?;
            check(libc::fcntl(
                fd.as_raw_fd(),
                libc::F_ADD_SEALS,
                libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL,
            ))?;
        }
        Self::map(fd, len)
    }

    /// Maps `len` bytes of a received memfd, after checking that it is sealed against
    /// shrinking and holds at least `len` bytes.
    pub fn open(fd: OwnedFd, len: usize) -> io::Result<Self> {
        // SAFETY: F_GET_SEALS on any descriptor only reads (non-memfd: EINVAL).
        let seals = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GET_SEALS) };
        check(seals)?;
        if seals & libc::F_SEAL_SHRINK == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the shared memory is not sealed against shrinking",
            ));
        }
        // SAFETY: an all-zero stat is valid; fstat only writes into it.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `st` is a valid out-pointer.
        check(unsafe { libc::fstat(fd.as_raw_fd(), &mut st) })?;
        if (st.st_size as u64) < len as u64 || len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "the shared memory holds {} bytes, the run needs {len}",
                    st.st_size
                ),
            ));
        }
        Self::map(fd, len)
    }

    fn map(fd: OwnedFd, len: usize) -> io::Result<Self> {
        // SAFETY: a new shared mapping of `len` bytes of a file at least that long (sized
        // or checked by the callers, and sealed against shrinking).
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Self {
            fd,
            ptr: ptr.cast(),
            len,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` maps `len` readable bytes for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`, writable, and borrowed mutably through `self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for SharedPixels {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `map`, once.
        if unsafe { libc::munmap(self.ptr.cast(), self.len) } != 0 {
            log::error!("munmap: {}", io::Error::last_os_error());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_mappings_see_the_same_bytes() {
        let mut a = SharedPixels::create(4096 * 3).unwrap();
        a.bytes_mut()[5000] = 7;
        let dup = a.fd().try_clone().unwrap();
        let mut b = SharedPixels::open(dup, 4096 * 3).unwrap();
        assert_eq!(b.bytes()[5000], 7);
        b.bytes_mut()[1] = 9;
        assert_eq!(a.bytes()[1], 9);
    }

    #[test]
    fn a_short_or_unsealed_file_is_refused() {
        let a = SharedPixels::create(100).unwrap();
        assert!(SharedPixels::open(a.fd().try_clone().unwrap(), 101).is_err());
        // SAFETY: resizing must fail: the file is sealed.
        assert!(unsafe { libc::ftruncate(a.fd().as_raw_fd(), 10) } != 0);
        let file: OwnedFd = tempfile::tempfile().unwrap().into();
        assert!(SharedPixels::open(file, 1).is_err());
        assert!(SharedPixels::create(0).is_err());
    }
}
