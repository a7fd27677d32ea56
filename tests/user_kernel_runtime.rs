//! The user-kernel sandbox at run time: a kernel that faults or never ends must not take
//! the app, the image or the session with it.
//!
//! Without a GPU: the parent's side is driven by fake kernel hosts, this test binary
//! serving the real protocol with a CPU executor (`fake_kernel_host`) and shell scripts
//! that hang, crash, exit, reply garbage or too much; each must end within its deadline,
//! with the right error, and the next request must start a new host; many requests in a
//! row leak no descriptor and leave no zombie. The hostile kernels compile (NVRTC only).
//!
//! On the GPU (skipped without one, failing under CUDALENS_REQUIRE_GPU=1): every hostile
//! kernel runs in `cudalens kernel-host`, gives its error class within 2 s of the
//! deadline, and the next good kernel (invert.cu) gives exactly the CPU reference.

mod common;

use cudalens::ops::random_image;
use cudalens::user_kernel::compile::KernelAttributes;
use cudalens::user_kernel::device::{arch_for, run_on_image, LoadedKernel, POISON};
use cudalens::user_kernel::examples::{example, EXAMPLES};
use cudalens::user_kernel::sandbox::compiler;
use cudalens::user_kernel::sandbox::host::{serve, Executor, NvrtcOutput, ServeEnd, HOST_FD};
use cudalens::user_kernel::sandbox::protocol::{
    FailStage, Failure, FrameRequest, FrameResult, Header, HostInfo, Reply, SharedObject,
    WireStage, HEADER_BYTES, MAX_REPLY_BODY, NOT_LOADED, NOT_MAPPED, VERSION,
};
use cudalens::user_kernel::sandbox::{
    DeviceFrame, ErrorClass, HostCommand, HostFrame, Sandbox, SandboxConfig, SandboxError,
    SandboxKernel,
};
use cudalens::user_kernel::{
    compile, nvrtc_available, CompileError, CompileOptions, KernelSource, ParamBlock, ParamValues,
};
use image::RgbaImage;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Tests here count this process's descriptors and children: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a call may take past its deadline.
const SLACK: Duration = Duration::from_millis(100);

// ---------------------------------------------------------------------------------------
// The fake host: this test binary, started with CUDALENS_FAKE_KERNEL_HOST set.

const FAKE_ENV: &str = "CUDALENS_FAKE_KERNEL_HOST";

/// The kernel's GPU time the fake executor reports for a run.
const FAKE_GPU_NANOS: u64 = 31_250;

/// What the fake executor does on a run, from the first params word.
mod mode {
    pub const INVERT: u32 = 0;
    pub const HANG: u32 = 1;
    pub const ABORT: u32 = 2;
    pub const FAULT: u32 = 3;
    pub const SEGV: u32 = 4;
    pub const EXIT: u32 = 5;
    pub const REFUSE: u32 = 6;
}

struct FakeExecutor {
    loaded: Vec<u64>,
    /// Shared objects mapped for whole frames.
    mapped: Vec<u64>,
}

impl Executor for FakeExecutor {
    fn info(&self) -> HostInfo {
        HostInfo {
            device_name: "fake".into(),
            compute_capability: (9, 0),
            pid: std::process::id(),
        }
    }

    fn load(&mut self, id: u64, source: &str, _ptx: &str) -> Result<KernelAttributes, Failure> {
        if source.contains("FAKE_LOAD_HANG") {
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        if source.contains("FAKE_LOAD_FAIL") {
            return Err(Failure {
                stage: FailStage::Load,
                code: 218,
                fatal: false,
                name: "CUDA_ERROR_INVALID_PTX".into(),
                message: "the PTX is bad".into(),
            });
        }
        self.loaded.push(id);
        Ok(KernelAttributes {
            registers: 8,
            max_threads_per_block: 1024,
            ..KernelAttributes::default()
        })
    }

    fn run(
        &mut self,
        id: u64,
        _width: u32,
        _height: u32,
        params: &ParamBlock,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<Option<u64>, Failure> {
        assert!(self.loaded.contains(&id));
        match params.words[0] {
            mode::HANG => loop {
                std::thread::sleep(Duration::from_secs(1));
            },
            mode::ABORT => std::process::abort(),
            // SAFETY: ends this fake process as a crashing host would (the default action:
            // the test harness's own SIGSEGV handler would return).
            mode::SEGV => unsafe {
                libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                libc::raise(libc::SIGSEGV);
            },
            mode::EXIT => std::process::exit(7),
            mode::FAULT => {
                return Err(Failure {
                    stage: FailStage::Run,
                    code: 700,
                    fatal: true,
                    name: "CUDA_ERROR_ILLEGAL_ADDRESS".into(),
                    message: "an illegal memory access was encountered".into(),
                })
            }
            mode::REFUSE => {
                return Err(Failure {
                    stage: FailStage::Launch,
                    code: 701,
                    fatal: false,
                    name: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES".into(),
                    message: "too many resources requested for launch".into(),
                })
            }
            _ => {}
        }
        for (o, i) in output.chunks_exact_mut(4).zip(input.chunks_exact(4)) {
            o.copy_from_slice(&[255 - i[0], 255 - i[1], 255 - i[2], i[3]]);
        }
        Ok(Some(FAKE_GPU_NANOS))
    }

    fn map_shared(
        &mut self,
        id: u64,
        _object: SharedObject,
        _fd: std::os::fd::OwnedFd,
    ) -> Result<(), Failure> {
        self.mapped.push(id);
        Ok(())
    }

    /// Checks that the frame's objects are mapped and its kernels loaded; a stage spec
    /// `forget` makes it drop its mapped objects after the frame (as a host that made room).
    fn run_frame(&mut self, frame: &FrameRequest) -> Result<FrameResult, Failure> {
        let missing = |name: &str, what: String| Failure {
            stage: FailStage::Request,
            code: 0,
            fatal: false,
            name: name.into(),
            message: what,
        };
        for id in [
            frame.source,
            frame.output,
            frame.bins,
            frame.gl_done,
            frame.cuda_done,
        ] {
            if !self.mapped.contains(&id) {
                return Err(missing(NOT_MAPPED, format!("{id} is not mapped")));
            }
        }
        let mut stages = Vec::new();
        for stage in &frame.stages {
            match stage {
                WireStage::Builtin(spec) => stages.push((spec.clone(), 0.5)),
                WireStage::Kernel { id, spec } if self.loaded.contains(id) => {
                    stages.push((spec.clone(), 0.25))
                }
                WireStage::Kernel { id, .. } => {
                    return Err(missing(NOT_LOADED, format!("kernel {id} is not loaded")))
                }
            }
        }
        if frame.stages.contains(&WireStage::Builtin("forget".into())) {
            self.mapped.clear();
        }
        Ok(FrameResult {
            stages,
            bins: vec![7; 1024],
        })
    }

    /// Hangs or crashes on a marker in the unit, else gives a fixed PTX.
    fn compile(&mut self, arch: &str, unit: &str) -> Result<NvrtcOutput, Failure> {
        if unit.contains("FAKE_COMPILE_HANG") {
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        if unit.contains("FAKE_COMPILE_SEGV") {
            // SAFETY: as for mode::SEGV.
            unsafe {
                libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                libc::raise(libc::SIGSEGV);
            }
        }
        Ok(NvrtcOutput {
            ptx: Some(format!("// fake PTX for {arch}\n")),
            log: String::new(),
            failure: None,
        })
    }
}

fn fd_is_socket(fd: i32) -> bool {
    // SAFETY: an all-zero stat is valid; fstat only writes into it.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid out-pointer; a bad fd is reported as -1.
    unsafe { libc::fstat(fd, &mut st) == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFSOCK }
}

/// Not a test: the fake kernel host's entry when this binary is started as one.
#[test]
fn fake_kernel_host() {
    let Ok(how) = std::env::var(FAKE_ENV) else {
        return;
    };
    assert!(fd_is_socket(HOST_FD));
    // SAFETY: the socket was inherited on HOST_FD (checked); nothing else owns it.
    let socket = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(HOST_FD) };
    let end = serve(socket, || {
        if how == "nodevice" {
            return Err(Failure {
                stage: FailStage::Start,
                code: 100,
                fatal: true,
                name: "CUDA_ERROR_NO_DEVICE".into(),
                message: "no CUDA device".into(),
            });
        }
        Ok(FakeExecutor {
            loaded: Vec::new(),
            mapped: Vec::new(),
        })
    });
    std::process::exit(if end == ServeEnd::Fatal { 1 } else { 0 });
}

fn fake_host(how: &str) -> HostCommand {
    HostCommand::new(std::env::current_exe().expect("test binary"))
        .arg("fake_kernel_host")
        .arg("--exact")
        .arg("--nocapture")
        .arg("--test-threads=1")
        .env(FAKE_ENV, how)
}

fn config(command: HostCommand, frame: Duration) -> SandboxConfig {
    SandboxConfig {
        frame_deadline: frame,
        start_deadline: Duration::from_secs(10),
        load_deadline: Duration::from_secs(10),
        ..SandboxConfig::new(command)
    }
}

fn fake_kernel() -> SandboxKernel {
    SandboxKernel::from_parts("// fake\n", "// no PTX")
}

fn params(mode: u32) -> ParamBlock {
    let mut p = ParamBlock { words: [0; 16] };
    p.words[0] = mode;
    p
}

fn inverted(image: &RgbaImage) -> RgbaImage {
    let mut out = image.clone();
    for p in out.pixels_mut() {
        p.0 = [255 - p.0[0], 255 - p.0[1], 255 - p.0[2], p.0[3]];
    }
    out
}

/// Runs and times one request.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed())
}

// ---------------------------------------------------------------------------------------
// This process's descriptors and children.

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

/// (pid, state) of this process's child processes.
fn children() -> Vec<(i32, char)> {
    let me = std::process::id() as i32;
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| {
            let pid: i32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let rest = &stat[stat.rfind(')')? + 2..];
            let mut fields = rest.split_whitespace();
            let state = fields.next()?.chars().next()?;
            let ppid: i32 = fields.next()?.parse().ok()?;
            (ppid == me).then_some((pid, state))
        })
        .collect()
}

/// Waits up to 2 s for every child to be gone (killed hosts are reaped by a thread).
fn assert_no_children_left() {
    let start = Instant::now();
    while !children().is_empty() && start.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(children(), vec![], "children left (zombies have state Z)");
}

// ---------------------------------------------------------------------------------------
// The fake host through the real parent.

#[test]
fn a_good_run_goes_through_shared_memory_and_back() {
    let _serial = serial();
    let mut sandbox = Sandbox::new(config(fake_host("ok"), Duration::from_secs(5)));
    assert_eq!(sandbox.spawn_count(), 0, "nothing starts before a request");
    let kernel = fake_kernel();
    for (i, (w, h)) in [(1, 1), (17, 5), (333, 211), (17, 5)]
        .into_iter()
        .enumerate()
    {
        let image = random_image(w, h, 90 + i as u64);
        let (out, kernel_ms) = sandbox
            .run_on_host_timed(&kernel, &image, &params(mode::INVERT))
            .unwrap();
        assert_eq!(out, inverted(&image));
        // The host's own timing of the kernel comes back with the pixels.
        assert_eq!(kernel_ms, Some(FAKE_GPU_NANOS as f64 * 1e-6));
    }
    assert_eq!(sandbox.spawn_count(), 1);
    assert_eq!(sandbox.host_info().unwrap().device_name, "fake");
    assert_eq!(sandbox.load(&kernel).unwrap().registers, 8);
    drop(sandbox);
    assert_no_children_left();
}

#[test]
fn a_hung_kernel_is_stopped_at_the_deadline_and_the_next_run_gets_a_new_host() {
    let _serial = serial();
    let deadline = Duration::from_millis(300);
    let mut sandbox = Sandbox::new(config(fake_host("ok"), deadline));
    let kernel = fake_kernel();
    let image = random_image(64, 48, 1);
    sandbox.load(&kernel).unwrap();
    let first = sandbox.host_pid().unwrap();
    let (r, took) = timed(|| sandbox.run_on_host(&kernel, &image, &params(mode::HANG)));
    let e = r.unwrap_err();
    assert_eq!(e, SandboxError::Timeout(deadline));
    assert_eq!(e.to_string(), "the kernel ran past 0.3 s and was stopped");
    assert!(took >= deadline && took <= deadline + SLACK, "{took:?}");
    assert_eq!(sandbox.host_pid(), None);
    // The next run starts a new host, loads the kernel again and works.
    let out = sandbox
        .run_on_host(&kernel, &image, &params(mode::INVERT))
        .unwrap();
    assert_eq!(out, inverted(&image));
    assert_ne!(sandbox.host_pid(), Some(first));
    assert_eq!(sandbox.spawn_count(), 2);
    drop(sandbox);
    assert_no_children_left();
}

#[test]
fn a_crashing_or_exiting_host_is_reported_with_its_signal_or_status() {
    let _serial = serial();
    let mut sandbox = Sandbox::new(config(fake_host("ok"), Duration::from_secs(5)));
    let kernel = fake_kernel();
    let image = random_image(31, 7, 2);
    let cases = [
        (mode::SEGV, "the kernel host crashed (SIGSEGV)"),
        (mode::ABORT, "the kernel host crashed (SIGABRT)"),
        (mode::EXIT, "the kernel host exited with status 7"),
        (
            mode::FAULT,
            "the kernel read or wrote outside memory (CUDA_ERROR_ILLEGAL_ADDRESS)",
        ),
    ];
    for (i, (how, message)) in cases.into_iter().enumerate() {
        let (r, took) = timed(|| sandbox.run_on_host(&kernel, &image, &params(how)));
        let e = r.unwrap_err();
        assert_eq!(e.to_string(), message);
        assert!(took < Duration::from_secs(2), "{message}: {took:?}");
        assert_eq!(sandbox.host_pid(), None, "{message}");
        assert_eq!(sandbox.spawn_count(), i as u32 + 1);
        let out = sandbox
            .run_on_host(&kernel, &image, &params(mode::INVERT))
            .unwrap();
        assert_eq!(out, inverted(&image), "after {message}");
    }
    // A refused launch is not fatal: the same host serves the next run.
    let pid = sandbox.host_pid();
    let e = sandbox
        .run_on_host(&kernel, &image, &params(mode::REFUSE))
        .unwrap_err();
    assert_eq!(e.class(), ErrorClass::Refused, "{e}");
    assert_eq!(sandbox.host_pid(), pid);
    drop(sandbox);
    assert_no_children_left();
}

#[test]
fn load_failures_and_load_hangs_are_errors_with_the_host_kept_or_killed() {
    let _serial = serial();
    let mut sandbox = Sandbox::new(config(fake_host("ok"), Duration::from_secs(1)));
    let image = random_image(8, 8, 3);
    let bad = SandboxKernel::from_parts("// FAKE_LOAD_FAIL\n", "");
    let e = sandbox.run_on_host(&bad, &image, &params(0)).unwrap_err();
    assert_eq!(e.to_string(), "loading the kernel: the PTX is bad");
    assert!(
        sandbox.host_pid().is_some(),
        "a load failure keeps the host"
    );
    let mut hurried = Sandbox::new(SandboxConfig {
        load_deadline: Duration::from_millis(200),
        ..config(fake_host("ok"), Duration::from_secs(1))
    });
    let hang = SandboxKernel::from_parts("// FAKE_LOAD_HANG\n", "");
    hurried.host_info().unwrap();
    let (r, took) = timed(|| hurried.load(&hang));
    assert_eq!(
        r.unwrap_err().to_string(),
        "loading the kernel took longer than 0.2 s and was stopped"
    );
    assert!(took <= Duration::from_millis(200) + SLACK, "{took:?}");
    drop((sandbox, hurried));
    assert_no_children_left();
}

#[test]
fn a_host_without_a_device_says_so_in_one_line() {
    let _serial = serial();
    let mut sandbox = Sandbox::new(config(fake_host("nodevice"), Duration::from_secs(1)));
    let e = sandbox.host_info().unwrap_err();
    assert_eq!(
        e.to_string(),
        "no CUDA device for user kernels: no CUDA device"
    );
    drop(sandbox);
    assert_no_children_left();
}

/// A pixel kernel whose source carries `marker` (in a comment).
fn marked_source(marker: &str) -> KernelSource {
    KernelSource::parse(&format!(
        "// {marker}\nuchar4 pixel(int x, int y, Image src, Params p) {{ return read(src, x, y); }}\n"
    ))
    .unwrap()
}

#[test]
fn a_compile_that_hangs_or_crashes_is_stopped_and_the_next_one_compiles() {
    if !nvrtc_available() {
        println!("skipped: no NVRTC");
        return;
    }
    let _serial = serial();
    compiler::compile_in(Some(fake_host("ok")));
    let deadline = Duration::from_millis(300);
    let options = CompileOptions {
        deadline,
        ..CompileOptions::for_arch("compute_90")
    };
    let good = compiler::compile(&marked_source("fine"), &options).unwrap();
    assert_eq!(good.ptx, "// fake PTX for compute_90\n");
    let (r, took) = timed(|| compiler::compile(&marked_source("FAKE_COMPILE_HANG"), &options));
    assert_eq!(r.unwrap_err(), CompileError::Timeout(deadline));
    assert!(took >= deadline && took <= deadline + SLACK, "{took:?}");
    let crashed = compiler::compile(&marked_source("FAKE_COMPILE_SEGV"), &options).unwrap_err();
    assert_eq!(
        crashed.to_string(),
        "NVRTC: NVRTC crashed (SIGSEGV) on this kernel"
    );
    // Each failure killed its process; the next compile starts a new one.
    assert!(compiler::compile(&marked_source("fine"), &options).is_ok());
    // A compilation never waits behind another: this one runs while a hung one does.
    let slow = CompileOptions {
        deadline: Duration::from_secs(2),
        ..options.clone()
    };
    let hung = std::thread::spawn(move || {
        compiler::compile(&marked_source("FAKE_COMPILE_HANG"), &slow).map(|_| ())
    });
    std::thread::sleep(Duration::from_millis(100));
    let (fine, took) = timed(|| compiler::compile(&marked_source("fine"), &options));
    assert!(fine.is_ok());
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert_eq!(
        hung.join().unwrap().unwrap_err(),
        CompileError::Timeout(Duration::from_secs(2))
    );
    compiler::compile_in(None);
    assert_no_children_left();
}

#[test]
fn nvrtc_in_its_own_process_gives_what_it_gives_in_this_one() {
    if !nvrtc_available() {
        println!("skipped: no NVRTC");
        return;
    }
    let _serial = serial();
    compiler::compile_in(Some(
        HostCommand::kernel_host(common::cudalens_bin()).arg("--compile"),
    ));
    let options = CompileOptions::for_arch("compute_90");
    let broken = "// @param float a 0..1 = 0.5\nuchar4 pixel(int x, int y, Image src, Params p)\n{\n    return read(src, x, y)\n}\n";
    let sources = EXAMPLES
        .iter()
        .map(|e| e.source)
        .chain([broken])
        .map(|text| KernelSource::parse(text).unwrap());
    for source in sources {
        let there = compiler::compile(&source, &options);
        let here = compile(&source, &options);
        match (there, here) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.ptx, b.ptx);
                assert_eq!(a.diagnostics, b.diagnostics);
            }
            (Err(a), Err(b)) => assert_eq!(a, b),
            (a, b) => panic!("{:?} vs {:?}", a.map(|k| k.log), b.map(|k| k.log)),
        }
    }
    compiler::compile_in(None);
    assert_no_children_left();
}

#[test]
fn bad_images_are_refused_before_any_host_starts() {
    let _serial = serial();
    let mut sandbox = Sandbox::new(config(fake_host("ok"), Duration::from_secs(1)));
    let e = sandbox
        .run_on_host(&fake_kernel(), &RgbaImage::new(0, 5), &params(0))
        .unwrap_err();
    assert_eq!(e, SandboxError::EmptyImage);
    assert_eq!(sandbox.spawn_count(), 0);
}

#[test]
fn many_requests_in_a_row_leak_no_descriptor_and_no_process() {
    let _serial = serial();
    let image = random_image(40, 30, 4);
    let kernel = fake_kernel();
    let run_all = |sandbox: &mut Sandbox, rounds: usize| {
        for i in 0..rounds {
            let how = [
                mode::INVERT,
                mode::HANG,
                mode::INVERT,
                mode::SEGV,
                mode::FAULT,
            ][i % 5];
            let r = sandbox.run_on_host(&kernel, &image, &params(how));
            assert_eq!(r.is_ok(), how == mode::INVERT, "round {i}: {:?}", r.err());
        }
    };
    let mut sandbox = Sandbox::new(config(fake_host("ok"), Duration::from_millis(150)));
    run_all(&mut sandbox, 5); // warm: threads, lazily opened files
    drop(sandbox);
    assert_no_children_left();
    let fds = open_fds();
    let mut sandbox = Sandbox::new(config(fake_host("ok"), Duration::from_millis(150)));
    run_all(&mut sandbox, 40);
    // Three in five runs kill the host; each but the last is followed by a new one.
    assert_eq!(sandbox.spawn_count(), 3 * 40 / 5);
    assert!(children().len() <= 2, "{:?}", children());
    drop(sandbox);
    assert_no_children_left();
    assert_eq!(open_fds(), fds, "descriptors leaked");
}

// ---------------------------------------------------------------------------------------
// Shell hosts: replies written by the test, replayed on descriptor 3.

fn sh_host(script: &str) -> HostCommand {
    HostCommand::new("/bin/sh").arg("-c").arg(script)
}

fn hello() -> Vec<u8> {
    Reply::Hello(HostInfo {
        device_name: "script".into(),
        compute_capability: (9, 0),
        pid: 1,
    })
    .encode(0)
}

fn write_frames(dir: &Path, name: &str, frames: &[Vec<u8>]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, frames.concat()).unwrap();
    path
}

struct ScriptCase {
    name: &'static str,
    /// The script, with `{F}` replaced by the frames file.
    script: &'static str,
    frames: Vec<Vec<u8>>,
    /// Where it should fail: start (host_info), load, or run.
    at: &'static str,
    /// A piece of the expected message.
    expect: &'static str,
}

fn loaded(id: u64, seq: u32) -> Vec<u8> {
    Reply::Loaded {
        id,
        attributes: KernelAttributes::default(),
    }
    .encode(seq)
}

#[test]
fn hostile_hosts_end_within_their_deadline_with_a_clear_error() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let kernel = fake_kernel();
    let id = kernel.id();
    let mut wrong_version = hello();
    wrong_version[4] = VERSION as u8 + 1;
    let mut huge = Header {
        kind: 66,
        seq: 2,
        len: 0,
    }
    .encode()
    .to_vec();
    huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let cases = vec![
        ScriptCase {
            name: "hangs before hello",
            script: "exec sleep 30",
            frames: vec![],
            at: "start",
            expect: "did not start within 0.5 s",
        },
        ScriptCase {
            name: "exits before hello",
            script: "exit 3",
            frames: vec![],
            at: "start",
            expect: "exited with status 3",
        },
        ScriptCase {
            name: "crashes before hello",
            script: "kill -SEGV $$",
            frames: vec![],
            at: "start",
            expect: "crashed (SIGSEGV)",
        },
        ScriptCase {
            name: "garbage",
            script: "printf 'garbage garbage garbage' >&3; exec sleep 30",
            frames: vec![],
            at: "start",
            expect: "not CLKH",
        },
        ScriptCase {
            name: "a flood of zeros",
            script: "exec cat /dev/zero >&3",
            frames: vec![],
            at: "start",
            expect: "not CLKH",
        },
        ScriptCase {
            name: "another protocol version",
            script: "cat {F} >&3; exec sleep 30",
            frames: vec![wrong_version],
            at: "start",
            expect: Box::leak(format!("protocol version {}", VERSION + 1).into_boxed_str()),
        },
        ScriptCase {
            name: "a reply first",
            script: "cat {F} >&3; exec sleep 30",
            frames: vec![Reply::Done {
                kernel_micros: 1,
                gpu_nanos: None,
            }
            .encode(0)],
            at: "start",
            expect: "instead of hello",
        },
        ScriptCase {
            name: "hangs on load",
            script: "cat {F} >&3; exec sleep 30",
            frames: vec![hello()],
            at: "load",
            expect: "took longer than 0.5 s",
        },
        ScriptCase {
            name: "exits on load",
            script: "cat {F} >&3; exec sleep 0.05",
            frames: vec![hello()],
            at: "load",
            expect: "exited with status 0",
        },
        ScriptCase {
            name: "answers another request",
            script: "cat {F} >&3; exec sleep 30",
            frames: vec![hello(), loaded(id, 7)],
            at: "load",
            expect: "came for request 1",
        },
        ScriptCase {
            name: "hangs on run",
            script: "cat {F} >&3; exec sleep 30",
            frames: vec![hello(), loaded(id, 1)],
            at: "run",
            expect: "ran past 0.5 s",
        },
        ScriptCase {
            name: "crashes on run",
            script: "cat {F} >&3; sleep 0.2; kill -BUS $$",
            frames: vec![hello(), loaded(id, 1)],
            at: "run",
            expect: "crashed (SIGBUS)",
        },
        ScriptCase {
            name: "announces a huge reply",
            script: "cat {F} >&3; exec cat /dev/zero >&3",
            frames: vec![hello(), loaded(id, 1), huge],
            at: "run",
            expect: Box::leak(format!("more than {MAX_REPLY_BODY}").into_boxed_str()),
        },
        ScriptCase {
            name: "a reply cut short",
            script: "cat {F} >&3; exec sleep 30",
            frames: vec![
                hello(),
                loaded(id, 1),
                Reply::Done {
                    kernel_micros: 1,
                    gpu_nanos: None,
                }
                .encode(2)[..HEADER_BYTES + 3]
                    .to_vec(),
            ],
            at: "run",
            expect: "ran past 0.5 s",
        },
        ScriptCase {
            name: "too much in a reply",
            script: "cat {F} >&3; exec sleep 30",
            frames: vec![hello(), loaded(id, 1), {
                let mut f = Reply::Done {
                    kernel_micros: 1,
                    gpu_nanos: None,
                }
                .encode(2);
                // One byte more than the body, announced and sent.
                f[12] = (f.len() - HEADER_BYTES + 1) as u8;
                f.extend_from_slice(&[0; 1]);
                f
            }],
            at: "run",
            expect: "bytes after a frame's body",
        },
        ScriptCase {
            name: "fault reply",
            script: "cat {F} >&3; exec sleep 30",
            frames: vec![
                hello(),
                loaded(id, 1),
                Reply::Failed(Failure {
                    stage: FailStage::Run,
                    code: 716,
                    fatal: true,
                    name: "CUDA_ERROR_MISALIGNED_ADDRESS".into(),
                    message: "misaligned address".into(),
                })
                .encode(2),
            ],
            at: "run",
            expect: "misaligned address (CUDA_ERROR_MISALIGNED_ADDRESS)",
        },
    ];
    let deadline = Duration::from_millis(500);
    let image = random_image(16, 16, 5);
    for (i, case) in cases.iter().enumerate() {
        let frames = write_frames(dir.path(), &format!("frames-{i}"), &case.frames);
        let script = case.script.replace("{F}", &frames.to_string_lossy());
        let mut sandbox = Sandbox::new(SandboxConfig {
            start_deadline: deadline,
            load_deadline: deadline,
            frame_deadline: deadline,
            command: sh_host(&script),
        });
        match case.at {
            "load" => drop(sandbox.host_info().unwrap()),
            "run" => drop(sandbox.load(&kernel).unwrap()),
            _ => {}
        }
        let (r, took) = timed(|| match case.at {
            "start" => sandbox.host_info().map(|_| ()),
            "load" => sandbox.load(&kernel).map(|_| ()),
            _ => sandbox.run_on_host(&kernel, &image, &params(0)).map(|_| ()),
        });
        let e = r.expect_err(case.name).to_string();
        println!("{}: {e} ({took:?})", case.name);
        assert!(e.contains(case.expect), "{}: {e}", case.name);
        assert!(!e.contains('\n'), "{}: {e}", case.name);
        assert!(took <= deadline + SLACK, "{}: {took:?}", case.name);
        assert_eq!(sandbox.host_pid(), None, "{}: the host is gone", case.name);
        drop(sandbox);
        assert_no_children_left();
    }
}

#[test]
fn a_missing_host_program_is_a_clean_error() {
    let _serial = serial();
    let mut sandbox = Sandbox::new(config(
        HostCommand::new("/nonexistent/cudalens"),
        Duration::from_secs(1),
    ));
    let e = sandbox.host_info().unwrap_err();
    assert!(
        e.to_string()
            .starts_with("cannot start the kernel host: /nonexistent/cudalens"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------
// The real `cudalens kernel-host`.

#[test]
fn kernel_host_started_by_hand_refuses_in_one_line() {
    let _serial = serial();
    let scratch = tempfile::tempdir().unwrap();
    let mut cmd = common::process::cudalens();
    cmd.arg("kernel-host");
    let done = common::process::run_limited(&mut cmd, scratch.path(), Duration::from_secs(30));
    done.refused_with("started by cudalens itself");
}

#[test]
fn kernel_host_is_hidden_from_help() {
    let _serial = serial();
    let scratch = tempfile::tempdir().unwrap();
    let mut cmd = common::process::cudalens();
    cmd.arg("--help");
    let done = common::process::run_limited(&mut cmd, scratch.path(), Duration::from_secs(30));
    assert_eq!(done.code, Some(0));
    assert!(!done.stdout.contains("kernel-host"), "{}", done.stdout);
}

fn real_host(frame: Duration) -> Sandbox {
    Sandbox::new(config(
        HostCommand::kernel_host(common::cudalens_bin()),
        frame,
    ))
}

/// The real host and NVRTC, or None with the skip message (no GPU: the host says so).
fn gpu_sandbox_or_skip(frame: Duration) -> Option<(Sandbox, String)> {
    let mut sandbox = real_host(frame);
    match sandbox.host_info() {
        Ok(info) => {
            if !nvrtc_available() {
                common::skip_gpu_test("no NVRTC");
                return None;
            }
            Some((sandbox, arch_for(info.compute_capability)))
        }
        Err(e) => {
            assert_eq!(e.class(), ErrorClass::Host, "{e}");
            assert!(!e.to_string().contains('\n'), "{e}");
            common::skip_gpu_test(&format!("no CUDA device ({e})"));
            None
        }
    }
}

#[test]
fn the_real_host_starts_or_says_why_not() {
    let _serial = serial();
    let mut sandbox = real_host(Duration::from_secs(1));
    match sandbox.host_info() {
        Ok(info) => println!(
            "kernel host on {} {:?}",
            info.device_name, info.compute_capability
        ),
        Err(e) => {
            assert!(matches!(e, SandboxError::NoDevice(_)), "{e}");
            println!("{e}");
        }
    }
    drop(sandbox);
    assert_no_children_left();
}

fn compile_for(arch: &str, text: &str) -> Result<(KernelSource, SandboxKernel), String> {
    let source = KernelSource::parse(text).map_err(|e| e.to_string())?;
    let compiled = compile(&source, &CompileOptions::for_arch(arch)).map_err(|e| match e {
        CompileError::Failed { summary, .. } => summary,
        e => e.to_string(),
    })?;
    let kernel = SandboxKernel::new(&source, &compiled);
    Ok((source, kernel))
}

#[test]
fn gpu_examples_in_the_sandbox_equal_in_process() {
    let _serial = serial();
    let Some((mut sandbox, arch)) = gpu_sandbox_or_skip(Duration::from_secs(5)) else {
        return;
    };
    let device = cudalens::cuda::CudaDevice::new(0).unwrap();
    let images = [
        random_image(1, 1, 7),
        random_image(333, 211, 8),
        common::photo("astronaut.png"),
    ];
    for e in EXAMPLES {
        let (source, kernel) = compile_for(&arch, e.source).unwrap();
        let compiled = compile(&source, &CompileOptions::for_arch(&arch)).unwrap();
        let local = LoadedKernel::load(&device, &source, &compiled).unwrap();
        let params = ParamValues::defaults(&source.params).pack(&source.params);
        assert_eq!(
            sandbox.load(&kernel).unwrap(),
            local.attributes,
            "{}",
            e.file
        );
        for image in &images {
            let there = sandbox.run_on_host(&kernel, image, &params).unwrap();
            let here = run_on_image(&device, &local, image, &params).unwrap();
            assert!(there == here, "{} on {:?}", e.file, image.dimensions());
            assert!(there.pixels().all(|p| p.0 != POISON), "{}", e.file);
        }
    }
    assert_eq!(sandbox.spawn_count(), 1);
}

/// The host path's cost per frame over in-process, printed for the design notes:
/// `cargo test --test user_kernel_runtime gpu_sandbox_overhead -- --nocapture`.
#[test]
fn gpu_sandbox_overhead_per_frame() {
    let _serial = serial();
    let Some((mut sandbox, arch)) = gpu_sandbox_or_skip(Duration::from_secs(5)) else {
        return;
    };
    let device = cudalens::cuda::CudaDevice::new(0).unwrap();
    let text = example("invert.cu").unwrap().source;
    let (source, kernel) = compile_for(&arch, text).unwrap();
    let compiled = compile(&source, &CompileOptions::for_arch(&arch)).unwrap();
    let local = LoadedKernel::load(&device, &source, &compiled).unwrap();
    let params = ParamValues::defaults(&source.params).pack(&source.params);
    for (w, h) in [(640, 480), (1920, 1080), (3840, 2160)] {
        let image = random_image(w, h, 9);
        let median = |f: &mut dyn FnMut()| {
            f();
            let mut t: Vec<Duration> = (0..21).map(|_| timed(&mut *f).1).collect();
            t.sort();
            t[10]
        };
        let there = median(&mut || {
            sandbox.run_on_host(&kernel, &image, &params).unwrap();
        });
        let here = median(&mut || {
            run_on_image(&device, &local, &image, &params).unwrap();
        });
        println!(
            "{w}×{h}: sandbox (host memory) {:.3} ms, in-process {:.3} ms, overhead {:.3} ms",
            there.as_secs_f64() * 1e3,
            here.as_secs_f64() * 1e3,
            (there.as_secs_f64() - here.as_secs_f64()) * 1e3
        );
    }
}

// ---------------------------------------------------------------------------------------
// The hostile kernels.

/// What a hostile kernel must do in the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Harmless: runs and returns an image.
    Runs,
    /// Stopped at the deadline.
    Timeout,
    /// Faults while running; the host exits.
    Fault,
    /// Never ends normally: a fault or the deadline, as the GPU has it (measured on an
    /// H200: a call through a null function pointer spins until the deadline).
    Stopped,
    /// Runs, or is stopped at the deadline when it is slow (a printf flood drains the
    /// device's printf buffer at the host's pace).
    RunsOrTimeout,
    /// Refused before it runs (load or launch), or runs.
    RunsOrRefused,
    /// Refused by the compiler (never reaches the sandbox).
    CompileError,
    /// Undefined on the hardware: any outcome but a broken sandbox.
    Survives,
}

fn pixel(body: &str) -> String {
    format!("uchar4 pixel(int x, int y, Image src, Params p)\n{{\n{body}\n}}\n")
}

fn full(directives: &str, body: &str) -> String {
    format!("{directives}__global__ void k(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, Params p)\n{{\n    const int x = blockIdx.x * blockDim.x + threadIdx.x;\n    const int y = blockIdx.y * blockDim.y + threadIdx.y;\n    if (x >= width || y >= height) return;\n{body}\n}}\n")
}

const ASSERTFAIL: &str = "extern \"C\" __device__ void __assertfail(const char* message, const char* file, unsigned line, const char* function, size_t char_size);\n";

fn hostile_kernels() -> Vec<(&'static str, String, Expect)> {
    use Expect::*;
    let keep = "    return read(src, x, y);";
    vec![
        ("surface write past the right edge", full("// @block 16x16\n", "    write(dst, width, y, read(src, x, y));"), Fault),
        ("surface write at a huge offset", full("// @block 16x16\n", "    write(dst, 1 << 28, 1 << 28, read(src, x, y));"), Fault),
        ("surface write at negative coordinates", full("// @block 16x16\n", "    write(dst, -1 - x, -1 - y, read(src, x, y));"), Fault),
        ("null pointer write", pixel(&format!("    *(volatile int*)0 = x;\n{keep}")), Fault),
        ("null pointer read", pixel("    const unsigned char v = *(volatile unsigned char*)0;\n    return make_uchar4(v, v, v, 255);"), Fault),
        ("wild pointer write", pixel(&format!("    *(volatile int*)0x7fff00001000ull = x;\n{keep}")), Fault),
        ("wild pointer read", pixel("    const int v = *(volatile int*)(0x7fff00001000ull + 4096ull * x);\n    return grey(v, 255);"), Fault),
        ("local array indexed far out", pixel(&format!("    volatile int a[4];\n    a[x * 1000000 + 100000000] = y;\n    a[0] = a[1];\n{keep}")), Survives),
        ("misaligned local load", pixel("    volatile char buf[16];\n    for (int i = 0; i < 16; ++i) buf[i] = (char)(x + i);\n    const int v = *(volatile int*)(buf + 1 + (x & 1));\n    return grey(v & 255, 255);"), Fault),
        ("misaligned 8-byte store", pixel(&format!("    *(volatile long long*)(0x7f0000000004ull + 8ull * x) = 1;\n{keep}")), Fault),
        ("__trap()", pixel(&format!("    if (x == 3 && y == 2) __trap();\n{keep}")), Fault),
        ("trap instruction", pixel(&format!("    if (x == 0) asm volatile(\"trap;\");\n{keep}")), Fault),
        ("assert(false)", format!("{ASSERTFAIL}{}", pixel(&format!("    if (x == 1 && y == 1) __assertfail(\"false\", \"user.cu\", 3, \"pixel\", 1);\n{keep}"))), Fault),
        ("infinite loop", pixel(&format!("    volatile int s = 0;\n    while (true) s = s + 1;\n{keep}")), Timeout),
        ("infinite loop in one thread", pixel(&format!("    if (x == 0 && y == 0) {{ volatile int s = 0; for (;;) s = s + 1; }}\n{keep}")), Timeout),
        ("1e12-iteration loop", pixel("    volatile float acc = 0.0f;\n    for (long long i = 0; i < 1000000000000LL; ++i) acc = acc + 1.0f;\n    return grey(acc, 255);"), Timeout),
        ("spin on a flag nobody sets", full("// @block 16x16\n", "    __shared__ volatile int flag;\n    if (threadIdx.x == 0 && threadIdx.y == 0) flag = 0;\n    __syncthreads();\n    while (flag == 0) {}\n    write(dst, x, y, read(src, x, y));"), Timeout),
        ("deep recursion", format!("__device__ int down(int n)\n{{\n    volatile int pad[64];\n    pad[n & 63] = n;\n    return n == 0 ? 0 : 1 + down(n - 1) + pad[(n * 7) & 63];\n}}\n{}", pixel("    return grey(down(1 << 24 + (x & 1)), 255);")), Fault),
        ("printf flood", pixel(&format!("    for (int i = 0; i < 64; ++i) printf(\"flood %d %d %d\\n\", x, y, i);\n{keep}")), RunsOrTimeout),
        ("device malloc bomb", pixel(&format!("    for (int i = 0; i < 100000; ++i) if (malloc(1 << 20) == 0) break;\n{keep}")), Runs),
        ("unchecked malloc of 1 TiB", pixel(&format!("    char* m = (char*)malloc(1ull << 40);\n    m[x] = 1;\n{keep}")), Fault),
        ("dynamic shared memory overrun", full("// @block 16x16\n// @shared 1024\n", "    extern __shared__ unsigned char tile[];\n    ((volatile unsigned char*)tile)[(threadIdx.x + 1) * 1000000] = 1;\n    write(dst, x, y, read(src, x, y));"), Fault),
        ("shared memory over the limit", full("// @block 16x16\n// @shared 49152\n", "    extern __shared__ unsigned char tile[];\n    __shared__ int extra[64];\n    extra[threadIdx.x & 63] = tile[threadIdx.x];\n    write(dst, x, y, grey(extra[(threadIdx.x + 1) & 63], 255));"), CompileError),
        ("register-heavy kernel at 1024 threads", full("// @block 32x32\n", "    float r[96];\n#pragma unroll\n    for (int i = 0; i < 96; ++i) r[i] = __sinf(x * 0.1f + i) * __cosf(y * 0.1f - i);\n    float s = 0.0f;\n#pragma unroll\n    for (int i = 0; i < 96; ++i) s += r[i] * r[(i * 7) % 96];\n    write(dst, x, y, grey(s, 255));"), RunsOrRefused),
        ("a megabyte of local memory per thread", pixel("    volatile char big[1 << 20];\n    big[(x * 4099) & 0xFFFFF] = 1;\n    return grey(big[(y * 31) & 0xFFFFF], 255);"), RunsOrRefused),
        ("integer divide by zero", format!("// @param int zero 0..1 = 0\n{}", pixel("    return grey((float)(x / p.zero + y % p.zero), 255);")), Runs),
        ("NaN storm", pixel("    const float n = sqrtf(-1.0f - x) * __int_as_float(0x7fc00000);\n    return from_float4(make_float4(n, n / 0.0f, 0.0f / 0.0f, n));"), Runs),
        ("infinities everywhere", pixel("    const float i = 1.0f / (float)(x - x);\n    return from_float4(make_float4(i, -i, i * 0.0f, 255.0f));"), Runs),
        ("reads far outside the image", pixel("    return read(src, x + 100000, y - 100000);"), Runs),
        ("early exit", pixel(&format!("    if (x & 1) asm volatile(\"exit;\");\n{keep}")), Runs),
        ("shared-memory atomic storm", full("// @block 16x16\n", "    __shared__ int hot;\n    if (threadIdx.x == 0 && threadIdx.y == 0) hot = 0;\n    __syncthreads();\n    for (int i = 0; i < 1000; ++i) atomicAdd(&hot, 1);\n    __syncthreads();\n    write(dst, x, y, grey(hot & 255, 255));"), Runs),
        ("call through a null function pointer", pixel("    typedef int (*F)(int);\n    volatile F f = 0;\n    return grey(f(x), 255);"), Stopped),
        ("jump to a wild address", pixel("    typedef int (*F)(int);\n    volatile unsigned long long a = 0x1234560ull;\n    return grey(((F)a)(x), 255);"), Fault),
        ("wild texture object", pixel("    return tex2D<uchar4>(0xdeadbeefull + x, (float)x, (float)y);"), Survives),
        ("wild surface object", full("// @block 16x16\n", "    surf2Dwrite(read(src, x, y), 0xdeadbeefull, x * 4, y);"), Survives),
        ("breakpoint instruction", pixel(&format!("    if (x == 5) asm volatile(\"brkpt;\");\n{keep}")), Survives),
        ("__syncthreads in one branch", full("// @block 16x16\n", "    if (threadIdx.x < 8) __syncthreads();\n    write(dst, x, y, read(src, x, y));"), Survives),
    ]
}

#[test]
fn at_least_thirty_hostile_kernels() {
    assert!(hostile_kernels().len() >= 30);
}

/// All hostile kernels parse and compile (NVRTC, no GPU needed), except those meant to
/// fail there: what the GPU test runs is really what it means to run.
#[test]
fn hostile_kernels_compile() {
    if !nvrtc_available() {
        common::skip_gpu_test("no NVRTC");
        return;
    }
    for (name, text, expect) in hostile_kernels() {
        let compiled = compile_for("compute_75", &text);
        match expect {
            Expect::CompileError => {
                let e = compiled.err().unwrap_or_else(|| panic!("{name}: compiled"));
                assert!(!e.contains('\n'), "{name}: {e}");
            }
            _ => {
                compiled.unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
    }
}

#[test]
fn gpu_hostile_kernels_are_stopped_and_the_next_is_exact_faults_on_purpose() {
    let _serial = serial();
    let deadline = Duration::from_secs(1);
    let Some((mut sandbox, arch)) = gpu_sandbox_or_skip(deadline) else {
        return;
    };
    let (_, invert) = compile_for(&arch, example("invert.cu").unwrap().source).unwrap();
    let no_params = ParamBlock { words: [0; 16] };
    let image = random_image(256, 192, 11);
    let expected = inverted(&image);
    let mut failures = Vec::new();
    for (name, text, expect) in hostile_kernels() {
        let (source, kernel) = match compile_for(&arch, &text) {
            Ok(k) => k,
            Err(e) => {
                assert_eq!(expect, Expect::CompileError, "{name}: {e}");
                continue;
            }
        };
        let params = ParamValues::defaults(&source.params).pack(&source.params);
        let loaded = sandbox.load(&kernel);
        let (r, took) = timed(|| sandbox.run_on_host(&kernel, &image, &params));
        let outcome = match (&loaded, &r) {
            (Err(e), _) => format!("load: {e}"),
            (_, Ok(_)) => "runs".to_string(),
            (_, Err(e)) => format!("{:?}: {e}", e.class()),
        };
        println!("{name}: {outcome} ({took:?})");
        let class = loaded.err().or(r.err()).map(|e| e.class());
        let right = match expect {
            Expect::Runs => class.is_none(),
            Expect::Timeout => class == Some(ErrorClass::Timeout),
            Expect::Fault => class == Some(ErrorClass::Fault),
            Expect::Stopped => matches!(class, Some(ErrorClass::Fault | ErrorClass::Timeout)),
            Expect::RunsOrTimeout => matches!(class, None | Some(ErrorClass::Timeout)),
            Expect::RunsOrRefused => matches!(class, None | Some(ErrorClass::Refused)),
            Expect::CompileError => false,
            Expect::Survives => class != Some(ErrorClass::Host),
        };
        if !right {
            failures.push(format!("{name}: expected {expect:?}, got {outcome}"));
        }
        if took > deadline + Duration::from_secs(2) {
            failures.push(format!("{name}: took {took:?}"));
        }
        // The next good kernel, exactly.
        match sandbox.run_on_host(&invert, &image, &no_params) {
            Ok(out) if out == expected => {}
            Ok(_) => failures.push(format!("{name}: invert after it differs")),
            Err(e) => failures.push(format!("{name}: invert after it: {e}")),
        }
    }
    println!("{} hosts started", sandbox.spawn_count());
    assert!(failures.is_empty(), "{failures:#?}");
    drop(sandbox);
    assert_no_children_left();
}

/// Sends the host what the parent would refuse, PTX that is not PTX among it: the driver's
/// refusal of that image is an API error on purpose (the sanitizer steps leave it out).
#[test]
fn gpu_a_host_refuses_sources_over_the_limits_faults_on_purpose() {
    let _serial = serial();
    let Some((mut sandbox, _)) = gpu_sandbox_or_skip(Duration::from_secs(1)) else {
        return;
    };
    // The parent's checks are bypassed: the host parses the source again.
    for source in ["// @block 64x64\n__global__ void k() {}\n", "", "\0"] {
        let k = SandboxKernel::from_parts(source, ".version 8.0\n");
        let e = sandbox.load(&k).unwrap_err();
        assert_eq!(e.class(), ErrorClass::Refused, "{e}");
    }
    let k = SandboxKernel::from_parts(
        "uchar4 pixel(int x, int y, Image src, Params p) { return read(src, x, y); }\n",
        "this is not PTX",
    );
    let e = sandbox.load(&k).unwrap_err();
    assert_eq!(e.class(), ErrorClass::Refused, "{e}");
    assert_eq!(sandbox.spawn_count(), 1, "refusals keep the host");
}

// ---------------------------------------------------------------------------------------
// Device memory shared with the host (the window's frame).

#[test]
fn gpu_device_frames_give_the_same_images_as_host_memory() {
    let _serial = serial();
    let Some((mut sandbox, arch)) = gpu_sandbox_or_skip(Duration::from_secs(5)) else {
        return;
    };
    let device = cudalens::cuda::CudaDevice::new(0).unwrap();
    for (w, h) in [(1, 1), (17, 5), (333, 211), (1920, 1080)] {
        let image = random_image(w, h, 12);
        let frame = DeviceFrame::new(&device.ctx, w, h).unwrap();
        frame.write_input(&device.stream, &image).unwrap();
        for e in EXAMPLES {
            let (source, kernel) = compile_for(&arch, e.source).unwrap();
            let params = ParamValues::defaults(&source.params).pack(&source.params);
            sandbox.run_on_device(&kernel, &frame, &params).unwrap();
            let there = frame.read_output(&device.stream).unwrap();
            let host_path = sandbox.run_on_host(&kernel, &image, &params).unwrap();
            assert!(there == host_path, "{} on {w}×{h}", e.file);
        }
    }
}

#[test]
fn gpu_a_fault_on_a_device_frame_keeps_the_frame_faults_on_purpose() {
    let _serial = serial();
    let Some((mut sandbox, arch)) = gpu_sandbox_or_skip(Duration::from_secs(1)) else {
        return;
    };
    let device = cudalens::cuda::CudaDevice::new(0).unwrap();
    let image = random_image(256, 192, 13);
    let frame = DeviceFrame::new(&device.ctx, 256, 192).unwrap();
    frame.write_input(&device.stream, &image).unwrap();
    let (_, invert) = compile_for(&arch, example("invert.cu").unwrap().source).unwrap();
    let no_params = ParamBlock { words: [0; 16] };
    for (name, text, expect) in hostile_kernels() {
        if !matches!(expect, Expect::Fault | Expect::Timeout | Expect::Stopped) {
            continue;
        }
        let (source, kernel) = compile_for(&arch, &text).unwrap();
        let params = ParamValues::defaults(&source.params).pack(&source.params);
        sandbox
            .load(&kernel)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (r, took) = timed(|| sandbox.run_on_device(&kernel, &frame, &params));
        let e = r.expect_err(name);
        assert!(
            matches!(e.class(), ErrorClass::Fault | ErrorClass::Timeout),
            "{name}: {e}"
        );
        assert!(took <= Duration::from_secs(3), "{name}: {took:?}");
        // The app's context and the frame are intact: the next good kernel is exact.
        sandbox.run_on_device(&invert, &frame, &no_params).unwrap();
        assert!(
            frame.read_output(&device.stream).unwrap() == inverted(&image),
            "{name}"
        );
        assert_eq!(
            frame.read_output(&device.stream).unwrap().dimensions(),
            (256, 192)
        );
    }
    device.synchronize().unwrap();
}

/// The device path's cost per frame over an in-process launch on arrays, printed for
/// the design notes (goal: at most 0.05 ms):
/// `cargo test --test user_kernel_runtime gpu_device_frame_overhead -- --nocapture`.
#[test]
fn gpu_device_frame_overhead() {
    let _serial = serial();
    let Some((mut sandbox, arch)) = gpu_sandbox_or_skip(Duration::from_secs(5)) else {
        return;
    };
    let device = cudalens::cuda::CudaDevice::new(0).unwrap();
    let text = example("invert.cu").unwrap().source;
    let (source, kernel) = compile_for(&arch, text).unwrap();
    let compiled = compile(&source, &CompileOptions::for_arch(&arch)).unwrap();
    let local = LoadedKernel::load(&device, &source, &compiled).unwrap();
    let params = ParamValues::defaults(&source.params).pack(&source.params);
    for (w, h) in [(640, 480), (1920, 1080), (3840, 2160)] {
        let image = random_image(w, h, 14);
        let frame = DeviceFrame::new(&device.ctx, w, h).unwrap();
        frame.write_input(&device.stream, &image).unwrap();
        let input = cudalens::cuda::CudaArray2d::new(&device.ctx, w, h).unwrap();
        let output = cudalens::cuda::CudaArray2d::new(&device.ctx, w, h).unwrap();
        let tex = cudalens::cuda::TextureObject::from_array(&device.ctx, input.view()).unwrap();
        let surf = cudalens::cuda::SurfaceObject::from_array(&device.ctx, output.view()).unwrap();
        let median = |f: &mut dyn FnMut()| {
            for _ in 0..3 {
                f();
            }
            let mut t: Vec<Duration> = (0..51).map(|_| timed(&mut *f).1).collect();
            t.sort();
            t[25]
        };
        let there = median(&mut || {
            sandbox.run_on_device(&kernel, &frame, &params).unwrap();
        });
        // The host times the kernel itself, within the run's wall time.
        let kernel_ms = sandbox.run_on_device(&kernel, &frame, &params).unwrap();
        assert!(
            kernel_ms.is_some_and(|ms| ms > 0.0 && ms < there.as_secs_f64() * 1e3),
            "{kernel_ms:?} against a run of {there:?}"
        );
        let here = median(&mut || {
            // SAFETY: the objects are over live w × h arrays; synchronized right after.
            unsafe { local.launch(&device.stream, tex.handle(), surf.handle(), w, h, &params) }
                .unwrap();
            device.synchronize().unwrap();
        });
        println!(
            "{w}×{h}: sandbox (device memory) {:.3} ms, in-process launch + sync {:.3} ms, overhead {:.3} ms",
            there.as_secs_f64() * 1e3,
            here.as_secs_f64() * 1e3,
            (there.as_secs_f64() - here.as_secs_f64()) * 1e3
        );
        assert!(frame.read_output(&device.stream).unwrap() == inverted(&image));
        drop((tex, surf));
    }
}

#[test]
fn device_frame_geometry_from_the_parent_is_checked() {
    use cudalens::user_kernel::sandbox::device_memory::{frame_pitch, PITCH_ALIGN};
    use cudalens::user_kernel::sandbox::host::FrameGeometry;
    let pitch = frame_pitch(100);
    assert_eq!(pitch % PITCH_ALIGN, 0);
    assert!(pitch >= 400);
    let need = 2 * pitch as u64 * 10;
    let g = FrameGeometry::new(100, 10, pitch as u32, need).unwrap();
    assert_eq!(g.output_offset(), pitch * 10);
    assert!(
        FrameGeometry::new(100, 10, pitch as u32, need - 1).is_none(),
        "too small"
    );
    assert!(
        FrameGeometry::new(100, 10, 400, u64::MAX).is_none(),
        "another pitch"
    );
    assert!(
        FrameGeometry::new(0, 10, pitch as u32, u64::MAX).is_none(),
        "empty"
    );
    let side = 1 << 15;
    assert!(
        FrameGeometry::new(side, side, frame_pitch(side) as u32, u64::MAX).is_none(),
        "over the pixel limit"
    );
}

/// The state letter of process `pid` (None once it is gone).
fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 2..].chars().next()
}

#[test]
fn a_host_whose_parent_dies_ends_itself() {
    let _serial = serial();
    // A shell starts the fake host in the background (it inherits the socket) and exits:
    // the host's parent is gone while it waits for a request.
    let exe = std::env::current_exe().unwrap();
    let script = format!(
        "'{}' fake_kernel_host --exact --nocapture --test-threads=1 & sleep 0.3",
        exe.display()
    );
    let mut sandbox = Sandbox::new(config(
        sh_host(&script).env(FAKE_ENV, "ok"),
        Duration::from_secs(5),
    ));
    let host = sandbox.host_info().unwrap().pid;
    assert!(process_state(host).is_some());
    let start = Instant::now();
    while process_state(host).is_some_and(|s| s != 'Z') && start.elapsed() < Duration::from_secs(3)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        process_state(host).is_none_or(|s| s == 'Z'),
        "the orphaned host still runs after {:?}",
        start.elapsed()
    );
    drop(sandbox);
    assert_no_children_left();
}

/// Whole frames: the app maps each shared object once per host (a descriptor exported for
/// each), again after the host dropped them or a new host started; a descriptor that
/// cannot be made is a device-memory error, so the frame runs stage by stage instead.
#[test]
fn whole_frames_map_their_objects_once_per_host() {
    let _serial = serial();
    let mut sandbox = Sandbox::new(config(fake_host("ok"), Duration::from_secs(5)));
    let kernel = fake_kernel();
    let image = |width| SharedObject::Image {
        width,
        height: 4,
        size: 65536,
    };
    let objects = [
        (1, image(4)),
        (
            2,
            SharedObject::Buffer {
                size: 4096,
                memory_size: 65536,
            },
        ),
        (3, image(4)),
        (4, SharedObject::Semaphore),
        (5, SharedObject::Semaphore),
    ];
    let exports = std::cell::Cell::new(0);
    let export = |_id: u64| {
        exports.set(exports.get() + 1);
        std::fs::File::open("/dev/null")
            .map(std::os::fd::OwnedFd::from)
            .map_err(|e| e.to_string())
    };
    let stages = vec![
        WireStage::Builtin("box:radius=1".into()),
        WireStage::Kernel {
            id: kernel.id(),
            spec: "kernel:fake.cu".into(),
        },
    ];
    let frame = |stages: Vec<WireStage>| HostFrame {
        request: FrameRequest {
            source: 1,
            output: 3,
            bins: 2,
            gl_done: 4,
            cuda_done: 5,
            width: 4,
            height: 4,
            stages,
        },
        objects: &objects,
        export: &export,
        kernels: std::slice::from_ref(&kernel),
    };
    let done = sandbox.run_frame(&frame(stages.clone())).unwrap();
    assert_eq!(done.stages.len(), 2);
    assert_eq!(done.bins, vec![7; 1024]);
    assert_eq!(exports.get(), 5);
    sandbox.run_frame(&frame(stages.clone())).unwrap();
    assert_eq!(exports.get(), 5, "each object is mapped once per host");
    let mut forget = stages.clone();
    forget.push(WireStage::Builtin("forget".into()));
    sandbox.run_frame(&frame(forget)).unwrap();
    sandbox.run_frame(&frame(stages.clone())).unwrap();
    assert_eq!(
        exports.get(),
        10,
        "what the host dropped is mapped again, once"
    );
    sandbox.stop();
    sandbox.run_frame(&frame(stages.clone())).unwrap();
    assert_eq!(exports.get(), 15, "a new host maps everything again");
    assert_eq!(sandbox.spawn_count(), 2);
    sandbox.stop();
    let refuse = |_id: u64| -> Result<std::os::fd::OwnedFd, String> { Err("no descriptor".into()) };
    let e = sandbox
        .run_frame(&HostFrame {
            export: &refuse,
            ..frame(stages)
        })
        .unwrap_err();
    assert!(matches!(e, SandboxError::DeviceMemory(_)), "{e}");
    drop(sandbox);
    assert_no_children_left();
}
