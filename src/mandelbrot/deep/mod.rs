//! Deep zoom: views below f64's precision, rendered by perturbation around one reference
//! orbit computed in arbitrary precision.
//!
//! A deep view's centre and span are exact decimals ([`Decimal`], [`DeepLocation`]). The
//! reference orbit Z_n at the centre is iterated in fixed point on `num-bigint` ([`fixed`],
//! [`ReferenceOrbit`]) and stored as double-doubles ([`Dd`]; or as [`ComplexExp`] below
//! f64's range); each pixel iterates only its difference δ from it (`perturb`), rebasing to
//! the orbit's start when |Z_n + δ_n| < |δ_n| or when the reference has escaped. [`direct_dwell`] is the
//! slow, exact reference the tests compare against; [`choose_precision`] picks
//! f32 → f64 → perturbation → extended exponent by the pixel size.

mod bla;
mod bookmarks;
mod complex_exp;
mod decimal;
mod direct;
mod double_double;
pub mod fixed;
mod float_exp;
mod location;
mod orbit;
mod perturb;
mod precision;

pub use bla::{BlaTable, EPSILON_DD_LOG2, EPSILON_EXT_LOG2};
pub use bookmarks::{find_bookmark, parse_bookmark_name, DeepBookmark, DEEP_BOOKMARKS};
pub use complex_exp::ComplexExp;
pub use decimal::{Decimal, DECIMAL_DIGITS};
pub use direct::{direct_dwell, sample_pixels};
pub use double_double::Dd;
pub use float_exp::FloatExp;
pub use location::{DeepLocation, DeepView, MAX_SPAN, MIN_SPAN_EXP10};
pub use orbit::{OrbitLayout, ReferenceOrbit};
pub use perturb::{
    dwell_dd, dwell_ext, offset_dd, offset_ext, render_perturbation, Derivative, Perturbation,
    PixelEnd, Track,
};
pub use precision::{choose_precision, is_deep};

/// What can be wrong with a deep location.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeepError {
    #[error("'{0}' is not a decimal number")]
    Invalid(String),
    #[error("{digits} significant digits: at most {max}")]
    TooManyDigits { digits: usize, max: usize },
    #[error("decimal exponent {0} out of range")]
    Exponent(i64),
    #[error("span {0}")]
    Span(String),
    #[error("'{0}': expected RE,IM")]
    NotAPair(String),
    #[error("{0}")]
    Fractal(String),
    #[error("max dwell {0}: must be 1..={limit}", limit = crate::mandelbrot::MAX_DWELL_LIMIT)]
    MaxDwell(u32),
}
