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

    /// An error of the app window: usage (2) when it comes from the user's files or
    /// sizes, internal (1) otherwise; the message is the whole chain ("screenshot not
    /// saved: shot.png: already exists ...").
    pub fn from_app(e: anyhow::Error) -> Self {
        let user = e.chain().any(|c| {
            c.is::<SaveError>()
                || c.is::<LoadError>()
                || c.is::<crate::app::WindowTooLarge>()
                || c.is::<crate::video::VideoError>()
        });
        Self {
            code: if user { EXIT_USAGE } else { EXIT_INTERNAL },
            message: format!("{e:#}"),
        }
    }

    pub fn internal(e: impl std::fmt::Display) -> Self {
        Self {
            code: EXIT_INTERNAL,
            message: e.to_string(),
        }
    }
}

/// Every load error is about the user's file (missing, unreadable, not an image, too
/// large for the limits or the memory budget): exit code 2.
impl From<LoadError> for CliError {
    fn from(e: LoadError) -> Self {
        Self::usage(e.to_string())
    }
}

/// Every save error is about the user's output path or what it can hold (folder missing,
/// permission, full disk, file-size limit, a format that cannot hold the image): exit 2.
impl From<SaveError> for CliError {
    fn from(e: SaveError) -> Self {
        Self::usage(e.to_string())
    }
}

/// One line for a command-line parsing error: clap's first line without its "error: "
/// prefix, with the indented lines that complete it (e.g. the missing arguments), and a
/// pointer to `--help` instead of the usage block.
pub fn clap_error_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("invalid command line");
    let mut line = first.strip_prefix("error: ").unwrap_or(first).to_string();
    let details: Vec<&str> = lines
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    if !details.is_empty() {
        line = format!(
            "{} {}",
            line.trim_end_matches(':').to_string() + ":",
            details.join(", ")
        );
    }
    format!("{line} (see cudalens --help)")
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

/// An edit that cannot apply to the user's image (a crop outside it, a size over the
/// limits) is a usage error; a device failure is internal.
impl From<crate::edit::EditError> for CliError {
    fn from(e: crate::edit::EditError) -> Self {
        match e {
            crate::edit::EditError::Device(_) => Self::internal(e),
            _ => Self::usage(e.to_string()),
        }
    }
}

impl From<crate::app::presets::PresetError> for CliError {
    fn from(e: crate::app::presets::PresetError) -> Self {
        let code = match e {
            crate::app::presets::PresetError::Io { .. }
            | crate::app::presets::PresetError::Write(_) => EXIT_INTERNAL,
            _ => EXIT_USAGE,
        };
        Self {
            code,
            message: e.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn line(args: &[&str]) -> String {
        let e = crate::cli::Cli::try_parse_from(args).expect_err("must fail");
        clap_error_line(&e)
    }

    #[test]
    fn clap_errors_are_one_line_with_what_is_missing() {
        let missing = line(&["cudalens", "apply", "in.png"]);
        assert!(!missing.contains('\n'), "{missing}");
        assert!(missing.contains("--output"), "{missing}");
        assert!(!missing.starts_with("error"), "{missing}");
        let unknown = line(&["cudalens", "--frobnicate"]);
        assert!(
            unknown.contains("'--frobnicate'") && !unknown.contains('\n'),
            "{unknown}"
        );
        assert!(unknown.ends_with("(see cudalens --help)"), "{unknown}");
    }
}
