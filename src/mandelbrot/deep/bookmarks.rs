//! Deep places, with exact decimal centres: minibrots found by Newton's method near famous
//! points (how each was found: docs/deep-zoom.md; `examples/deep_locations.rs` repeats it).

use super::{DeepError, DeepLocation};

/// A named deep view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeepBookmark {
    pub name: &'static str,
    pub re: &'static str,
    pub im: &'static str,
    pub span: &'static str,
    /// A max dwell that shows the place well.
    pub max_dwell: u32,
}

impl DeepBookmark {
    pub fn location(&self) -> Result<DeepLocation, DeepError> {
        DeepLocation::new(self.re.parse()?, self.im.parse()?, self.span.parse()?)
    }

    /// Its location and max dwell.
    pub fn place(&self) -> Result<crate::mandelbrot::Place, DeepError> {
        crate::mandelbrot::Place::new(self.location()?, self.max_dwell)
    }
}

/// The deep bookmark whose name starts with `prefix` (any case).
pub fn find_bookmark(prefix: &str) -> Option<&'static DeepBookmark> {
    let prefix = prefix.to_lowercase();
    DEEP_BOOKMARKS
        .iter()
        .find(|b| !prefix.is_empty() && b.name.to_lowercase().starts_with(&prefix))
}

/// `--bookmark` values: a prefix of a deep bookmark's name.
pub fn parse_bookmark_name(text: &str) -> Result<String, String> {
    find_bookmark(text)
        .map(|b| b.name.to_string())
        .ok_or_else(|| {
            let names: Vec<_> = DEEP_BOOKMARKS.iter().map(|b| b.name).collect();
            format!("no deep bookmark '{text}' (one of: {})", names.join("; "))
        })
}

pub const DEEP_BOOKMARKS: [DeepBookmark; 5] = [
    DeepBookmark {
        name: "Spiral by c = i, period-71 minibrot",
        re: "-5.7960226633851473342940605164561481986e-27",
        im: "1.0000000000000000000000000028921460006467534922652732365309804002",
        span: "1e-50",
        max_dwell: 5000,
    },
    DeepBookmark {
        name: "Spiral by c = i, period-137 minibrot",
        re: "-3.0025380958279829663174554066474337133326969475092783119974473e-52",
        im: "1.00000000000000000000000000000000000000000000000000089833558468474097854960626240221138\
             331024583861465393794547117",
        span: "1e-100",
        max_dwell: 10000,
    },
    DeepBookmark {
        name: "Spiral by c = i, period-202 minibrot",
        re: "3.51904743327301419439522936487252099438255947317395852581782160556078009363853650900884\
             3e-76",
        im: "1.00000000000000000000000000000000000000000000000000000000000000000000000000029019461913\
             67047806237304327482004232252960522075909149562043923667122975545081325591571",
        span: "1e-150",
        max_dwell: 20000,
    },
    DeepBookmark {
        name: "Spiral by c = i, period-403 minibrot",
        re: "-3.4179996394862087373366181447586776364983578540324421822220509114780220902394504751447\
             42063066402053430251475330475560814818555183479626934153234879978566214462914e-152",
        im: "0.99999999999999999999999999999999999999999999999999999999999999999999999999999999999999\
             9999999999999999999999999999999999999999999999999999999999999999931501371751377156395976\
             9613108523769033028169987251693183740459915331455746497936121692454132269564795864705923\
             2812770077972867425250636857916387545681896824927593",
        span: "1e-300",
        max_dwell: 100000,
    },
    DeepBookmark {
        name: "Wikipedia's seahorse zoom, period-8007 minibrot",
        re: "-0.74364388703715870475219150611477977821525621",
        im: "0.13182590420531197049313205638514067897295228",
        span: "1e-31",
        max_dwell: 60000,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bookmark_parses_and_has_digits_below_its_pixels() {
        assert!(DEEP_BOOKMARKS.len() >= 3);
        for b in DEEP_BOOKMARKS {
            let loc = b.location().unwrap_or_else(|e| panic!("{}: {e}", b.name));
            // A 4096-wide view's pixel is 10^-3.6 of the span: the centre needs digits below.
            let pixel = loc.span.leading_exponent() - 4;
            for part in [loc.re, loc.im] {
                assert!(
                    part.is_zero() || part.smallest_exponent() < pixel,
                    "{}: too few digits",
                    b.name
                );
            }
        }
        for span in ["1e-50", "1e-150", "1e-300"] {
            assert!(DEEP_BOOKMARKS.iter().any(|b| b.span == span), "{span}");
        }
        assert_eq!(
            find_bookmark(&DEEP_BOOKMARKS[0].name[..4]),
            Some(&DEEP_BOOKMARKS[0])
        );
        assert!(parse_bookmark_name("no such place").is_err());
    }
}
