//! Mariani–Silver refinement parameters, in pixels. The CUDA kernel and the CPU reference
//! take the same values, so both cut the image into the same rectangles.

use thiserror::Error;

/// Levels of rectangles at most (the kernel keeps their sizes in a fixed array).
pub const MS_MAX_LEVELS: usize = 12;

/// How the refinement cuts the image. Level k rectangles are cells of spacing
/// `init_size / subdiv^k` pixels; the last level has spacing `leaf_size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct MsTuning {
    /// Spacing in pixels of the first grid (level 0): `leaf_size · subdiv^k`.
    pub init_size: u32,
    /// A split cuts each side of a rectangle into this many parts.
    pub subdiv: u32,
    /// Spacing of the smallest rectangles, which are evaluated pixel by pixel when their
    /// border is not uniform.
    pub leaf_size: u32,
    /// A rectangle with (x1−x0)·(y1−y0) of at least this many pixels that must be split
    /// launches child grids (CDP2) for its lines and its parts; a smaller one is refined
    /// inside its block. Uniform rectangles this large are filled by a child grid.
    pub launch_min_pixels: u32,
    /// Inside a block, the borders of this many levels are evaluated in one pass before
    /// the block decides on them (1: level by level; more: fewer passes, some pixels of
    /// rectangles that are then filled are evaluated in vain).
    pub lookahead: u32,
}

/// Why a tuning cannot be used.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum TuningError {
    #[error("invalid Mariani–Silver tuning {0:?}: {1}")]
    Invalid(MsTuning, &'static str),
}

/// The tunings chosen by `cudalens bench --ms-sweep` on an H200 (docs/gpu-runs.md), by
/// image size: the first whose pixel limit the view does not exceed.
///
/// Up to 4096²: one level of 16-pixel cells, each filled or evaluated whole. On the GPU it
/// runs as one grid (`kernels/mandelbrot_fused.cuh`), where no cell waits for all the
/// lines. Every further level is a dependent pass, and a pass holding a pixel at the max
/// dwell lasts that pixel's latency (0.30 ms at 8192), so nesting costs more than its fills
/// save: at window sizes the best nested tuning reaches 1.07× per-pixel where this one
/// reaches 1.56× (geometric means, run 90), and at 4096² (−0.5, 0) it is 2.07× / 3.52× at
/// max dwell 512 / 2048 against 1.34× / 2.24× for the best tuning with child grids. (The
/// three-level in-block tuning that served 4K until session 12 fell to 0.18× on the triple
/// spiral at 3840×2160.)
///
/// Larger: 64-pixel cells nested inside their blocks, 64 → 16 px, no child grid. With many
/// waves of blocks a dependent pass no longer idles the GPU, and nesting saves the lines
/// that one level of 16 px evaluates. `bench --ms-sweep` (runs 139–140, 50 tunings on the
/// goal points, the finalists on the bookmarks from 1920×1080 to 16384²): at 16384² 5.7× /
/// 9.8× on the goal points (max dwell 512 / 2048) against 2.9× / 8.8× for the best tuning
/// with child grids (256 px cells, now `CHILD_GRIDS_TUNING`) and 2.3× / 4.3× for one level
/// of 16 px, and on the bookmarks 2.6–3.3× (no view slower than per-pixel) against
/// 1.6–3.3× (worst 0.74×); at 8192² 2.1–2.6× against 1.5–2.2×. At 4096² and below it
/// loses on the bookmarks (4096², max dwell 8192: 1.49× against 2.18×), so one level of
/// 16 px keeps the class up to 4096².
pub const MS_TUNINGS: [(u64, MsTuning); 2] = [
    (
        4096 * 4096,
        MsTuning {
            init_size: 16,
            subdiv: 2,
            leaf_size: 16,
            launch_min_pixels: 1 << 30,
            lookahead: 1,
        },
    ),
    (
        u64::MAX,
        MsTuning {
            init_size: 64,
            subdiv: 4,
            leaf_size: 16,
            launch_min_pixels: 1 << 30,
            lookahead: 1,
        },
    ),
];

/// The tuning for deep views (perturbation dwells), chosen by `cudalens bench --deep
/// --ms-sweep` on an H200 (docs/gpu-runs.md, run 36): one level of 128-pixel cells, each
/// filled when its border is uniform, else evaluated whole by a child grid. A deep pixel
/// costs hundreds of plain ones and these views have few uniform regions, so the passes of
/// the in-block refinement (each waiting for its slowest pixel) cost more than its fills
/// save: 0.61× per-pixel with the window tuning, 0.90× with this one.
pub const MS_DEEP_TUNING: MsTuning = MsTuning {
    init_size: 128,
    subdiv: 2,
    leaf_size: 128,
    launch_min_pixels: 32 * 32,
    lookahead: 1,
};

impl MsTuning {
    /// The measured tuning for a `width × height` image.
    pub fn for_size(width: u32, height: u32) -> MsTuning {
        let pixels = u64::from(width) * u64::from(height);
        MS_TUNINGS
            .iter()
            .find(|(limit, _)| pixels <= *limit)
            .map_or(MS_TUNINGS[MS_TUNINGS.len() - 1].1, |(_, t)| *t)
    }

    /// Number of levels: init_size = leaf_size · subdiv^(levels − 1).
    pub fn levels(&self) -> usize {
        let mut n = 1;
        let mut s = self.init_size;
        while s > self.leaf_size && self.subdiv >= 2 {
            s /= self.subdiv;
            n += 1;
        }
        n
    }

    /// The most rectangles a refinement of a `width`×`height` view can decide (each is
    /// recorded once for the overlay): every level's grid, as if every rectangle split.
    pub fn record_bound(&self, width: u32, height: u32) -> usize {
        (0..self.levels())
            .map(|k| {
                let s = self.size(k).max(1);
                width.div_ceil(s) as usize * height.div_ceil(s) as usize
            })
            .sum()
    }

    /// Spacing of level `k` rectangles.
    pub fn size(&self, level: usize) -> u32 {
        self.init_size / self.subdiv.pow(level as u32)
    }

    /// Checks the values the kernel relies on.
    pub fn validate(&self) -> Result<(), TuningError> {
        let bad = |why| Err(TuningError::Invalid(*self, why));
        if self.subdiv < 2 || self.subdiv > 16 {
            return bad("subdiv must be 2..=16");
        }
        if self.leaf_size < 2 {
            return bad("leaf_size must be at least 2");
        }
        if self.init_size < self.leaf_size || self.init_size > 8192 {
            return bad("init_size must be leaf_size..=8192");
        }
        if self.lookahead == 0 {
            return bad("lookahead must be at least 1");
        }
        let levels = self.levels();
        if levels > MS_MAX_LEVELS {
            return bad("too many levels");
        }
        if self.size(levels - 1) != self.leaf_size
            || (0..levels).any(|k| self.size(k) * self.subdiv.pow(k as u32) != self.init_size)
        {
            return bad("init_size must be leaf_size times a power of subdiv");
        }
        Ok(())
    }
}

impl Default for MsTuning {
    fn default() -> Self {
        MS_TUNINGS[0].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chosen_tunings_are_valid() {
        for (_, t) in MS_TUNINGS {
            t.validate().expect("valid");
        }
        assert_eq!(MsTuning::for_size(1920, 1080), MS_TUNINGS[0].1);
        assert_eq!(MsTuning::for_size(4096, 4096), MS_TUNINGS[0].1);
        assert_eq!(MsTuning::for_size(4097, 4096), MS_TUNINGS[1].1);
        assert_eq!(MsTuning::for_size(16384, 16384), MS_TUNINGS[1].1);
    }

    #[test]
    fn levels_follow_the_sizes() {
        let t = MsTuning {
            init_size: 256,
            subdiv: 4,
            leaf_size: 4,
            launch_min_pixels: 1,
            lookahead: 1,
        };
        assert_eq!(t.levels(), 4);
        assert_eq!(
            (0..4).map(|k| t.size(k)).collect::<Vec<_>>(),
            [256, 64, 16, 4]
        );
        assert!(MsTuning { leaf_size: 8, ..t }.validate().is_err());
        assert!(MsTuning { subdiv: 1, ..t }.validate().is_err());
        assert!(MsTuning { lookahead: 0, ..t }.validate().is_err());
        assert!(MsTuning { init_size: 4, ..t }.validate().is_ok());
    }
}
