//! The reference orbit: Z_0 = 0, Z_1 = C, Z_{k+1} = Z_k² + C at the view's exact centre,
//! iterated in fixed point and kept twice: as [`ComplexExp`] (the extended-exponent path) and
//! as double-double pairs (the perturbation path, which needs Z_k to ~106 bits: an f64 Z_k
//! is off by 2⁻⁵³·|Z_k|, an error the dwells near a minibrot are sensitive to).

use super::{fixed, ComplexExp, Dd, DeepView};

/// Guard bits of the reference below the pixel: its rounding errors grow along the orbit
/// exactly as a pixel's δ does, so they stay 2⁻⁶⁴ of δ.
pub const REFERENCE_GUARD_BITS: usize = 64;

/// Z_0 … Z_K of one view's centre: K is the first index with |Z_K|² ≥ 4, or max dwell + 1.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceOrbit {
    pub points: Vec<ComplexExp>,
    /// The same points as double-doubles (re, im), for the perturbation path.
    pub dd_points: Vec<[Dd; 2]>,
    /// Fraction bits the orbit was computed with.
    pub bits: usize,
}

impl ReferenceOrbit {
    /// Iterates the centre of `view` (max dwell + 1 steps at most).
    pub fn compute(view: &DeepView) -> Self {
        let bits = super::direct::bits_for(view, REFERENCE_GUARD_BITS);
        let cr = fixed::decimal_to_fixed(&view.location.re, bits);
        let ci = fixed::decimal_to_fixed(&view.location.im, bits);
        let capacity = view.max_dwell as usize + 2;
        let mut points = Vec::with_capacity(capacity);
        let mut dd_points = Vec::with_capacity(capacity);
        points.push(ComplexExp::ZERO);
        dd_points.push([Dd::ZERO; 2]);
        fixed::iterate(&cr, &ci, bits, view.max_dwell, |zr, zi| {
            points.push(ComplexExp::from_fixed(zr, zi, bits));
            dd_points.push([Dd::from_fixed(zr, bits), Dd::from_fixed(zi, bits)]);
        });
        Self {
            points,
            dd_points,
            bits,
        }
    }

    /// The dwell of the centre itself.
    pub fn dwell(&self) -> usize {
        self.points.len() - 2
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
    }
}
