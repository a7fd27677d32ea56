//! Palettes: cyclic colour gradients (see `Coloring` for how dwells are mapped onto them).

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
    pub fn at(self, t: f64) -> [u8; 3] {
        let stops = self.stops();
        let segments = (stops.len() - 1) as f64;
        let pos = t.rem_euclid(1.0) * segments;
        let i = (pos.floor() as usize).min(stops.len() - 2);
        let f = pos - i as f64;
        let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
        [0, 1, 2].map(|c| mix(stops[i][c], stops[i + 1][c]))
    }
}
