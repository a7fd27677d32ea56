//! The deep-zoom side of [`MandelbrotSettings`]: the exact location, zoom and pan in exact
//! decimal arithmetic, and whether a view renders by perturbation.
//!
//! `settings.deep` is the exact location only while `settings.view` holds its f64 rounding:
//! code that moves only the f64 view (a plain zoom sequence, a renderer's f64 copy)
//! thereby returns to f64 locations without having to know about deep views. Navigation
//! (undo and redo, bookmarks, pasted views) moves exact [`Place`]s: `place` and `set_place`.

use super::deep::{choose_precision, is_deep, Decimal, DeepError, DeepLocation, DeepView};
use super::{Fractal, JuliaC, MandelbrotSettings, Place, Precision};

/// Where a Julia view starts: centred at 0, 4 wide.
pub const JULIA_START: (f64, f64, f64) = (0.0, 0.0, 4.0);

impl MandelbrotSettings {
    /// The exact location: `deep` when it still matches the f64 view, else the view's own.
    pub fn location(&self) -> Result<DeepLocation, DeepError> {
        match self.deep {
            Some(loc) if loc.matches_f64(&self.view) => Ok(loc),
            _ => DeepLocation::from_view(&self.view),
        }
    }

    /// The view as a deep view (exact location, size, max dwell).
    pub fn deep_view(&self) -> Result<DeepView, DeepError> {
        Ok(DeepView {
            location: self.location()?,
            width: self.view.width,
            height: self.view.height,
            max_dwell: self.view.max_dwell,
            fractal: self.view.fractal,
        })
    }

    /// Sets the exact location and the f64 view's approximation of it.
    pub fn set_location(&mut self, location: DeepLocation) {
        location.write_f64(&mut self.view);
        self.deep = Some(location);
    }

    /// Where the view is, exactly, with its max dwell.
    pub fn place(&self) -> Result<Place, DeepError> {
        Place::new(self.location()?, self.view.max_dwell)
    }

    /// Moves the view to `place` (its exact location and max dwell).
    pub fn set_place(&mut self, place: &Place) {
        self.set_location(place.location);
        self.view.max_dwell = place.max_dwell();
    }

    /// The perturbation precision this view renders with, if it is deep.
    pub fn deep_precision(&self) -> Option<Precision> {
        let location = self.location().ok()?;
        let p = choose_precision(self.precision, &location, self.view.width);
        is_deep(p).then_some(p)
    }

    /// Zooms by `factor` keeping the point under pixel (px, py) fixed, in exact decimals
    /// (no f64 floor). A location that cannot be represented leaves the view as it was.
    pub fn zoom_at(&mut self, px: f64, py: f64, factor: f64) {
        let size = (self.view.width, self.view.height);
        self.update_location(|l| l.zoom_at(size, (px, py), factor));
    }

    /// Moves the view by a pixel offset (drag), in exact decimals.
    pub fn pan_pixels(&mut self, dx: f64, dy: f64) {
        let width = self.view.width;
        self.update_location(|l| l.pan_pixels(width, dx, dy));
    }

    /// The exact point of the plane under pixel (px, py) (rounded a few digits below a
    /// pixel, as panning rounds): Julia's c picked there keeps the depth of the view.
    pub fn point_at(&self, px: f64, py: f64) -> Result<JuliaC, DeepError> {
        let mut l = self.location()?;
        let (w, h) = (self.view.width, self.view.height);
        l.pan_pixels(w, f64::from(w) * 0.5 - px, f64::from(h) * 0.5 - py)?;
        Ok(JuliaC::new(l.re, l.im))
    }

    /// Shows the Julia set of `c`, whole (centre 0, span 4).
    pub fn show_julia(&mut self, c: JuliaC) -> Result<(), DeepError> {
        let (re, im, span) = JULIA_START;
        let start = DeepLocation::new(
            Decimal::from_f64(re)?,
            Decimal::from_f64(im)?,
            Decimal::from_f64(span)?,
        )?;
        self.view.fractal = Fractal::Julia { c };
        self.set_location(start);
        Ok(())
    }

    fn update_location(&mut self, change: impl FnOnce(&mut DeepLocation) -> Result<(), DeepError>) {
        let result = self.location().and_then(|mut l| change(&mut l).map(|()| l));
        match result {
            Ok(l) => self.set_location(l),
            Err(e) => log::warn!("view unchanged: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::View;

    #[test]
    fn deep_zoom_goes_below_f64_and_back() {
        let mut s = MandelbrotSettings::default();
        assert_eq!(s.deep_precision(), None);
        for _ in 0..200 {
            s.zoom_at(10.0, 20.0, 0.5);
        }
        assert!(s.view.span < 1e-55 && s.view.span > 0.0);
        assert_eq!(s.deep_precision(), Some(Precision::Perturbation));
        let deep = s.location().expect("location");
        s.pan_pixels(3.0, -4.0);
        assert_ne!(s.location().expect("location"), deep);
        s.view = View::default();
        s.deep = None;
        assert_eq!(s.deep_precision(), None);
    }

    #[test]
    fn julia_c_is_the_exact_point_under_the_cursor() {
        let mut s = MandelbrotSettings::default();
        s.view.width = 200;
        s.view.height = 100;
        let loc = DeepLocation::parse(
            "-0.74364388703715870475219150611477,0.13182590420531197049313205638514",
            "1e-28",
        )
        .expect("location");
        s.set_location(loc);
        // The centre pixel's corner: exactly the centre.
        let c = s.point_at(100.0, 50.0).expect("c");
        assert_eq!((c.re(), c.im()), (&loc.re, &loc.im));
        // Ten pixels right and five up: the centre + (10, 5)·span/width, exactly.
        let c = s.point_at(110.0, 45.0).expect("c");
        let plus = |a: &Decimal, b: &str| a.add(&b.parse().expect("decimal")).expect("sum");
        assert_eq!(*c.re(), plus(&loc.re, "5e-30"));
        assert_eq!(*c.im(), plus(&loc.im, "2.5e-30"));
        s.show_julia(c).expect("julia");
        assert_eq!(s.view.fractal, Fractal::Julia { c });
        assert_eq!((s.view.center, s.view.span), ((0.0, 0.0), 4.0));
        assert_eq!(s.deep_precision(), None);
        assert_eq!(s.deep_view().expect("deep view").fractal, s.view.fractal);
    }

    #[test]
    fn moving_the_f64_view_leaves_the_deep_location() {
        let mut s = MandelbrotSettings::default();
        s.set_location(DeepLocation::parse("-1.25,0.01", "1e-30").expect("location"));
        assert!(s.deep_precision().is_some());
        let (w, h) = (s.view.width, s.view.height);
        s.view = View {
            width: w,
            height: h,
            ..View::default()
        };
        assert_eq!(s.deep_precision(), None);
        assert_eq!(
            s.location().expect("location"),
            DeepLocation::from_view(&s.view).expect("location")
        );
    }
}
