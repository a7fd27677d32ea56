//! The Unix stream socket between the parent and the kernel host (libc): a socket pair,
//! reads and writes bounded by a deadline on the parent's side, and descriptors passed
//! with `SCM_RIGHTS`. Sends never raise SIGPIPE (`MSG_NOSIGNAL`): a dead host is an error,
//! not the end of the parent.

use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Instant;

/// Why a bounded read or write stopped.
#[derive(Debug)]
pub enum ChannelError {
    /// The deadline passed first.
    Timeout,
    /// The other end closed (or reset) the connection.
    Closed,
    Io(io::Error),
}

impl std::fmt::Display for ChannelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Timeout => f.write_str("timed out"),
            Self::Closed => f.write_str("the connection is closed"),
            Self::Io(e) => write!(f, "{e}"),
        }
    }
}

fn from_errno(e: io::Error) -> ChannelError {
    match e.raw_os_error() {
        Some(libc::EPIPE | libc::ECONNRESET) => ChannelError::Closed,
        _ => ChannelError::Io(e),
    }
}

/// A connected pair of Unix stream sockets, both close-on-exec.
pub fn pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` is a valid out-array of two descriptors.
    let r = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: socketpair succeeded: both descriptors are open and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Whether `fd` is an open socket (the host checks what it was given).
pub fn is_socket(fd: RawFd) -> bool {
    // SAFETY: an all-zero `stat` is a valid value; fstat only writes into it.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a valid out-pointer; a closed or invalid fd is reported as -1.
    let r = unsafe { libc::fstat(fd, &mut st) };
    r == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFSOCK
}

/// Waits until `fd` is ready for `events` or `deadline` passes (None: no deadline).
fn wait_ready(
    fd: RawFd,
    events: libc::c_short,
    deadline: Option<Instant>,
) -> Result<(), ChannelError> {
    loop {
        let timeout_ms = match deadline {
            None => -1,
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(ChannelError::Timeout);
                }
                // Round up: a poll that wakes 0.4 ms early would spin.
                left.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32
            }
        };
        let mut p = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        // SAFETY: `p` is one valid pollfd.
        let r = unsafe { libc::poll(&mut p, 1, timeout_ms) };
        match r {
            0 => continue, // checked against the deadline above
            r if r > 0 => return Ok(()),
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(ChannelError::Io(e));
                }
            }
        }
    }
}

/// Writes all of `bytes`, with `fd_to_pass` (if any) attached to the first byte, before
/// `deadline`.
pub fn send_all(
    socket: &OwnedFd,
    bytes: &[u8],
    fd_to_pass: Option<RawFd>,
    deadline: Option<Instant>,
) -> Result<(), ChannelError> {
    let mut sent = 0;
    let mut pass = fd_to_pass;
    while sent < bytes.len() {
        let n = send_some(socket.as_raw_fd(), &bytes[sent..], pass);
        match n {
            Ok(n) => {
                sent += n;
                pass = None;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                wait_ready(socket.as_raw_fd(), libc::POLLOUT, deadline)?
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(from_errno(e)),
        }
    }
    Ok(())
}

/// Room for one descriptor's control message (u64 words keep it aligned).
const CMSG_WORDS: usize = 4;

/// One non-blocking `sendmsg` of `bytes` (the descriptor, if any, rides with it).
fn send_some(fd: RawFd, bytes: &[u8], pass: Option<RawFd>) -> io::Result<usize> {
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr().cast_mut().cast(),
        iov_len: bytes.len(),
    };
    let mut control = [0u64; CMSG_WORDS];
    // SAFETY: an all-zero msghdr is valid (no name, no control).
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if let Some(pass) = pass {
        // SAFETY: CMSG_SPACE is a pure size computation.
        let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
        debug_assert!(space <= std::mem::size_of_val(&control));
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        // SAFETY: the control buffer is aligned, zeroed and has room for one header and
        // one descriptor (CMSG_SPACE of an int); CMSG_FIRSTHDR and CMSG_DATA point into it.
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
            std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), pass);
        }
    }
    // SAFETY: `msg` points at `iov` (over `bytes`) and `control`, all alive for the call.
    let n = unsafe { libc::sendmsg(fd, &msg, libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT) };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// Fills `buf` before `deadline` (None: blocks). Descriptors that arrive with the bytes
/// are pushed on `fds`.
pub fn recv_exact(
    socket: &OwnedFd,
    buf: &mut [u8],
    fds: &mut VecDeque<OwnedFd>,
    deadline: Option<Instant>,
) -> Result<(), ChannelError> {
    let mut got = 0;
    while got < buf.len() {
        match recv_some(socket.as_raw_fd(), &mut buf[got..], fds) {
            Ok(0) => return Err(ChannelError::Closed),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                wait_ready(socket.as_raw_fd(), libc::POLLIN, deadline)?
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(from_errno(e)),
        }
    }
    Ok(())
}

/// Most descriptors accepted with one read; more (a hostile peer) are closed.
const MAX_FDS: usize = 2;

/// One non-blocking `recvmsg`; received descriptors are close-on-exec.
fn recv_some(fd: RawFd, buf: &mut [u8], fds: &mut VecDeque<OwnedFd>) -> io::Result<usize> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let mut control = [0u64; CMSG_WORDS * MAX_FDS];
    // SAFETY: an all-zero msghdr is valid.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    // SAFETY: `msg` points at `iov` (over `buf`) and `control`, alive for the call.
    let n = unsafe { libc::recvmsg(fd, &mut msg, libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: recvmsg filled `msg` and `control`; the CMSG macros walk within
    // msg_controllen, and each SCM_RIGHTS entry holds (len - CMSG_LEN(0)) / 4 descriptors
    // that are now ours.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(cmsg).cast::<RawFd>();
                let count = ((*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize)
                    / std::mem::size_of::<RawFd>();
                for i in 0..count {
                    let raw = std::ptr::read_unaligned(data.add(i));
                    let owned = OwnedFd::from_raw_fd(raw);
                    if fds.len() < MAX_FDS {
                        fds.push_back(owned);
                    } // else dropped: closed
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    Ok(n as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn bytes_and_a_descriptor_cross_the_pair() {
        let (a, b) = pair().unwrap();
        let file = tempfile::tempfile().unwrap();
        send_all(&a, b"hello", Some(file.as_raw_fd()), None).unwrap();
        let mut buf = [0u8; 5];
        let mut fds = VecDeque::new();
        recv_exact(
            &b,
            &mut buf,
            &mut fds,
            Some(Instant::now() + Duration::from_secs(1)),
        )
        .unwrap();
        assert_eq!(&buf, b"hello");
        assert_eq!(fds.len(), 1);
        assert!(!is_socket(fds[0].as_raw_fd()));
        assert!(is_socket(a.as_raw_fd()));
    }

    #[test]
    fn a_silent_peer_times_out_and_a_closed_one_is_closed() {
        let (a, b) = pair().unwrap();
        let mut buf = [0u8; 4];
        let mut fds = VecDeque::new();
        let start = Instant::now();
        let r = recv_exact(
            &a,
            &mut buf,
            &mut fds,
            Some(start + Duration::from_millis(50)),
        );
        assert!(matches!(r, Err(ChannelError::Timeout)), "{r:?}");
        assert!(start.elapsed() < Duration::from_millis(500));
        drop(b);
        let r = recv_exact(
            &a,
            &mut buf,
            &mut fds,
            Some(Instant::now() + Duration::from_secs(1)),
        );
        assert!(matches!(r, Err(ChannelError::Closed)), "{r:?}");
        // Sending to a closed peer is an error, not SIGPIPE.
        let r = send_all(
            &a,
            b"x",
            None,
            Some(Instant::now() + Duration::from_secs(1)),
        );
        assert!(matches!(r, Err(ChannelError::Closed)), "{r:?}");
    }

    #[test]
    fn a_peer_that_never_reads_stops_a_big_write_at_the_deadline() {
        let (a, _b) = pair().unwrap();
        let big = vec![0u8; 64 << 20];
        let start = Instant::now();
        let r = send_all(&a, &big, None, Some(start + Duration::from_millis(100)));
        assert!(matches!(r, Err(ChannelError::Timeout)), "{r:?}");
        assert!(start.elapsed() < Duration::from_millis(600));
    }
}
