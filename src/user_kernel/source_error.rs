//! The error of a user's source: a message, at a line of the source when there is one.

use std::fmt;

/// A problem in a user's source, at a line of it (1-based) when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceError {
    pub line: Option<usize>,
    pub message: String,
}

impl SourceError {
    pub fn at(line: usize, message: impl Into<String>) -> Self {
        Self {
            line: Some(line),
            message: message.into(),
        }
    }

    pub fn whole(message: impl Into<String>) -> Self {
        Self {
            line: None,
            message: message.into(),
        }
    }
}

impl std::error::Error for SourceError {}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}
