//! The bin rule of ranged histograms: `bins` equal bins over `[lo, hi]`, as
//! `numpy.histogram` places values.

/// Most bins a ranged histogram may have.
pub const MAX_BINS: usize = 65536;

/// Why a histogram could not be made with the options given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HistogramError {
    #[error("bins must be 1..={MAX_BINS}, not {0}")]
    Bins(usize),
    #[error("the range {lo},{hi} is not two finite numbers with LO <= HI")]
    Range { lo: f64, hi: f64 },
    #[error("{got} bin counts given where {want} are needed")]
    Counts { want: usize, got: usize },
}

/// Where a value goes: a bin, or one of the counts kept apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Bin(usize),
    Below,
    Above,
    Nan,
}

/// `bins` equal bins over `[lo, hi]`.
///
/// A value `v` in `[lo, hi]` goes in bin `floor((v − lo) / (hi − lo) · bins)`, computed in
/// f64 in that order, then moved by one where that disagrees with the bin edges (which
/// decide within an ulp of an edge); `v == hi` goes in the last bin. The edges are
/// `lo + i · (hi − lo) / bins` (`i · step + lo`, the last one `hi`). This is
/// `numpy.histogram`'s rule on f64 data, step for step, so counts equal numpy's exactly.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BinRange {
    lo: f64,
    hi: f64,
    bins: usize,
    /// `(hi − lo) / bins`, computed once (every edge is made from it).
    step: f64,
}

impl BinRange {
    /// The range `[lo, hi]` in `bins` bins; `lo == hi` widens to `[lo − 0.5, hi + 0.5]`
    /// (as numpy does).
    pub fn new(lo: f64, hi: f64, bins: usize) -> Result<Self, HistogramError> {
        if !(1..=MAX_BINS).contains(&bins) {
            return Err(HistogramError::Bins(bins));
        }
        if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
            return Err(HistogramError::Range { lo, hi });
        }
        let (lo, hi) = if lo == hi {
            (lo - 0.5, hi + 0.5)
        } else {
            (lo, hi)
        };
        Ok(Self {
            lo,
            hi,
            bins,
            step: (hi - lo) / bins as f64,
        })
    }

    pub fn lo(&self) -> f64 {
        self.lo
    }
    pub fn hi(&self) -> f64 {
        self.hi
    }
    pub fn bins(&self) -> usize {
        self.bins
    }

    /// Width of one bin, `(hi − lo) / bins`.
    pub fn step(&self) -> f64 {
        self.step
    }

    /// Edge `i` (0..=bins): `i · step + lo`, edge `bins` being `hi`.
    #[inline]
    pub fn edge(&self, i: usize) -> f64 {
        if i >= self.bins {
            self.hi
        } else {
            i as f64 * self.step + self.lo
        }
    }

    /// The `bins + 1` edges.
    pub fn edges(&self) -> Vec<f64> {
        (0..=self.bins).map(|i| self.edge(i)).collect()
    }

    /// Where `v` goes.
    #[inline]
    pub fn slot(&self, v: f64) -> Slot {
        if v.is_nan() {
            return Slot::Nan;
        }
        if v < self.lo {
            return Slot::Below;
        }
        if v > self.hi {
            return Slot::Above;
        }
        let f = (v - self.lo) / (self.hi - self.lo) * self.bins as f64;
        // f is in [0, bins]: the conversion truncates, as numpy's cast to intp does.
        // f is finite and non-negative: as i64 is one instruction (as usize is not, before AVX-512).
        let mut i = (f as i64 as usize).min(self.bins - 1);
        if v < self.edge(i) {
            i -= 1;
        } else if i + 1 < self.bins && v >= self.edge(i + 1) {
            i += 1;
        }
        Slot::Bin(i)
    }

    /// The slot index of every integer value `0..values` (the CUDA kernel's table for 8
    /// and 16-bit images).
    pub fn slot_table(&self, values: usize) -> Vec<u32> {
        (0..values)
            .map(|v| self.slot_index(v as f64) as u32)
            .collect()
    }

    /// The slot as an index into `bins + 3` counts: the bins, then below, above, NaN.
    #[inline]
    pub fn slot_index(&self, v: f64) -> usize {
        match self.slot(v) {
            Slot::Bin(i) => i,
            Slot::Below => self.bins,
            Slot::Above => self.bins + 1,
            Slot::Nan => self.bins + 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ideal bin by exact rational arithmetic on small integers.
    fn ideal(v: i64, lo: i64, hi: i64, bins: i64) -> usize {
        (((v - lo) * bins / (hi - lo)).min(bins - 1)) as usize
    }

    #[test]
    fn integer_ranges_place_values_as_exact_arithmetic_does() {
        for (lo, hi, bins) in [(0, 256, 256), (0, 255, 256), (3, 1000, 7), (-5, 5, 3)] {
            let r = BinRange::new(lo as f64, hi as f64, bins as usize).expect("valid");
            for v in lo..=hi {
                assert_eq!(
                    r.slot(v as f64),
                    Slot::Bin(ideal(v, lo, hi, bins)),
                    "{v} in {lo}..{hi}/{bins}"
                );
            }
            assert_eq!(r.slot(lo as f64 - 0.25), Slot::Below);
            assert_eq!(r.slot(hi as f64 + 0.25), Slot::Above);
        }
    }

    #[test]
    fn edges_decide_and_hi_is_in_the_last_bin() {
        let r = BinRange::new(0.0, 1.0, 10).expect("valid");
        assert_eq!(r.edges().len(), 11);
        for i in 0..10 {
            let e = r.edge(i);
            assert_eq!(r.slot(e), Slot::Bin(i), "edge {i} = {e}");
            assert_eq!(
                r.slot(e.next_down().max(0.0)),
                Slot::Bin(i.saturating_sub(1))
            );
        }
        assert_eq!(r.slot(1.0), Slot::Bin(9));
        assert_eq!(r.slot(f64::NAN), Slot::Nan);
        assert_eq!(r.slot(f64::INFINITY), Slot::Above);
        assert_eq!(r.slot_index(f64::NEG_INFINITY), 10);
    }

    #[test]
    fn options_are_checked() {
        assert_eq!(BinRange::new(0.0, 1.0, 0), Err(HistogramError::Bins(0)));
        assert!(BinRange::new(0.0, 1.0, MAX_BINS).is_ok());
        assert!(BinRange::new(0.0, 1.0, MAX_BINS + 1).is_err());
        assert!(BinRange::new(2.0, 1.0, 4).is_err());
        assert!(BinRange::new(f64::NAN, 1.0, 4).is_err());
        let r = BinRange::new(3.0, 3.0, 4).expect("widened");
        assert_eq!((r.lo(), r.hi()), (2.5, 3.5));
    }
}
