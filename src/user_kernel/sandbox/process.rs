//! The kernel host as seen from the parent: spawned with its socket on descriptor 3,
//! asked one request at a time with a deadline, and killed (SIGKILL) and reaped when it
//! hangs, breaks the protocol or is done. Reaping never blocks the caller: a host that
//! takes longer to die is reaped by a thread.

use super::error::{signal_name, SandboxError};
use super::host::HOST_FD;
use super::protocol::{Header, HostInfo, Reply, Request, HEADER_BYTES, MAX_REPLY_BODY};
use super::socket::{self, ChannelError};
use std::collections::{HashMap, VecDeque};
use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The command that starts a kernel host (injectable: tests start fake hosts).
#[derive(Debug, Clone)]
pub struct HostCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
}

impl HostCommand {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
        }
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// `cudalens kernel-host` of `binary`.
    pub fn kernel_host(binary: impl Into<PathBuf>) -> Self {
        Self::new(binary).arg("kernel-host")
    }

    /// `cudalens kernel-host` of this very binary.
    fn this_kernel_host() -> Result<Self, SandboxError> {
        let exe = std::env::current_exe()
            .map_err(|e| SandboxError::Spawn(format!("cannot find this program: {e}")))?;
        Ok(Self::kernel_host(exe))
    }

    /// `cudalens kernel-host --compile` of this very binary: NVRTC, no GPU.
    pub fn this_binary_compiler() -> Result<Self, SandboxError> {
        Ok(Self::this_kernel_host()?.arg("--compile"))
    }

    /// `cudalens kernel-host` of this very binary, on CUDA device `device`.
    pub fn this_binary(device: usize) -> Result<Self, SandboxError> {
        Ok(Self::this_kernel_host()?
            .arg("--device")
            .arg(device.to_string()))
    }
}

/// What a request is for: it names the deadline that ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Start,
    Compile,
    Load,
    Run,
}

/// How long to wait for a host that closed its socket to report how it ended.
const EXIT_GRACE: Duration = Duration::from_millis(80);
/// How long to wait for a killed host before a thread takes over reaping it.
const KILL_GRACE: Duration = Duration::from_millis(20);

/// A running kernel host.
pub struct HostProcess {
    child: Option<Child>,
    socket: OwnedFd,
    pub info: HostInfo,
    seq: u32,
    /// Kernels this host has loaded (id → attributes).
    pub loaded: HashMap<u64, crate::user_kernel::KernelAttributes>,
    /// The device frame this host has mapped.
    pub mapped_frame: Option<u64>,
    /// The shared objects of whole frames this host has mapped.
    pub mapped_shared: std::collections::HashSet<u64>,
}

impl HostProcess {
    /// Starts `command` and waits for its hello until `deadline`.
    pub fn spawn(command: &HostCommand, deadline: Duration) -> Result<Self, SandboxError> {
        let spawn_error = |e: std::io::Error| SandboxError::Spawn(e.to_string());
        let (parent_end, child_end) = socket::pair().map_err(spawn_error)?;
        let child_fd = child_end.as_raw_fd();
        let mut cmd = Command::new(&command.program);
        cmd.args(&command.args)
            .envs(command.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null()) // the kernel's printf goes here
            .stderr(Stdio::null());
        // SAFETY: the closure runs in the child between fork and exec and calls only
        // async-signal-safe functions (dup2, fcntl) on descriptors it owns there.
        unsafe {
            cmd.pre_exec(move || {
                let r = if child_fd == HOST_FD {
                    libc::fcntl(child_fd, libc::F_SETFD, 0)
                } else {
                    libc::dup2(child_fd, HOST_FD)
                };
                if r < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            })
        };
        let child = cmd
            .spawn()
            .map_err(|e| SandboxError::Spawn(format!("{}: {e}", command.program.display())))?;
        drop(child_end);
        let mut host = Self {
            child: Some(child),
            socket: parent_end,
            info: HostInfo {
                device_name: String::new(),
                compute_capability: (0, 0),
                pid: 0,
            },
            seq: 0,
            loaded: HashMap::new(),
            mapped_frame: None,
            mapped_shared: std::collections::HashSet::new(),
        };
        match host.receive(0, Instant::now() + deadline, Phase::Start, deadline)? {
            Reply::Hello(info) => {
                host.info = info;
                Ok(host)
            }
            Reply::Failed(f) => Err(SandboxError::from_failure(&f)),
            other => Err(SandboxError::Protocol(format!(
                "the host began with {} instead of hello",
                reply_name(&other)
            ))),
        }
    }

    /// The host's process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Sends `request` (with descriptor `pass`) and waits for its reply until `deadline`
    /// (`budget` is what the caller allowed, for the message). On Err the host is useless:
    /// the caller drops it.
    pub fn request(
        &mut self,
        request: &Request,
        pass: Option<RawFd>,
        phase: Phase,
        budget: Duration,
    ) -> Result<Reply, SandboxError> {
        let deadline = Instant::now() + budget;
        self.seq = self.seq.wrapping_add(1).max(1);
        let seq = self.seq;
        if let Err(e) = socket::send_all(&self.socket, &request.encode(seq), pass, Some(deadline)) {
            return Err(self.broken(e, phase, budget));
        }
        self.receive(seq, deadline, phase, budget)
    }

    fn receive(
        &mut self,
        seq: u32,
        deadline: Instant,
        phase: Phase,
        budget: Duration,
    ) -> Result<Reply, SandboxError> {
        let mut fds = VecDeque::new();
        let mut header = [0u8; HEADER_BYTES];
        if let Err(e) = socket::recv_exact(&self.socket, &mut header, &mut fds, Some(deadline)) {
            return Err(self.broken(e, phase, budget));
        }
        let header =
            Header::decode(&header, MAX_REPLY_BODY).map_err(|e| SandboxError::Protocol(e.0))?;
        let mut body = vec![0u8; header.len as usize];
        if let Err(e) = socket::recv_exact(&self.socket, &mut body, &mut fds, Some(deadline)) {
            return Err(self.broken(e, phase, budget));
        }
        let reply = Reply::decode(header.kind, &body).map_err(|e| SandboxError::Protocol(e.0))?;
        if header.seq != seq {
            return Err(SandboxError::Protocol(format!(
                "a reply to request {} came for request {seq}",
                header.seq
            )));
        }
        Ok(reply)
    }

    /// The error for a failed read or write: the deadline of `phase`, or how the host
    /// ended.
    fn broken(&mut self, e: ChannelError, phase: Phase, budget: Duration) -> SandboxError {
        match e {
            ChannelError::Timeout => match phase {
                Phase::Start => SandboxError::StartTimeout(budget),
                Phase::Compile => SandboxError::CompileTimeout(budget),
                Phase::Load => SandboxError::LoadTimeout(budget),
                Phase::Run => SandboxError::Timeout(budget),
            },
            ChannelError::Closed => match self.wait_exit(EXIT_GRACE) {
                Some(status) => exit_error(status),
                None => SandboxError::Protocol("the host closed its socket".into()),
            },
            ChannelError::Io(e) => SandboxError::Host(format!("socket: {e}")),
        }
    }

    /// Waits up to `grace` for the host to end; its status if it did (reaped).
    fn wait_exit(&mut self, grace: Duration) -> Option<ExitStatus> {
        let child = self.child.as_mut()?;
        let start = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    self.child = None;
                    return Some(status);
                }
                Ok(None) if start.elapsed() < grace => std::thread::sleep(Duration::from_millis(1)),
                _ => return None,
            }
        }
    }
}

/// The error for a host that ended with `status`.
pub fn exit_error(status: ExitStatus) -> SandboxError {
    match (status.code(), status.signal()) {
        (_, Some(signal)) => SandboxError::HostCrashed(signal_name(signal)),
        (Some(code), _) => SandboxError::HostExited(code),
        _ => SandboxError::HostExited(-1),
    }
}

fn reply_name(reply: &Reply) -> &'static str {
    match reply {
        Reply::Hello(_) => "hello",
        Reply::Loaded { .. } => "loaded",
        Reply::Done { .. } => "done",
        Reply::Failed(_) => "failed",
        Reply::Mapped { .. } => "mapped",
        Reply::Compiled { .. } => "compiled",
        Reply::FrameDone(_) => "frame done",
    }
}

impl Drop for HostProcess {
    /// Kills the host (SIGKILL) and reaps it, on a thread when it takes longer than a
    /// moment (a context tearing down after a fault).
    fn drop(&mut self) {
        if self.wait_exit(Duration::ZERO).is_some() {
            return;
        }
        let Some(mut child) = self.child.take() else {
            return;
        };
        if let Err(e) = child.kill() {
            log::warn!("kernel host {}: kill: {e}", child.id());
        }
        let start = Instant::now();
        while start.elapsed() < KILL_GRACE {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let reaper = std::thread::Builder::new()
            .name("kernel-host-reaper".into())
            .spawn(move || {
                let _ = child.wait();
            });
        if let Err(e) = reaper {
            log::warn!("kernel host: no reaper thread: {e}");
        }
    }
}
