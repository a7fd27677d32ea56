//! The command line's parser of specifications (filters, stages, preset names):
//! `T::from_str`, with the words a value starts with as clap's possible values, so that
//! shell completions offer them (help leaves them out: the arguments set
//! `hide_possible_values`).

use std::marker::PhantomData;
use std::str::FromStr;

/// Parses a `T` specification; `names` are the words completions offer.
pub struct SpecParser<T> {
    names: fn() -> Vec<String>,
    spec: PhantomData<fn() -> T>,
}

impl<T> Clone for SpecParser<T> {
    fn clone(&self) -> Self {
        Self {
            names: self.names,
            spec: PhantomData,
        }
    }
}

impl<T> SpecParser<T> {
    pub const fn new(names: fn() -> Vec<String>) -> Self {
        Self {
            names,
            spec: PhantomData,
        }
    }
}

/// The registered filters' names.
pub fn filter_names() -> Vec<String> {
    super::FILTERS.iter().map(|f| f.name.to_string()).collect()
}

impl<T> clap::builder::TypedValueParser for SpecParser<T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        // The same parser clap derives for a FromStr type: the same error messages.
        let parse = |text: &str| text.parse::<T>();
        parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            (self.names)()
                .into_iter()
                .map(clap::builder::PossibleValue::new),
        ))
    }
}
