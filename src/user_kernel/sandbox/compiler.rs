//! NVRTC in a process of its own (`cudalens kernel-host --compile`): a compilation that
//! never returns is killed at its deadline instead of running on in a thread of the app,
//! and a crash inside NVRTC ends that process, not the app. The process stays up between
//! compilations (NVRTC's first compilation in a process is the slow one) and is started
//! again after it was killed.
//!
//! The app and the CLI turn this on at start ([`compile_in_own_process`]); elsewhere
//! (tests, tools) [`compile`] runs NVRTC on a thread, as `user_kernel::compile` does.
//! Compilations never wait for each other: one that starts while another runs gets a
//! process of its own.

use super::error::SandboxError;
use super::process::{HostCommand, HostProcess, Phase};
use super::protocol::{Reply, Request};
use crate::user_kernel::compile::{compile_with, CompileError, CompileOptions, CompiledKernel};
use crate::user_kernel::nvrtc;
use crate::user_kernel::KernelSource;
use std::sync::{Mutex, RwLock};
use std::time::Duration;

/// How long the compiler process may take to start and say hello.
const START_DEADLINE: Duration = Duration::from_secs(10);

/// The compiler process's command, once the app or the CLI asked for one.
static COMMAND: RwLock<Option<HostCommand>> = RwLock::new(None);
/// A compiler process waiting for the next compilation. A compilation takes it out while
/// it runs, so a second compilation meanwhile starts its own (never waits for the first)
/// and the one that finishes last is not kept.
static IDLE: Mutex<Option<HostProcess>> = Mutex::new(None);

/// Makes [`compile`] run NVRTC in `command`'s process from now on, or on a thread with
/// None (an idle compiler process is stopped).
pub fn compile_in(command: Option<HostCommand>) {
    *COMMAND.write().unwrap_or_else(|p| p.into_inner()) = command;
    // Dropping the process kills it.
    drop(IDLE.lock().unwrap_or_else(|p| p.into_inner()).take());
}

/// Makes [`compile`] run NVRTC in `cudalens kernel-host --compile` of this binary. Without
/// it (or when this binary cannot be found) NVRTC runs on a thread.
pub fn compile_in_own_process() {
    match HostCommand::this_binary_compiler() {
        Ok(command) => compile_in(Some(command)),
        Err(e) => log::warn!("user kernels compile in this process: {e}"),
    }
}

/// Compiles `source` like `user_kernel::compile`, with NVRTC in a compiler process when
/// one was set up.
pub fn compile(
    source: &KernelSource,
    options: &CompileOptions,
) -> Result<CompiledKernel, CompileError> {
    let command = COMMAND.read().unwrap_or_else(|p| p.into_inner()).clone();
    let Some(command) = command else {
        return crate::user_kernel::compile(source, options);
    };
    let host = IDLE.lock().unwrap_or_else(|p| p.into_inner()).take();
    let mut compiler = Compiler { command, host };
    let result = compile_with(source, options, |unit, arch, deadline| {
        compiler.run(unit, arch, deadline)
    });
    if let Some(host) = compiler.host {
        let mut idle = IDLE.lock().unwrap_or_else(|p| p.into_inner());
        if idle.is_none() {
            *idle = Some(host);
        }
    }
    result
}

/// A compiler process for one compilation.
struct Compiler {
    command: HostCommand,
    host: Option<HostProcess>,
}

impl Compiler {
    fn run(
        &mut self,
        unit: String,
        arch: &str,
        deadline: Duration,
    ) -> Result<nvrtc::Output, CompileError> {
        let host = match self.host.as_mut() {
            Some(host) => host,
            None => {
                let host = HostProcess::spawn(&self.command, START_DEADLINE).map_err(|e| {
                    CompileError::Nvrtc(format!("cannot start the compiler process: {e}"))
                })?;
                self.host.insert(host)
            }
        };
        let request = Request::Compile {
            arch: arch.into(),
            unit,
        };
        let reply = host.request(&request, None, Phase::Compile, deadline);
        match reply {
            Ok(Reply::Compiled { ptx, log, failure }) => Ok(nvrtc::Output { ptx, log, failure }),
            Ok(Reply::Failed(f)) => {
                if f.fatal {
                    self.host = None;
                }
                Err(CompileError::Nvrtc(f.message))
            }
            Ok(_) => {
                self.host = None;
                Err(CompileError::Nvrtc(
                    "the compiler process answered something else".into(),
                ))
            }
            // Dropping the process kills it: the next compilation starts a new one.
            Err(e) => {
                self.host = None;
                Err(match e {
                    SandboxError::CompileTimeout(d) => CompileError::Timeout(d),
                    SandboxError::HostCrashed(signal) => {
                        CompileError::Nvrtc(format!("NVRTC crashed ({signal}) on this kernel"))
                    }
                    e => CompileError::Nvrtc(format!("the compiler process: {e}")),
                })
            }
        }
    }
}
