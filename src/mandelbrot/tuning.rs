//! Mariani–Silver refinement parameters, in pixels. The CUDA kernel and the CPU reference
//! take the same values, so both cut the image into the same rectangles.

use thiserror::Error;

/// Levels of rectangles at most (the kernel keeps their sizes in a fixed array).
pub const MS_MAX_LEVELS: usize = crate::kernel_constants::MS_MAX_LEVELS as usize;

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

/// The tunings chosen by `cudalens-bench --ms-sweep` on an H200 (docs/design/mariani-silver.md), by
/// image size: the first whose pixel limit the view does not exceed.
///
/// Up to 3840×2160: one level of 16-pixel cells, each filled or evaluated whole. On the
/// GPU it runs as one grid (`kernels/mandelbrot_fused.cuh`), where no cell waits for all
/// the lines. Every further level is a dependent pass, and a pass holding a pixel at the
/// max dwell lasts that pixel's latency (0.30 ms at 8192), so at these sizes nesting costs
/// more than its fills save: at 1920×1080 the best nested tuning reaches 0.99–1.20× per-pixel
/// where this one reaches 1.60–1.66× (geometric means of the bookmarks), and at
/// 3840×2160, max dwell 8192, 32 → 8 px drops to 1.83× (worst view 0.62×) against 2.12×.
///
/// Larger, the cells nest inside their blocks, with no child grid: with many waves of
/// blocks a dependent pass no longer idles the GPU, and nesting saves the lines that one
/// level of 16 px evaluates. A block's fills take no work list and its lanes are refilled
/// (`kernels/mandelbrot.cu`, `ms_run_refilled`). `cudalens-bench --ms-sweep` (64 tunings on
/// the goal points, the finalists on the bookmarks from 1920×1080 to 16384²), against one
/// level of 16 px:
/// - up to 4096²: 32 → 8 px (subdivision 4). At 4096² 3.2× / 4.7–4.8× on the goal view (max
///   dwell 512 / 2048) against 2.4× / 3.9×, and on the bookmarks 2.06× / 2.26× (max dwell
///   1024 / 8192) against 1.79× / 2.19×; its worst view is 0.86× (1.00×).
/// - up to 8192²: 64 → 16 px (subdivision 4). At 8192² 5.5× / 8.1× on the goal view and
///   2.4–3.5× on the bookmarks (worst 1.20×) against 2.5× / 4.4× and 1.6–2.3×.
/// - larger: 128 → 64 → 32 → 16 px. At 16384² 7.6–7.8× / 12.9–13.5× on the goal view
///   against 7.9× / 13.2× for 64 → 16 px, and 2.8–4.5× on the bookmarks.
///   Every tuning with child grids loses at every size up to 16384² (the best, 256 px
///   cells, now `CHILD_GRIDS_TUNING`: 3.4× / 10.2× there).
///
/// Above 3840×2160 these three run as one grid of line tiles and cells
/// (`kernels/mandelbrot_fused.cuh`), whose cells fill the lines' last wave: on the goal
/// view 3.2× / 5.0–5.1× at 4096² and 8.1× / 13.9–14.0× at 16384² (docs/performance.md).
pub const MS_TUNINGS: [(u64, MsTuning); 4] = [
    (
        3840 * 2160,
        MsTuning {
            init_size: 16,
            subdiv: 2,
            leaf_size: 16,
            launch_min_pixels: 1 << 30,
            lookahead: 1,
        },
    ),
    (
        4096 * 4096,
        MsTuning {
            init_size: 32,
            subdiv: 4,
            leaf_size: 8,
            launch_min_pixels: 1 << 30,
            lookahead: 1,
        },
    ),
    (
        8192 * 8192,
        MsTuning {
            init_size: 64,
            subdiv: 4,
            leaf_size: 16,
            launch_min_pixels: 1 << 30,
            lookahead: 1,
        },
    ),
    (
        u64::MAX,
        MsTuning {
            init_size: 128,
            subdiv: 2,
            leaf_size: 16,
            launch_min_pixels: 1 << 30,
            lookahead: 1,
        },
    ),
];

/// The tuning for deep views (perturbation dwells), chosen by `cudalens-bench --deep
/// --ms-sweep` on an H200: one level of 128-pixel cells, each
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
        assert_eq!(MsTuning::for_size(3840, 2160), MS_TUNINGS[0].1);
        assert_eq!(MsTuning::for_size(3841, 2160), MS_TUNINGS[1].1);
        assert_eq!(MsTuning::for_size(4096, 4096), MS_TUNINGS[1].1);
        assert_eq!(MsTuning::for_size(4097, 4096), MS_TUNINGS[2].1);
        assert_eq!(MsTuning::for_size(8192, 8192), MS_TUNINGS[2].1);
        assert_eq!(MsTuning::for_size(16384, 16384), MS_TUNINGS[3].1);
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
