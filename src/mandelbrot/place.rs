//! `Place`: where the explorer looks, exactly — the decimal location and the max dwell,
//! checked by the one rule every way in (the window's history, bookmarks, pasted views,
//! sessions and the command line) applies.

use super::deep::{DeepError, DeepLocation};
use super::MAX_DWELL_LIMIT;
use std::ops::RangeInclusive;

/// The max dwells a view may have.
pub const MAX_DWELL_RANGE: RangeInclusive<u32> = 1..=MAX_DWELL_LIMIT;

/// `max_dwell` if [`MAX_DWELL_RANGE`] holds it.
pub fn check_max_dwell(max_dwell: u32) -> Result<u32, DeepError> {
    if MAX_DWELL_RANGE.contains(&max_dwell) {
        Ok(max_dwell)
    } else {
        Err(DeepError::MaxDwell(max_dwell))
    }
}

/// An exact location and a checked max dwell: the part of a view that navigation changes
/// (not its size or fractal). Two places are equal when their decimals are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub location: DeepLocation,
    max_dwell: u32,
}

impl Place {
    /// A place; the max dwell checked by [`check_max_dwell`].
    pub fn new(location: DeepLocation, max_dwell: u32) -> Result<Self, DeepError> {
        Ok(Self {
            location,
            max_dwell: check_max_dwell(max_dwell)?,
        })
    }

    /// The place at an f64 centre and span (plain bookmarks, sessions of f64 views).
    pub fn from_f64(center: (f64, f64), span: f64, max_dwell: u32) -> Result<Self, DeepError> {
        Self::new(DeepLocation::from_f64(center, span)?, max_dwell)
    }

    pub fn max_dwell(&self) -> u32 {
        self.max_dwell
    }

    /// This place with another max dwell (checked).
    pub fn with_max_dwell(self, max_dwell: u32) -> Result<Self, DeepError> {
        Self::new(self.location, max_dwell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_max_dwell_is_checked_by_one_rule() {
        let loc = DeepLocation::parse("-0.75,0.1", "1e-120").expect("location");
        for bad in [0, MAX_DWELL_LIMIT + 1, u32::MAX] {
            let e = Place::new(loc, bad).expect_err("out of range");
            assert!(e.to_string().contains(&bad.to_string()), "{e}");
        }
        let p = Place::new(loc, MAX_DWELL_LIMIT).expect("the limit itself");
        assert_eq!(p.max_dwell(), MAX_DWELL_LIMIT);
        assert!(p.with_max_dwell(0).is_err());
        assert_eq!(p.with_max_dwell(1).expect("one").max_dwell(), 1);
    }

    #[test]
    fn places_past_f64_stay_apart() {
        // Two centres 1e-110 apart round to the same f64 pair: as places they differ.
        let a = DeepLocation::parse("-0.75,0.1", "1e-120").expect("a");
        let b = DeepLocation::parse("-0.75000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001,0.1", "1e-120").expect("b");
        let (pa, pb) = (Place::new(a, 500), Place::new(b, 500));
        assert_ne!(pa.expect("a"), pb.expect("b"));
        let f = Place::from_f64((-0.75, 0.1), 3.0, 500).expect("f64");
        assert_eq!(f.location.span.to_f64(), 3.0);
    }
}
