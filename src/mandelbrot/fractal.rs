//! Which set a view shows: the Mandelbrot set (z₀ = pixel, c = pixel) or the Julia set of a
//! fixed c (z₀ = pixel, c fixed). Julia's c is kept as exact decimals, like a deep view's
//! centre, so a c picked deep in the Mandelbrot set is kept whole.

use super::deep::{Decimal, DeepError};

/// The kinds of fractal. The UI, the CLI and the view text iterate [`FractalKind::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FractalKind {
    Mandelbrot,
    Julia,
}

impl FractalKind {
    /// Every kind, in the order the UI lists them.
    pub const ALL: [FractalKind; 2] = [FractalKind::Mandelbrot, FractalKind::Julia];

    /// The name in view texts and saved settings.
    pub fn name(self) -> &'static str {
        match self {
            FractalKind::Mandelbrot => "mandelbrot",
            FractalKind::Julia => "julia",
        }
    }

    /// The name shown in the UI.
    pub fn label(self) -> &'static str {
        match self {
            FractalKind::Mandelbrot => "Mandelbrot",
            FractalKind::Julia => "Julia",
        }
    }

    /// One line on what the kind iterates.
    pub fn describe(self) -> &'static str {
        match self {
            FractalKind::Mandelbrot => "z ← z² + c from z = c, c the pixel",
            FractalKind::Julia => "z ← z² + c from z = the pixel, c fixed",
        }
    }
}

/// Julia's parameter c: exact decimals and their f64 rounding (what the f64 paths use).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JuliaC {
    re: Decimal,
    im: Decimal,
    approx: (f64, f64),
}

impl JuliaC {
    /// c = re + i·im.
    pub fn new(re: Decimal, im: Decimal) -> Self {
        let approx = (re.to_f64(), im.to_f64());
        Self { re, im, approx }
    }

    /// c from f64 parts (exact: every finite f64 is a decimal).
    pub fn from_f64(re: f64, im: f64) -> Result<Self, DeepError> {
        Ok(Self::new(Decimal::from_f64(re)?, Decimal::from_f64(im)?))
    }

    /// Parses "RE,IM", each any decimal.
    pub fn parse(text: &str) -> Result<Self, DeepError> {
        let (re, im) = text
            .split_once(',')
            .ok_or_else(|| DeepError::NotAPair(text.to_string()))?;
        Ok(Self::new(re.trim().parse()?, im.trim().parse()?))
    }

    pub fn re(&self) -> &Decimal {
        &self.re
    }

    pub fn im(&self) -> &Decimal {
        &self.im
    }

    /// The nearest f64 of each part.
    pub fn to_f64(&self) -> (f64, f64) {
        self.approx
    }

    /// "RE,IM", exact (what [`JuliaC::parse`] reads back).
    pub fn text(&self) -> String {
        format!("{},{}", self.re, self.im)
    }

    /// "RE, IM" in scientific notation, exact (for display).
    pub fn scientific(&self) -> String {
        format!("{}, {}", self.re.scientific(), self.im.scientific())
    }
}

/// The set a view shows.
// Julia's c is held inline (no box) so that views stay `Copy`, as deep locations do.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Fractal {
    #[default]
    Mandelbrot,
    Julia {
        c: JuliaC,
    },
}

impl Fractal {
    pub fn kind(&self) -> FractalKind {
        match self {
            Fractal::Mandelbrot => FractalKind::Mandelbrot,
            Fractal::Julia { .. } => FractalKind::Julia,
        }
    }

    /// Julia's c, if this is a Julia set.
    pub fn julia_c(&self) -> Option<&JuliaC> {
        match self {
            Fractal::Mandelbrot => None,
            Fractal::Julia { c } => Some(c),
        }
    }

    /// The text form: "mandelbrot" or "julia RE,IM" (exact).
    pub fn text(&self) -> String {
        match self {
            Fractal::Mandelbrot => FractalKind::Mandelbrot.name().to_string(),
            Fractal::Julia { c } => format!("{} {}", FractalKind::Julia.name(), c.text()),
        }
    }

    /// Reads [`Fractal::text`] back.
    pub fn parse(text: &str) -> Result<Self, DeepError> {
        let text = text.trim();
        let (name, rest) = text.split_once(' ').unwrap_or((text, ""));
        let kind = FractalKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| DeepError::Fractal(format!("'{name}' is not a fractal kind")))?;
        match (kind, rest.trim()) {
            (FractalKind::Mandelbrot, "") => Ok(Fractal::Mandelbrot),
            (FractalKind::Mandelbrot, extra) => Err(DeepError::Fractal(format!(
                "'{extra}': the Mandelbrot set takes no parameter"
            ))),
            (FractalKind::Julia, c) => Ok(Fractal::Julia {
                c: JuliaC::parse(c)?,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_listed_once_with_distinct_names() {
        let names: std::collections::BTreeSet<_> =
            FractalKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names.len(), FractalKind::ALL.len());
        for k in FractalKind::ALL {
            assert!(!k.label().is_empty() && !k.describe().is_empty());
        }
    }

    #[test]
    fn text_round_trips_exactly() {
        let deep = "-0.74364388703715870475219150611477,0.13182590420531197049313205638514";
        let f = Fractal::parse(&format!("julia {deep}")).expect("julia");
        assert_eq!(f.kind(), FractalKind::Julia);
        assert_eq!(f.julia_c().expect("c").text(), deep);
        assert_eq!(Fractal::parse(&f.text()), Ok(f));
        assert_eq!(Fractal::parse("mandelbrot"), Ok(Fractal::Mandelbrot));
        assert_eq!(
            Fractal::parse("Julia -0.8, 0.156").map(|f| f.kind()),
            Ok(FractalKind::Julia)
        );
        for bad in [
            "",
            "julia",
            "julia 1",
            "julia x,1",
            "mandelbrot 1,2",
            "burning-ship",
        ] {
            assert!(Fractal::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn c_keeps_its_digits_and_rounds_to_f64() {
        let c = JuliaC::parse("-0.8,0.156").expect("c");
        assert_eq!(c.to_f64(), (-0.8, 0.156));
        assert_eq!(c.scientific(), "-8e-1, 1.56e-1");
        assert_eq!(
            JuliaC::from_f64(0.25, -1.5).expect("finite").to_f64(),
            (0.25, -1.5)
        );
    }
}
