//! NVRTC in a process of its own (`cudalens kernel-host --compile`): a compilation that
//! never returns is killed at its deadline instead of running on in a thread of the app,
//! and a crash inside NVRTC ends that process, not the app. The process stays up between
//! compilations (NVRTC's first compilation in a process is the slow one) and is started
//! again after it was killed.
//!
//! The app and the CLI turn this on at start ([`compile_in_own_process`]); elsewhere
//! (tests, tools) [`compile`] runs NVRTC on a thread, as `user_kernel::compile` does.

use super::error::SandboxError;
use super::process::{HostCommand, HostProcess, Phase};
use super::protocol::{Reply, Request};
use crate::user_kernel::compile::{compile_with, CompileError, CompileOptions, CompiledKernel};
use crate::user_kernel::nvrtc;
use crate::user_kernel::KernelSource;
use std::sync::Mutex;
use std::time::Duration;

/// How long the compiler process may take to start and say hello.
const START_DEADLINE: Duration = Duration::from_secs(10);

/// The compiler process, started on first use.
struct Compiler {
    command: HostCommand,
    host: Option<HostProcess>,
}

/// Set once the app or the CLI asks for it; one compilation at a time.
static COMPILER: Mutex<Option<Compiler>> = Mutex::new(None);

/// Makes [`compile`] run NVRTC in `command`'s process from now on, or on a thread with
/// None (a running compiler process is stopped).
pub fn compile_in(command: Option<HostCommand>) {
    let mut compiler = COMPILER.lock().unwrap_or_else(|p| p.into_inner());
    *compiler = command.map(|command| Compiler {
        command,
        host: None,
    });
}

/// Makes [`compile`] run NVRTC in `cudalens kernel-host --compile` of this binary. Without
/// it (or when this binary cannot be found) NVRTC runs on a thread.
pub fn compile_in_own_process() {
    match HostCommand::this_binary_compiler() {
        Ok(command) => compile_in(Some(command)),
        Err(e) => log::warn!("user kernels compile in this process: {e}"),
    }
}

/// Compiles `source` like `user_kernel::compile`, with NVRTC in the compiler process when
/// one was set up.
pub fn compile(
    source: &KernelSource,
    options: &CompileOptions,
) -> Result<CompiledKernel, CompileError> {
    // A compilation that panicked left nothing half-done behind the lock.
    let mut guard = COMPILER.lock().unwrap_or_else(|p| p.into_inner());
    match guard.as_mut() {
        Some(compiler) => compile_with(source, options, |unit, arch, deadline| {
            compiler.run(unit, arch, deadline)
        }),
        None => {
            drop(guard);
            crate::user_kernel::compile(source, options)
        }
    }
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
