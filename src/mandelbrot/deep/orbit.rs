//! The reference orbit: Z_0 = 0, Z_1 = C, Z_{k+1} = Z_k² + C at the view's exact centre,
//! iterated in fixed point. For a Julia set (c fixed) it is two segments: the critical
//! orbit 0, c, c² + c, … (what rebasing restarts from, like the Mandelbrot orbit's Z_0 = 0)
//! and then Z_0 = the centre, Z_{k+1} = Z_k² + c (where pixels start). Kept twice: as [`ComplexExp`] (the extended-exponent path) and
//! as double-double pairs (the perturbation path, which needs Z_k to ~106 bits: an f64 Z_k
//! is off by 2⁻⁵³·|Z_k|, an error the dwells near a minibrot are sensitive to).

use super::{fixed, ComplexExp, Dd, DeepView};
use num_bigint::BigInt;

/// Guard bits of the reference below the pixel: its rounding errors grow along the orbit
/// exactly as a pixel's δ does, so they stay 2⁻⁶⁴ of δ.
pub const REFERENCE_GUARD_BITS: usize = 64;

/// Where pixels start on an orbit and where they must rebase. Each segment ends at its
/// first |Z|² ≥ 4 or after max dwell steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrbitLayout {
    /// The index a pixel starts at, with δ = its offset: 1 (Z_1 = C) for the Mandelbrot
    /// set, the centre's Z_0 for a Julia set.
    pub start: usize,
    /// The last index of the segment from 0 that rebasing restarts at (`last` for the
    /// Mandelbrot set, the critical orbit's for a Julia set).
    pub rebase_last: usize,
    /// The last index of the orbit.
    pub last: usize,
    /// Whether the offset is also added at every step (the Mandelbrot set's δc); a Julia
    /// set's c is the reference's, so its pixels add nothing.
    pub offset_each_step: bool,
}

/// Z_0 … Z_K of one view's centre: K is the first index with |Z_K|² ≥ 4, or max dwell + 1
/// (for a Julia set preceded by its critical orbit: [`OrbitLayout`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceOrbit {
    pub points: Vec<ComplexExp>,
    /// The same points as double-doubles (re, im), for the perturbation path.
    pub dd_points: Vec<[Dd; 2]>,
    /// Fraction bits the orbit was computed with.
    pub bits: usize,
    pub layout: OrbitLayout,
}

impl ReferenceOrbit {
    /// Iterates the centre of `view` (max dwell + 1 steps at most), after the critical
    /// orbit for a Julia set.
    pub fn compute(view: &DeepView) -> Self {
        let bits = super::direct::bits_for(view, REFERENCE_GUARD_BITS);
        let zr0 = fixed::decimal_to_fixed(&view.location.re, bits);
        let zi0 = fixed::decimal_to_fixed(&view.location.im, bits);
        let segments = if view.fractal.julia_c().is_some() {
            2
        } else {
            1
        };
        let capacity = (view.max_dwell as usize + 2) * segments;
        let mut orbit = Self {
            points: Vec::with_capacity(capacity),
            dd_points: Vec::with_capacity(capacity),
            bits,
            layout: OrbitLayout {
                start: 1,
                rebase_last: 0,
                last: 0,
                offset_each_step: true,
            },
        };
        let zero = BigInt::ZERO;
        orbit.push(&zero, &zero);
        match view.fractal.julia_c() {
            None => orbit.follow((&zr0, &zi0), (&zr0, &zi0), view.max_dwell),
            Some(c) => {
                let cr = fixed::decimal_to_fixed(c.re(), bits);
                let ci = fixed::decimal_to_fixed(c.im(), bits);
                orbit.follow((&cr, &ci), (&cr, &ci), view.max_dwell);
                orbit.layout.rebase_last = orbit.points.len() - 1;
                orbit.layout.start = orbit.points.len();
                orbit.layout.offset_each_step = false;
                orbit.follow((&zr0, &zi0), (&cr, &ci), view.max_dwell);
            }
        }
        orbit.layout.last = orbit.points.len() - 1;
        if orbit.layout.offset_each_step {
            orbit.layout.rebase_last = orbit.layout.last;
        }
        orbit
    }

    fn push(&mut self, zr: &BigInt, zi: &BigInt) {
        self.points.push(ComplexExp::from_fixed(zr, zi, self.bits));
        self.dd_points
            .push([Dd::from_fixed(zr, self.bits), Dd::from_fixed(zi, self.bits)]);
    }

    /// Appends z₀, z₁, … of z ← z² + c until |z|² ≥ 4 or `limit` steps.
    fn follow(&mut self, z0: (&BigInt, &BigInt), (cr, ci): (&BigInt, &BigInt), limit: u32) {
        let bits = self.bits;
        fixed::iterate_from(z0, cr, ci, bits, limit, |zr, zi| self.push(zr, zi));
    }

    /// The dwell of the centre itself.
    pub fn dwell(&self) -> usize {
        self.layout.last - self.layout.start
    }

    /// The points as the kernel's perturbation path reads them: per point two (re, im)
    /// pairs, the high parts then the low parts.
    pub fn device_dd_points(&self) -> Vec<f64> {
        self.dd_points
            .iter()
            .flat_map(|[re, im]| [re.hi, im.hi, re.lo, im.lo])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::deep::DeepLocation;
    use crate::mandelbrot::dwell_at;

    fn view(center: &str, max_dwell: u32) -> DeepView {
        DeepView {
            location: DeepLocation::parse(center, "1e-20").expect("location"),
            width: 100,
            height: 100,
            max_dwell,
            fractal: crate::mandelbrot::Fractal::Mandelbrot,
        }
    }

    #[test]
    fn follows_the_centre_and_stops_at_escape() {
        let orbit = ReferenceOrbit::compute(&view("0.5,0.5", 500));
        assert_eq!(orbit.dwell() as u32, dwell_at(0.5, 0.5, 500));
        assert!(orbit.dwell() < 500);
        assert_eq!(orbit.points[0], ComplexExp::ZERO);
        assert_eq!(orbit.dd_points[1], [Dd::new(0.5, 0.0), Dd::new(0.5, 0.0)]);
        assert_eq!(orbit.device_dd_points()[4..8], [0.5, 0.5, 0.0, 0.0]);
        assert!(orbit.points.last().expect("points").escaped());
        let inside = ReferenceOrbit::compute(&view("-1,0", 50));
        assert_eq!(inside.points.len(), 52);
        assert_eq!(inside.dd_points[51][0].hi, -1.0);
        assert_eq!(inside.dd_points.len(), 52);
        assert_eq!(
            inside.layout,
            OrbitLayout {
                start: 1,
                rebase_last: 51,
                last: 51,
                offset_each_step: true
            }
        );
    }

    #[test]
    fn a_julia_orbit_is_the_critical_orbit_then_the_centre_s() {
        use crate::mandelbrot::{escape_from, Fractal, JuliaC};
        let mut v = view("0.3,-0.2", 500);
        let c = (-0.123, 0.745);
        v.fractal = Fractal::Julia {
            c: JuliaC::from_f64(c.0, c.1).expect("finite"),
        };
        let orbit = ReferenceOrbit::compute(&v);
        let l = orbit.layout;
        // c (the rabbit) is in the Mandelbrot set: the critical orbit runs max dwell steps.
        assert_eq!(l.rebase_last, 501);
        assert_eq!(l.start, 502);
        assert!(!l.offset_each_step);
        assert_eq!(orbit.dd_points[0], [Dd::ZERO; 2]);
        assert_eq!(
            [orbit.dd_points[1][0].hi, orbit.dd_points[1][1].hi],
            [c.0, c.1]
        );
        assert_eq!(orbit.dd_points[l.start][0].hi, 0.3);
        assert_eq!(orbit.dwell() as u32, escape_from((0.3, -0.2), c, 500).0);
        assert_eq!(l.last, orbit.points.len() - 1);
        // Outside the Mandelbrot set the critical orbit escapes.
        v.fractal = Fractal::Julia {
            c: JuliaC::from_f64(0.5, 0.5).expect("finite"),
        };
        let orbit = ReferenceOrbit::compute(&v);
        assert_eq!(orbit.layout.rebase_last as u32, dwell_at(0.5, 0.5, 500) + 1);
    }
}
