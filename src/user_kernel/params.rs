//! Parameter values of a user kernel: set from `name=value` text (the CLI's
//! `--filter kernel:path.cu,strength=1.5`) or sliders, and packed into the 64-byte
//! `Params` block the kernel receives by value.

use super::prelude::PARAMS_BYTES;
use super::source::{ParamDecl, ParamKind};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParamError {
    #[error("unknown kernel parameter `{name}` (declared: {declared})")]
    Unknown { name: String, declared: String },
    #[error("kernel parameter `{name}`: `{value}` is not {expected}")]
    BadValue {
        name: String,
        value: String,
        expected: &'static str,
    },
    #[error("kernel parameter `{name}` = {value} is outside {min}..{max}")]
    OutOfRange {
        name: String,
        value: f64,
        min: f64,
        max: f64,
    },
    #[error("`{0}` is not name=value")]
    NotAssignment(String),
}

/// The value of each declared parameter, in declaration order.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamValues {
    pub values: Vec<f64>,
}

impl ParamValues {
    /// Every parameter at its default.
    pub fn defaults(decls: &[ParamDecl]) -> Self {
        Self {
            values: decls.iter().map(|d| d.default).collect(),
        }
    }

    /// Sets parameter `name` from text, checking its type and range.
    pub fn set(&mut self, decls: &[ParamDecl], name: &str, text: &str) -> Result<(), ParamError> {
        let (i, d) = decls
            .iter()
            .enumerate()
            .find(|(_, d)| d.name == name)
            .ok_or_else(|| ParamError::Unknown {
                name: name.to_string(),
                declared: if decls.is_empty() {
                    "none".into()
                } else {
                    decls
                        .iter()
                        .map(|d| d.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            })?;
        let bad = |expected| ParamError::BadValue {
            name: name.to_string(),
            value: text.to_string(),
            expected,
        };
        let v = match d.kind {
            ParamKind::Float => text
                .parse::<f32>()
                .ok()
                .filter(|v| v.is_finite())
                .map(f64::from)
                .ok_or_else(|| bad("a finite number"))?,
            ParamKind::Int => text
                .parse::<i32>()
                .map(f64::from)
                .map_err(|_| bad("an integer"))?,
            ParamKind::Bool => match text {
                "true" | "1" => 1.0,
                "false" | "0" => 0.0,
                _ => return Err(bad("true, false, 1 or 0")),
            },
        };
        if !(d.min..=d.max).contains(&v) {
            return Err(ParamError::OutOfRange {
                name: name.to_string(),
                value: v,
                min: d.min,
                max: d.max,
            });
        }
        self.values[i] = v;
        Ok(())
    }

    /// Defaults overridden by `a=1,b=2` (empty text: all defaults).
    pub fn from_assignments(decls: &[ParamDecl], text: &str) -> Result<Self, ParamError> {
        let mut values = Self::defaults(decls);
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| ParamError::NotAssignment(item.to_string()))?;
            values.set(decls, name.trim(), value.trim())?;
        }
        Ok(values)
    }

    /// The `Params` block as the kernel sees it.
    pub fn pack(&self, decls: &[ParamDecl]) -> ParamBlock {
        let mut words = [0u32; PARAMS_BYTES / 4];
        for ((w, d), &v) in words.iter_mut().zip(decls).zip(&self.values) {
            *w = match d.kind {
                ParamKind::Float => (v as f32).to_bits(),
                ParamKind::Int => (v as i32) as u32,
                // bool in the slot's first byte (little-endian), padding zero.
                ParamKind::Bool => u32::from(v != 0.0),
            };
        }
        ParamBlock { words }
    }
}

/// The kernel's `Params` argument: 16 little-endian 4-byte slots.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamBlock {
    pub words: [u32; PARAMS_BYTES / 4],
}

// SAFETY: plain old data, 64 bytes aligned to 4, the size and alignment of the generated
// `Params` struct (checked there by static_assert), passed by value as a kernel argument.
unsafe impl cudarc::driver::DeviceRepr for ParamBlock {}

/// Splits a filter spec's argument `path.cu,a=1,b=2` into the path and the assignments
/// (the path ends at the first comma followed by `name=`).
pub fn split_spec(spec: &str) -> (&str, &str) {
    let mut start = 0;
    while let Some(i) = spec[start..].find(',').map(|i| start + i) {
        let rest = &spec[i + 1..];
        let head = rest.split(',').next().unwrap_or("");
        if head.contains('=') {
            return (&spec[..i], rest);
        }
        start = i + 1;
    }
    (spec, "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::user_kernel::source::KernelSource;

    fn decls() -> Vec<ParamDecl> {
        KernelSource::parse(
            "// @param float s 0..2 = 1\n// @param int r -3..8 = 2\n// @param bool inv\nuchar4 pixel(int x, int y, Image i, Params p) { return read(i, x, y); }",
        )
        .unwrap()
        .params
    }

    #[test]
    fn assignments_override_defaults() {
        let d = decls();
        let v = ParamValues::from_assignments(&d, "r=-3, inv=true").unwrap();
        assert_eq!(v.values, [1.0, -3.0, 1.0]);
        let b = v.pack(&d);
        assert_eq!(b.words[0], 1.0f32.to_bits());
        assert_eq!(b.words[1], (-3i32) as u32);
        assert_eq!(b.words[2], 1);
        assert!(b.words[3..].iter().all(|&w| w == 0));
        assert_eq!(std::mem::size_of::<ParamBlock>(), PARAMS_BYTES);
    }

    #[test]
    fn bad_assignments_are_refused() {
        let d = decls();
        for text in [
            "s=3",
            "s=nan",
            "s=inf",
            "r=1.5",
            "inv=2",
            "q=1",
            "s",
            "r=99999999999",
        ] {
            let e = ParamValues::from_assignments(&d, text).unwrap_err();
            assert!(!e.to_string().contains('\n'), "{e}");
        }
    }

    #[test]
    fn spec_splits_at_the_first_assignment() {
        assert_eq!(split_spec("a.cu"), ("a.cu", ""));
        assert_eq!(split_spec("a.cu,s=1,r=2"), ("a.cu", "s=1,r=2"));
        assert_eq!(
            split_spec("dir,with,commas/a.cu,s=1"),
            ("dir,with,commas/a.cu", "s=1")
        );
    }
}
