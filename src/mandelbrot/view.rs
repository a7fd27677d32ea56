//! The view: centre, span and size, with the pixel → point mapping of the contract, and
//! the fractal it shows.

use super::fractal::Fractal;
use std::str::FromStr;

/// What part of the plane a W×H image shows, and of which fractal. `span` is the width on
/// the real axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    pub center: (f64, f64),
    pub span: f64,
    pub width: u32,
    pub height: u32,
    pub max_dwell: u32,
    pub fractal: Fractal,
}

/// Per-pixel escape time, or Mariani–Silver refinement. The UI, the CLI and the benchmarks
/// iterate [`Mode::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    PerPixel,
    MarianiSilver,
}

impl Mode {
    /// Every mode, in the order the UI and the benchmarks list them.
    pub const ALL: [Mode; 2] = [Mode::PerPixel, Mode::MarianiSilver];

    /// The name on the command line and in saved settings.
    pub fn name(self) -> &'static str {
        match self {
            Mode::PerPixel => "per-pixel",
            Mode::MarianiSilver => "mariani-silver",
        }
    }

    /// The name shown in the UI.
    pub fn label(self) -> &'static str {
        match self {
            Mode::PerPixel => "per-pixel",
            Mode::MarianiSilver => "Mariani–Silver",
        }
    }

    /// One line on what the mode computes.
    pub fn describe(self) -> &'static str {
        match self {
            Mode::PerPixel => "the escape time of every pixel",
            Mode::MarianiSilver => {
                "Mariani–Silver: rectangles whose border has one dwell are filled, the rest split"
            }
        }
    }

    /// The mode's place in [`Mode::ALL`] (for per-mode arrays).
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Floating-point precision of the GPU iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Precision {
    F32,
    F64,
    Auto,
    /// f64 differences from an arbitrary-precision reference orbit (`mandelbrot::deep`).
    Perturbation,
    /// Perturbation with a separate exponent, for pixels below f64's range.
    Extended,
}

impl Default for View {
    fn default() -> Self {
        Self {
            center: (-0.5, 0.0),
            span: 3.0,
            width: 1024,
            height: 768,
            max_dwell: 1024,
            fractal: Fractal::Mandelbrot,
        }
    }
}

impl View {
    /// z₀ and c of the iteration at pixel (x, y): (point, point) for the Mandelbrot set,
    /// (point, fixed c) for a Julia set.
    #[inline]
    pub fn start(&self, x: u32, y: u32) -> ((f64, f64), (f64, f64)) {
        let p = self.point(x, y);
        match &self.fractal {
            Fractal::Mandelbrot => (p, p),
            Fractal::Julia { c } => (p, c.to_f64()),
        }
    }

    /// Width of one pixel in the plane: S / W.
    pub fn pixel_size(&self) -> f64 {
        self.span / f64::from(self.width.max(1))
    }

    /// The point of pixel (x, y) (c for the Mandelbrot set, z₀ for a Julia set): (cx + (x + 0.5 − W/2)·S/W, cy − (y + 0.5 − H/2)·S/W).
    pub fn point(&self, x: u32, y: u32) -> (f64, f64) {
        let step = self.pixel_size();
        (
            self.center.0 + (f64::from(x) + 0.5 - f64::from(self.width) * 0.5) * step,
            self.center.1 - (f64::from(y) + 0.5 - f64::from(self.height) * 0.5) * step,
        )
    }

    /// f32 while a pixel is at least 2⁻¹⁴ of the coordinates' magnitude (f32 keeps
    /// ~10 bits below the pixel for the iteration), f64 beyond.
    pub fn resolve_precision(&self, requested: Precision) -> Precision {
        match requested {
            Precision::Auto => {
                let magnitude = self.center.0.abs().max(self.center.1.abs()).max(1.0);
                if self.pixel_size() >= magnitude * 2f64.powi(-14) {
                    Precision::F32
                } else {
                    Precision::F64
                }
            }
            p => p,
        }
    }

    /// Zooms by `factor` (< 1 zooms in) keeping the plane point under pixel (px, py) fixed.
    pub fn zoom_at(&mut self, px: f64, py: f64, factor: f64) {
        let step = self.pixel_size();
        let dx = (px - f64::from(self.width) * 0.5) * step;
        let dy = (py - f64::from(self.height) * 0.5) * step;
        self.center.0 += dx * (1.0 - factor);
        self.center.1 -= dy * (1.0 - factor);
        self.span = (self.span * factor).clamp(1e-13, 16.0);
    }

    /// The view a fraction `t` (0..=1) of the way along a zoom to (`center`, `span`): the
    /// span changes geometrically and the centre moves with it, so that the point the
    /// zoom closes in on keeps its place in the frame.
    pub fn zoom_toward(&self, center: (f64, f64), span: f64, t: f64) -> View {
        let s = self.span * (span / self.span).powf(t);
        let k = if (self.span - span).abs() > f64::EPSILON * self.span {
            (self.span - s) / (self.span - span)
        } else {
            t
        };
        View {
            center: (
                self.center.0 + (center.0 - self.center.0) * k,
                self.center.1 + (center.1 - self.center.1) * k,
            ),
            span: s,
            ..*self
        }
    }

    /// Moves the view by a pixel offset (drag).
    pub fn pan_pixels(&mut self, dx: f64, dy: f64) {
        let step = self.pixel_size();
        self.center.0 -= dx * step;
        self.center.1 += dy * step;
    }
}

/// Parses "RE,IM".
pub fn parse_center(text: &str) -> Result<(f64, f64), String> {
    let (re, im) = text
        .split_once(',')
        .ok_or_else(|| format!("'{text}': expected RE,IM"))?;
    let parse = |s: &str| f64::from_str(s.trim()).map_err(|_| format!("'{s}' is not a number"));
    let c = (parse(re)?, parse(im)?);
    if c.0.is_finite() && c.1.is_finite() {
        Ok(c)
    } else {
        Err(format!("'{text}': not finite"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_are_listed_once_under_their_command_line_names() {
        use clap::ValueEnum;
        assert_eq!(Mode::ALL.len(), Mode::value_variants().len());
        for (i, mode) in Mode::ALL.into_iter().enumerate() {
            assert_eq!(mode.index(), i);
            let value = mode.to_possible_value().expect("every mode is a value");
            assert_eq!(mode.name(), value.get_name());
            assert!(!mode.describe().is_empty() && !mode.label().is_empty());
        }
    }

    #[test]
    fn pixel_centres_follow_the_contract() {
        let v = View {
            center: (-0.5, 0.25),
            span: 2.0,
            width: 4,
            height: 2,
            max_dwell: 10,
            fractal: Fractal::Mandelbrot,
        };
        assert_eq!(v.point(0, 0), (-0.5 - 0.75, 0.25 + 0.25));
        assert_eq!(v.point(3, 1), (-0.5 + 0.75, 0.25 - 0.25));
    }

    #[test]
    fn zoom_keeps_the_point_under_the_cursor() {
        let mut v = View::default();
        let before = v.point(100, 200);
        v.zoom_at(100.5, 200.5, 0.5);
        let after = v.point(100, 200);
        assert!((before.0 - after.0).abs() < 1e-3 * v.span);
        assert!((before.1 - after.1).abs() < 1e-3 * v.span);
    }

    #[test]
    fn a_zoom_path_runs_from_the_view_to_the_target() {
        let v = View::default();
        let (c, s) = ((-0.745, 0.113), 1e-3);
        assert_eq!(v.zoom_toward(c, s, 0.0), v);
        let end = v.zoom_toward(c, s, 1.0);
        assert!((end.span - s).abs() < 1e-15 && (end.center.0 - c.0).abs() < 1e-12);
        let mid = v.zoom_toward(c, s, 0.5);
        assert!((mid.span - (v.span * s).sqrt()).abs() < 1e-12);
        // The fixed point of the zoom stays at the same place in every frame.
        let p = (
            (c.0 * v.span - v.center.0 * s) / (v.span - s),
            (c.1 * v.span - v.center.1 * s) / (v.span - s),
        );
        for f in [v, mid, end] {
            let at = ((p.0 - f.center.0) / f.span, (p.1 - f.center.1) / f.span);
            let want = ((p.0 - v.center.0) / v.span, (p.1 - v.center.1) / v.span);
            assert!((at.0 - want.0).abs() < 1e-9 && (at.1 - want.1).abs() < 1e-9);
        }
    }

    #[test]
    fn precision_switches_to_f64_when_zoomed() {
        let mut v = View::default();
        assert_eq!(v.resolve_precision(Precision::Auto), Precision::F32);
        v.span = 1e-9;
        assert_eq!(v.resolve_precision(Precision::Auto), Precision::F64);
        assert_eq!(v.resolve_precision(Precision::F32), Precision::F32);
    }

    #[test]
    fn parses_centres() {
        assert_eq!(parse_center("-0.5,0"), Ok((-0.5, 0.0)));
        assert!(parse_center("1").is_err());
        assert!(parse_center("x,1").is_err());
        assert!(parse_center("nan,1").is_err());
    }
}
