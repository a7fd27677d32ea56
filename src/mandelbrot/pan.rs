//! Panning without recomputing what is already on screen (as XaoS does): when a view is
//! another one moved by whole pixels, its dwells are the other's, shifted, except for the
//! strips the move exposed, which are computed. A deep view's exposed strips iterate around
//! the moved view's own reference orbit, the kept pixels stay those of the old one's.
//!
//! A kept pixel's point was computed from the old centre, a fresh one's would be from the
//! new: the same point to within the last bits of f64 (and the millionth of a pixel to
//! which panning rounds the centre). At the boundary of the set a dwell can hang on those
//! bits, so a fresh render of the moved view can differ at a few pixels in ten thousand
//! (measured in the tests); the next zoom or change of dwell renders every pixel again.

use super::{DwellSource, Dwells, MandelbrotSettings, View};
use rayon::prelude::*;

/// How far from a whole number of pixels a move may be and still count as one.
const WHOLE_PIXEL: f64 = 1e-6;

/// The move (dx, dy) in whole pixels that takes `old` to `new` (new pixel (x, y) shows old
/// pixel (x + dx, y + dy)), when `new` is `old` moved and nothing else (colour and overlay
/// aside), both in f64 or both deep in the same precision; None otherwise, or when nothing
/// of `old` stays in view.
pub fn pan_offset(old: &MandelbrotSettings, new: &MandelbrotSettings) -> Option<(i64, i64)> {
    let deep = old.deep_precision();
    if deep != new.deep_precision() {
        return None;
    }
    let moved_only = MandelbrotSettings {
        view: View {
            center: new.view.center,
            ..old.view
        },
        deep: new.deep,
        coloring: new.coloring.clone(),
        overlay: new.overlay,
        ..old.clone()
    };
    if moved_only != *new {
        return None;
    }
    let (fx, fy) = if deep.is_some() {
        let (from, to) = (old.location().ok()?, new.location().ok()?);
        from.pixels_to(&to, old.view.width)?
    } else {
        let step = old.view.pixel_size();
        (
            (new.view.center.0 - old.view.center.0) / step,
            -(new.view.center.1 - old.view.center.1) / step,
        )
    };
    let (dx, dy) = whole_pixels((fx, fy))?;
    let (w, h) = (old.view.width as i64, old.view.height as i64);
    let overlaps = dx.abs() < w && dy.abs() < h;
    (overlaps && (dx, dy) != (0, 0)).then_some((dx, dy))
}

/// A move in pixels as whole pixels, when it is one to within [`WHOLE_PIXEL`].
pub fn whole_pixels((fx, fy): (f64, f64)) -> Option<(i64, i64)> {
    let (dx, dy) = (fx.round(), fy.round());
    let whole = (fx - dx).abs() < WHOLE_PIXEL && (fy - dy).abs() < WHOLE_PIXEL;
    whole.then_some((dx as i64, dy as i64))
}

/// The dwells of `source` (the moved view) from `old`'s moved by `(dx, dy)` (see
/// [`pan_offset`]): the pixels still in view copied, the exposed ones computed, rows in
/// parallel. Returns them and how many pixels were computed.
pub fn panned_dwells(
    old: &Dwells,
    (dx, dy): (i64, i64),
    source: &impl DwellSource,
) -> (Dwells, u64) {
    let (width, height) = source.size();
    let w = width as usize;
    let smooth = old.smooth.is_some();
    let distance = old.distance.is_some();
    let old_at = |x: u32, y: u32| -> Option<usize> {
        let (ox, oy) = (i64::from(x) + dx, i64::from(y) + dy);
        let inside =
            (0..i64::from(old.width)).contains(&ox) && (0..i64::from(old.height)).contains(&oy);
        inside.then(|| oy as usize * old.width as usize + ox as usize)
    };
    let kept = |values: &Option<Vec<f32>>, i: usize| values.as_ref().map_or(0.0, |v| v[i]);
    let max_dwell = source.max_dwell();
    type Row = (Vec<u32>, Vec<f32>, Vec<f32>, u64);
    let rows: Vec<Row> = (0..height)
        .into_par_iter()
        .map(|y| {
            let mut values = Vec::with_capacity(w);
            let mut continuous = Vec::with_capacity(if smooth { w } else { 0 });
            let mut distances = Vec::with_capacity(if distance { w } else { 0 });
            let mut computed = 0;
            for x in 0..width {
                let (d, s, e) = match old_at(x, y) {
                    Some(i) => (old.values[i], kept(&old.smooth, i), kept(&old.distance, i)),
                    None => {
                        computed += 1;
                        let (d, s) = source.pixel(x, y, smooth);
                        let e = if distance && d < max_dwell {
                            source.distance(x, y)
                        } else {
                            0.0
                        };
                        (d, s, e)
                    }
                };
                values.push(d);
                if smooth {
                    continuous.push(s);
                }
                if distance {
                    distances.push(e);
                }
            }
            (values, continuous, distances, computed)
        })
        .collect();
    let n = w * height as usize;
    let mut values = Vec::with_capacity(n);
    let mut continuous = Vec::new();
    let mut distances = Vec::new();
    let mut computed = 0;
    for (v, s, e, c) in rows {
        values.extend(v);
        continuous.extend(s);
        distances.extend(e);
        computed += c;
    }
    let dwells = Dwells {
        width,
        height,
        values,
        smooth: smooth.then_some(continuous),
        distance: distance.then_some(distances),
    };
    (dwells, computed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::{render_per_pixel, Mode, Precision};

    fn settings(center: (f64, f64), span: f64, (w, h): (u32, u32)) -> MandelbrotSettings {
        MandelbrotSettings {
            view: View {
                center,
                span,
                width: w,
                height: h,
                max_dwell: 512,
                ..View::default()
            },
            precision: Precision::F64,
            mode: Mode::PerPixel,
            ..MandelbrotSettings::default()
        }
    }

    #[test]
    fn only_whole_pixel_moves_of_the_same_view_are_pans() {
        let old = settings((-0.75, 0.1), 0.5, (200, 100));
        let mut new = old.clone();
        new.pan_pixels(-20.0, 7.0); // a drag left and down: new pixel (x, y) was (x + 20, y − 7)
        assert_eq!(pan_offset(&old, &new), Some((20, -7)));
        let mut half = old.clone();
        half.pan_pixels(10.5, 0.0);
        assert_eq!(pan_offset(&old, &half), None, "half a pixel");
        let mut zoomed = new.clone();
        zoomed.view.span *= 0.5;
        assert_eq!(pan_offset(&old, &zoomed), None, "another span");
        let mut deeper = new.clone();
        deeper.view.max_dwell = 600;
        assert_eq!(pan_offset(&old, &deeper), None, "another max dwell");
        let mut far = old.clone();
        far.pan_pixels(-250.0, 0.0);
        assert_eq!(pan_offset(&old, &far), None, "nothing left in view");
        assert_eq!(pan_offset(&old, &old), None, "no move");
        let mut recoloured = new.clone();
        recoloured.coloring.density = 3.0;
        assert!(
            pan_offset(&old, &recoloured).is_some(),
            "colour is not the dwells'"
        );
    }

    #[test]
    fn deep_views_pan_by_whole_pixels_of_their_exact_location() {
        let b = crate::mandelbrot::deep::find_bookmark("Spiral by c = i, period-137")
            .expect("bookmark");
        let mut old = settings((0.0, 0.0), 1.0, (160, 90));
        old.precision = MandelbrotSettings::default().precision;
        old.set_location(b.location().expect("location"));
        assert!(old.deep_precision().is_some(), "a deep view");
        let mut new = old.clone();
        new.pan_pixels(-13.0, 7.0);
        assert_eq!(pan_offset(&old, &new), Some((13, -7)));
        let mut half = old.clone();
        half.pan_pixels(2.5, 0.0);
        assert_eq!(pan_offset(&old, &half), None, "half a pixel");
        let mut zoomed = new.clone();
        zoomed.zoom_at(80.0, 45.0, 0.5);
        assert_eq!(pan_offset(&old, &zoomed), None, "another span");
        let mut shallow = new.clone();
        shallow.set_location(
            crate::mandelbrot::deep::DeepLocation::parse("-0.75,0.1", "0.5").expect("location"),
        );
        assert_eq!(pan_offset(&old, &shallow), None, "deep to f64");
        let mut far = old.clone();
        far.pan_pixels(0.0, 95.0);
        assert_eq!(pan_offset(&old, &far), None, "nothing left in view");
    }

    /// A pan by a tenth of the view computes a tenth of the pixels, and its dwells are the
    /// fresh render's but at the rare pixels whose dwell hangs on the last bits of its point.
    #[test]
    fn a_tenth_pan_computes_a_tenth_and_matches_a_fresh_render() {
        for (center, span) in [
            ((-0.75, 0.1), 0.5),
            ((-0.7435, 0.1314), 0.002),
            ((0.25, 0.0), 3.0),
        ] {
            let old = settings(center, span, (320, 200));
            let kept = render_per_pixel(&old.view, true);
            for (mx, my) in [(32.0, 0.0), (-32.0, 20.0), (0.0, -20.0)] {
                let mut new = old.clone();
                new.pan_pixels(mx, my);
                let offset = pan_offset(&old, &new).expect("a pan");
                let (panned, computed) = panned_dwells(&kept, offset, &new.view);
                let fresh = render_per_pixel(&new.view, true);
                let n = u64::from(new.view.width) * u64::from(new.view.height);
                let exposed = (mx.abs() as u64) * 200 + (my.abs() as u64) * 320
                    - (mx.abs() as u64) * (my.abs() as u64);
                assert_eq!(computed, exposed, "{center:?} by ({mx}, {my})");
                assert!(computed * 100 <= n * 19, "a tenth of the width and height");
                let differ = panned.mismatches(&fresh);
                println!("{center:?} span {span} by ({mx}, {my}): computed {computed} of {n}; {differ} dwells unlike a fresh render");
                assert!(differ as u64 * 1000 <= n, "{differ} of {n} differ");
                assert_eq!(panned.smooth.as_ref().map(Vec::len), Some(n as usize));
            }
        }
    }
}
