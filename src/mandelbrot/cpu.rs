//! CPU per-pixel escape time in f64, rows in parallel.

use super::{Dwells, View};
use rayon::prelude::*;

/// The dwell of c = (cr, ci): iterations of z ← z² + c from z = c while |z|² < 4.
#[inline]
pub fn dwell_at(cr: f64, ci: f64, max_dwell: u32) -> u32 {
    let (mut zr, mut zi) = (cr, ci);
    let mut n = 0;
    while n < max_dwell && zr * zr + zi * zi < 4.0 {
        let t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        n += 1;
    }
    n
}

/// Every pixel's dwell.
pub fn render_per_pixel(view: &View) -> Dwells {
    let w = view.width as usize;
    let mut values = vec![0u32; w * view.height as usize];
    values
        .par_chunks_mut(w.max(1))
        .enumerate()
        .for_each(|(y, row)| {
            for (x, d) in row.iter_mut().enumerate() {
                let (cr, ci) = view.point(x as u32, y as u32);
                *d = dwell_at(cr, ci, view.max_dwell);
            }
        });
    Dwells {
        width: view.width,
        height: view.height,
        values,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The contract written out with complex-number arithmetic, one pixel at a time.
    fn plain(view: &View) -> Vec<u32> {
        let mut out = Vec::new();
        for y in 0..view.height {
            for x in 0..view.width {
                let c = (
                    view.center.0
                        + (f64::from(x) + 0.5 - f64::from(view.width) / 2.0) * view.span
                            / f64::from(view.width),
                    view.center.1
                        - (f64::from(y) + 0.5 - f64::from(view.height) / 2.0) * view.span
                            / f64::from(view.width),
                );
                let mut z = c;
                let mut n = 0;
                while n < view.max_dwell && z.0 * z.0 + z.1 * z.1 < 4.0 {
                    z = (z.0 * z.0 - z.1 * z.1 + c.0, 2.0 * z.0 * z.1 + c.1);
                    n += 1;
                }
                out.push(n);
            }
        }
        out
    }

    #[test]
    fn equals_the_plain_contract_exactly() {
        for (w, h) in [(1, 1), (7, 3), (64, 48), (33, 65)] {
            let view = View {
                center: (-0.5, 0.1),
                span: 2.5,
                width: w,
                height: h,
                max_dwell: 200,
            };
            assert_eq!(render_per_pixel(&view).values, plain(&view), "{w}x{h}");
        }
    }

    #[test]
    fn known_points() {
        assert_eq!(dwell_at(0.0, 0.0, 100), 100);
        assert_eq!(dwell_at(-1.0, 0.0, 100), 100);
        assert_eq!(dwell_at(2.0, 2.0, 100), 0);
        // z0 = c = 1, z1 = 2: |z1|² = 4 is not < 4, so one iteration.
        assert_eq!(dwell_at(1.0, 0.0, 100), 1);
        assert_eq!(dwell_at(0.5, 0.0, 100), 4); // 0.5, 0.75, 1.0625, 1.6289, 3.153
    }
}
