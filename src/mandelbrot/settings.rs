//! Everything that decides a Mandelbrot picture.

use super::{Coloring, Mode, MsTuning, Precision, Refinement, View};

#[derive(Debug, Clone, PartialEq)]
pub struct MandelbrotSettings {
    pub view: View,
    pub mode: Mode,
    pub precision: Precision,
    pub coloring: Coloring,
    /// Keep the Mariani–Silver rectangles and their statistics (the overlay).
    pub overlay: bool,
    /// How to cut the picture when `tuning` is `None`.
    pub refinement: Refinement,
    /// Refinement parameters; `None`: those of `refinement` for the view.
    pub tuning: Option<MsTuning>,
    /// The exact location of a deep view, valid while `view` holds its f64 rounding
    /// (`deep_settings.rs`); `None`: `view` is exact.
    pub deep: Option<super::deep::DeepLocation>,
    /// Deep views skip iterations by bivariate linear approximation (`deep/bla.rs`).
    pub bla: bool,
}

impl MandelbrotSettings {
    /// Whether `self` and `other` give the same dwells: they differ at most in colouring
    /// and overlay (so a recolour can reuse the other's dwells).
    pub fn same_dwells(&self, other: &MandelbrotSettings) -> bool {
        let colour_only = MandelbrotSettings {
            coloring: self.coloring.clone(),
            overlay: self.overlay,
            ..other.clone()
        };
        colour_only == *self
    }
}

impl Default for MandelbrotSettings {
    fn default() -> Self {
        Self {
            view: View::default(),
            mode: Mode::MarianiSilver,
            precision: Precision::Auto,
            coloring: Coloring::default(),
            overlay: false,
            refinement: Refinement::Measured,
            tuning: None,
            deep: None,
            bla: true,
        }
    }
}

impl MandelbrotSettings {
    /// The refinement parameters this picture uses: the given ones, else those of
    /// `refinement` for the view (deep or plain, and its size).
    pub fn tuning(&self) -> MsTuning {
        self.tuning.unwrap_or_else(|| {
            let deep = self.deep_precision().is_some();
            self.refinement
                .tuning(deep, self.view.width, self.view.height)
        })
    }
}
