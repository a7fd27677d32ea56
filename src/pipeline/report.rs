//! What a frame did and how long each stage took.

use super::BackendKind;
use crate::ops::Histogram;

/// One timed stage.
#[derive(Debug, Clone, PartialEq)]
pub struct StageTime {
    pub name: String,
    pub ms: f64,
}

/// Ends the name of a stage timed on the CPU next to the GPU timeline (the driver calls of
/// a hand-over): shown with the stages, left out of their sum.
pub const CPU_STAGE_SUFFIX: &str = " (CPU)";

/// Ends the name of the part of a kernel-host stage that is not the kernel itself: the
/// copies into and out of the host's frame, the messages, and the GPU's switch to the
/// host's context and back. Part of the frame's sum.
pub const HAND_OVER_SUFFIX: &str = " (kernel host hand-over)";

/// The stage of a frame run wholly in the kernel host that is not the host's GPU work:
/// the hand-over of the shared objects, the messages, the host's launches. Part of the
/// frame's sum.
pub const KERNEL_HOST_STAGE: &str = "kernel host hand-over";

/// The name of the hand-over of the stage called `label`.
pub fn hand_over_stage(label: &str) -> String {
    format!("{label}{HAND_OVER_SUFFIX}")
}

/// Whether a stage of this name is part of the frame's sum (not a CPU-side reading beside
/// it).
pub fn counts_in_total(name: &str) -> bool {
    !name.ends_with(CPU_STAGE_SUFFIX)
}

impl StageTime {
    /// A stage called `name` that began at `start` and ends now.
    pub fn since(name: &str, start: std::time::Instant) -> Self {
        Self {
            name: name.into(),
            ms: start.elapsed().as_secs_f64() * 1e3,
        }
    }

    /// Whether the stage is part of the frame's sum (see [`counts_in_total`]).
    pub fn in_total(&self) -> bool {
        counts_in_total(&self.name)
    }
}

/// Sum of the stages that make up a frame's time.
pub fn total_of(stages: &[StageTime]) -> f64 {
    stages.iter().filter(|s| s.in_total()).map(|s| s.ms).sum()
}

/// Result of running the filter stack once.
#[derive(Debug, Clone)]
pub struct FrameReport {
    pub backend: BackendKind,
    pub width: u32,
    pub height: u32,
    pub histogram: Histogram,
    pub stages: Vec<StageTime>,
}

impl FrameReport {
    /// Sum of the stage times.
    pub fn total_ms(&self) -> f64 {
        total_of(&self.stages)
    }
}

pub(super) fn stages_from(pairs: Vec<(String, f64)>) -> Vec<StageTime> {
    pairs
        .into_iter()
        .map(|(name, ms)| StageTime { name, ms })
        .collect()
}
