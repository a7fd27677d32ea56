//! What a frame did and how long each stage took.

use super::BackendKind;
use crate::ops::Histogram;

/// One timed stage.
#[derive(Debug, Clone, PartialEq)]
pub struct StageTime {
    pub name: String,
    pub ms: f64,
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
        self.stages.iter().map(|s| s.ms).sum()
    }
}

pub(super) fn stages_from(pairs: Vec<(String, f64)>) -> Vec<StageTime> {
    pairs
        .into_iter()
        .map(|(name, ms)| StageTime { name, ms })
        .collect()
}
