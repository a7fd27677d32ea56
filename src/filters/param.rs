//! One parameter of a filter: its name, range, default and how the UI edits it. The spec
//! parser, the sliders and combo boxes, and `--help` all read these; nothing else repeats a
//! limit or a word.
//!
//! A parameter is a number (whole or real, in a range) or a choice among words
//! (`method=otsu`): a choice is stored as the index of its word in the same `f32` storage,
//! so [`Params`] keeps its shape; specifications take and print the word.

/// How many parameters a filter may have.
pub const MAX_PARAMS: usize = 5;

/// Where a parameter's value comes from when the specification does not give it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Default {
    /// The specification must give it.
    Required,
    /// A fixed value.
    Value(f32),
    /// Derived from the other parameters by [`super::FilterOps::derive`] (e.g. the Gaussian
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
    /// The words of a choice, in index order (empty for a number).
    pub choices: &'static [&'static str],
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
            choices: &[],
        }
    }

    /// A choice among `choices` (at least one word), stored as the word's index; `default`
    /// is an index (`Value(0.0)`: the first word).
    pub const fn choice(
        name: &'static str,
        choices: &'static [&'static str],
        default: Default,
    ) -> Self {
        assert!(!choices.is_empty(), "a choice needs a word");
        Self {
            name,
            aliases: &[],
            label: name,
            min: 0.0,
            min_exclusive: false,
            max: (choices.len() - 1) as f32,
            default,
            integer: true,
            logarithmic: false,
            choices,
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
            choices: &[],
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

    /// Whether the parameter is a choice among words.
    pub fn is_choice(&self) -> bool {
        !self.choices.is_empty()
    }

    /// The word of a choice's stored `value` (None for a number or an index out of range).
    pub fn word(&self, value: f32) -> Option<&'static str> {
        if value.fract() != 0.0 || value < 0.0 {
            return None;
        }
        self.choices.get(value as usize).copied()
    }

    /// The stored value of a choice's word (any case), or None.
    pub fn value_of_word(&self, word: &str) -> Option<f32> {
        self.choices
            .iter()
            .position(|c| c.eq_ignore_ascii_case(word))
            .map(|i| i as f32)
    }

    /// The words of a choice as written in help texts and errors: `manual|otsu|mean`.
    pub fn choices_text(&self) -> String {
        self.choices.join("|")
    }

    /// The range as written in help texts and errors: `1..=255`, `0 < scale ≤ 64`, or a
    /// choice's words (`manual|otsu`).
    pub fn range_text(&self) -> String {
        if self.is_choice() {
            self.choices_text()
        } else if self.min_exclusive {
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

/// A filter's parameter values, in the order of its [`ParamDef`]s. Filters read them
/// through their typed parameters ([`typed_params!`]), never by position.
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

/// The Rust type of a typed parameter: `f32` as parsed, `u32` for integer parameters.
pub trait ParamValue: Copy {
    fn from_value(value: f32) -> Self;
    fn to_value(self) -> f32;
}

impl ParamValue for f32 {
    fn from_value(value: f32) -> Self {
        value
    }

    fn to_value(self) -> f32 {
        self
    }
}

impl ParamValue for u32 {
    /// Integer parameters are validated whole and non-negative at parse time.
    fn from_value(value: f32) -> Self {
        value as u32
    }

    fn to_value(self) -> f32 {
        self as f32
    }
}

/// Whether `defs` are the parameters called `names`, in that order (evaluated at compile
/// time by [`typed_params!`]).
pub const fn names_are(defs: &[ParamDef], names: &[&str]) -> bool {
    if defs.len() != names.len() || defs.len() > MAX_PARAMS {
        return false;
    }
    let mut i = 0;
    while i < defs.len() {
        let (a, b) = (defs[i].name.as_bytes(), names[i].as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut j = 0;
        while j < a.len() {
            if a[j] != b[j] {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// A filter's typed parameters: a struct whose fields are the parameters of a `ParamDef`
/// list, by name and in order (checked when compiling), with `from_params` (the one place
/// that reads [`Params`] by position) and `to_params` (for `FilterOps::derive`).
///
/// ```ignore
/// typed_params! {
///     /// σ and R.
///     pub struct GaussianParams for PARAMS { sigma: f32, radius: u32 }
/// }
/// ```
macro_rules! typed_params {
    (
        $(#[$attr:meta])*
        pub struct $name:ident for $defs:expr => {
            $($(#[$field_attr:meta])* $field:ident: $ty:ty),* $(,)?
        }
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub struct $name {
            $($(#[$field_attr])* pub $field: $ty,)*
        }

        const _: () = assert!(
            $crate::filters::param::names_are($defs, &[$(stringify!($field)),*]),
            concat!("the fields of ", stringify!($name), " are not its parameters, in order")
        );

        impl $name {
            /// The named values of a filter's validated parameters.
            pub fn from_params(p: &$crate::filters::Params) -> Self {
                let mut values = p.0.into_iter();
                Self {
                    $($field: $crate::filters::param::ParamValue::from_value(
                        values.next().unwrap_or_default(),
                    ),)*
                }
            }

            /// These values as positional parameters.
            #[allow(dead_code)]
            pub fn to_params(self) -> $crate::filters::Params {
                let mut p = $crate::filters::Params::default();
                let values = [$($crate::filters::param::ParamValue::to_value(self.$field)),*];
                p.0[..values.len()].copy_from_slice(&values);
                p
            }
        }
    };
}
pub(crate) use typed_params;

/// A Rust enum for a choice parameter: its variants and their words, in index order. Its
/// `WORDS` is the list [`ParamDef::choice`] takes, so the parameter and the enum share one
/// list; as a field of [`typed_params!`] it reads the stored index (a `u32` field reads the
/// index itself).
///
/// ```ignore
/// choice_enum! {
///     /// How the level is found.
///     pub enum Method { Manual = "manual", Otsu = "otsu" }
/// }
/// ```
macro_rules! choice_enum {
    (
        $(#[$attr:meta])*
        pub enum $name:ident {
            $($(#[$variant_attr:meta])* $variant:ident = $word:literal),+ $(,)?
        }
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$variant_attr])* $variant,)+
        }

        impl $name {
            /// Every variant, in index order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];
            /// The words of the specifications, in index order.
            pub const WORDS: &'static [&'static str] = &[$($word),+];

            /// The word of this variant in specifications.
            #[allow(dead_code)]
            pub fn word(self) -> &'static str {
                Self::WORDS[self as usize]
            }
        }

        impl $crate::filters::param::ParamValue for $name {
            /// The index is validated at parse time; anything else reads as the first word.
            fn from_value(value: f32) -> Self {
                Self::ALL.get(value as usize).copied().unwrap_or(Self::ALL[0])
            }

            fn to_value(self) -> f32 {
                self as usize as f32
            }
        }
    };
}
pub(crate) use choice_enum;

#[cfg(test)]
mod tests {
    use super::*;

    choice_enum! {
        /// A test choice.
        pub enum Fruit { Apple = "apple", Pear = "pear", Plum = "plum" }
    }

    const FRUIT: ParamDef = ParamDef::choice("fruit", Fruit::WORDS, Default::Value(1.0));

    #[test]
    fn a_choice_is_an_index_range_over_its_words() {
        assert!(FRUIT.is_choice() && FRUIT.integer);
        assert_eq!((FRUIT.min, FRUIT.max), (0.0, 2.0));
        assert!(FRUIT.in_range(2.0) && !FRUIT.in_range(3.0));
        assert_eq!(FRUIT.range_text(), "apple|pear|plum");
        assert_eq!(FRUIT.word(1.0), Some("pear"));
        assert_eq!(FRUIT.word(3.0), None);
        assert_eq!(FRUIT.word(0.5), None);
        assert_eq!(FRUIT.value_of_word("PLUM"), Some(2.0));
        assert_eq!(FRUIT.value_of_word("fig"), None);
        assert!(!ParamDef::int("n", 0, 3, Default::Value(0.0)).is_choice());
    }

    #[test]
    fn the_enum_reads_and_writes_the_index() {
        assert_eq!(Fruit::from_value(2.0), Fruit::Plum);
        assert_eq!(Fruit::Pear.to_value(), 1.0);
        assert_eq!(Fruit::Plum.word(), "plum");
        assert_eq!(Fruit::from_value(7.0), Fruit::Apple);
        assert_eq!(Fruit::from_value(f32::NAN), Fruit::Apple);
        for (i, f) in Fruit::ALL.iter().enumerate() {
            assert_eq!(Fruit::from_value(i as f32), *f);
        }
    }
}
