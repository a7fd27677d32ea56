//! `--bins` and `--range` as text.

use super::bin_range::MAX_BINS;

/// A `--bins` or `--range` value that is not one.
#[derive(Debug, thiserror::Error)]
pub enum OptionTextError {
    #[error("expected a whole number of bins from 1 to {MAX_BINS}, not {0:?}")]
    Bins(String),
    #[error("expected LO,HI (two finite numbers, LO <= HI), not {0:?}")]
    Range(String),
}

/// Parses `--bins N`: 1..=65536.
pub fn parse_bins(text: &str) -> Result<usize, OptionTextError> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_BINS).contains(&n) => Ok(n),
        _ => Err(OptionTextError::Bins(text.to_string())),
    }
}

/// Parses `--range LO,HI`: finite, `LO <= HI`.
pub fn parse_range(text: &str) -> Result<(f64, f64), OptionTextError> {
    let bad = || OptionTextError::Range(text.to_string());
    let (lo, hi) = text.split_once(',').ok_or_else(bad)?;
    let lo: f64 = lo.trim().parse().map_err(|_| bad())?;
    let hi: f64 = hi.trim().parse().map_err(|_| bad())?;
    if lo.is_finite() && hi.is_finite() && lo <= hi {
        Ok((lo, hi))
    } else {
        Err(bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse() {
        assert_eq!(parse_bins("1").ok(), Some(1));
        assert_eq!(parse_bins("65536").ok(), Some(65536));
        for bad in ["0", "65537", "-3", "x", "2.5"] {
            assert!(parse_bins(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_range("-1.5, 2").ok(), Some((-1.5, 2.0)));
        assert_eq!(parse_range("3,3").ok(), Some((3.0, 3.0)));
        for bad in ["1", "2,1", "a,b", "0,inf", "nan,1", "1,2,3"] {
            assert!(parse_range(bad).is_err(), "{bad}");
        }
    }
}
