//! The table of histogram equalisation, as OpenCV's `equalizeHist` builds it (the
//! `equalize` filter's contract, `filters/equalize.rs`; NPP's equalisation peer uses it
//! too).

/// The equalisation table of one channel's histogram over `total` pixels.
pub fn equalize_lut(hist: &[u32; 256], total: u32) -> [u8; 256] {
    let mut lut: [u8; 256] = std::array::from_fn(|i| i as u8);
    let Some(first) = hist.iter().position(|&n| n > 0) else {
        return lut;
    };
    if hist[first] == total {
        return lut;
    }
    let scale = 255.0f32 / (total - hist[first]) as f32;
    let mut sum = 0u32;
    lut[first] = 0;
    for i in first + 1..256 {
        sum += hist[i];
        lut[i] = (sum as f32 * scale).round_ties_even().clamp(0.0, 255.0) as u8;
    }
    lut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::random_image;

    /// The definition in exact arithmetic: the f32 rounding of OpenCV may differ from it by
    /// at most one level.
    fn exact_lut(hist: &[u32; 256], total: u32) -> Vec<f64> {
        let first = hist.iter().position(|&n| n > 0).unwrap();
        let mut cdf = 0u64;
        (0..256)
            .map(|v| {
                cdf += u64::from(hist[v]);
                if v < first {
                    0.0
                } else {
                    (cdf - u64::from(hist[first])) as f64 * 255.0 / f64::from(total - hist[first])
                }
            })
            .collect()
    }

    #[test]
    fn lut_follows_the_definition() {
        let img = random_image(61, 37, 9);
        let h = crate::ops::cpu::histogram(&img);
        let total = 61 * 37;
        for c in 0..3 {
            let lut = equalize_lut(&h.bins[c], total);
            for (v, want) in exact_lut(&h.bins[c], total).iter().enumerate() {
                if h.bins[c][v] > 0 {
                    assert!((f64::from(lut[v]) - want).abs() <= 0.5 + 1e-4, "c{c} v{v}");
                }
            }
            assert_eq!(lut[255], 255);
        }
    }
}
