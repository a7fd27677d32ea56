//! Why a filter specification was refused.

/// A filter specification that does not follow the contract.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FilterSpecError {
    #[error("unknown filter '{name}' (expected one of: {known})")]
    UnknownFilter { name: String, known: String },
    #[error("filter '{filter}' has no parameter '{param}' (it has: {known})")]
    UnknownParameter {
        filter: &'static str,
        param: String,
        known: String,
    },
    #[error("parameter '{param}' of '{filter}' is not a number: '{value}'")]
    NotANumber {
        filter: &'static str,
        param: &'static str,
        value: String,
    },
    #[error("parameter '{param}' of '{filter}' is '{value}', not one of: {choices}")]
    UnknownChoice {
        filter: &'static str,
        param: &'static str,
        value: String,
        choices: String,
    },
    #[error("parameter '{param}' of '{filter}' is {value}, outside {range}")]
    OutOfRange {
        filter: &'static str,
        param: &'static str,
        value: String,
        range: String,
    },
    #[error("parameter '{param}' of '{filter}' must be a whole number, not {value}")]
    NotWhole {
        filter: &'static str,
        param: &'static str,
        value: String,
    },
    #[error("parameter '{param}' of '{filter}' is given twice")]
    Repeated {
        filter: &'static str,
        param: &'static str,
    },
    #[error("filter '{filter}' needs the parameter '{param}'")]
    MissingParameter {
        filter: &'static str,
        param: &'static str,
    },
    #[error("filter '{filter}': {reason}")]
    Inconsistent {
        filter: &'static str,
        reason: String,
    },
    #[error("malformed parameter '{0}' (expected name=value)")]
    Malformed(String),
}
