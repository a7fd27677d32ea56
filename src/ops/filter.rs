//! `FilterSpec` parsing and validation: `sobel[:scale=S]`, `box:radius=R`,
//! `gaussian:sigma=S[,radius=R]`, `transpose`.

use std::fmt;
use std::str::FromStr;

/// Largest box radius accepted (`(2R+1)²` window).
pub const BOX_RADIUS_MAX: u32 = 255;
/// Largest Gaussian radius accepted (kernel of `2R+1` taps).
pub const GAUSSIAN_RADIUS_MAX: u32 = 96;
/// Gaussian sigma range.
pub const GAUSSIAN_SIGMA_MIN: f32 = 0.1;
pub const GAUSSIAN_SIGMA_MAX: f32 = 32.0;
/// Sobel scale range.
pub const SOBEL_SCALE_MAX: f32 = 64.0;

/// One image operation with validated parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Filter {
    /// Gradient magnitude of luma, scaled, written to R, G and B.
    Sobel { scale: f32 },
    /// Mean over the `(2R+1)²` window per RGB channel.
    Box { radius: u32 },
    /// Separable Gaussian with normalised weights `exp(-x²/2σ²)`, `|x| ≤ radius`.
    Gaussian { sigma: f32, radius: u32 },
    /// `out(x, y) = in(y, x)`; the output is H×W.
    Transpose,
}

/// Why a filter specification was refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FilterSpecError {
    #[error("unknown filter '{0}' (expected sobel, box, gaussian or transpose)")]
    UnknownFilter(String),
    #[error("filter '{filter}' has no parameter '{param}'")]
    UnknownParameter { filter: &'static str, param: String },
    #[error("parameter '{param}' of '{filter}' is not a number: '{value}'")]
    NotANumber {
        filter: &'static str,
        param: &'static str,
        value: String,
    },
    #[error("parameter '{param}' of '{filter}' is {value}, outside {min}..={max}")]
    OutOfRange {
        filter: &'static str,
        param: &'static str,
        value: String,
        min: String,
        max: String,
    },
    #[error("filter '{filter}' needs the parameter '{param}'")]
    MissingParameter {
        filter: &'static str,
        param: &'static str,
    },
    #[error("malformed parameter '{0}' (expected name=value)")]
    Malformed(String),
}

impl Filter {
    /// Gaussian with the default radius `ceil(3σ)` (capped at the maximum).
    pub fn gaussian(sigma: f32) -> Self {
        Filter::Gaussian {
            sigma,
            radius: default_gaussian_radius(sigma),
        }
    }

    /// Short lowercase name, as in specifications.
    pub fn name(&self) -> &'static str {
        match self {
            Filter::Sobel { .. } => "sobel",
            Filter::Box { .. } => "box",
            Filter::Gaussian { .. } => "gaussian",
            Filter::Transpose => "transpose",
        }
    }

    /// Output size for an input of `width × height`.
    pub fn output_size(&self, width: u32, height: u32) -> (u32, u32) {
        match self {
            Filter::Transpose => (height, width),
            _ => (width, height),
        }
    }

    /// Checks the parameter ranges of the contract.
    pub fn validate(&self) -> Result<(), FilterSpecError> {
        match *self {
            Filter::Sobel { scale } => check_range("sobel", "scale", scale, 0.0, SOBEL_SCALE_MAX),
            Filter::Box { radius } => check_range("box", "radius", radius, 1, BOX_RADIUS_MAX),
            Filter::Gaussian { sigma, radius } => {
                check_range(
                    "gaussian",
                    "sigma",
                    sigma,
                    GAUSSIAN_SIGMA_MIN,
                    GAUSSIAN_SIGMA_MAX,
                )?;
                check_range("gaussian", "radius", radius, 1, GAUSSIAN_RADIUS_MAX)
            }
            Filter::Transpose => Ok(()),
        }
    }
}

/// `ceil(3σ)`, at least 1 and at most [`GAUSSIAN_RADIUS_MAX`].
pub fn default_gaussian_radius(sigma: f32) -> u32 {
    ((3.0 * sigma).ceil() as u32).clamp(1, GAUSSIAN_RADIUS_MAX)
}

fn check_range<T: PartialOrd + fmt::Display>(
    filter: &'static str,
    param: &'static str,
    value: T,
    min: T,
    max: T,
) -> Result<(), FilterSpecError> {
    // Written so that NaN fails too.
    if value >= min && value <= max {
        Ok(())
    } else {
        Err(FilterSpecError::OutOfRange {
            filter,
            param,
            value: value.to_string(),
            min: min.to_string(),
            max: max.to_string(),
        })
    }
}

fn parse_number<T: FromStr>(
    filter: &'static str,
    param: &'static str,
    value: &str,
) -> Result<T, FilterSpecError> {
    value
        .trim()
        .parse()
        .map_err(|_| FilterSpecError::NotANumber {
            filter,
            param,
            value: value.to_string(),
        })
}

/// Splits `a=1,b=2` into pairs.
fn parameters(text: &str) -> Result<Vec<(String, String)>, FilterSpecError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|pair| {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| FilterSpecError::Malformed(pair.to_string()))?;
            Ok((name.trim().to_ascii_lowercase(), value.trim().to_string()))
        })
        .collect()
}

impl FromStr for Filter {
    type Err = FilterSpecError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let (name, params) = spec.split_once(':').unwrap_or((spec, ""));
        let name = name.trim().to_ascii_lowercase();
        let params = parameters(params)?;
        let filter = match name.as_str() {
            "sobel" => {
                let mut scale = 1.0;
                for (param, value) in params {
                    match param.as_str() {
                        "scale" => scale = parse_number("sobel", "scale", &value)?,
                        _ => return Err(unknown("sobel", param)),
                    }
                }
                Filter::Sobel { scale }
            }
            "box" => {
                let mut radius = None;
                for (param, value) in params {
                    match param.as_str() {
                        "radius" | "r" => radius = Some(parse_number("box", "radius", &value)?),
                        _ => return Err(unknown("box", param)),
                    }
                }
                let radius = radius.ok_or(FilterSpecError::MissingParameter {
                    filter: "box",
                    param: "radius",
                })?;
                Filter::Box { radius }
            }
            "gaussian" | "gauss" => {
                let (mut sigma, mut radius) = (None, None);
                for (param, value) in params {
                    match param.as_str() {
                        "sigma" | "s" => sigma = Some(parse_number("gaussian", "sigma", &value)?),
                        "radius" | "r" => {
                            radius = Some(parse_number("gaussian", "radius", &value)?)
                        }
                        _ => return Err(unknown("gaussian", param)),
                    }
                }
                let sigma: f32 = sigma.ok_or(FilterSpecError::MissingParameter {
                    filter: "gaussian",
                    param: "sigma",
                })?;
                // Validate sigma before deriving the default radius from it.
                Filter::Gaussian { sigma, radius: 1 }.validate()?;
                Filter::Gaussian {
                    sigma,
                    radius: radius.unwrap_or_else(|| default_gaussian_radius(sigma)),
                }
            }
            "transpose" => match params.into_iter().next() {
                Some((param, _)) => return Err(unknown("transpose", param)),
                None => Filter::Transpose,
            },
            _ => return Err(FilterSpecError::UnknownFilter(name)),
        };
        filter.validate()?;
        Ok(filter)
    }
}

fn unknown(filter: &'static str, param: String) -> FilterSpecError {
    FilterSpecError::UnknownParameter { filter, param }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Filter::Sobel { scale } => write!(f, "sobel:scale={scale}"),
            Filter::Box { radius } => write!(f, "box:radius={radius}"),
            Filter::Gaussian { sigma, radius } => {
                write!(f, "gaussian:sigma={sigma},radius={radius}")
            }
            Filter::Transpose => write!(f, "transpose"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_filter() {
        assert_eq!("sobel".parse(), Ok(Filter::Sobel { scale: 1.0 }));
        assert_eq!("sobel:scale=2.5".parse(), Ok(Filter::Sobel { scale: 2.5 }));
        assert_eq!("box:radius=5".parse(), Ok(Filter::Box { radius: 5 }));
        assert_eq!(
            "gaussian:sigma=2".parse(),
            Ok(Filter::Gaussian {
                sigma: 2.0,
                radius: 6
            })
        );
        assert_eq!(
            "gaussian:sigma=0.1".parse(),
            Ok(Filter::Gaussian {
                sigma: 0.1,
                radius: 1
            })
        );
        assert_eq!(
            "gaussian:sigma=32".parse(),
            Ok(Filter::Gaussian {
                sigma: 32.0,
                radius: 96
            })
        );
        assert_eq!(
            "gaussian:sigma=1.5,radius=9".parse(),
            Ok(Filter::Gaussian {
                sigma: 1.5,
                radius: 9
            })
        );
        assert_eq!("transpose".parse(), Ok(Filter::Transpose));
    }

    #[test]
    fn refuses_bad_specifications() {
        for bad in [
            "blur",
            "box",
            "box:radius=0",
            "box:radius=256",
            "box:radius=-1",
            "box:radius=x",
            "box:size=3",
            "gaussian",
            "gaussian:sigma=0.05",
            "gaussian:sigma=33",
            "gaussian:sigma=NaN",
            "gaussian:sigma=2,radius=97",
            "sobel:scale=-1",
            "sobel:scale=inf",
            "transpose:x=1",
            "box:radius",
        ] {
            assert!(bad.parse::<Filter>().is_err(), "{bad} was accepted");
        }
    }

    #[test]
    fn display_round_trips() {
        for f in [
            Filter::Sobel { scale: 1.5 },
            Filter::Box { radius: 7 },
            Filter::Gaussian {
                sigma: 2.5,
                radius: 8,
            },
            Filter::Transpose,
        ] {
            assert_eq!(f.to_string().parse(), Ok(f));
        }
    }
}
