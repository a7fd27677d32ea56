//! `Filter`: a registered filter with validated parameter values, parsed from and printed
//! as a specification (`box:radius=5`, `gaussian:sigma=2,radius=6`, `threshold:method=otsu`).

use super::param::Default as ParamDefault;
use super::{find, FilterDef, FilterSpecError, Params, FILTERS};
use crate::pixels::{ImageBuf, PixelImage};
use image::RgbaImage;
use std::fmt;
use std::str::FromStr;

/// One image operation with validated parameters.
#[derive(Clone, Copy)]
pub struct Filter {
    def: &'static FilterDef,
    params: Params,
}

impl Filter {
    /// The filter's descriptor.
    pub fn def(&self) -> &'static FilterDef {
        self.def
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Short lowercase name, as in specifications.
    pub fn name(&self) -> &'static str {
        self.def.name
    }

    /// Output size for an input of `width × height`.
    pub fn output_size(&self, width: u32, height: u32) -> (u32, u32) {
        self.def.ops.output_size(width, height)
    }

    /// The CPU reference applied to an RGBA8 `image` (the fast path).
    pub fn apply_cpu(&self, image: &RgbaImage) -> RgbaImage {
        self.def.ops.cpu_rgba8(image, &self.params)
    }

    /// The CPU reference applied to an image of any sample type and channel count: RGBA8
    /// takes the fast path ([`Filter::apply_cpu`]), anything else the generic reference.
    pub fn apply_cpu_typed(&self, image: &PixelImage) -> PixelImage {
        match image {
            PixelImage::U8(b) if b.channels() == 4 => {
                PixelImage::from_rgba8(self.apply_cpu(&rgba8_of(b)))
            }
            _ => self.def.ops.cpu(image, &self.params),
        }
    }

    /// Sets parameter `index` (clamped into its range, whole for integers) and re-derives the
    /// derived ones unless `keep_derived`. For the UI's sliders: a value that breaks the
    /// filter's [`super::FilterOps::check`] (black moved above white) is not taken.
    pub fn set_param(&mut self, index: usize, value: f32, keep_derived: bool) {
        let Some(def) = self.def.params.get(index) else {
            return;
        };
        let mut v = value.clamp(def.slider_min(), def.max);
        if def.integer {
            v = v.round();
        }
        let before = self.params;
        self.params.0[index] = v;
        if !keep_derived {
            self.rederive();
        }
        if self.def.ops.check(&self.params).is_err() {
            self.params = before;
        }
    }
}

impl Filter {
    /// Checks every parameter against its range (parsing guarantees it; fuzzing checks it).
    pub fn validate(&self) -> Result<(), FilterSpecError> {
        for (i, p) in self.def.params.iter().enumerate() {
            let v = self.params.get(i);
            if !p.in_range(v) || (p.integer && v.fract() != 0.0) {
                return Err(FilterSpecError::OutOfRange {
                    filter: self.def.name,
                    param: p.name,
                    value: v.to_string(),
                    range: p.range_text(),
                });
            }
        }
        self.check()
    }

    /// The filter's check of how its parameters relate.
    fn check(&self) -> Result<(), FilterSpecError> {
        self.def
            .ops
            .check(&self.params)
            .map_err(|reason| FilterSpecError::Inconsistent {
                filter: self.def.name,
                reason,
            })
    }

    /// Recomputes the derived parameters from the others (the UI's "auto").
    pub fn rederive(&mut self) {
        self.def.ops.derive(&mut self.params);
    }
}

impl PartialEq for Filter {
    fn eq(&self, other: &Self) -> bool {
        self.def.name == other.def.name && self.params == other.params
    }
}

impl fmt::Debug for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Filter({self})")
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.def.name)?;
        for (i, p) in self.def.params.iter().enumerate() {
            let sep = if i == 0 { ':' } else { ',' };
            let value = self.params.get(i);
            match p.word(value) {
                Some(word) => write!(f, "{sep}{}={word}", p.name)?,
                None => write!(f, "{sep}{}={value}", p.name)?,
            }
        }
        Ok(())
    }
}

/// An RGBA8 image of a 4-channel U8 buffer's samples.
fn rgba8_of(buf: &ImageBuf<u8>) -> RgbaImage {
    RgbaImage::from_raw(buf.width(), buf.height(), buf.as_slice().to_vec())
        .unwrap_or_else(|| unreachable!("a 4-channel buffer holds w·h·4 samples"))
}

/// Splits `a=1,b=2` into trimmed, lowercase-named pairs.
fn pairs(text: &str) -> Result<Vec<(String, &str)>, FilterSpecError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|pair| {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| FilterSpecError::Malformed(pair.to_string()))?;
            Ok((name.trim().to_ascii_lowercase(), value.trim()))
        })
        .collect()
}

/// Parses one value of parameter `index` of `def` and checks its range; a choice takes one
/// of its words (any case), not its index.
fn parse_value(def: &'static FilterDef, index: usize, text: &str) -> Result<f32, FilterSpecError> {
    let p = &def.params[index];
    let (filter, param) = (def.name, p.name);
    if p.is_choice() {
        return p
            .value_of_word(text)
            .ok_or_else(|| FilterSpecError::UnknownChoice {
                filter,
                param,
                value: text.to_string(),
                choices: p.choices.join(", "),
            });
    }
    // Integers are read as integers first, so that `-1` is out of range, not "not a number".
    let value: f64 = text.parse().map_err(|_| FilterSpecError::NotANumber {
        filter,
        param,
        value: text.to_string(),
    })?;
    let v = value as f32;
    if !p.in_range(v) {
        return Err(FilterSpecError::OutOfRange {
            filter,
            param,
            value: text.to_string(),
            range: p.range_text(),
        });
    }
    if p.integer && value.fract() != 0.0 {
        return Err(FilterSpecError::NotWhole {
            filter,
            param,
            value: text.to_string(),
        });
    }
    Ok(v)
}

impl FromStr for Filter {
    type Err = FilterSpecError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let (name, rest) = spec.split_once(':').unwrap_or((spec, ""));
        let name = name.trim().to_ascii_lowercase();
        let def = find(&name).ok_or_else(|| FilterSpecError::UnknownFilter {
            name: name.clone(),
            known: FILTERS
                .iter()
                .map(|d| d.name)
                .collect::<Vec<_>>()
                .join(", "),
        })?;
        let defs = def.params;
        let mut params = Params::default();
        let mut given = [false; super::MAX_PARAMS];
        for (param, text) in pairs(rest)? {
            let index = defs.iter().position(|p| p.matches(&param)).ok_or_else(|| {
                FilterSpecError::UnknownParameter {
                    filter: def.name,
                    param: param.clone(),
                    known: defs.iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
                }
            })?;
            if given[index] {
                return Err(FilterSpecError::Repeated {
                    filter: def.name,
                    param: defs[index].name,
                });
            }
            params.0[index] = parse_value(def, index, text)?;
            given[index] = true;
        }
        let mut derived = [false; super::MAX_PARAMS];
        for (i, p) in defs.iter().enumerate().filter(|(i, _)| !given[*i]) {
            match p.default {
                ParamDefault::Required => {
                    return Err(FilterSpecError::MissingParameter {
                        filter: def.name,
                        param: p.name,
                    })
                }
                ParamDefault::Value(v) => params.0[i] = v,
                ParamDefault::Derived => derived[i] = true,
            }
        }
        if derived.iter().any(|d| *d) {
            let mut full = params;
            def.ops.derive(&mut full);
            for i in (0..defs.len()).filter(|i| derived[*i]) {
                params.0[i] = full.0[i];
            }
        }
        let filter = Self { def, params };
        filter.check()?;
        Ok(filter)
    }
}
