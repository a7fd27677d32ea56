//! One stage of a filter stack: a built-in [`Filter`] or a user kernel
//! ([`KernelStage`], `kernel:PATH.cu[,name=value...]`). Specs parse and print either.

use crate::filters::{Filter, FilterSpecError};
use crate::pixels::SampleType;
use crate::user_kernel::{KernelStage, KernelStageError, CPU_REASON, KERNEL_STAGE_NAME};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    Filter(Filter),
    Kernel(KernelStage),
}

#[derive(Debug, PartialEq, thiserror::Error)]
pub enum StageSpecError {
    #[error(transparent)]
    Filter(#[from] FilterSpecError),
    #[error(transparent)]
    Kernel(#[from] KernelStageError),
}

impl Stage {
    /// The name shown in the stack and the timings (`gaussian`, `kernel:vignette.cu`).
    pub fn label(&self) -> String {
        match self {
            Stage::Filter(f) => f.name().to_string(),
            Stage::Kernel(k) => k.label(),
        }
    }

    /// Output size for an input of `width × height` (a kernel keeps the size).
    pub fn output_size(&self, width: u32, height: u32) -> (u32, u32) {
        match self {
            Stage::Filter(f) => f.output_size(width, height),
            Stage::Kernel(_) => (width, height),
        }
    }

    /// Output size of `stages` run in order on a `width × height` input.
    pub fn chain_size(stages: &[Stage], width: u32, height: u32) -> (u32, u32) {
        stages
            .iter()
            .fold((width, height), |(w, h), s| s.output_size(w, h))
    }

    /// Bytes of device scratch the stage needs on an image stored as `layout` (a kernel
    /// has none).
    pub fn scratch_bytes(&self, width: u32, height: u32, layout: (SampleType, u8)) -> usize {
        match self {
            Stage::Filter(f) => f.def().ops.scratch_bytes(width, height, layout, f.params()),
            Stage::Kernel(_) => 0,
        }
    }

    pub fn filter(&self) -> Option<&Filter> {
        match self {
            Stage::Filter(f) => Some(f),
            Stage::Kernel(_) => None,
        }
    }

    pub fn filter_mut(&mut self) -> Option<&mut Filter> {
        match self {
            Stage::Filter(f) => Some(f),
            Stage::Kernel(_) => None,
        }
    }

    pub fn kernel_mut(&mut self) -> Option<&mut KernelStage> {
        match self {
            Stage::Kernel(k) => Some(k),
            Stage::Filter(_) => None,
        }
    }

    pub fn kernel(&self) -> Option<&KernelStage> {
        match self {
            Stage::Kernel(k) => Some(k),
            Stage::Filter(_) => None,
        }
    }
}

impl From<Filter> for Stage {
    fn from(f: Filter) -> Self {
        Stage::Filter(f)
    }
}

/// The built-in filters of `stages`, or why the CPU backend cannot run them (a user kernel).
pub fn cpu_filters(stages: &[Stage]) -> Result<Vec<Filter>, String> {
    stages
        .iter()
        .map(|s| match s {
            Stage::Filter(f) => Ok(*f),
            Stage::Kernel(k) => Err(format!(
                "{} {CPU_REASON}: the CPU backend cannot run it",
                k.label()
            )),
        })
        .collect()
}

/// `filters` as stages.
pub fn stages_of(filters: &[Filter]) -> Vec<Stage> {
    filters.iter().copied().map(Stage::Filter).collect()
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stage::Filter(filter) => filter.fmt(f),
            Stage::Kernel(k) => k.fmt(f),
        }
    }
}

impl FromStr for Stage {
    type Err = StageSpecError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        if let Some((name, rest)) = spec.split_once(':') {
            if name.trim().eq_ignore_ascii_case(KERNEL_STAGE_NAME) {
                return Ok(Stage::Kernel(KernelStage::from_spec(rest)?));
            }
        }
        Ok(Stage::Filter(spec.parse()?))
    }
}

/// The `--filter` parser: a stage specification, completions offering the filters' names
/// and `kernel:`.
pub fn stage_parser() -> crate::filters::SpecParser<Stage> {
    crate::filters::SpecParser::new(|| {
        let mut names = crate::filters::filter_names();
        names.push("kernel:".into());
        names
    })
}

/// The `--filter` help: the built-in filters and the user kernel syntax.
pub fn stage_spec_help() -> String {
    format!(
        "{}\n  {}",
        crate::filters::spec_help(),
        crate::user_kernel::stage::KERNEL_SPEC_HELP
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_and_kernels_parse_and_print() {
        let g: Stage = "gaussian:sigma=2".parse().unwrap();
        assert_eq!(g.label(), "gaussian");
        assert_eq!(g.to_string().parse::<Stage>().unwrap(), g);
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/kernels/vignette.cu");
        let k: Stage = format!("kernel:{path}").parse().unwrap();
        assert_eq!(k.label(), "kernel:vignette.cu");
        assert_eq!(k.to_string().parse::<Stage>().unwrap(), k);
        assert!(cpu_filters(&[g.clone(), k.clone()])
            .unwrap_err()
            .contains("needs CUDA and NVRTC"));
        assert_eq!(cpu_filters(&[g]).unwrap().len(), 1);
        let e = "kernel:/nonexistent/k.cu".parse::<Stage>().unwrap_err();
        assert!(e.to_string().contains("/nonexistent/k.cu"), "{e}");
        assert!("nosuchfilter".parse::<Stage>().is_err());
    }
}
