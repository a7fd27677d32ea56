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
    find_bookmark(text).map(|b| b.name.to_string()).ok_or_else(|| {
        let names: Vec<_> = DEEP_BOOKMARKS.iter().map(|b| b.name).collect();
        format!("no deep bookmark '{text}' (one of: {})", names.join("; "))
    })
}

pub const DEEP_BOOKMARKS: [DeepBookmark; 0] = [];

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
        assert_eq!(find_bookmark(&DEEP_BOOKMARKS[0].name[..4]), Some(&DEEP_BOOKMARKS[0]));
        assert!(parse_bookmark_name("no such place").is_err());
    }
}
