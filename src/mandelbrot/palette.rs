//! Palettes: a dwell → RGBA8 lookup table shared by the CPU and CUDA colouring (the GPU
//! kernel indexes the same table), smooth gradients cycled along sqrt(dwell).

/// Colour schemes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Palette {
    #[default]
    Classic,
    Fire,
    Ocean,
    Grey,
}

impl Palette {
    pub const ALL: [Palette; 4] = [
        Palette::Classic,
        Palette::Fire,
        Palette::Ocean,
        Palette::Grey,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Palette::Classic => "Classic",
            Palette::Fire => "Fire",
            Palette::Ocean => "Ocean",
            Palette::Grey => "Grey",
        }
    }

    fn stops(self) -> &'static [[u8; 3]] {
        match self {
            Palette::Classic => &[
                [0, 7, 100],
                [32, 107, 203],
                [237, 255, 255],
                [255, 170, 0],
                [0, 2, 0],
                [0, 7, 100],
            ],
            Palette::Fire => &[
                [20, 0, 0],
                [180, 30, 0],
                [255, 160, 0],
                [255, 255, 180],
                [180, 30, 0],
                [20, 0, 0],
            ],
            Palette::Ocean => &[
                [0, 10, 30],
                [0, 90, 140],
                [80, 200, 220],
                [230, 250, 255],
                [0, 90, 140],
                [0, 10, 30],
            ],
            Palette::Grey => &[[10, 10, 10], [245, 245, 245], [10, 10, 10]],
        }
    }

    /// The colour at position `t` (wrapping) of the cyclic gradient.
    fn at(self, t: f64) -> [u8; 3] {
        let stops = self.stops();
        let segments = (stops.len() - 1) as f64;
        let pos = t.rem_euclid(1.0) * segments;
        let i = (pos.floor() as usize).min(stops.len() - 2);
        let f = pos - i as f64;
        let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
        [0, 1, 2].map(|c| mix(stops[i][c], stops[i + 1][c]))
    }

    /// The table: entry n < max_dwell is the gradient at sqrt(n)/8, entry max_dwell
    /// (points that never escaped) is `interior`.
    pub fn lut(self, max_dwell: u32, interior: [u8; 4]) -> Vec<[u8; 4]> {
        (0..=max_dwell)
            .map(|n| {
                if n == max_dwell {
                    interior
                } else {
                    let [r, g, b] = self.at(f64::from(n).sqrt() / 8.0);
                    [r, g, b, 255]
                }
            })
            .collect()
    }
}

/// Colours dwells through a LUT (CPU backend; the GPU runs `mandel_colorize`).
pub fn colorize(dwells: &super::Dwells, lut: &[[u8; 4]]) -> image::RgbaImage {
    let last = lut.len().saturating_sub(1);
    let pixels = dwells
        .values
        .iter()
        .flat_map(|&d| lut.get((d as usize).min(last)).copied().unwrap_or([0; 4]))
        .collect();
    image::RgbaImage::from_raw(dwells.width, dwells.height, pixels)
        .unwrap_or_else(|| image::RgbaImage::new(dwells.width, dwells.height))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lut_has_an_entry_per_dwell_and_the_interior_last() {
        for p in Palette::ALL {
            let lut = p.lut(100, [1, 2, 3, 255]);
            assert_eq!(lut.len(), 101);
            assert_eq!(lut[100], [1, 2, 3, 255]);
            assert!(lut[..100].iter().all(|c| c[3] == 255));
        }
    }
}
