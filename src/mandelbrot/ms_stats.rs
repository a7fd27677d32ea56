//! What a Mariani–Silver refinement did, in numbers (the overlay's caption, `--overlay`).

use super::{GridLines, MsRecord, MsTuning, RectKind, View};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct MsStats {
    /// Rectangles filled from a uniform border.
    pub filled: u64,
    /// Rectangles split into the next level's cells.
    pub split: u64,
    /// Last-level rectangles evaluated pixel by pixel.
    pub leaves: u64,
    /// Levels with at least one rectangle.
    pub depth: u32,
    /// Child grids launched on the device (None on the CPU).
    pub child_grids: Option<u64>,
    /// Pixels whose dwell was iterated (on the GPU including the lines a block evaluated
    /// ahead for rectangles that were then filled).
    pub evaluated_pixels: u64,
}

impl MsStats {
    /// The statistics of a refinement from its records (what the CPU reference did).
    pub fn from_records(records: &[MsRecord], view: &View, tuning: &MsTuning) -> Self {
        let count = |k| records.iter().filter(|r| r.kind == k).count() as u64;
        let lines = GridLines {
            width: view.width,
            height: view.height,
            s: tuning.init_size,
        };
        let evaluated = lines.pixel_count()
            + records
                .iter()
                .map(|r| match r.kind {
                    RectKind::Split => r.rect.line_pixel_count(tuning.size(r.level as usize + 1)),
                    RectKind::Leaf => r.rect.interior_pixels(),
                    RectKind::Fill => 0,
                })
                .sum::<u64>();
        Self {
            filled: count(RectKind::Fill),
            split: count(RectKind::Split),
            leaves: count(RectKind::Leaf),
            depth: records.iter().map(|r| r.level + 1).max().unwrap_or(0),
            child_grids: None,
            evaluated_pixels: evaluated,
        }
    }

    /// One line: "412 filled, 97 split, 380 per-pixel, 0 child grids, depth 4, 9.1 % evaluated".
    pub fn summary(&self, pixels: u64) -> String {
        let grids = self
            .child_grids
            .map_or("no child grids (CPU)".to_string(), |n| {
                format!("{n} child grids")
            });
        format!(
            "{} filled, {} split, {} per-pixel, {grids}, depth {}, {:.1} % of pixels evaluated",
            self.filled,
            self.split,
            self.leaves,
            self.depth,
            100.0 * self.evaluated_pixels as f64 / pixels.max(1) as f64
        )
    }
}
