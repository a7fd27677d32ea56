//! Test-only fault injection, so the GPU fallbacks can be proven on a real device:
//! `CUDALENS_FAULT` holds a comma-separated list of faults to inject. Unset (always, in
//! normal use) nothing changes. Each fault makes one real code path fail the way the
//! driver would: an allocation reports out of memory, a launch or registration fails,
//! or the device-side launch queue is made too small for Mariani–Silver's children.

use std::sync::OnceLock;

/// A fault that can be injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// `cuArray3DCreate` of an intermediate texture array reports out of memory.
    OomTexture,
    /// The separable filters' scratch allocation reports out of memory.
    OomScratch,
    /// Every filter kernel launch is refused.
    Launch,
    /// The device-side launch queue holds one launch and Mariani–Silver launches a child
    /// grid for every rectangle it splits: child launches really fail on the device (the
    /// kernel counts them, the host refuses the result).
    ChildLaunch,
    /// Registering a GL texture with CUDA, or importing the memory shared with GL, fails
    /// (as with a lost or foreign GL context).
    Register,
}

impl Fault {
    fn name(self) -> &'static str {
        match self {
            Fault::OomTexture => "oom-texture",
            Fault::OomScratch => "oom-scratch",
            Fault::Launch => "launch",
            Fault::ChildLaunch => "child-launch",
            Fault::Register => "register",
        }
    }
}

fn configured() -> &'static [String] {
    static FAULTS: OnceLock<Vec<String>> = OnceLock::new();
    FAULTS.get_or_init(|| {
        std::env::var("CUDALENS_FAULT")
            .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default()
    })
}

/// Whether `fault` is to be injected in this process.
pub fn injected(fault: Fault) -> bool {
    let on = configured().iter().any(|f| f == fault.name());
    if on {
        log::warn!("injecting fault {} (CUDALENS_FAULT)", fault.name());
    }
    on
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_injected_without_the_variable() {
        if std::env::var_os("CUDALENS_FAULT").is_none() {
            for f in [
                Fault::OomTexture,
                Fault::OomScratch,
                Fault::Launch,
                Fault::ChildLaunch,
                Fault::Register,
            ] {
                assert!(!injected(f));
            }
        }
    }
}
