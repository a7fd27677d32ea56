//! NVRTC's log as diagnostics at the user's lines (the translation unit's `#line`
//! markers make NVRTC report `user.cu(LINE)` for the user's code).
//!
//! The log's messages look like `user.cu(8): error: text` (warnings add a number:
//! `warning #177-D: text`), followed by the source line and a caret under the column.

use super::prelude::{GENERATED_FILE, PRELUDE_FILE, USER_FILE};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Remark,
    Warning,
    Error,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Remark => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Which part of the translation unit a diagnostic is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The user's source: line numbers are the user's.
    User,
    /// The prelude cudalens puts in front.
    Prelude,
    /// The code cudalens generates after the user's source.
    Generated,
    /// Anything else NVRTC names (a file, or NVRTC itself for option errors).
    Other(String),
}

impl Origin {
    fn from_file(file: &str) -> Self {
        match file {
            USER_FILE => Origin::User,
            PRELUDE_FILE => Origin::Prelude,
            GENERATED_FILE => Origin::Generated,
            other => Origin::Other(other.to_string()),
        }
    }

    fn file(&self) -> &str {
        match self {
            Origin::User => USER_FILE,
            Origin::Prelude => PRELUDE_FILE,
            Origin::Generated => GENERATED_FILE,
            Origin::Other(f) => f,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub origin: Origin,
    /// 1-based, in the origin's file.
    pub line: Option<usize>,
    /// 1-based, from the caret NVRTC prints under the source line.
    pub column: Option<usize>,
    pub severity: Severity,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.origin.file())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}: {}", self.severity.name(), self.message)
    }
}

/// `file(line): severity[ #code]: message` split into its parts.
fn parse_header(text: &str) -> Option<(Origin, usize, Severity, String)> {
    let mut search = 0;
    while let Some(close) = text[search..].find("): ").map(|i| search + i) {
        search = close + 1;
        let Some(open) = text[..close].rfind('(') else {
            continue;
        };
        let Ok(line) = text[open + 1..close].parse::<usize>() else {
            continue;
        };
        let rest = &text[close + 3..];
        let (severity_text, message) = rest.split_once(": ")?;
        let severity_word = severity_text.split(" #").next().unwrap_or(severity_text);
        let severity = match severity_word {
            "error" | "catastrophic error" | "fatal error" | "internal error" => Severity::Error,
            "warning" => Severity::Warning,
            "remark" | "note" => Severity::Remark,
            _ => return None,
        };
        let origin = Origin::from_file(&text[..open]);
        return Some((origin, line, severity, message.trim().to_string()));
    }
    None
}

/// The diagnostics of an NVRTC log, in order.
pub fn parse_log(log: &str) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    let lines: Vec<&str> = log.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let text = lines[i];
        i += 1;
        if let Some((origin, line, severity, message)) = parse_header(text) {
            // The echoed source line and the caret under the column, when present.
            let mut column = None;
            if let (Some(src), Some(caret)) = (lines.get(i), lines.get(i + 1)) {
                let caret_trimmed = caret.trim_start();
                if caret_trimmed == "^" && parse_header(src).is_none() {
                    // NVRTC indents the echoed line by two spaces.
                    column =
                        Some(caret.len() - caret_trimmed.len()).map(|c| c.saturating_sub(2) + 1);
                    i += 2;
                }
            }
            out.push(Diagnostic {
                origin,
                line: Some(line),
                column,
                severity,
                message,
            });
        } else if let Some(message) = text.strip_prefix("nvrtc: error: ") {
            out.push(Diagnostic {
                origin: Origin::Other("nvrtc".into()),
                line: None,
                column: None,
                severity: Severity::Error,
                message: message.trim().to_string(),
            });
        }
    }
    out
}

/// Replaces the generated entry name by the user's in every message.
pub fn rename(diagnostics: &mut [Diagnostic], from: &str, to: &str) {
    if from == to {
        return;
    }
    for d in diagnostics {
        d.message = d.message.replace(from, to);
    }
}

/// One line for the CLI: the first error (or warning) and how many more there are.
pub fn summary(diagnostics: &[Diagnostic]) -> String {
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let first = diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
        .or_else(|| diagnostics.first());
    match first {
        None => "compiled with no diagnostics".into(),
        Some(d) if errors > 1 => format!("{d} (and {} more errors)", errors - 1),
        Some(d) => d.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "user.cu(8): error: expression must have class type but it has type \"float\"\n      if (x < width) write(dst, x, y, p.strength);\n                                      ^\n\nuser.cu(3): warning #177-D: variable \"q\" was declared but never referenced\n      int q;\n          ^\n\nRemark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n\ncudalens-prelude.cuh(12): error: identifier \"x\" is undefined\n\n2 errors detected in the compilation of \"cudalens_user.cu\".\n";

    #[test]
    fn parses_messages_lines_and_columns() {
        let d = parse_log(LOG);
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].origin, Origin::User);
        assert_eq!(d[0].line, Some(8));
        assert_eq!(d[0].column, Some(37));
        assert_eq!(d[0].severity, Severity::Error);
        assert_eq!(
            d[0].message,
            "expression must have class type but it has type \"float\""
        );
        assert_eq!(
            (d[1].severity, d[1].line, d[1].column),
            (Severity::Warning, Some(3), Some(9))
        );
        assert_eq!((d[2].origin.clone(), d[2].column), (Origin::Prelude, None));
        assert_eq!(
            summary(&d),
            "user.cu:8:37: error: expression must have class type but it has type \"float\" (and 1 more errors)"
        );
    }

    #[test]
    fn option_errors_and_empty_logs() {
        let d = parse_log("nvrtc: error: unrecognized option --bogus found\n");
        assert_eq!(d.len(), 1);
        assert_eq!(
            summary(&d),
            "nvrtc: error: unrecognized option --bogus found"
        );
        assert_eq!(summary(&parse_log("")), "compiled with no diagnostics");
    }

    #[test]
    fn odd_file_names_and_junk_do_not_confuse_it() {
        let d =
            parse_log("/etc/pa(ss)wd(1): error: x\n(): error\n((((\n): : :\nfoo(12x): error: y\n");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].origin, Origin::Other("/etc/pa(ss)wd".into()));
    }
}
