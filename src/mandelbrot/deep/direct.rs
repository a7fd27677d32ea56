//! The reference for deep views: the contract iterated directly in arbitrary precision,
//! c computed from the decimal centre and span with one rounding. Slow (every step is a
//! big-integer product), so tests use it on sampled pixels.

use super::{fixed, DeepView};
use rand::{Rng, SeedableRng};

/// The dwell of pixel (x, y), iterated with `guard` bits below the pixel size.
pub fn direct_dwell(view: &DeepView, x: u32, y: u32, guard: usize) -> u32 {
    let bits = fixed::bits_for(view, guard);
    let (cr, ci) = fixed::pixel_c(view, x, y, bits);
    fixed::iterate(&cr, &ci, bits, view.max_dwell, |_, _| {})
}

/// `count` distinct pixels of a view, drawn reproducibly from `seed` (all pixels when the
/// view has no more).
pub fn sample_pixels(width: u32, height: u32, count: usize, seed: u64) -> Vec<(u32, u32)> {
    let total = width as usize * height as usize;
    if count >= total {
        return (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .collect();
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut chosen = std::collections::BTreeSet::new();
    while chosen.len() < count {
        chosen.insert(rng.random_range(0..total));
    }
    chosen
        .into_iter()
        .map(|i| ((i % width as usize) as u32, (i / width as usize) as u32))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::{render_per_pixel, View};

    #[test]
    fn equals_f64_where_f64_is_exact_enough() {
        let view = View {
            center: (-0.5, 0.0),
            span: 3.0,
            width: 40,
            height: 30,
            max_dwell: 60,
        };
        let plain = render_per_pixel(&view, false);
        let deep = DeepView::from_view(&view).expect("finite");
        let bad = sample_pixels(40, 30, 200, 7)
            .into_iter()
            .filter(|&(x, y)| direct_dwell(&deep, x, y, 64) != plain.values[(y * 40 + x) as usize])
            .count();
        assert!(bad <= 1, "{bad} of 200");
    }

    #[test]
    fn samples_are_distinct_and_inside() {
        let s = sample_pixels(50, 20, 300, 1);
        assert_eq!(s.len(), 300);
        assert!(s.iter().all(|&(x, y)| x < 50 && y < 20));
        assert_eq!(
            s.iter().collect::<std::collections::BTreeSet<_>>().len(),
            300
        );
        assert_eq!(sample_pixels(3, 2, 10, 1).len(), 6);
    }
}
