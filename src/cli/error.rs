//! The one error type at the command line's edge: a message and an exit code.

use crate::image_io::{LoadError, SaveError};
use crate::pipeline::PipelineError;

/// Exit code for bad input or usage.
pub const EXIT_USAGE: u8 = 2;
/// Exit code for internal failures.
pub const EXIT_INTERNAL: u8 = 1;

#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    pub message: String,
}

impl CliError {
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            code: EXIT_USAGE,
            message: message.into(),
        }
    }

    pub fn internal(e: impl std::fmt::Display) -> Self {
        Self {
            code: EXIT_INTERNAL,
            message: e.to_string(),
        }
    }
}

impl From<LoadError> for CliError {
    fn from(e: LoadError) -> Self {
        let code = match e {
            LoadError::Io { .. } => EXIT_INTERNAL,
            _ => EXIT_USAGE,
        };
        Self {
            code,
            message: e.to_string(),
        }
    }
}

impl From<SaveError> for CliError {
    fn from(e: SaveError) -> Self {
        let code = match e {
            SaveError::Io { .. } | SaveError::Encode { .. } => EXIT_INTERNAL,
            _ => EXIT_USAGE,
        };
        Self {
            code,
            message: e.to_string(),
        }
    }
}

impl From<PipelineError> for CliError {
    fn from(e: PipelineError) -> Self {
        let code = if e.is_user_error() {
            EXIT_USAGE
        } else {
            EXIT_INTERNAL
        };
        Self {
            code,
            message: e.to_string(),
        }
    }
}

impl From<crate::app::presets::PresetError> for CliError {
    fn from(e: crate::app::presets::PresetError) -> Self {
        let code = match e {
            crate::app::presets::PresetError::Io { .. } => EXIT_INTERNAL,
            _ => EXIT_USAGE,
        };
        Self {
            code,
            message: e.to_string(),
        }
    }
}
