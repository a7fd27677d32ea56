//! Which Mariani–Silver tuning a picture uses when none is given: the fastest measured one,
//! or one that shows the recursion at any size (the explorer's "refinement" choice,
//! `--refinement` on the command line).

use super::{MsTuning, MS_DEEP_TUNING};

/// Three levels inside each block (64 → 32 → 16 px cells), no child grid.
pub const NESTED_TUNING: MsTuning = MsTuning {
    init_size: 64,
    subdiv: 2,
    leaf_size: 16,
    launch_min_pixels: 1 << 30,
    lookahead: 1,
};

/// The fastest tuning with child grids at 16384² (`cudalens-bench --ms-sweep`; the measured
/// tuning there until the in-block nesting of `MS_TUNINGS` beat it): 256 px cells launch
/// child grids (CDP2) for their lines and their 64 px cells, which refine in their blocks
/// down to 16 px.
pub const CHILD_GRIDS_TUNING: MsTuning = MsTuning {
    init_size: 256,
    subdiv: 4,
    leaf_size: 16,
    launch_min_pixels: 65536,
    lookahead: 1,
};

// The preset's first cells are large enough to launch child grids.
const _: () = assert!(
    CHILD_GRIDS_TUNING.launch_min_pixels
        <= CHILD_GRIDS_TUNING.init_size * CHILD_GRIDS_TUNING.init_size
);

/// How a Mariani–Silver picture is cut when no tuning is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Refinement {
    /// The fastest measured for the view: one level of 16 px cells up to 3840×2160 (one
    /// grid, no nesting), then nested in each block: 32 → 8 px up to 4096², 64 → 16 px up
    /// to 8192², 128 → 16 px above; deep views one level of 128 px cells.
    #[default]
    Measured,
    /// Three levels nested inside each block (64, 32, 16 px): the recursion without child
    /// grids, slower at window sizes.
    Nested,
    /// Dynamic parallelism at every size: 256 px cells launch child grids, nested three
    /// levels deep (the fastest tuning with child grids at 16384²), slower at window sizes.
    ChildGrids,
}

impl Refinement {
    pub const ALL: [Refinement; 3] = [
        Refinement::Measured,
        Refinement::Nested,
        Refinement::ChildGrids,
    ];

    /// The tuning of a `width × height` view (`deep`: perturbation dwells).
    pub fn tuning(self, deep: bool, width: u32, height: u32) -> MsTuning {
        match self {
            Refinement::Measured if deep => MS_DEEP_TUNING,
            Refinement::Measured => MsTuning::for_size(width, height),
            Refinement::Nested => NESTED_TUNING,
            Refinement::ChildGrids => CHILD_GRIDS_TUNING,
        }
    }

    /// A short name for the explorer.
    pub fn label(self) -> &'static str {
        match self {
            Refinement::Measured => "measured",
            Refinement::Nested => "nested",
            Refinement::ChildGrids => "child grids",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_a_valid_tuning_with_nesting_where_it_says() {
        for r in Refinement::ALL {
            for (deep, w, h) in [(false, 1920, 1080), (false, 16384, 16384), (true, 640, 360)] {
                r.tuning(deep, w, h).validate().expect("valid tuning");
            }
        }
        assert_eq!(NESTED_TUNING.levels(), 3);
        assert_eq!(CHILD_GRIDS_TUNING.levels(), 3);
        assert_eq!(
            Refinement::Measured.tuning(false, 1920, 1080),
            MsTuning::for_size(1920, 1080)
        );
        assert_eq!(
            Refinement::Measured.tuning(true, 1920, 1080),
            MS_DEEP_TUNING
        );
    }

    #[test]
    fn every_choice_has_a_description_for_help_and_the_explorer() {
        use clap::ValueEnum;
        for r in Refinement::ALL {
            let help = r.to_possible_value().and_then(|v| v.get_help().cloned());
            assert!(help.is_some_and(|h| h.to_string().len() > 20), "{r:?}");
        }
    }
}
