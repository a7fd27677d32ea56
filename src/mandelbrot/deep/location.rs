//! `DeepLocation`: where a view is, exactly (decimal centre and span), with zoom and pan in
//! exact decimal arithmetic; `DeepView` adds the image size and max dwell.

use super::{fixed, Dd, Decimal, DeepError, FloatExp};
use crate::mandelbrot::{Fractal, View};

/// Smallest span a view may have (the limit of [`Decimal`]'s digits, with room to spare).
pub const MIN_SPAN_EXP10: i64 = -1000;
/// Largest span (the whole set is 3 wide; anything much wider shows nothing new).
pub const MAX_SPAN: f64 = 1e6;
/// Digits of the centre kept below one pixel after a zoom or pan (invisible, and keeps the
/// strings from growing without end while panning).
const DIGITS_BELOW_PIXEL: i64 = 8;

/// Centre (re, im) and span (the real-axis width) of a view, as exact decimals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeepLocation {
    pub re: Decimal,
    pub im: Decimal,
    pub span: Decimal,
}

/// A deep location of a fractal rendered at a size with a max dwell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeepView {
    pub location: DeepLocation,
    pub width: u32,
    pub height: u32,
    pub max_dwell: u32,
    pub fractal: Fractal,
}

impl DeepView {
    /// The exact location of an f64 view, at its size.
    pub fn from_view(view: &View) -> Result<Self, DeepError> {
        Ok(Self {
            location: DeepLocation::from_view(view)?,
            width: view.width,
            height: view.height,
            max_dwell: view.max_dwell,
            fractal: view.fractal,
        })
    }
}

/// Checks a span: positive and within [1e-1000, 1e6].
fn check_span(span: &Decimal) -> Result<(), DeepError> {
    if span.is_negative() || span.is_zero() {
        return Err(DeepError::Span(format!("{span}: must be positive")));
    }
    if span.leading_exponent() < MIN_SPAN_EXP10 {
        return Err(DeepError::Span(format!(
            "{span}: deeper than the supported 1e{MIN_SPAN_EXP10}"
        )));
    }
    if span.to_f64() > MAX_SPAN {
        return Err(DeepError::Span(format!("{span}: at most {MAX_SPAN}")));
    }
    Ok(())
}

impl DeepLocation {
    /// Parses "RE,IM" and a span, each any decimal (e.g. "-1.7…,0.0…" and "1e-250").
    pub fn parse(center: &str, span: &str) -> Result<Self, DeepError> {
        let (re, im) = center
            .split_once(',')
            .ok_or_else(|| DeepError::Invalid(format!("{center}: expected RE,IM")))?;
        Self::new(re.parse()?, im.parse()?, span.parse()?)
    }

    /// A location from decimals, with the span checked.
    pub fn new(re: Decimal, im: Decimal, span: Decimal) -> Result<Self, DeepError> {
        check_span(&span)?;
        Ok(Self { re, im, span })
    }

    /// The exact location of an f64 view.
    pub fn from_view(view: &View) -> Result<Self, DeepError> {
        Self::from_f64(view.center, view.span)
    }

    /// The exact location of an f64 centre and span.
    pub fn from_f64(center: (f64, f64), span: f64) -> Result<Self, DeepError> {
        Self::new(
            Decimal::from_f64(center.0)?,
            Decimal::from_f64(center.1)?,
            Decimal::from_f64(span)?,
        )
    }

    /// Width of one pixel: S / W.
    pub fn pixel_size(&self, width: u32) -> FloatExp {
        FloatExp::from_decimal(&self.span).div_f64(f64::from(width.max(1)))
    }

    /// The pixel size as a double-double (the perturbation path's δc), from the exact span
    /// (0 below f64's range: that path stops at 2⁻⁹⁶⁰).
    pub fn pixel_size_dd(&self, width: u32) -> Dd {
        let below = (-self.pixel_size(width).log2()).ceil().max(0.0) as usize;
        let bits = below + 120;
        Dd::from_fixed(&fixed::pixel_step(&self.span, width, bits), bits)
    }

    /// Writes the nearest f64 centre and span into `view` (the span at least the smallest
    /// normal f64, so the f64 paths never see zero).
    pub fn write_f64(&self, view: &mut View) {
        view.center = (self.re.to_f64(), self.im.to_f64());
        view.span = self.span.to_f64().max(f64::MIN_POSITIVE);
    }

    /// Whether `view`'s centre and span are this location's f64 rounding (what
    /// [`DeepLocation::write_f64`] writes): false once f64 code has moved the view.
    pub fn matches_f64(&self, view: &View) -> bool {
        let mut rounded = *view;
        self.write_f64(&mut rounded);
        (rounded.center, rounded.span) == (view.center, view.span)
    }

    /// Moves the centre by (dx, dy) (in the plane), rounded a few digits below a pixel.
    fn shift(&mut self, dx: FloatExp, dy: FloatExp, width: u32) -> Result<(), DeepError> {
        let pixel = self.pixel_size(width);
        let quantum =
            (pixel.log2() / std::f64::consts::LOG2_10).floor() as i64 - DIGITS_BELOW_PIXEL;
        let re = self.re.add(&dx.to_decimal(quantum))?.round_to(quantum);
        let im = self.im.add(&dy.to_decimal(quantum))?.round_to(quantum);
        (self.re, self.im) = (re, im);
        Ok(())
    }

    /// Where `other`'s centre lies from this one's, in pixels of a view `width` wide (x to
    /// the right, y down), when both have the same span; None for another span or an offset
    /// beyond f64.
    pub fn pixels_to(&self, other: &DeepLocation, width: u32) -> Option<(f64, f64)> {
        if self.span != other.span {
            return None;
        }
        let pixel = self.pixel_size(width);
        let pixels = |d: Decimal| {
            let d = FloatExp::from_decimal(&d);
            let v = d.m / pixel.m * 2f64.powi(d.e - pixel.e);
            v.is_finite().then_some(v)
        };
        let dx = pixels(other.re.add(&self.re.neg()).ok()?)?;
        let dy = pixels(self.im.add(&other.im.neg()).ok()?)?;
        Some((dx, dy))
    }

    /// Moves the view by a pixel offset (drag): the centre goes by (−dx, +dy) pixels.
    pub fn pan_pixels(&mut self, width: u32, dx: f64, dy: f64) -> Result<(), DeepError> {
        let pixel = self.pixel_size(width);
        self.shift(pixel.mul_f64(-dx), pixel.mul_f64(dy), width)
    }

    /// Zooms by `factor` (< 1 zooms in) keeping the point under pixel (px, py) fixed; the
    /// span stays within [1e-1000, 16] like the f64 view's.
    pub fn zoom_at(
        &mut self,
        (width, height): (u32, u32),
        (px, py): (f64, f64),
        factor: f64,
    ) -> Result<(), DeepError> {
        let pixel = self.pixel_size(width);
        let dx = pixel.mul_f64((px - f64::from(width) * 0.5) * (1.0 - factor));
        let dy = pixel.mul_f64(-(py - f64::from(height) * 0.5) * (1.0 - factor));
        let span = FloatExp::from_decimal(&self.span).mul_f64(factor);
        let quantum = (span.log2() / std::f64::consts::LOG2_10).floor() as i64 - 16;
        let mut span = span.to_decimal(quantum);
        let min: Decimal = format!("1e{MIN_SPAN_EXP10}").parse()?;
        if span.leading_exponent() < MIN_SPAN_EXP10 {
            span = min;
        }
        if span.to_f64() > 16.0 {
            span = Decimal::from_f64(16.0)?;
        }
        self.shift(dx, dy, width)?;
        self.span = span;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_checks() {
        let loc = DeepLocation::parse("-1.5,0.25", "1e-250").expect("location");
        assert_eq!(loc.span.scientific(), "1e-250");
        assert!(DeepLocation::parse("1", "1").is_err());
        assert!(DeepLocation::parse("1,x", "1").is_err());
        assert!(DeepLocation::parse("0,0", "-1").is_err());
        assert!(DeepLocation::parse("0,0", "0").is_err());
        assert!(DeepLocation::parse("0,0", "1e-1001").is_err());
        assert!(DeepLocation::parse("0,0", "1e7").is_err());
        let p = loc.pixel_size(1000);
        assert!((p.log2() - (-253.0 * std::f64::consts::LOG2_10)).abs() < 1e-9);
    }

    #[test]
    fn zoom_and_pan_agree_with_the_f64_view() {
        let mut view = View::default();
        let mut deep = DeepLocation::from_view(&view).expect("finite");
        view.zoom_at(100.5, 200.5, 0.5);
        deep.zoom_at((view.width, view.height), (100.5, 200.5), 0.5)
            .expect("zoom");
        view.pan_pixels(10.0, -7.0);
        deep.pan_pixels(view.width, 10.0, -7.0).expect("pan");
        let mut approx = view;
        deep.write_f64(&mut approx);
        // The exact centre is rounded 8 digits below a pixel (0.0015 here: to 1e-11).
        assert!((approx.center.0 - view.center.0).abs() < 1e-10);
        assert!((approx.center.1 - view.center.1).abs() < 1e-10);
        assert!((approx.span - view.span).abs() < 1e-15);
    }

    #[test]
    fn zooms_far_below_f64_and_keeps_short_strings() {
        let mut deep = DeepLocation::parse("-0.75,0.1", "3").expect("location");
        for _ in 0..3400 {
            deep.zoom_at((1920, 1080), (1000.0, 500.0), 0.5)
                .expect("zoom");
        }
        assert_eq!(deep.span.scientific(), "1e-1000");
        let digits = deep.re.to_string().len();
        assert!(digits < 1030, "{digits} characters");
        let before = deep;
        deep.pan_pixels(1920, 1.0, 0.0).expect("pan");
        let moved = FloatExp::from_decimal(&before.re.add(&deep.re.neg()).expect("difference"));
        let pixel = deep.pixel_size(1920);
        assert!((moved.log2() - pixel.log2()).abs() < 1e-6);
    }
}
