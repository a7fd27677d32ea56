//! Everything that decides a Mandelbrot picture.

use super::{Coloring, Mode, MsTuning, Precision, View};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MandelbrotSettings {
    pub view: View,
    pub mode: Mode,
    pub precision: Precision,
    pub coloring: Coloring,
    /// Keep the Mariani–Silver rectangles and their statistics (the overlay).
    pub overlay: bool,
    /// Refinement parameters; `None`: the measured ones for the view's size.
    pub tuning: Option<MsTuning>,
    /// The exact location of a deep view, valid while `view` holds its f64 rounding
    /// (`deep_settings.rs`); `None`: `view` is exact.
    pub deep: Option<super::deep::DeepLocation>,
}

impl Default for MandelbrotSettings {
    fn default() -> Self {
        Self {
            view: View::default(),
            mode: Mode::MarianiSilver,
            precision: Precision::Auto,
            coloring: Coloring::default(),
            overlay: false,
            tuning: None,
            deep: None,
        }
    }
}

impl MandelbrotSettings {
    /// The refinement parameters this picture uses: the given ones, else the measured ones
    /// for a deep view or for the view's size.
    pub fn tuning(&self) -> MsTuning {
        self.tuning.unwrap_or_else(|| {
            if self.deep_precision().is_some() {
                super::MS_DEEP_TUNING
            } else {
                MsTuning::for_size(self.view.width, self.view.height)
            }
        })
    }
}
