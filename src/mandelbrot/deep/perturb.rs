//! Perturbation on the CPU: each pixel iterates δ_{k+1} = (2·Z_k + δ_k)·δ_k + δc along the
//! reference orbit (δ starts at the pixel's offset; δc is that offset for the Mandelbrot
//! set, 0 for a Julia set, whose c is the reference's), in double-double ([`Dd`]: pixels down to 2⁻⁹⁶⁰) or in [`ComplexExp`].
//! Written operation for operation like `kernels/perturbation.cuh` (no contraction into
//! fused multiply-adds; the FMAs of the double-double products are explicit on both sides),
//! so CPU and GPU dwells are equal.
//!
//! The pixel's z is Z_k + δ_k. The loop follows the contract (z = c, count z ← z² + c while
//! |z|² < 4 and n < max dwell). Before each step it rebases, δ ← Z_k + δ_k and k ← 0 (Z_0 = 0),
//! when |Z_k + δ_k| < |δ_k| (Zhuoran's glitch avoidance) or when k is the last index of its
//! segment (the reference escaped, or ended, before the pixel). A Julia set's orbit starts
//! with the critical orbit of its c, from 0, for rebasing ([`OrbitLayout`]).
//!
//! Why double-double and not f64: near a minibrot the dwell of a pixel can change when c
//! moves by 10⁻¹⁴ of a pixel (on the period-8007 bookmark, 6 of the 16 pixels f64 missed
//! do, 1 at 10⁻¹⁶, none at 10⁻¹⁸). In f64, δc (the step rounded), δ and Z_k each carry relative errors
//! of 2⁻⁵³, and |δ| is up to hundreds of pixels: an error of ~10⁻¹⁴ pixel in c, which made
//! 0.64 % of that view's pixels differ from direct iteration. δc, δ and Z_k all need the
//! extra bits (any one left in f64 still misses).

use super::bla::{apply_dd, apply_ext, fits_dd, fits_ext, BlaLevels, BlaTable, CDd};
use super::{ComplexExp, Dd, DeepView, FloatExp, OrbitLayout, ReferenceOrbit};
use crate::mandelbrot::cpu::{distance_after_escape, smooth_after_escape};
use crate::mandelbrot::{render_per_pixel_from, DwellSource, Dwells, Precision};

/// Where a pixel's iteration stopped: its dwell and its z = Z_k + δ_k there in f64 (|z|² ≥ 4
/// when the dwell is below the max dwell), from which the continuous escape value goes on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PixelEnd {
    pub dwell: u32,
    pub z: (f64, f64),
}

/// What a pixel's loop reports besides its dwell: each perturbation step (at the pixel's z)
/// and each BLA step (its A, B and length), their arguments built only when asked. `()`
/// tracks nothing and costs nothing; [`Derivative`] carries dz/dp (the kernels' `DZ`);
/// research tools count the steps.
pub trait Track {
    fn step(&mut self, z: impl FnOnce() -> ComplexExp);
    fn bla(&mut self, ab: impl FnOnce() -> (ComplexExp, ComplexExp), len: u32);
}

impl Track for () {
    #[inline]
    fn step(&mut self, _: impl FnOnce() -> ComplexExp) {}
    #[inline]
    fn bla(&mut self, _: impl FnOnce() -> (ComplexExp, ComplexExp), _: u32) {}
}

/// The derivative beside δ: w = dz/dp starts at the pixel size s and
/// takes w ← 2·z·w + a a step (a = s for the Mandelbrot set, 0 for a Julia set), w ← A·w + B·a
/// a BLA step (the derivative of A·δ + B·δc); rebasing leaves z, so w, as it is. Extended
/// exponents on both paths: w passes below f64's range on deep views.
#[derive(Debug, Clone, Copy)]
pub struct Derivative {
    pub w: ComplexExp,
    pub a: ComplexExp,
}

impl Derivative {
    /// Starts at pixel size `s`; `mandelbrot` says whether each step adds it.
    pub fn new(s: ComplexExp, mandelbrot: bool) -> Self {
        Self {
            w: s,
            a: if mandelbrot { s } else { ComplexExp::ZERO },
        }
    }
}

impl Track for Derivative {
    #[inline]
    fn step(&mut self, z: impl FnOnce() -> ComplexExp) {
        self.w = (z() * self.w).double() + self.a;
    }

    #[inline]
    fn bla(&mut self, ab: impl FnOnce() -> (ComplexExp, ComplexExp), _: u32) {
        let (a, b) = ab();
        self.w = a * self.w + b * self.a;
    }
}

/// The pixel's offset from the centre in steps: ((x + 0.5) − W·0.5, (y + 0.5) − H·0.5), exact.
fn steps(x: u32, y: u32, width: u32, height: u32) -> (f64, f64) {
    (
        (f64::from(x) + 0.5) - f64::from(width) * 0.5,
        (f64::from(y) + 0.5) - f64::from(height) * 0.5,
    )
}

/// δc of pixel (x, y) with the step's exponent kept apart (step mantissa times the steps).
pub fn offset_ext(x: u32, y: u32, width: u32, height: u32, step: FloatExp) -> ComplexExp {
    let (sx, sy) = steps(x, y, width, height);
    ComplexExp::new(sx * step.m, -(sy * step.m), step.e)
}

/// δc of pixel (x, y) as double-doubles: (steps_x · step, −(steps_y · step)).
pub fn offset_dd(x: u32, y: u32, width: u32, height: u32, step: Dd) -> [Dd; 2] {
    let (sx, sy) = steps(x, y, width, height);
    [step.mul_f64(sx), -step.mul_f64(sy)]
}

/// δ ← (2Z + δ)·δ + δc. The intermediate sums and products stay unnormalised: each feeds a
/// two-sum that absorbs it, and only the new δ is normalised.
fn step_dd([zr, zi]: [Dd; 2], [dr, di]: [Dd; 2], [cr, ci]: [Dd; 2]) -> [Dd; 2] {
    let ar = zr.double().add_raw(dr);
    let ai = zi.double().add_raw(di);
    let re = ar.mul_raw(dr).add_raw(-ai.mul_raw(di)) + cr;
    let im = ar.mul_raw(di).add_raw(ai.mul_raw(dr)) + ci;
    [re, im]
}

/// The dwell of the pixel at offset `offset` from the reference `orbit` (double-double
/// points laid out as `layout` says), taking the longest valid step of the BLA `table`
/// wherever one applies (`pt_dwell_dd<BLA>` in perturbation.cuh). The
/// escape and rebasing tests read only the high parts: they decide nothing finer than 2⁻⁵⁰
/// (rebasing is exact either way).
pub fn dwell_dd(
    orbit: &[[Dd; 2]],
    layout: OrbitLayout,
    table: Option<&BlaLevels<CDd>>,
    offset: [Dd; 2],
    max_dwell: u32,
    track: &mut impl Track,
) -> PixelEnd {
    let dc = if layout.offset_each_step {
        offset
    } else {
        [Dd::ZERO; 2]
    };
    let mut d = offset;
    let mut k = layout.start;
    let mut n = 0;
    loop {
        let mut z = orbit[k];
        let (hr, hi) = (z[0].hi + d[0].hi, z[1].hi + d[1].hi);
        let norm = hr * hr + hi * hi;
        if n >= max_dwell || norm >= 4.0 {
            return PixelEnd {
                dwell: n,
                z: (hr, hi),
            };
        }
        let segment_end = k == layout.last || k == layout.rebase_last;
        if segment_end || norm < d[0].hi * d[0].hi + d[1].hi * d[1].hi {
            (d, k) = ([z[0] + d[0], z[1] + d[1]], 0);
            z = orbit[0];
        }
        if let Some((e, len)) = table.and_then(|t| t.find(k, max_dwell - n, |e| fits_dd(d, e))) {
            let hi = |c: CDd| ComplexExp::new(c.re.hi, c.im.hi, 0);
            track.bla(|| (hi(e.a), hi(e.b)), len);
            d = apply_dd(e, d, dc);
            k += len as usize;
            n += len;
            continue;
        }
        track.step(|| ComplexExp::new(hr, hi, 0));
        d = step_dd(z, d, dc);
        k += 1;
        n += 1;
    }
}

/// The dwell of the pixel at offset `offset` from the reference `orbit`, extended
/// exponents, taking the longest valid step of the BLA `table` wherever one applies.
pub fn dwell_ext(
    orbit: &[ComplexExp],
    layout: OrbitLayout,
    table: Option<&BlaLevels<ComplexExp>>,
    offset: ComplexExp,
    max_dwell: u32,
    track: &mut impl Track,
) -> PixelEnd {
    let dc = if layout.offset_each_step {
        offset
    } else {
        ComplexExp::ZERO
    };
    let mut d = offset;
    let mut k = layout.start;
    let mut n = 0;
    loop {
        let z = orbit[k] + d;
        if n >= max_dwell || z.escaped() {
            return PixelEnd {
                dwell: n,
                z: z.to_f64(),
            };
        }
        if k == layout.last || k == layout.rebase_last || z.norm_less(d) {
            (d, k) = (z, 0);
        }
        if let Some((e, len)) = table.and_then(|t| t.find(k, max_dwell - n, |e| fits_ext(d, e))) {
            track.bla(|| (e.a, e.b), len);
            d = apply_ext(e, d, dc);
            k += len as usize;
            n += len;
            continue;
        }
        track.step(|| z);
        d = (orbit[k].double() + d) * d + dc;
        k += 1;
        n += 1;
    }
}

/// A deep view's pixels by perturbation around `orbit` (the reference at the view's
/// centre): the dwell source of the per-pixel render and of Mariani–Silver refinement.
pub struct Perturbation<'a> {
    view: &'a DeepView,
    orbit: &'a ReferenceOrbit,
    step: Step,
    bla: Option<&'a BlaTable>,
    /// c in f64 for the steps after escape: the centre (plus each pixel's offset) for the
    /// Mandelbrot set, the fixed c of a Julia set.
    c: (f64, f64),
}

/// The pixel size in the form the path iterates with.
#[derive(Clone, Copy)]
enum Step {
    DoubleDouble(Dd),
    Extended(FloatExp),
}

impl<'a> Perturbation<'a> {
    /// `precision` is `Extended` for the shared-exponent path; anything else takes
    /// double-double.
    pub fn new(view: &'a DeepView, orbit: &'a ReferenceOrbit, precision: Precision) -> Self {
        let step = if precision == Precision::Extended {
            Step::Extended(view.location.pixel_size(view.width))
        } else {
            Step::DoubleDouble(view.location.pixel_size_dd(view.width))
        };
        let c = match view.fractal.julia_c() {
            Some(c) => c.to_f64(),
            None => (view.location.re.to_f64(), view.location.im.to_f64()),
        };
        Self {
            view,
            orbit,
            step,
            bla: None,
            c,
        }
    }

    /// Takes BLA steps of `table` (built for this orbit and view on the same path; a
    /// table of the other path is not used).
    pub fn with_bla(mut self, table: Option<&'a BlaTable>) -> Self {
        self.bla = table;
        self
    }
}

impl DwellSource for Perturbation<'_> {
    fn size(&self) -> (u32, u32) {
        (self.view.width, self.view.height)
    }

    fn max_dwell(&self) -> u32 {
        self.view.max_dwell
    }

    fn pixel(&self, x: u32, y: u32, smooth: bool) -> (u32, f32) {
        let (end, c) = self.end(x, y, &mut ());
        let d = end.dwell;
        if !smooth || d >= self.view.max_dwell {
            return (d, d as f32);
        }
        (d, smooth_after_escape(d, end.z.0, end.z.1, c.0, c.1))
    }

    fn distance(&self, x: u32, y: u32) -> f32 {
        let mut der = Derivative::new(self.unit(), self.orbit.layout.offset_each_step);
        let (end, c) = self.end(x, y, &mut der);
        if end.dwell >= self.view.max_dwell {
            return 0.0;
        }
        let a = if self.orbit.layout.offset_each_step {
            self.unit().to_f64().0
        } else {
            0.0
        };
        distance_after_escape(end.z, der.w.to_f64(), c, a)
    }
}

impl Perturbation<'_> {
    /// The pixel size as the derivative's number type.
    fn unit(&self) -> ComplexExp {
        match self.step {
            Step::Extended(s) => ComplexExp::new(s.m, 0.0, s.e),
            Step::DoubleDouble(s) => ComplexExp::new(s.hi, 0.0, 0),
        }
    }

    /// Where pixel (x, y) stopped, its steps reported to `track`, and its c in f64 for the
    /// steps after escape.
    pub fn end(&self, x: u32, y: u32, track: &mut impl Track) -> (PixelEnd, (f64, f64)) {
        let (w, h, max_dwell) = (self.view.width, self.view.height, self.view.max_dwell);
        let (orbit, layout) = (self.orbit, self.orbit.layout);
        // A table of the other path's kind (none is built so) would be ignored.
        let (end, offset) = match self.step {
            Step::Extended(step) => {
                let offset = offset_ext(x, y, w, h, step);
                let table = self.bla.and_then(BlaTable::extended);
                let end = dwell_ext(&orbit.points, layout, table, offset, max_dwell, track);
                (end, offset.to_f64())
            }
            Step::DoubleDouble(step) => {
                let offset = offset_dd(x, y, w, h, step);
                let table = self.bla.and_then(BlaTable::double_double);
                let end = dwell_dd(&orbit.dd_points, layout, table, offset, max_dwell, track);
                (end, (offset[0].hi, offset[1].hi))
            }
        };
        let c = if layout.offset_each_step {
            (self.c.0 + offset.0, self.c.1 + offset.1)
        } else {
            self.c
        };
        (end, c)
    }
}

/// Every pixel's dwell by perturbation (`precision` is `Perturbation` or `Extended`), rows
/// in parallel, around `orbit` (the reference at the view's centre).
pub fn render_perturbation(
    view: &DeepView,
    orbit: &ReferenceOrbit,
    precision: Precision,
) -> Dwells {
    render_per_pixel_from(&Perturbation::new(view, orbit, precision), false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::deep::{direct_dwell, DeepLocation};
    use crate::mandelbrot::{render_per_pixel, View};
    use rayon::prelude::*;

    /// Relative difference allowed between a distance estimate and mpmath's: an f32 result
    /// of an f64 derivative whose relative error grows with the steps taken (and BLA's ε,
    /// 2⁻⁶⁴ and below, adds nothing visible).
    const DISTANCE_TOLERANCE: f64 = 1e-4;

    #[test]
    fn equals_f64_iteration_on_a_shallow_view() {
        let view = View {
            center: (-0.75, 0.1),
            span: 0.5,
            width: 61,
            height: 37,
            max_dwell: 300,
            fractal: crate::mandelbrot::Fractal::Mandelbrot,
        };
        let deep = DeepView::from_view(&view).expect("finite");
        let orbit = ReferenceOrbit::compute(&deep);
        let plain = render_per_pixel(&view, false);
        for p in [Precision::Perturbation, Precision::Extended] {
            let got = render_perturbation(&deep, &orbit, p);
            let bad = got.mismatches(&plain);
            assert!(bad <= 2, "{p:?}: {bad} of {} differ", plain.values.len());
        }
    }

    #[test]
    fn both_paths_equal_direct_iteration_deep() {
        // 1e-40 wide around a point of seahorse valley, whose centre escapes early: the
        // reference ends long before most pixels (rebasing at its end).
        let location = DeepLocation::parse(
            "-0.743643887037158704752191506114774,0.131825904205311970493132056385139",
            "4e-33",
        )
        .expect("location");
        let view = DeepView {
            location,
            width: 24,
            height: 16,
            max_dwell: 2000,
            fractal: crate::mandelbrot::Fractal::Mandelbrot,
        };
        let orbit = ReferenceOrbit::compute(&view);
        let dds = render_perturbation(&view, &orbit, Precision::Perturbation);
        let ext = render_perturbation(&view, &orbit, Precision::Extended);
        let mut bad = (0, 0);
        for y in 0..view.height {
            for x in 0..view.width {
                let want = direct_dwell(&view, x, y, 64);
                let i = (y * view.width + x) as usize;
                bad.0 += usize::from(dds.values[i] != want);
                bad.1 += usize::from(ext.values[i] != want);
            }
        }
        assert!(bad.0 <= 1 && bad.1 <= 1, "{bad:?} of {}", dds.values.len());
        assert!(dds.values.iter().any(|&d| d > 500), "a view with detail");
    }

    /// Dwells, continuous values and distance estimates of sampled pixels against mpmath's
    /// direct iteration (scripts/mandelbrot/deep_smooth_mpmath.py) from 1e-30 to 1e-300,
    /// Mandelbrot and Julia, on every path that can take the view, with and without BLA.
    #[test]
    fn continuous_values_and_distances_equal_mpmath_from_1e_30_to_1e_300() {
        use crate::mandelbrot::deep::BlaTable;
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/deep_smooth_mpmath.json"
        );
        let text = std::fs::read_to_string(path).expect("the committed JSON");
        let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let views = json["views"].as_array().expect("views");
        assert_eq!(views.len(), 4);
        for v in views {
            let field = |k: &str| v[k].as_str().expect("a string field");
            let number = |k: &str| v[k].as_u64().expect("a number field") as u32;
            let fractal = match v["julia_c"].as_str() {
                Some(c) => crate::mandelbrot::Fractal::Julia {
                    c: crate::mandelbrot::JuliaC::parse(c).expect("c"),
                },
                None => crate::mandelbrot::Fractal::Mandelbrot,
            };
            let (re, im) = field("center").split_once(',').expect("re,im");
            let view = DeepView {
                location: DeepLocation::new(
                    re.parse().expect("re"),
                    im.parse().expect("im"),
                    field("span").parse().expect("span"),
                )
                .expect("location"),
                width: number("width"),
                height: number("height"),
                max_dwell: number("max_dwell"),
                fractal,
            };
            let orbit = ReferenceOrbit::compute(&view);
            let pixels: Vec<(u32, u32, u32, f32, f64)> = v["pixels"]
                .as_array()
                .expect("pixels")
                .iter()
                .map(|p| {
                    let at = |i: usize| p[i].as_u64().expect("x, y, dwell") as u32;
                    let de = p[4].as_f64().expect("distance");
                    (at(0), at(1), at(2), p[3].as_f64().expect("nu") as f32, de)
                })
                .collect();
            assert!(pixels.iter().any(|p| p.2 < number("max_dwell")));
            // Double-double holds pixels down to 2^-960.
            let dd = view.location.pixel_size(view.width).log2() > -960.0;
            let paths: &[Precision] = if dd {
                &[Precision::Perturbation, Precision::Extended]
            } else {
                &[Precision::Extended]
            };
            for &p in paths {
                let table = BlaTable::build(&view, &orbit, p);
                for bla in [None, Some(&table)] {
                    let source = Perturbation::new(&view, &orbit, p).with_bla(bla);
                    for &(x, y, dwell, nu, de) in &pixels {
                        let (d, got) = source.pixel(x, y, true);
                        let tolerance = 2.0 * f32::EPSILON * nu.abs() + 1e-5;
                        let what =
                            format!("{} {p:?} BLA {} ({x}, {y})", field("name"), bla.is_some());
                        assert_eq!(d, dwell, "{what}");
                        assert!((got - nu).abs() <= tolerance, "{what}: {got} vs {nu}");
                        let got = f64::from(source.distance(x, y));
                        let close = if dwell == number("max_dwell") {
                            got == 0.0
                        } else {
                            (got - de).abs() <= DISTANCE_TOLERANCE * de
                        };
                        assert!(close, "{what}: distance {got} vs {de}");
                    }
                }
            }
        }
    }

    fn julia(view: &mut View, c: &str) {
        view.fractal = crate::mandelbrot::Fractal::Julia {
            c: crate::mandelbrot::JuliaC::parse(c).expect("c"),
        };
    }

    #[test]
    fn julia_sets_equal_f64_iteration_on_a_shallow_view() {
        for (c, center, span) in [
            ("-0.8,0.156", (0.0, 0.0), 3.2),
            ("-0.75,0.1", (0.3, 0.6), 0.1),
            // Outside the Mandelbrot set: the critical orbit escapes (Cantor dust).
            ("0.3,0.5", (0.0, 0.0), 2.0),
        ] {
            let mut view = View {
                center,
                span,
                width: 61,
                height: 37,
                max_dwell: 300,
                fractal: crate::mandelbrot::Fractal::Mandelbrot,
            };
            julia(&mut view, c);
            let deep = DeepView::from_view(&view).expect("finite");
            let orbit = ReferenceOrbit::compute(&deep);
            let plain = render_per_pixel(&view, false);
            for p in [Precision::Perturbation, Precision::Extended] {
                let got = render_perturbation(&deep, &orbit, p);
                let bad = got.mismatches(&plain);
                assert!(
                    bad <= 2,
                    "{c} {p:?}: {bad} of {} differ",
                    plain.values.len()
                );
            }
        }
    }

    /// The mpmath dwells of `tests/data/julia_deep_dwells.json` (deep Julia views of
    /// c = −0.75 + 0.1i at spans 1e-30 and 1e-100): both perturbation paths and direct
    /// iteration agree with them, and perturbation with direct iteration on every pixel.
    #[test]
    fn julia_perturbation_equals_direct_iteration_and_mpmath_deep() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/julia_deep_dwells.json"
        );
        let text = std::fs::read_to_string(path).expect("the committed JSON");
        let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let views = json["views"].as_array().expect("views");
        assert_eq!(views.len(), 2);
        for v in views {
            let field = |k: &str| v[k].as_str().expect("a string field");
            let number = |k: &str| v[k].as_u64().expect("a number field") as u32;
            let view = DeepView {
                location: DeepLocation::parse(field("center"), field("span")).expect("location"),
                width: number("width"),
                height: number("height"),
                max_dwell: number("max_dwell"),
                fractal: crate::mandelbrot::Fractal::Julia {
                    c: crate::mandelbrot::JuliaC::parse(field("c")).expect("c"),
                },
            };
            let orbit = ReferenceOrbit::compute(&view);
            let dds = render_perturbation(&view, &orbit, Precision::Perturbation);
            let ext = render_perturbation(&view, &orbit, Precision::Extended);
            let pixels = v["pixels"].as_array().expect("pixels");
            for p in pixels {
                let at = |i: usize| p[i].as_u64().expect("x, y, dwell") as u32;
                let (x, y, want) = (at(0), at(1), at(2));
                let i = (y * view.width + x) as usize;
                let got = (dds.values[i], ext.values[i], direct_dwell(&view, x, y, 64));
                assert_eq!(got, (want, want, want), "{} ({x}, {y})", field("span"));
            }
            let all: Vec<(u32, u32)> = (0..view.height)
                .flat_map(|y| (0..view.width).map(move |x| (x, y)))
                .collect();
            let direct: Vec<u32> = all
                .par_iter()
                .map(|&(x, y)| direct_dwell(&view, x, y, 64))
                .collect();
            let bad = (
                dds.values
                    .iter()
                    .zip(&direct)
                    .filter(|(a, b)| a != b)
                    .count(),
                ext.values
                    .iter()
                    .zip(&direct)
                    .filter(|(a, b)| a != b)
                    .count(),
            );
            assert!(
                bad.0 <= 1 && bad.1 <= 1,
                "{}: {bad:?} of {}",
                field("span"),
                all.len()
            );
            let distinct: std::collections::BTreeSet<_> = direct.iter().collect();
            assert!(distinct.len() > 5, "a view with detail");
        }
    }

    /// The pixels of the period-8007 bookmark (640×360) where f64 perturbation missed
    /// direct iteration (by 1 to 278 iterations): their dwells change when c moves by 10⁻¹⁴
    /// to 10⁻¹⁶ of a pixel. Double-double δ, δc and Z_k agree on all of them.
    #[test]
    fn double_double_matches_direct_iteration_near_the_period_8007_minibrot() {
        use crate::mandelbrot::deep::find_bookmark;
        let b = find_bookmark("Wikipedia's seahorse zoom").expect("bookmark");
        let view = DeepView {
            location: b.location().expect("location"),
            width: 640,
            height: 360,
            max_dwell: b.max_dwell,
            fractal: crate::mandelbrot::Fractal::Mandelbrot,
        };
        let orbit = ReferenceOrbit::compute(&view);
        let step = view.location.pixel_size_dd(view.width);
        let pixels = [
            (281, 69),
            (178, 78),
            (22, 104),
            (515, 105),
            (633, 108),
            (465, 110),
            (511, 122),
            (33, 176),
            (14, 216),
            (210, 218),
            (181, 241),
            (19, 266),
            (176, 273),
            (616, 296),
            (50, 304),
            (404, 333),
        ];
        let missed: Vec<_> = pixels
            .par_iter()
            .filter_map(|&(x, y)| {
                let dc = offset_dd(x, y, view.width, view.height, step);
                let got = dwell_dd(
                    &orbit.dd_points,
                    orbit.layout,
                    None,
                    dc,
                    view.max_dwell,
                    &mut (),
                )
                .dwell;
                let want = direct_dwell(&view, x, y, 64);
                (got != want).then_some((x, y, got, want))
            })
            .collect();
        assert!(
            missed.is_empty(),
            "(x, y, perturbation, direct): {missed:?}"
        );
    }

    #[test]
    fn double_double_offsets_are_exact_where_f64_rounds() {
        // The step 1e-31/640 is not a double: its f64 rounding is off by up to 2⁻⁵³, which
        // moved δc of the edge pixels by 3.5e-14 of a pixel.
        let location = DeepLocation::parse("0,0", "1e-31").expect("location");
        let step = location.pixel_size_dd(640);
        assert_eq!(step.hi, 1e-31 / 640.0);
        let exact = crate::mandelbrot::deep::fixed::pixel_step(&location.span, 640, 300);
        let back = Dd::from_fixed(&exact, 300);
        assert_eq!(step, back);
        let [re, im] = offset_dd(0, 0, 640, 360, step);
        assert_eq!(re, step.mul_f64(-319.5));
        assert_eq!(im, step.mul_f64(179.5));
        assert!(re.lo != 0.0, "the low part carries the bits below f64");
    }

    /// Every deep bookmark, CPU perturbation vs direct iteration on sampled pixels.
    /// Heavy: `cargo test --release -- --ignored bookmarks` (DEEP_SAMPLES, DEEP_DWELL_CAP).
    #[test]
    #[ignore]
    fn bookmarks_match_direct_iteration() {
        use crate::mandelbrot::deep::{sample_pixels, DEEP_BOOKMARKS};
        let env = |k: &str, d: usize| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        let (samples, cap) = (env("DEEP_SAMPLES", 60), env("DEEP_DWELL_CAP", 3000) as u32);
        let (guard, skip) = (env("DEEP_GUARD", 64), env("DEEP_SKIP", 0));
        for b in DEEP_BOOKMARKS.iter().skip(skip) {
            let view = DeepView {
                location: b.location().expect("bookmark"),
                width: 640,
                height: 360,
                max_dwell: b.max_dwell.min(cap),
                fractal: crate::mandelbrot::Fractal::Mandelbrot,
            };
            let precision = crate::mandelbrot::deep::choose_precision(
                Precision::Auto,
                &view.location,
                view.width,
            );
            let orbit = ReferenceOrbit::compute(&view);
            let perturbation = Perturbation::new(&view, &orbit, precision);
            let pixels = sample_pixels(view.width, view.height, samples, 13);
            let results: Vec<(u32, u32)> = pixels
                .par_iter()
                .map(|&(x, y)| {
                    let d = perturbation.pixel(x, y, false).0;
                    let direct = direct_dwell(&view, x, y, guard);
                    if d != direct {
                        let more = direct_dwell(&view, x, y, guard + 128);
                        println!("  ({x}, {y}): perturbation {d}, direct {direct}, direct +128 bits {more}");
                    }
                    (d, direct)
                })
                .collect();
            let bad = results.iter().filter(|(a, b)| a != b).count();
            let (lo, hi) = results
                .iter()
                .fold((u32::MAX, 0), |(l, h), r| (l.min(r.1), h.max(r.1)));
            println!(
                "{} {}: {precision:?}, dwells {lo}..{hi}, {bad}/{samples} differ",
                b.name, b.span
            );
            assert!(bad * 1000 <= samples, "{}: {bad} differ", b.name);
        }
    }
}
