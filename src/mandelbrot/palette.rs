//! Palettes: cyclic colour gradients (see `Coloring` for how dwells are mapped onto them).
//! Four built in, and the user's own: stops (position → colour) along the cycle.

use std::sync::Arc;

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

    /// The palette as evenly spaced stops (the start of a user palette).
    pub fn to_stops(self) -> Vec<Stop> {
        let colours = self.stops();
        let n = colours.len() - 1; // the last repeats the first
        colours[..n]
            .iter()
            .enumerate()
            .map(|(i, &rgb)| Stop {
                position: i as f32 / n as f32,
                rgb,
            })
            .collect()
    }
}

/// One stop of a user palette: a position along the cycle (0..1) and its colour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stop {
    pub position: f32,
    pub rgb: [u8; 3],
}

/// Most stops a user palette holds (a Fractint map has 256 colours).
pub const MAX_STOPS: usize = 1024;

/// Why stops do not make a palette.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GradientError {
    #[error("a palette needs at least one stop")]
    Empty,
    #[error("a palette holds at most {MAX_STOPS} stops, not {0}")]
    TooMany(usize),
    #[error("stop position {0} is not within 0..=1")]
    Position(f32),
    #[error("a palette needs a name")]
    NoName,
}

/// A user palette: a name and its stops, sorted by position, the cycle wrapping from the
/// last stop back to the first; colours between stops are mixed linearly.
///
/// Shared, not copied: the stops sit behind an `Arc` because the settings that hold a
/// palette are cloned into every background frame, undo step and GPU table key. A clone
/// is a pointer copy; equality compares the stops (what decides whether a colour table or
/// a recolouring is due).
#[derive(Debug, Clone, PartialEq)]
pub struct Gradient {
    name: Arc<str>,
    stops: Arc<[Stop]>,
}

impl Gradient {
    /// A palette of `stops` (any order; a position of exactly 1 means 0).
    pub fn new(name: &str, mut stops: Vec<Stop>) -> Result<Self, GradientError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(GradientError::NoName);
        }
        if stops.is_empty() {
            return Err(GradientError::Empty);
        }
        if stops.len() > MAX_STOPS {
            return Err(GradientError::TooMany(stops.len()));
        }
        for s in &mut stops {
            if !(0.0..=1.0).contains(&s.position) {
                return Err(GradientError::Position(s.position));
            }
            if s.position == 1.0 {
                s.position = 0.0;
            }
        }
        stops.sort_by(|a, b| a.position.total_cmp(&b.position));
        Ok(Self {
            name: name.into(),
            stops: stops.into(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn stops(&self) -> &[Stop] {
        &self.stops
    }

    /// The same stops under another name.
    pub fn renamed(&self, name: &str) -> Result<Self, GradientError> {
        Self::new(name, self.stops.to_vec())
    }

    /// The colour at position `t` (wrapping): the stops either side of it mixed linearly,
    /// a stop's own colour exactly at its position.
    pub fn at(&self, t: f64) -> [u8; 3] {
        let stops = &self.stops;
        let t = t.rem_euclid(1.0);
        // The last stop at or before t; before the first stop, the last one a cycle back.
        let after = stops.partition_point(|s| f64::from(s.position) <= t);
        let (a, a_pos) = match after {
            0 => {
                let last = stops[stops.len() - 1];
                (last, f64::from(last.position) - 1.0)
            }
            i => (stops[i - 1], f64::from(stops[i - 1].position)),
        };
        let (b, b_pos) = match stops.get(after) {
            Some(&b) => (b, f64::from(b.position)),
            None => (stops[0], f64::from(stops[0].position) + 1.0),
        };
        let span = b_pos - a_pos;
        let f = if span > 0.0 { (t - a_pos) / span } else { 0.0 };
        let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
        [0, 1, 2].map(|c| mix(a.rgb[c], b.rgb[c]))
    }
}

/// The palette a picture is coloured with: a built-in one or a user's.
#[derive(Debug, Clone, PartialEq)]
pub enum PaletteChoice {
    Builtin(Palette),
    User(Gradient),
}

impl Default for PaletteChoice {
    fn default() -> Self {
        Self::Builtin(Palette::default())
    }
}

impl From<Palette> for PaletteChoice {
    fn from(p: Palette) -> Self {
        Self::Builtin(p)
    }
}

impl PaletteChoice {
    /// The colour at position `t` (wrapping) of the cycle.
    pub fn at(&self, t: f64) -> [u8; 3] {
        match self {
            Self::Builtin(p) => p.at(t),
            Self::User(g) => g.at(t),
        }
    }

    /// The name shown in the panel.
    pub fn name(&self) -> &str {
        match self {
            Self::Builtin(p) => p.name(),
            Self::User(g) => g.name(),
        }
    }

    /// The palette's stops (a built-in one's evenly spaced).
    pub fn to_stops(&self) -> Vec<Stop> {
        match self {
            Self::Builtin(p) => p.to_stops(),
            Self::User(g) => g.stops().to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stop(position: f32, rgb: [u8; 3]) -> Stop {
        Stop { position, rgb }
    }

    #[test]
    fn builtins_as_stops_give_the_same_colours_at_the_stops() {
        for p in Palette::ALL {
            let g = Gradient::new(p.name(), p.to_stops()).expect("valid");
            for s in g.stops() {
                assert_eq!(g.at(f64::from(s.position)), p.at(f64::from(s.position)));
            }
            for i in 0..200 {
                let t = f64::from(i) / 200.0;
                let (a, b) = (g.at(t), p.at(t));
                for c in 0..3 {
                    assert!(a[c].abs_diff(b[c]) <= 1, "{p:?} at {t}: {a:?} {b:?}");
                }
            }
        }
    }

    #[test]
    fn stops_mix_linearly_and_wrap() {
        let g = Gradient::new(
            "two",
            vec![stop(0.75, [200, 0, 0]), stop(0.25, [0, 0, 100])],
        )
        .expect("valid");
        assert_eq!(g.stops()[0].position, 0.25, "sorted");
        assert_eq!(g.at(0.25), [0, 0, 100]);
        assert_eq!(g.at(0.75), [200, 0, 0]);
        assert_eq!(g.at(0.5), [100, 0, 50]);
        // From 0.75 round to 1.25: 0 and 1 lie halfway.
        assert_eq!(g.at(0.0), [100, 0, 50]);
        assert_eq!(g.at(1.0), [100, 0, 50]);
        assert_eq!(g.at(-0.5), g.at(0.5));
        let one = Gradient::new("flat", vec![stop(0.3, [1, 2, 3])]).expect("valid");
        assert_eq!(one.at(0.9), [1, 2, 3]);
        assert_eq!(one.at(0.1), [1, 2, 3]);
    }

    #[test]
    fn bad_stops_are_refused() {
        assert_eq!(Gradient::new("x", vec![]), Err(GradientError::Empty));
        assert_eq!(
            Gradient::new("x", vec![stop(1.5, [0; 3])]),
            Err(GradientError::Position(1.5))
        );
        assert!(Gradient::new("x", vec![stop(f32::NAN, [0; 3])]).is_err());
        assert_eq!(
            Gradient::new(" ", vec![stop(0.0, [0; 3])]),
            Err(GradientError::NoName)
        );
        assert_eq!(
            Gradient::new("x", vec![stop(0.0, [0; 3]); MAX_STOPS + 1]),
            Err(GradientError::TooMany(MAX_STOPS + 1))
        );
        let wrapped = Gradient::new("x", vec![stop(1.0, [9; 3])]).expect("1 is 0");
        assert_eq!(wrapped.stops()[0].position, 0.0);
    }
}
