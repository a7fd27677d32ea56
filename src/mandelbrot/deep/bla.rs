//! Bivariate linear approximation (BLA): many perturbation steps taken as one linear map.
//!
//! A perturbation step δ' = 2·Z_m·δ + δ² + δc is linear in (δ, δc) but for δ². Where
//! |δ| < R_m that term is below ε of the linear one, so the step is δ' ≈ A·δ + B·δc with
//! A = 2·Z_m, B = 1. Two consecutive maps x (steps m … m + l_x − 1) and y compose to
//! A = A_y·A_x, B = A_y·B_x + B_y, valid while x is and x's result lies in y's radius:
//! R = max(0, min(R_x, (R_y − |B_x|·|δc|max) / |A_x|)), lengths adding up.
//!
//! * **Single steps.** R_m = ε·max(0, |Z_m| − |δc|max): the dropped δ² is then at most
//!   ε/2 of |2·Z_m·δ|, an error of the size a rounding with unit ε/2 makes, and no step
//!   is approximated where the reference passes within |δc|max of 0 (where pixels rebase).
//!   R_m is also at most 2 − |Z_m|, so no escape can hide inside a merged step, and 0 at
//!   the end of an orbit segment (where pixels must rebase). ε·|Z_m| < |Z_m|/2 keeps the
//!   rebasing test |Z + δ| < |δ| false inside a step too.
//! * **ε.** 2⁻⁸⁰ on the double-double path ([`EPSILON_DD_LOG2`]): the approximation moves
//!   a pixel's c by ~2⁻⁸⁰ of its offset (≤ 10⁻²¹ pixel at 1920 wide), far below the 10⁻¹⁶
//!   pixel that changes dwells near the period-8007 minibrot; the coefficients are
//!   double-doubles. 2⁻⁶⁴ on the extended path ([`EPSILON_EXT_LOG2`]), whose numbers have
//!   53-bit mantissas anyway.
//! * **Extended range.** Radii and magnitudes are [`FloatExp`] while the table is built
//!   (|A| reaches 1/pixel, 10¹⁰⁰⁰ at the deepest views); the extended path keeps its
//!   coefficients as [`ComplexExp`], the double-double path as double-doubles (its pixels
//!   are ≥ 2⁻⁹⁶⁰; an entry whose coefficients pass 2⁹⁰⁰ is made invalid), with R rounded to
//!   an f64 (0 when it underflows: never valid, never wrong).
//! * **Layout.** Level l (1, 2, …) holds the maps of 2^l steps starting at indices
//!   1 + i·2^l, i = 0, 1, …, whole blocks only. A pixel at index k > 0 can use the levels
//!   l with 2^l dividing k − 1: it tries the longest first and takes the first whose radius
//!   holds |δ| (|Re δ| + |Im δ|, an upper bound) and that ends within max dwell; else one
//!   ordinary perturbation step. O(log K) per lookup, about 2·K entries.
//!
//! The tests compare against the perturbation without it on every deep bookmark.

use super::{ComplexExp, Dd, DeepView, FloatExp, ReferenceOrbit};
use crate::mandelbrot::Precision;
use rayon::prelude::*;

/// log2 ε of the double-double path.
pub const EPSILON_DD_LOG2: i32 = -80;
/// log2 ε of the extended path.
pub const EPSILON_EXT_LOG2: i32 = -64;
/// A double-double coefficient past this is treated as out of range (invalid entry).
const DD_LIMIT: f64 = 1e270;

/// A complex double-double (the coefficients of the double-double path).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CDd {
    pub re: Dd,
    pub im: Dd,
}

/// The coefficient arithmetic the table needs.
pub trait Coefficient: Copy + Send + Sync {
    const ZERO: Self;
    const ONE: Self;
    fn times(self, b: Self) -> Self;
    fn plus(self, b: Self) -> Self;
    fn magnitude(self) -> FloatExp;
    fn in_range(self) -> bool;
}

impl Coefficient for CDd {
    const ZERO: Self = CDd {
        re: Dd::ZERO,
        im: Dd::ZERO,
    };
    const ONE: Self = CDd {
        re: Dd { hi: 1.0, lo: 0.0 },
        im: Dd::ZERO,
    };

    fn times(self, b: Self) -> Self {
        cdd_mul(self, b)
    }

    fn plus(self, b: Self) -> Self {
        CDd {
            re: self.re + b.re,
            im: self.im + b.im,
        }
    }

    fn magnitude(self) -> FloatExp {
        FloatExp::new(self.re.hi.hypot(self.im.hi), 0)
    }

    fn in_range(self) -> bool {
        self.re.hi.abs() < DD_LIMIT && self.im.hi.abs() < DD_LIMIT
    }
}

impl Coefficient for ComplexExp {
    const ZERO: Self = ComplexExp::ZERO;
    const ONE: Self = ComplexExp {
        re: 1.0,
        im: 0.0,
        e: 0,
    };

    fn times(self, b: Self) -> Self {
        self * b
    }

    fn plus(self, b: Self) -> Self {
        self + b
    }

    fn magnitude(self) -> FloatExp {
        FloatExp::new(self.re.hypot(self.im), self.e)
    }

    fn in_range(self) -> bool {
        self.re.is_finite() && self.im.is_finite()
    }
}

/// a·b, the products and sums normalised (`pt_cdd_mul` in perturbation.cuh).
fn cdd_mul(a: CDd, b: CDd) -> CDd {
    CDd {
        re: a.re * b.re + -(a.im * b.im),
        im: a.re * b.im + a.im * b.re,
    }
}

/// a·b of non-negative magnitudes.
fn fe_mul(a: FloatExp, b: FloatExp) -> FloatExp {
    FloatExp::new(a.m * b.m, a.e + b.e)
}

/// max(0, a − b) of non-negative magnitudes.
fn fe_sub(a: FloatExp, b: FloatExp) -> FloatExp {
    if b.m == 0.0 {
        return a;
    }
    if a.m == 0.0 || b.e - a.e > 2 {
        return FloatExp::ZERO;
    }
    let d = b.e - a.e;
    if d < -80 {
        return a;
    }
    FloatExp::new((a.m - b.m * super::float_exp::pow2(d)).max(0.0), a.e)
}

/// a < b of non-negative magnitudes.
fn fe_less(a: FloatExp, b: FloatExp) -> bool {
    if b.m == 0.0 {
        false
    } else if a.m == 0.0 {
        true
    } else if a.e != b.e {
        a.e < b.e
    } else {
        a.m < b.m
    }
}

fn fe_min(a: FloatExp, b: FloatExp) -> FloatExp {
    if fe_less(b, a) {
        b
    } else {
        a
    }
}

/// One linear map: δ after `2^level` steps is A·δ + B·δc while |δ| < R.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlaEntry<C> {
    pub a: C,
    pub b: C,
    pub r: FloatExp,
    /// R as the nearest f64 (the double-double path's test).
    pub r64: f64,
}

impl<C: Coefficient> BlaEntry<C> {
    const INVALID: Self = BlaEntry {
        a: C::ZERO,
        b: C::ZERO,
        r: FloatExp::ZERO,
        r64: 0.0,
    };

    fn new(a: C, b: C, r: FloatExp) -> Self {
        if r.m == 0.0 || !a.in_range() || !b.in_range() {
            return Self::INVALID;
        }
        Self {
            a,
            b,
            r,
            r64: r.to_f64(),
        }
    }

    /// x then y.
    fn merge(x: &Self, y: &Self, c_max: FloatExp) -> Self {
        if x.r.m == 0.0 || y.r.m == 0.0 {
            return Self::INVALID;
        }
        let ax = x.a.magnitude();
        let room = fe_sub(y.r, fe_mul(x.b.magnitude(), c_max));
        if ax.m == 0.0 || room.m == 0.0 {
            return Self::INVALID;
        }
        let r = fe_min(x.r, FloatExp::new(room.m / ax.m, room.e - ax.e));
        Self::new(y.a.times(x.a), y.a.times(x.b).plus(y.b), r)
    }
}

/// The levels of one path's table: `levels[i]` holds the maps of 2^(i+1) steps.
#[derive(Debug, Clone, PartialEq)]
pub struct BlaLevels<C> {
    pub levels: Vec<Vec<BlaEntry<C>>>,
}

impl<C: Coefficient> BlaLevels<C> {
    /// The table of an orbit whose point m is `z(m)` (m = 1 … last − 1 take steps),
    /// `rebase_last` the end of the segment from 0.
    fn build(
        z: impl Fn(usize) -> C + Sync,
        last: usize,
        rebase_last: usize,
        c_max: FloatExp,
        epsilon_log2: i32,
    ) -> Self {
        let two = FloatExp::new(2.0, 0);
        let single: Vec<BlaEntry<C>> = (1..last)
            .into_par_iter()
            .map(|m| {
                if m == rebase_last {
                    return BlaEntry::INVALID;
                }
                let zm = z(m);
                let size = zm.magnitude();
                let r = fe_sub(size, c_max);
                let r = FloatExp::new(r.m, r.e + epsilon_log2);
                let r = fe_min(r, fe_sub(two, size));
                BlaEntry::new(zm.plus(zm), C::ONE, r)
            })
            .collect();
        let mut levels: Vec<Vec<BlaEntry<C>>> = Vec::new();
        loop {
            let previous = levels.last().unwrap_or(&single);
            if previous.len() < 2 {
                break;
            }
            let next: Vec<BlaEntry<C>> = previous
                .par_chunks_exact(2)
                .map(|p| BlaEntry::merge(&p[0], &p[1], c_max))
                .collect();
            levels.push(next);
        }
        Self { levels }
    }

    /// The longest map at index `k` that `fits` and takes at most `remaining` steps, with
    /// its length.
    #[inline]
    pub fn find(
        &self,
        k: usize,
        remaining: u32,
        fits: impl Fn(&BlaEntry<C>) -> bool,
    ) -> Option<(&BlaEntry<C>, u32)> {
        if k == 0 {
            return None;
        }
        let offset = k - 1;
        let top = if offset == 0 {
            self.levels.len()
        } else {
            (offset.trailing_zeros() as usize).min(self.levels.len())
        };
        for l in (1..=top).rev() {
            let len = 1u32 << l;
            if len > remaining {
                continue;
            }
            if let Some(e) = self.levels[l - 1].get(offset >> l) {
                if fits(e) {
                    return Some((e, len));
                }
            }
        }
        None
    }

    /// Entries in all levels.
    pub fn entries(&self) -> usize {
        self.levels.iter().map(Vec::len).sum()
    }

    /// Entries that can ever be taken (R > 0).
    pub fn valid_entries(&self) -> usize {
        self.levels.iter().flatten().filter(|e| e.r.m > 0.0).count()
    }
}

/// A reference orbit's BLA table, in the number type of its path.
#[derive(Debug, Clone, PartialEq)]
pub enum BlaTable {
    DoubleDouble(BlaLevels<CDd>),
    Extended(BlaLevels<ComplexExp>),
}

/// Doubles per entry on the device: double-double (A, B as hi re/im then lo re/im; R; a
/// pad) and extended (A re, im, exponent; B re, im, exponent; R mantissa, exponent).
pub const DEVICE_DD_DOUBLES: usize = 10;
pub const DEVICE_EXT_DOUBLES: usize = 8;

impl BlaTable {
    /// The levels of the double-double path, if this is its table.
    pub fn double_double(&self) -> Option<&BlaLevels<CDd>> {
        match self {
            BlaTable::DoubleDouble(t) => Some(t),
            BlaTable::Extended(_) => None,
        }
    }

    /// The levels of the extended-exponent path, if this is its table.
    pub fn extended(&self) -> Option<&BlaLevels<ComplexExp>> {
        match self {
            BlaTable::Extended(t) => Some(t),
            BlaTable::DoubleDouble(_) => None,
        }
    }

    /// The table of `orbit` (the reference at `view`'s centre) for `precision`'s path
    /// (`Extended`, or double-double for anything else).
    pub fn build(view: &DeepView, orbit: &ReferenceOrbit, precision: Precision) -> Self {
        let epsilon_log2 = if precision == Precision::Extended {
            EPSILON_EXT_LOG2
        } else {
            EPSILON_DD_LOG2
        };
        let reach = f64::from(crate::kernel_constants::BLA_REACH);
        Self::build_with(view, orbit, precision, epsilon_log2, reach)
    }

    /// [`Self::build`] with another ε (2^`epsilon_log2`) and |δc|max `reach` times the
    /// view's half diagonal (research: `cudalens-bench --bla-stats`).
    pub fn build_with(
        view: &DeepView,
        orbit: &ReferenceOrbit,
        precision: Precision,
        epsilon_log2: i32,
        reach: f64,
    ) -> Self {
        let layout = orbit.layout;
        let c_max = if layout.offset_each_step {
            let half = f64::from(view.width).hypot(f64::from(view.height)) * 0.5 * reach;
            view.location.pixel_size(view.width).mul_f64(half)
        } else {
            FloatExp::ZERO
        };
        let (last, rebase_last) = (layout.last, layout.rebase_last);
        if precision == Precision::Extended {
            let points = &orbit.points;
            BlaTable::Extended(BlaLevels::build(
                |m| points[m],
                last,
                rebase_last,
                c_max,
                epsilon_log2,
            ))
        } else {
            let points = &orbit.dd_points;
            BlaTable::DoubleDouble(BlaLevels::build(
                |m| CDd {
                    re: points[m][0],
                    im: points[m][1],
                },
                last,
                rebase_last,
                c_max,
                epsilon_log2,
            ))
        }
    }

    pub fn is_extended(&self) -> bool {
        matches!(self, BlaTable::Extended(_))
    }

    /// (levels, entries, entries with R > 0).
    pub fn counts(&self) -> (usize, usize, usize) {
        match self {
            BlaTable::DoubleDouble(t) => (t.levels.len(), t.entries(), t.valid_entries()),
            BlaTable::Extended(t) => (t.levels.len(), t.entries(), t.valid_entries()),
        }
    }

    /// The table as the kernels read it: every level's entries one after another
    /// ([`DEVICE_DD_DOUBLES`] or [`DEVICE_EXT_DOUBLES`] doubles each), and the index of
    /// each level's first entry plus the total (levels + 1 offsets).
    pub fn device_layout(&self) -> (Vec<f64>, Vec<i32>) {
        let mut offsets = vec![0i32];
        let mut data = Vec::new();
        match self {
            BlaTable::DoubleDouble(t) => {
                for level in &t.levels {
                    for e in level {
                        data.extend_from_slice(&[
                            e.a.re.hi, e.a.im.hi, e.a.re.lo, e.a.im.lo, e.b.re.hi, e.b.im.hi,
                            e.b.re.lo, e.b.im.lo, e.r64, 0.0,
                        ]);
                    }
                    offsets.push((data.len() / DEVICE_DD_DOUBLES) as i32);
                }
            }
            BlaTable::Extended(t) => {
                for level in &t.levels {
                    for e in level {
                        data.extend_from_slice(&[
                            e.a.re,
                            e.a.im,
                            f64::from(e.a.e),
                            e.b.re,
                            e.b.im,
                            f64::from(e.b.e),
                            e.r.m,
                            f64::from(e.r.e),
                        ]);
                    }
                    offsets.push((data.len() / DEVICE_EXT_DOUBLES) as i32);
                }
            }
        }
        (data, offsets)
    }
}

/// |Re δ| + |Im δ| < R (an upper bound of |δ|) on the double-double path.
#[inline]
pub fn fits_dd(d: [Dd; 2], e: &BlaEntry<CDd>) -> bool {
    d[0].hi.abs() + d[1].hi.abs() < e.r64
}

/// |Re δ| + |Im δ| < R on the extended path (`pt_bla_fits_ext`).
#[inline]
pub fn fits_ext(d: ComplexExp, e: &BlaEntry<ComplexExp>) -> bool {
    if e.r.m == 0.0 {
        return false;
    }
    if d.is_zero() {
        return true;
    }
    // s ∈ [1, 4), R's mantissa ∈ [1, 2): s·2^(d.e) < m·2^(r.e) ⟺ s < m·2^k.
    let k = e.r.e - d.e;
    if k >= 2 {
        true
    } else if k <= -1 {
        false
    } else {
        d.re.abs() + d.im.abs() < e.r.m * super::float_exp::pow2(k)
    }
}

/// A·δ + B·δc, double-double (`pt_bla_apply_dd`).
#[inline]
pub fn apply_dd(e: &BlaEntry<CDd>, d: [Dd; 2], dc: [Dd; 2]) -> [Dd; 2] {
    let ad = cdd_mul(e.a, CDd { re: d[0], im: d[1] });
    let bc = cdd_mul(
        e.b,
        CDd {
            re: dc[0],
            im: dc[1],
        },
    );
    [ad.re + bc.re, ad.im + bc.im]
}

/// A·δ + B·δc, extended exponents (`pt_bla_apply_ext`).
#[inline]
pub fn apply_ext(e: &BlaEntry<ComplexExp>, d: ComplexExp, dc: ComplexExp) -> ComplexExp {
    e.a * d + e.b * dc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::deep::{find_bookmark, DeepView};
    use crate::mandelbrot::Fractal;

    fn view(name: &str, width: u32, height: u32, max_dwell: u32) -> DeepView {
        let b = find_bookmark(name).expect("bookmark");
        DeepView {
            location: b.location().expect("location"),
            width,
            height,
            max_dwell,
            fractal: Fractal::Mandelbrot,
        }
    }

    #[test]
    fn magnitudes_compare_and_subtract() {
        let (one, two) = (FloatExp::new(1.0, 0), FloatExp::new(2.0, 0));
        assert!(fe_less(one, two) && !fe_less(two, one) && !fe_less(one, FloatExp::ZERO));
        assert_eq!(fe_sub(two, one), one);
        assert_eq!(fe_sub(one, two), FloatExp::ZERO);
        assert_eq!(fe_sub(one, FloatExp::new(1.0, -200)), one);
        assert_eq!(fe_mul(two, FloatExp::new(1.0, -3000)).e, -2999);
        assert_eq!(fe_min(two, one), one);
    }

    #[test]
    fn merged_maps_equal_the_steps_they_replace() {
        // Level-1 and level-2 maps against 2 and 4 linearised steps, on both paths.
        let v = view("Spiral by c = i, period-137", 64, 48, 2000);
        let orbit = ReferenceOrbit::compute(&v);
        let BlaTable::Extended(t) = BlaTable::build(&v, &orbit, Precision::Extended) else {
            panic!("extended table");
        };
        let d = ComplexExp::new(1.0, 0.5, -340);
        let dc = ComplexExp::new(-0.25, 0.75, -345);
        for m in [1usize, 5, 9, 33] {
            let mut lin = d;
            for j in m..m + 4 {
                lin = orbit.points[j].double() * lin + dc;
            }
            let e = &t.levels[1][(m - 1) >> 2];
            let got = apply_ext(e, d, dc);
            let diff = got + ComplexExp::new(-lin.re, -lin.im, lin.e);
            assert!(
                diff.is_zero() || diff.e < lin.e - 45,
                "m = {m}: {got:?} vs {lin:?}"
            );
            assert!(fits_ext(d, e), "a δ of 2^-340 fits at m = {m}");
        }
        let (levels, entries, valid) = BlaTable::Extended(t).counts();
        assert!(levels >= 10 && entries > 1000 && valid > entries / 2);
    }

    #[test]
    fn segment_ends_and_index_zero_are_never_approximated() {
        let v = view("Spiral by c = i, period-71", 32, 24, 300);
        let orbit = ReferenceOrbit::compute(&v);
        let BlaTable::DoubleDouble(t) = BlaTable::build(&v, &orbit, Precision::Perturbation) else {
            panic!("double-double table");
        };
        assert!(t.find(0, 1000, |_| true).is_none());
        // Index 1 may use every level; index 3 (offset 2) only level 1.
        let (_, len) = t.find(3, 1000, |_| true).expect("a level-1 map");
        assert_eq!(len, 2);
        assert!(t.find(3, 1, |_| true).is_none(), "within max dwell");
        let (_, len) = t.find(1, 1000, |_| true).expect("a map");
        assert_eq!(len as usize, 1 << t.levels.len());
        // Every block is within 1 … last (the orbit ran max dwell + 1 steps).
        let blocks = t.levels[0].len() * 2;
        assert!(blocks < orbit.layout.last);
    }

    /// Dwells of `view` by perturbation without and with BLA: (pixels alike, pixels, the
    /// BLA dwells, seconds without, seconds with BLA, table included).
    fn agreement(view: &DeepView) -> (usize, usize, crate::mandelbrot::Dwells, f64, f64) {
        use crate::mandelbrot::deep::{choose_precision, Perturbation};
        use crate::mandelbrot::render_per_pixel_from;
        use std::time::Instant;
        let p = choose_precision(Precision::Auto, &view.location, view.width);
        let orbit = ReferenceOrbit::compute(view);
        let start = Instant::now();
        let plain = render_per_pixel_from(&Perturbation::new(view, &orbit, p), false);
        let plain_s = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let table = BlaTable::build(view, &orbit, p);
        assert_eq!(table.is_extended(), p == Precision::Extended);
        let source = Perturbation::new(view, &orbit, p).with_bla(Some(&table));
        let bla = render_per_pixel_from(&source, false);
        let bla_s = start.elapsed().as_secs_f64();
        let total = plain.values.len();
        (total - bla.mismatches(&plain), total, bla, plain_s, bla_s)
    }

    /// Every deep bookmark at 48×36, max dwell capped at 1500 (debug-fast): ≥ 99.9 % of
    /// the pixels have the dwell of perturbation without BLA.
    #[test]
    fn bookmarks_keep_their_dwells_with_bla() {
        for b in crate::mandelbrot::deep::DEEP_BOOKMARKS {
            let v = view(b.name, 48, 36, b.max_dwell.min(1500));
            let (same, total, dwells, ..) = agreement(&v);
            println!("{} {}: {same}/{total} alike", b.name, b.span);
            assert!(same * 1000 >= total * 999, "{}: {same}/{total}", b.name);
            assert!(dwells.values.iter().any(|&d| d > 200), "{}: detail", b.name);
        }
    }

    /// The period-71 view with BLA against arbitrary-precision direct iteration on a few
    /// pixels (debug-fast: max dwell 1500).
    #[test]
    fn bla_dwells_equal_direct_iteration_on_sampled_pixels() {
        use crate::mandelbrot::deep::{direct_dwell, sample_pixels};
        let v = view("Spiral by c = i, period-71", 48, 36, 1500);
        let (_, _, dwells, ..) = agreement(&v);
        for (x, y) in sample_pixels(48, 36, 6, 5) {
            let got = dwells.values[(y * 48 + x) as usize];
            assert_eq!(got, direct_dwell(&v, x, y, 64), "({x}, {y})");
        }
    }

    /// 1e-1000 wide at c = i (the Misiurewicz point; the extended path, radii and
    /// coefficients far below f64): BLA keeps every dwell and has valid long maps.
    #[test]
    fn bla_keeps_the_dwells_at_1e_1000() {
        use crate::mandelbrot::deep::DeepLocation;
        let v = DeepView {
            location: DeepLocation::parse("0,1", "1e-1000").expect("location"),
            width: 32,
            height: 24,
            max_dwell: 3000,
            fractal: Fractal::Mandelbrot,
        };
        let (same, total, dwells, ..) = agreement(&v);
        assert_eq!(same, total);
        assert!(dwells.values.iter().any(|&d| d > 0 && d < 3000), "escapes");
        let orbit = ReferenceOrbit::compute(&v);
        let BlaTable::Extended(t) = BlaTable::build(&v, &orbit, Precision::Extended) else {
            panic!("extended table");
        };
        let top = t.levels.last().expect("levels");
        assert!(top[0].r.m > 0.0 && top[0].r.e < -1100, "{:?}", top[0].r);
    }

    fn env(k: &str, d: usize) -> usize {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    }

    /// Every deep bookmark at 64×48 with its full max dwell, BLA against perturbation
    /// without it on every pixel, against direct iteration on sampled pixels, and on
    /// random pixels of a 1920×1080 view of it. Heavy: `cargo test --release --lib --
    /// --ignored --nocapture bla_full` (BLA_SAMPLES, BLA_RANDOM).
    #[test]
    #[ignore]
    fn bla_full_bookmarks() {
        use crate::mandelbrot::deep::{choose_precision, direct_dwell, sample_pixels};
        use crate::mandelbrot::deep::{Perturbation, DEEP_BOOKMARKS};
        use crate::mandelbrot::DwellSource;
        use rand::{Rng, SeedableRng};
        let (samples, random) = (env("BLA_SAMPLES", 12), env("BLA_RANDOM", 400));
        let mut failures = Vec::new();
        for b in DEEP_BOOKMARKS {
            let v = view(b.name, 64, 48, b.max_dwell);
            let start = std::time::Instant::now();
            let (same, total, dwells, plain_s, bla_s) = agreement(&v);
            let direct_bad: Vec<_> = sample_pixels(64, 48, samples, 3)
                .par_iter()
                .filter_map(|&(x, y)| {
                    let (got, want) = (
                        dwells.values[(y * 64 + x) as usize],
                        direct_dwell(&v, x, y, 64),
                    );
                    (got != want).then_some((x, y, got, want))
                })
                .collect();
            // Random pixels of the full-size view.
            let big = view(b.name, 1920, 1080, b.max_dwell);
            let p = choose_precision(Precision::Auto, &big.location, big.width);
            let orbit = ReferenceOrbit::compute(&big);
            let table = BlaTable::build(&big, &orbit, p);
            let plain = Perturbation::new(&big, &orbit, p);
            let fast = Perturbation::new(&big, &orbit, p).with_bla(Some(&table));
            let mut rng = rand::rngs::StdRng::seed_from_u64(11);
            let pixels: Vec<(u32, u32)> = (0..random)
                .map(|_| (rng.random_range(0..1920), rng.random_range(0..1080)))
                .collect();
            let random_bad = pixels
                .par_iter()
                .filter(|&&(x, y)| plain.pixel(x, y, false).0 != fast.pixel(x, y, false).0)
                .count();
            println!(
                "{} {} max dwell {}: 64x48 {same}/{total} alike ({:.2} %; {:.1}× faster: {:.0} → {:.0} ms), \
                 direct {}/{samples} differ {direct_bad:?}, random 1920x1080 pixels {random_bad}/{random} differ ({:.1} s)",
                b.name,
                b.span,
                b.max_dwell,
                100.0 * same as f64 / total as f64,
                plain_s / bla_s,
                plain_s * 1e3,
                bla_s * 1e3,
                direct_bad.len(),
                start.elapsed().as_secs_f64()
            );
            if same * 1000 < total * 999
                || random_bad * 1000 > random
                || direct_bad.len() * 10 > samples.max(1)
            {
                failures.push(b.name);
            }
        }
        assert!(failures.is_empty(), "{failures:?}");
    }

    /// Max dwell 1 000 000, 48×36, on the period-137 minibrot by c = i filling the view
    /// (span 4e-102: most pixels are inside and run all the way). `cargo test --release
    /// --lib -- --ignored --nocapture bla_million`.
    #[test]
    #[ignore]
    fn bla_million_dwell() {
        use crate::mandelbrot::deep::{direct_dwell, DeepLocation};
        let b = find_bookmark("Spiral by c = i, period-137").expect("bookmark");
        let v = DeepView {
            location: DeepLocation::new(
                b.re.parse().expect("re"),
                b.im.parse().expect("im"),
                "4e-102".parse().expect("span"),
            )
            .expect("location"),
            width: 48,
            height: 36,
            max_dwell: 1_000_000,
            fractal: Fractal::Mandelbrot,
        };
        let (same, total, dwells, plain_s, bla_s) = agreement(&v);
        let inside = dwells.values.iter().filter(|&&d| d == 1_000_000).count();
        let outside = dwells.values.iter().filter(|&&d| d < 1_000_000).max();
        println!(
            "max dwell 1e6: {same}/{total} alike, {inside} pixels at max dwell, highest escape {outside:?}; \
             {:.1}× faster ({:.2} s → {:.2} s)",
            plain_s / bla_s,
            plain_s,
            bla_s
        );
        assert!(same * 1000 >= total * 999, "{same}/{total}");
        assert!(inside > total / 10, "the minibrot fills much of the view");
        // Two escaping pixels near the minibrot against direct iteration.
        let mut checked = 0;
        for (i, &d) in dwells.values.iter().enumerate() {
            if d > 1000 && d < 1_000_000 && checked < 2 {
                let (x, y) = ((i % 48) as u32, (i / 48) as u32);
                assert_eq!(d, direct_dwell(&v, x, y, 64), "({x}, {y})");
                checked += 1;
            }
        }
    }
}
