//! The kernel host's wire format: little-endian frames on a Unix stream socket.
//!
//! A frame is a 16-byte header (`CLKH`, the protocol version, the kind, a sequence number
//! and the body's length) and a body. The parent sends requests (compile, load, run,
//! shutdown, and whole frames: shared objects to import, then frames to run on them);
//! the host answers each with one reply carrying the request's sequence number. The
//! shared-memory file of a run, or the shared object being mapped, travels beside its
//! frame as an `SCM_RIGHTS` descriptor.
//! Every length is bounded before anything is allocated.

pub use crate::cuda::SharedObject;
use crate::user_kernel::compile::KernelAttributes;
use crate::user_kernel::prelude::PARAMS_BYTES;

/// The frame's first four bytes.
pub const MAGIC: [u8; 4] = *b"CLKH";
/// Bumped on any change of the format: a host of another version is refused.
pub const VERSION: u16 = 4;
pub const HEADER_BYTES: usize = 16;
/// Largest reply body the parent reads (a compiled kernel's PTX and log are the largest).
pub const MAX_REPLY_BODY: u32 = 32 * 1024 * 1024;
/// Largest request body the host reads: a 64 KiB source and its PTX.
pub const MAX_REQUEST_BODY: u32 = 32 * 1024 * 1024;
/// Longest text field (names, messages) a reply carries.
pub const MAX_TEXT: usize = 4096;
/// Longest compile log a reply carries (cut at a character boundary).
pub const MAX_LOG: usize = 1024 * 1024;
/// Longest PTX a reply carries.
pub const MAX_PTX: usize = 16 * 1024 * 1024;
/// Longest architecture name (`compute_XX`) a request carries.
const MAX_ARCH: usize = 32;
/// Most stages a frame request carries.
pub const MAX_STAGES: usize = 256;
/// Most timed stages a frame's reply carries (a stage, its hand-over, and the frame's own).
pub const MAX_TIMES: usize = 2 * MAX_STAGES + 16;
/// Most histogram bins a frame's reply carries.
pub const MAX_BINS: usize = 4096;

/// Frame kinds: requests below 64, replies from 64.
pub mod kind {
    pub const LOAD: u8 = 1;
    pub const RUN_HOST: u8 = 2;
    pub const SHUTDOWN: u8 = 3;
    pub const MAP_DEVICE: u8 = 4;
    pub const RUN_DEVICE: u8 = 5;
    pub const COMPILE: u8 = 6;
    pub const MAP_SHARED: u8 = 7;
    pub const RUN_FRAME: u8 = 8;
    pub const HELLO: u8 = 64;
    pub const LOADED: u8 = 65;
    pub const DONE: u8 = 66;
    pub const FAILED: u8 = 67;
    pub const MAPPED: u8 = 68;
    pub const COMPILED: u8 = 69;
    pub const FRAME_DONE: u8 = 70;
}

/// A malformed frame or body.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WireError(pub String);

fn wire(message: impl Into<String>) -> WireError {
    WireError(message.into())
}

/// A frame's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub kind: u8,
    pub seq: u32,
    pub len: u32,
}

impl Header {
    pub fn encode(&self) -> [u8; HEADER_BYTES] {
        let mut out = [0u8; HEADER_BYTES];
        out[..4].copy_from_slice(&MAGIC);
        out[4..6].copy_from_slice(&VERSION.to_le_bytes());
        out[6] = self.kind;
        out[8..12].copy_from_slice(&self.seq.to_le_bytes());
        out[12..16].copy_from_slice(&self.len.to_le_bytes());
        out
    }

    /// Checks the magic, the version and the body's length against `max_body`.
    pub fn decode(bytes: &[u8; HEADER_BYTES], max_body: u32) -> Result<Self, WireError> {
        if bytes[..4] != MAGIC {
            return Err(wire(format!(
                "a frame starts with {:02x?}, not CLKH",
                &bytes[..4]
            )));
        }
        let version = u16::from_le_bytes([bytes[4], bytes[5]]);
        if version != VERSION {
            return Err(wire(format!(
                "the kernel host speaks protocol version {version}, this cudalens {VERSION} (a different build?)"
            )));
        }
        let len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
        if len > max_body {
            return Err(wire(format!(
                "a frame announces {len} bytes, more than {max_body}"
            )));
        }
        Ok(Self {
            kind: bytes[6],
            seq: u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]),
            len,
        })
    }
}

/// What the host says once its CUDA context exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostInfo {
    pub device_name: String,
    pub compute_capability: (i32, i32),
    pub pid: u32,
}

/// Where a failure happened in the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailStage {
    /// Creating the context (no device, no driver).
    Start = 0,
    /// Parsing the source or loading the PTX (the context stays usable).
    Load = 1,
    /// `cuLaunchKernel` refused the launch (not sticky).
    Launch = 2,
    /// The kernel ran and faulted, or a copy failed: the context is poisoned.
    Run = 3,
    /// A request the host cannot serve (unknown kernel, bad size, bad frame).
    Request = 4,
}

impl FailStage {
    fn from_u8(v: u8) -> Result<Self, WireError> {
        Ok(match v {
            0 => Self::Start,
            1 => Self::Load,
            2 => Self::Launch,
            3 => Self::Run,
            4 => Self::Request,
            _ => return Err(wire(format!("unknown failure stage {v}"))),
        })
    }
}

/// A failure reported by the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub stage: FailStage,
    /// The `CUresult` (0 when the failure is not CUDA's).
    pub code: i32,
    /// The host exits after sending this.
    pub fatal: bool,
    /// `CUDA_ERROR_...`, or a short word for other failures.
    pub name: String,
    /// One line.
    pub message: String,
}

/// Name of the failure the host sends for a run of a kernel it does not have (the parent
/// loads it and runs again).
pub const NOT_LOADED: &str = "NOT_LOADED";

/// Name of the failure the host sends for a frame on a shared object it has not mapped
/// (the parent maps it and runs again).
pub const NOT_MAPPED: &str = "NOT_MAPPED";

/// A stage of a frame run in the host: a built-in filter's spec, or a user kernel the host
/// has loaded (`id`) with its stage spec (`kernel:PATH,name=value...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireStage {
    Builtin(String),
    Kernel { id: u64, spec: String },
}

/// A whole frame run in the host on mapped shared objects: wait for `gl_done`, run
/// `stages` from `source` (`width × height`) into `output`, count the histogram into
/// `bins`, signal `cuda_done`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameRequest {
    pub source: u64,
    pub output: u64,
    pub bins: u64,
    pub gl_done: u64,
    pub cuda_done: u64,
    pub width: u32,
    pub height: u32,
    pub stages: Vec<WireStage>,
}

/// What a frame run in the host gives back: each stage's GPU time there, then the bins.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameResult {
    pub stages: Vec<(String, f64)>,
    pub bins: Vec<u32>,
}

/// A request, parent to host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Parse `source`, load `ptx` (compiled from it) and keep it as kernel `id`.
    Load {
        id: u64,
        source: String,
        ptx: String,
    },
    /// Run kernel `id` on the `width × height` image in the shared memory passed with the
    /// frame: input at 0, output right after it.
    RunHost {
        id: u64,
        width: u32,
        height: u32,
        params: [u32; PARAMS_BYTES / 4],
    },
    /// Import the device memory passed with the frame (`size` bytes: the input image at
    /// 0, the output at `pitch × height`, rows of `pitch` bytes) as frame `frame`.
    MapDevice {
        frame: u64,
        width: u32,
        height: u32,
        pitch: u32,
        size: u64,
    },
    /// Run kernel `id` on frame `frame` (mapped before).
    RunDevice {
        id: u64,
        frame: u64,
        params: [u32; PARAMS_BYTES / 4],
    },
    /// Compile the translation unit `unit` with NVRTC for `arch` (`compute_XX`).
    Compile {
        arch: String,
        unit: String,
    },
    /// Import the object passed with the frame as shared object `id`.
    MapShared {
        id: u64,
        object: SharedObject,
    },
    /// Run a whole frame on shared objects mapped before.
    RunFrame(FrameRequest),
    Shutdown,
}

/// A reply, host to parent.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Hello(HostInfo),
    Loaded {
        id: u64,
        attributes: KernelAttributes,
    },
    /// A run finished: its wall time in the host, and the kernel's own GPU time there
    /// (CUDA events around the launch, in nanoseconds) where the host measured one.
    Done {
        kernel_micros: u64,
        gpu_nanos: Option<u64>,
    },
    Failed(Failure),
    Mapped {
        frame: u64,
    },
    /// NVRTC's output: the PTX when the unit compiled, its log either way, and its
    /// status when it failed.
    Compiled {
        ptx: Option<String>,
        log: String,
        failure: Option<String>,
    },
    /// A whole frame ran (`RunFrame`).
    FrameDone(FrameResult),
}

/// Appends little-endian fields to a body.
#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn text(&mut self, s: &str) -> &mut Self {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    fn optional_text(&mut self, s: Option<&str>) -> &mut Self {
        match s {
            Some(s) => self.u8(1).text(s),
            None => self.u8(0),
        }
    }
}

/// Reads little-endian fields from a body, never past its end.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        if self.bytes.len() < n {
            return Err(wire("a frame's body ends early"));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
    fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, WireError> {
        self.array().map(u32::from_le_bytes)
    }
    fn i32(&mut self) -> Result<i32, WireError> {
        self.array().map(i32::from_le_bytes)
    }
    fn u64(&mut self) -> Result<u64, WireError> {
        self.array().map(u64::from_le_bytes)
    }
    fn text(&mut self, max: usize) -> Result<String, WireError> {
        let len = self.u32()? as usize;
        if len > max {
            return Err(wire(format!(
                "a text field of {len} bytes, more than {max}"
            )));
        }
        String::from_utf8(self.take(len)?.to_vec()).map_err(|_| wire("a text field is not UTF-8"))
    }
    /// A count of items, at most `max`.
    fn count(&mut self, max: usize, what: &str) -> Result<usize, WireError> {
        let n = self.u32()? as usize;
        if n > max {
            return Err(wire(format!("{n} {what}, more than {max}")));
        }
        Ok(n)
    }
    /// A byte that must be 0 (false) or 1 (true): the mark of an optional field.
    fn flag(&mut self) -> Result<bool, WireError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(wire(format!("an optional field is marked {v}"))),
        }
    }
    fn optional_text(&mut self, max: usize) -> Result<Option<String>, WireError> {
        match self.flag()? {
            false => Ok(None),
            true => self.text(max).map(Some),
        }
    }
    fn end(&self) -> Result<(), WireError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(wire(format!(
                "{} bytes after a frame's body",
                self.bytes.len()
            )))
        }
    }
}

/// `header + body` for a frame of `kind`.
fn frame(kind: u8, seq: u32, body: Vec<u8>) -> Vec<u8> {
    let header = Header {
        kind,
        seq,
        len: body.len() as u32,
    };
    let mut out = header.encode().to_vec();
    out.extend_from_slice(&body);
    out
}

impl Request {
    pub fn encode(&self, seq: u32) -> Vec<u8> {
        let mut w = Writer::default();
        let kind = match self {
            Request::Load { id, source, ptx } => {
                w.u64(*id).text(source).text(ptx);
                kind::LOAD
            }
            Request::RunHost {
                id,
                width,
                height,
                params,
            } => {
                w.u64(*id).u32(*width).u32(*height);
                for p in params {
                    w.u32(*p);
                }
                kind::RUN_HOST
            }
            Request::MapDevice {
                frame,
                width,
                height,
                pitch,
                size,
            } => {
                w.u64(*frame)
                    .u32(*width)
                    .u32(*height)
                    .u32(*pitch)
                    .u64(*size);
                kind::MAP_DEVICE
            }
            Request::RunDevice { id, frame, params } => {
                w.u64(*id).u64(*frame);
                for p in params {
                    w.u32(*p);
                }
                kind::RUN_DEVICE
            }
            Request::Compile { arch, unit } => {
                w.text(arch).text(unit);
                kind::COMPILE
            }
            Request::MapShared { id, object } => {
                w.u64(*id);
                match *object {
                    SharedObject::Image {
                        width,
                        height,
                        size,
                    } => {
                        w.u8(0).u32(width).u32(height).u64(size);
                    }
                    SharedObject::Buffer { size, memory_size } => {
                        w.u8(1).u64(size).u64(memory_size);
                    }
                    SharedObject::Semaphore => {
                        w.u8(2);
                    }
                }
                kind::MAP_SHARED
            }
            Request::RunFrame(f) => {
                w.u64(f.source)
                    .u64(f.output)
                    .u64(f.bins)
                    .u64(f.gl_done)
                    .u64(f.cuda_done)
                    .u32(f.width)
                    .u32(f.height)
                    .u32(f.stages.len().min(MAX_STAGES) as u32);
                for stage in f.stages.iter().take(MAX_STAGES) {
                    match stage {
                        WireStage::Builtin(spec) => {
                            w.u8(0).text(bounded(spec));
                        }
                        WireStage::Kernel { id, spec } => {
                            w.u8(1).u64(*id).text(bounded(spec));
                        }
                    }
                }
                kind::RUN_FRAME
            }
            Request::Shutdown => kind::SHUTDOWN,
        };
        frame(kind, seq, w.0)
    }

    pub fn decode(kind: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader { bytes: body };
        let request = match kind {
            kind::LOAD => Request::Load {
                id: r.u64()?,
                source: r.text(MAX_REQUEST_BODY as usize)?,
                ptx: r.text(MAX_REQUEST_BODY as usize)?,
            },
            kind::RUN_HOST => {
                let (id, width, height) = (r.u64()?, r.u32()?, r.u32()?);
                let mut params = [0u32; PARAMS_BYTES / 4];
                for p in &mut params {
                    *p = r.u32()?;
                }
                Request::RunHost {
                    id,
                    width,
                    height,
                    params,
                }
            }
            kind::MAP_DEVICE => Request::MapDevice {
                frame: r.u64()?,
                width: r.u32()?,
                height: r.u32()?,
                pitch: r.u32()?,
                size: r.u64()?,
            },
            kind::RUN_DEVICE => {
                let (id, frame) = (r.u64()?, r.u64()?);
                let mut params = [0u32; PARAMS_BYTES / 4];
                for p in &mut params {
                    *p = r.u32()?;
                }
                Request::RunDevice { id, frame, params }
            }
            kind::COMPILE => Request::Compile {
                arch: r.text(MAX_ARCH)?,
                unit: r.text(MAX_REQUEST_BODY as usize)?,
            },
            kind::MAP_SHARED => {
                let id = r.u64()?;
                let object = match r.u8()? {
                    0 => SharedObject::Image {
                        width: r.u32()?,
                        height: r.u32()?,
                        size: r.u64()?,
                    },
                    1 => SharedObject::Buffer {
                        size: r.u64()?,
                        memory_size: r.u64()?,
                    },
                    2 => SharedObject::Semaphore,
                    v => return Err(wire(format!("unknown shared object kind {v}"))),
                };
                Request::MapShared { id, object }
            }
            kind::RUN_FRAME => {
                let (source, output, bins, gl_done, cuda_done) =
                    (r.u64()?, r.u64()?, r.u64()?, r.u64()?, r.u64()?);
                let (width, height) = (r.u32()?, r.u32()?);
                let count = r.count(MAX_STAGES, "stages")?;
                let mut stages = Vec::with_capacity(count);
                for _ in 0..count {
                    stages.push(match r.u8()? {
                        0 => WireStage::Builtin(r.text(MAX_TEXT)?),
                        1 => WireStage::Kernel {
                            id: r.u64()?,
                            spec: r.text(MAX_TEXT)?,
                        },
                        v => return Err(wire(format!("unknown stage kind {v}"))),
                    });
                }
                Request::RunFrame(FrameRequest {
                    source,
                    output,
                    bins,
                    gl_done,
                    cuda_done,
                    width,
                    height,
                    stages,
                })
            }
            kind::SHUTDOWN => Request::Shutdown,
            other => return Err(wire(format!("unknown request kind {other}"))),
        };
        r.end()?;
        Ok(request)
    }
}

/// At most `MAX_TEXT` bytes of `s`, cut at a character boundary.
fn bounded(s: &str) -> &str {
    bounded_to(s, MAX_TEXT)
}

/// At most `max` bytes of `s`, cut at a character boundary.
fn bounded_to(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

impl Reply {
    pub fn encode(&self, seq: u32) -> Vec<u8> {
        let mut w = Writer::default();
        let kind = match self {
            Reply::Hello(info) => {
                w.text(bounded(&info.device_name))
                    .i32(info.compute_capability.0)
                    .i32(info.compute_capability.1)
                    .u32(info.pid);
                kind::HELLO
            }
            Reply::Loaded { id, attributes: a } => {
                w.u64(*id);
                for v in [
                    a.registers,
                    a.local_bytes,
                    a.static_shared_bytes,
                    a.const_bytes,
                    a.max_threads_per_block,
                    a.ptx_version,
                    a.binary_version,
                ] {
                    w.u32(v);
                }
                kind::LOADED
            }
            Reply::Done {
                kernel_micros,
                gpu_nanos,
            } => {
                w.u64(*kernel_micros)
                    .u8(u8::from(gpu_nanos.is_some()))
                    .u64(gpu_nanos.unwrap_or(0));
                kind::DONE
            }
            Reply::Failed(f) => {
                w.u8(f.stage as u8)
                    .i32(f.code)
                    .u8(u8::from(f.fatal))
                    .text(bounded(&f.name))
                    .text(bounded(&f.message));
                kind::FAILED
            }
            Reply::Mapped { frame } => {
                w.u64(*frame);
                kind::MAPPED
            }
            Reply::Compiled { ptx, log, failure } => {
                w.optional_text(ptx.as_deref().map(|p| bounded_to(p, MAX_PTX)))
                    .text(bounded_to(log, MAX_LOG))
                    .optional_text(failure.as_deref().map(bounded));
                kind::COMPILED
            }
            Reply::FrameDone(f) => {
                w.u32(f.stages.len().min(MAX_TIMES) as u32);
                for (name, ms) in f.stages.iter().take(MAX_TIMES) {
                    w.text(bounded(name)).u64(ms.to_bits());
                }
                w.u32(f.bins.len().min(MAX_BINS) as u32);
                for b in f.bins.iter().take(MAX_BINS) {
                    w.u32(*b);
                }
                kind::FRAME_DONE
            }
        };
        frame(kind, seq, w.0)
    }

    pub fn decode(kind: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader { bytes: body };
        let reply = match kind {
            kind::HELLO => Reply::Hello(HostInfo {
                device_name: r.text(MAX_TEXT)?,
                compute_capability: (r.i32()?, r.i32()?),
                pid: r.u32()?,
            }),
            kind::LOADED => Reply::Loaded {
                id: r.u64()?,
                attributes: KernelAttributes {
                    registers: r.u32()?,
                    local_bytes: r.u32()?,
                    static_shared_bytes: r.u32()?,
                    const_bytes: r.u32()?,
                    max_threads_per_block: r.u32()?,
                    ptx_version: r.u32()?,
                    binary_version: r.u32()?,
                },
            },
            kind::DONE => {
                let kernel_micros = r.u64()?;
                let measured = r.flag()?;
                let nanos = r.u64()?;
                Reply::Done {
                    kernel_micros,
                    gpu_nanos: measured.then_some(nanos),
                }
            }
            kind::FAILED => Reply::Failed(Failure {
                stage: FailStage::from_u8(r.u8()?)?,
                code: r.i32()?,
                fatal: r.u8()? != 0,
                name: r.text(MAX_TEXT)?,
                message: r.text(MAX_TEXT)?,
            }),
            kind::MAPPED => Reply::Mapped { frame: r.u64()? },
            kind::COMPILED => Reply::Compiled {
                ptx: r.optional_text(MAX_PTX)?,
                log: r.text(MAX_LOG)?,
                failure: r.optional_text(MAX_TEXT)?,
            },
            kind::FRAME_DONE => {
                let count = r.count(MAX_TIMES, "stage times")?;
                let mut stages = Vec::with_capacity(count);
                for _ in 0..count {
                    stages.push((r.text(MAX_TEXT)?, f64::from_bits(r.u64()?)));
                }
                let count = r.count(MAX_BINS, "bins")?;
                let mut bins = Vec::with_capacity(count);
                for _ in 0..count {
                    bins.push(r.u32()?);
                }
                Reply::FrameDone(FrameResult { stages, bins })
            }
            other => return Err(wire(format!("unknown reply kind {other}"))),
        };
        r.end()?;
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip_reply(reply: Reply) {
        let bytes = reply.encode(7);
        let header =
            Header::decode(bytes[..HEADER_BYTES].try_into().unwrap(), MAX_REPLY_BODY).unwrap();
        assert_eq!(header.seq, 7);
        assert_eq!(header.len as usize, bytes.len() - HEADER_BYTES);
        assert_eq!(
            Reply::decode(header.kind, &bytes[HEADER_BYTES..]).unwrap(),
            reply
        );
    }

    #[test]
    fn replies_round_trip() {
        round_trip_reply(Reply::Hello(HostInfo {
            device_name: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: (9, 0),
            pid: 1234,
        }));
        round_trip_reply(Reply::Loaded {
            id: u64::MAX,
            attributes: KernelAttributes {
                registers: 32,
                max_threads_per_block: 1024,
                ..KernelAttributes::default()
            },
        });
        round_trip_reply(Reply::Done {
            kernel_micros: 42,
            gpu_nanos: None,
        });
        round_trip_reply(Reply::Done {
            kernel_micros: 42,
            gpu_nanos: Some(31_000),
        });
        round_trip_reply(Reply::Mapped { frame: 9 });
        round_trip_reply(Reply::Compiled {
            ptx: Some(".version 9.0\n.target sm_90".into()),
            log: String::new(),
            failure: None,
        });
        round_trip_reply(Reply::Compiled {
            ptx: None,
            log: "user.cu(3): error: expected a \";\"".into(),
            failure: Some("NVRTC_ERROR_COMPILATION".into()),
        });
        round_trip_reply(Reply::FrameDone(FrameResult {
            stages: vec![("box".into(), 0.0125), ("kernel:invert.cu".into(), 0.03)],
            bins: (0..1024).collect(),
        }));
        round_trip_reply(Reply::Failed(Failure {
            stage: FailStage::Run,
            code: 700,
            fatal: true,
            name: "CUDA_ERROR_ILLEGAL_ADDRESS".into(),
            message: "an illegal memory access was encountered".into(),
        }));
    }

    #[test]
    fn requests_round_trip() {
        for request in [
            Request::Load {
                id: 3,
                source: "uchar4 pixel(...)".into(),
                ptx: ".version 9.0".into(),
            },
            Request::RunHost {
                id: 3,
                width: 640,
                height: 480,
                params: [5; PARAMS_BYTES / 4],
            },
            Request::MapDevice {
                frame: 2,
                width: 1920,
                height: 1080,
                pitch: 7680,
                size: 2 << 24,
            },
            Request::RunDevice {
                id: 3,
                frame: 2,
                params: [7; PARAMS_BYTES / 4],
            },
            Request::Compile {
                arch: "compute_90".into(),
                unit: "#line 1 \"user.cu\"\n".into(),
            },
            Request::MapShared {
                id: 11,
                object: SharedObject::Image {
                    width: 3840,
                    height: 2160,
                    size: 1 << 25,
                },
            },
            Request::MapShared {
                id: 12,
                object: SharedObject::Buffer {
                    size: 4096,
                    memory_size: 65536,
                },
            },
            Request::MapShared {
                id: 13,
                object: SharedObject::Semaphore,
            },
            Request::RunFrame(FrameRequest {
                source: 11,
                output: 14,
                bins: 12,
                gl_done: 13,
                cuda_done: 15,
                width: 3840,
                height: 2160,
                stages: vec![
                    WireStage::Builtin("box:radius=2".into()),
                    WireStage::Kernel {
                        id: 3,
                        spec: "kernel:vignette.cu,strength=1.5,radius=0.6".into(),
                    },
                ],
            }),
            Request::Shutdown,
        ] {
            let bytes = request.encode(1);
            let header =
                Header::decode(bytes[..HEADER_BYTES].try_into().unwrap(), MAX_REQUEST_BODY)
                    .unwrap();
            assert_eq!(
                Request::decode(header.kind, &bytes[HEADER_BYTES..]).unwrap(),
                request
            );
        }
    }

    #[test]
    fn bad_frames_are_refused_before_allocating() {
        let good = Reply::Done {
            kernel_micros: 1,
            gpu_nanos: None,
        }
        .encode(1);
        let mut header: [u8; HEADER_BYTES] = good[..HEADER_BYTES].try_into().unwrap();
        header[0] = b'X';
        assert!(Header::decode(&header, MAX_REPLY_BODY).is_err());
        let mut header: [u8; HEADER_BYTES] = good[..HEADER_BYTES].try_into().unwrap();
        header[4] = 9;
        let e = Header::decode(&header, MAX_REPLY_BODY).unwrap_err();
        assert!(e.0.contains("version 9"), "{e}");
        let mut header: [u8; HEADER_BYTES] = good[..HEADER_BYTES].try_into().unwrap();
        header[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Header::decode(&header, MAX_REPLY_BODY).is_err());
        // Bodies: short, long, a text field longer than its bound, unknown kinds.
        assert!(Reply::decode(kind::DONE, &[1, 2, 3]).is_err());
        assert!(Reply::decode(kind::DONE, &[0; 9]).is_err());
        let mut flag_two = [0u8; 17];
        flag_two[8] = 2;
        assert!(Reply::decode(kind::DONE, &flag_two).is_err());
        let mut huge_text = vec![0u8; 6];
        huge_text.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(Reply::decode(kind::FAILED, &huge_text).is_err());
        assert!(Reply::decode(99, &[]).is_err());
        // Counts over their bounds, an unknown object or stage kind.
        assert!(Reply::decode(kind::FRAME_DONE, &u32::MAX.to_le_bytes()).is_err());
        let mut too_many_stages = vec![0u8; 48];
        too_many_stages.extend_from_slice(&(MAX_STAGES as u32 + 1).to_le_bytes());
        assert!(Request::decode(kind::RUN_FRAME, &too_many_stages).is_err());
        let mut odd_object = 1u64.to_le_bytes().to_vec();
        odd_object.push(3);
        assert!(Request::decode(kind::MAP_SHARED, &odd_object).is_err());
        let mut odd_stage = vec![0u8; 48];
        odd_stage.extend_from_slice(&1u32.to_le_bytes());
        odd_stage.push(2);
        assert!(Request::decode(kind::RUN_FRAME, &odd_stage).is_err());
        assert!(Request::decode(kind::HELLO, &[]).is_err());
        assert!(Reply::decode(kind::FAILED, &[9, 0, 0, 0, 0, 0]).is_err());
        // An optional field marked neither absent nor present; an architecture too long.
        assert!(Reply::decode(kind::COMPILED, &[2]).is_err());
        let long_arch = Request::Compile {
            arch: "compute_".repeat(8),
            unit: String::new(),
        }
        .encode(1);
        assert!(Request::decode(kind::COMPILE, &long_arch[HEADER_BYTES..]).is_err());
    }

    #[test]
    fn long_messages_are_cut_at_a_character() {
        let message = "é".repeat(MAX_TEXT);
        let bytes = Reply::Failed(Failure {
            stage: FailStage::Load,
            code: 0,
            fatal: false,
            name: "x".into(),
            message,
        })
        .encode(0);
        let Reply::Failed(f) = Reply::decode(kind::FAILED, &bytes[HEADER_BYTES..]).unwrap() else {
            panic!()
        };
        assert!(f.message.len() <= MAX_TEXT);
    }
}
