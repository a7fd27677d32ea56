//! One parameter of a filter: its name, range, default and how the UI edits it. The spec
//! parser, the sliders and `--help` all read these; nothing else repeats a limit.

/// How many parameters a filter may have.
pub const MAX_PARAMS: usize = 3;

/// Where a parameter's value comes from when the specification does not give it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Default {
    /// The specification must give it.
    Required,
    /// A fixed value.
    Value(f32),
    /// Derived from the other parameters by [`super::FilterDef::derive`] (e.g. the Gaussian
    /// radius from σ); the UI offers an "auto" checkbox.
    Derived,
}

/// A parameter's description.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamDef {
    pub name: &'static str,
    /// Short names also accepted in specifications (`r` for `radius`).
    pub aliases: &'static [&'static str],
    /// Symbol shown on the slider (`σ`), or the name.
    pub label: &'static str,
    pub min: f32,
    /// `min` itself is refused (`0 < scale`).
    pub min_exclusive: bool,
    pub max: f32,
    pub default: Default,
    /// Whole numbers only.
    pub integer: bool,
    /// The slider is logarithmic.
    pub logarithmic: bool,
}

impl ParamDef {
    /// An integer parameter in `min..=max`.
    pub const fn int(name: &'static str, min: u32, max: u32, default: Default) -> Self {
        Self {
            name,
            aliases: &[],
            label: name,
            min: min as f32,
            min_exclusive: false,
            max: max as f32,
            default,
            integer: true,
            logarithmic: false,
        }
    }

    /// A real parameter in `min..=max`.
    pub const fn real(name: &'static str, min: f32, max: f32, default: Default) -> Self {
        Self {
            name,
            aliases: &[],
            label: name,
            min,
            min_exclusive: false,
            max,
            default,
            integer: false,
            logarithmic: false,
        }
    }

    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    pub const fn label(mut self, label: &'static str) -> Self {
        self.label = label;
        self
    }

    pub const fn min_exclusive(mut self) -> Self {
        self.min_exclusive = true;
        self
    }

    pub const fn logarithmic(mut self) -> Self {
        self.logarithmic = true;
        self
    }

    /// Whether `value` is inside the range (NaN is not).
    pub fn in_range(&self, value: f32) -> bool {
        let above_min = if self.min_exclusive {
            value > self.min
        } else {
            value >= self.min
        };
        above_min && value <= self.max
    }

    /// The range as written in help texts and errors: `1..=255`, `0 < scale ≤ 64`.
    pub fn range_text(&self) -> String {
        if self.min_exclusive {
            format!("{} < {} ≤ {}", self.min, self.name, self.max)
        } else {
            format!("{}..={}", self.min, self.max)
        }
    }

    /// The smallest value a slider offers (an exclusive minimum is not offered).
    pub fn slider_min(&self) -> f32 {
        if self.min_exclusive {
            (self.max / 1000.0).max(self.min + f32::EPSILON)
        } else {
            self.min
        }
    }

    pub fn matches(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }
}

/// A filter's parameter values, in the order of its [`ParamDef`]s.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Params(pub [f32; MAX_PARAMS]);

impl Params {
    pub fn get(&self, i: usize) -> f32 {
        self.0[i]
    }

    /// An integer parameter (validated whole and non-negative at parse time).
    pub fn int(&self, i: usize) -> u32 {
        self.0[i] as u32
    }
}
