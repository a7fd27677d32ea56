//! The Mandelbrot explorer's contract and CPU reference: the view (of the Mandelbrot set or
//! of a Julia set), the per-pixel evaluation (dwell and continuous escape value),
//! Mariani–Silver refinement and its tuning, colouring, bookmarks and the settings of a picture, and deep views below f64's
//! precision (`deep`: exact decimal locations, perturbation). The CUDA renderer is in
//! `pipeline::explorer::cuda_mandelbrot`; this module depends on nothing of ours.

mod bookmarks;
mod coloring;
mod cpu;
pub mod deep;
mod deep_settings;
mod dwell_exr;
mod dwell_source;
mod fractal;
mod mariani_silver;
mod ms_stats;
mod overlay;
mod palette;
mod palette_file;
mod pan;
mod place;
mod poster;
mod rect;
mod refinement;
mod settings;
mod tuning;
mod view;

pub use bookmarks::BOOKMARKS;
pub use coloring::{shade, Coloring, DENSITY_RANGE, DISTANCE_WIDTH_RANGE, GRADIENT_STEPS};
pub use cpu::{
    distance, distance_after_escape, dwell_at, escape, escape_from, evaluate, smooth_after_escape,
    SMOOTH_BAILOUT_SQ, SMOOTH_EXTRA_MAX,
};
pub use deep_settings::JULIA_START;
pub use dwell_exr::{
    read_dwells_exr, write_dwells_exr, DwellExrError, DE_CHANNEL, DWELL_CHANNEL, NU_CHANNEL,
};
pub use dwell_source::{distances_from, render_per_pixel, render_per_pixel_from, DwellSource};
pub use fractal::{Fractal, FractalKind, JuliaC};
pub use mariani_silver::{render_mariani_silver, render_mariani_silver_from, MsRecord, RectKind};
pub use ms_stats::MsStats;
pub use overlay::{draw_overlay, kind_color};
pub use palette::{Gradient, GradientError, Palette, PaletteChoice, Stop, MAX_STOPS};
pub use palette_file::{load_map, parse_map, MapError, MAP_MAX_BYTES, MAP_MAX_COLOURS};
pub use pan::{pan_offset, panned_dwells, whole_pixels};
pub use place::{check_max_dwell, Place, MAX_DWELL_RANGE};
pub use poster::{
    tile_settings, PosterPlan, PosterTile, MAX_POSTER_SIDE, POSTER_BAND_ROWS, POSTER_TILE_WIDTH,
};
pub use rect::{coons, GridLines, Rect};
pub use refinement::{Refinement, CHILD_GRIDS_TUNING, NESTED_TUNING};
pub use settings::MandelbrotSettings;
pub use tuning::{MsTuning, TuningError, MS_DEEP_TUNING, MS_MAX_LEVELS, MS_TUNINGS};
pub use view::{parse_center as parse_center_arg, Mode, Precision, View};

/// Largest max dwell (deep views need 10⁵ and more).
pub const MAX_DWELL_LIMIT: u32 = 1 << 20;
/// Largest width or height of a rendered picture (the command line, the explorer's saves).
pub const MAX_RENDER_SIDE: u32 = 32768;
/// Largest max dwell a 16-bit dwell PNG can hold.
pub const MAX_DWELL_16_BIT: u32 = 65535;

/// The dwells of a view, row-major, one per pixel, with the continuous escape values and
/// the distance estimates (in pixels, 0 inside) when they were asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Dwells {
    pub width: u32,
    pub height: u32,
    pub values: Vec<u32>,
    pub smooth: Option<Vec<f32>>,
    pub distance: Option<Vec<f32>>,
}

impl Dwells {
    /// Number of pixels whose dwells differ.
    pub fn mismatches(&self, other: &Dwells) -> usize {
        self.values
            .iter()
            .zip(&other.values)
            .filter(|(a, b)| a != b)
            .count()
            + self.values.len().abs_diff(other.values.len())
    }

    /// Whether they hold what `coloring` reads: continuous values for smooth colouring,
    /// distance estimates for distance shading.
    pub fn can_colour(&self, coloring: &Coloring) -> bool {
        (!coloring.smooth || self.smooth.is_some())
            && (coloring.distance.is_none() || self.distance.is_some())
    }

    /// The dwells as 16-bit grey samples (clamped at [`MAX_DWELL_16_BIT`]), big-endian as
    /// a 16-bit PNG's rows hold them.
    pub fn to_be16_bytes(&self) -> Vec<u8> {
        self.values.iter().flat_map(|&d| dwell_be16(d)).collect()
    }
}

/// One dwell as a big-endian 16-bit grey sample, clamped at [`MAX_DWELL_16_BIT`].
pub fn dwell_be16(d: u32) -> [u8; 2] {
    (d.min(MAX_DWELL_16_BIT) as u16).to_be_bytes()
}
