//! Syntax classes of a user kernel's text for the editor: byte ranges of keywords, types,
//! numbers, comments, `// @` directives, strings and preprocessor lines. Unlike
//! [`super::lexer`] (which checks a source and stops at its first problem) it never fails:
//! text being typed is often unfinished (an open comment or string runs to its end).
//! Identifiers follow the lexer's rules.

use super::lexer::{is_ident_char, is_ident_start};
use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Plain,
    Keyword,
    Type,
    Number,
    Comment,
    /// A `// @param`, `// @block`, ... comment.
    Directive,
    String,
    Preprocessor,
}

const KEYWORDS: &[&str] = &[
    "__global__",
    "__device__",
    "__host__",
    "__shared__",
    "__constant__",
    "__restrict__",
    "__forceinline__",
    "__syncthreads",
    "auto",
    "break",
    "case",
    "const",
    "constexpr",
    "continue",
    "default",
    "do",
    "else",
    "enum",
    "extern",
    "for",
    "goto",
    "if",
    "inline",
    "namespace",
    "operator",
    "return",
    "sizeof",
    "static",
    "static_assert",
    "struct",
    "switch",
    "template",
    "typedef",
    "typename",
    "union",
    "using",
    "volatile",
    "while",
    "true",
    "false",
    "nullptr",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
];

const TYPES: &[&str] = &[
    "void",
    "bool",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "signed",
    "unsigned",
    "size_t",
    "uchar4",
    "uchar3",
    "uchar2",
    "uchar1",
    "uint",
    "uint2",
    "uint3",
    "uint4",
    "int2",
    "int3",
    "int4",
    "float2",
    "float3",
    "float4",
    "double2",
    "Image",
    "Params",
    "cudaTextureObject_t",
    "cudaSurfaceObject_t",
    "uint8_t",
    "int32_t",
    "uint32_t",
];

/// What kind of identifier `word` is.
fn word_class(word: &str) -> Class {
    if KEYWORDS.contains(&word) {
        Class::Keyword
    } else if TYPES.contains(&word) {
        Class::Type
    } else {
        Class::Plain
    }
}

/// The end of a quoted literal starting at `start` (its quote), or the end of the line
/// when it is not closed there.
fn quoted_end(text: &str, start: usize, quote: u8) -> usize {
    let b = text.as_bytes();
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The end of the line containing byte `i` (before its newline).
fn line_end(text: &str, i: usize) -> usize {
    text[i..].find('\n').map_or(text.len(), |n| i + n)
}

/// Byte ranges of `text` with their class, in order, covering all of it.
pub fn highlight(text: &str) -> Vec<(Range<usize>, Class)> {
    let b = text.as_bytes();
    let mut out: Vec<(Range<usize>, Class)> = Vec::new();
    let mut push = |range: Range<usize>, class: Class| {
        if range.is_empty() {
            return;
        }
        match out.last_mut() {
            Some((r, c)) if *c == class && r.end == range.start => r.end = range.end,
            _ => out.push((range, class)),
        }
    };
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        let (end, class) = if c == b'/' && next == Some(b'/') {
            let end = line_end(text, i);
            let directive = text[i + 2..end].trim_start().starts_with('@');
            (
                end,
                if directive {
                    Class::Directive
                } else {
                    Class::Comment
                },
            )
        } else if c == b'/' && next == Some(b'*') {
            let end = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
            (end, Class::Comment)
        } else if c == b'#' && line_start {
            (line_end(text, i), Class::Preprocessor)
        } else if c == b'"' || c == b'\'' {
            (quoted_end(text, i, c), Class::String)
        } else if c.is_ascii_digit() || (c == b'.' && next.is_some_and(|n| n.is_ascii_digit())) {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'.') {
                // An exponent's sign belongs to the number (1e-3).
                j += 1;
                if matches!(b[j - 1], b'e' | b'E') && j < b.len() && matches!(b[j], b'+' | b'-') {
                    j += 1;
                }
            }
            (j, Class::Number)
        } else if is_ident_start(c as char) {
            let mut j = i + 1;
            while j < b.len() && is_ident_char(b[j] as char) {
                j += 1;
            }
            (j, word_class(&text[i..j]))
        } else {
            // One character (a whole UTF-8 sequence).
            let len = text[i..].chars().next().map_or(1, char::len_utf8);
            (i + len, Class::Plain)
        };
        if c == b'\n' {
            line_start = true;
        } else if !c.is_ascii_whitespace() {
            line_start = false;
        }
        push(i..end, class);
        i = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(text: &str) -> Vec<(&str, Class)> {
        highlight(text)
            .into_iter()
            .filter(|(_, c)| *c != Class::Plain)
            .map(|(r, c)| (&text[r], c))
            .collect()
    }

    #[test]
    fn classes_of_a_kernel() {
        let text = "// @param float s 0..2 = 1\n// plain\n#define N 4\nuchar4 pixel(int x) { return 1.5e-3f + 0x1F; } /* c */ \"s\\\"t\" 'a'";
        assert_eq!(
            classes(text),
            vec![
                ("// @param float s 0..2 = 1", Class::Directive),
                ("// plain", Class::Comment),
                ("#define N 4", Class::Preprocessor),
                ("uchar4", Class::Type),
                ("int", Class::Type),
                ("return", Class::Keyword),
                ("1.5e-3f", Class::Number),
                ("0x1F", Class::Number),
                ("/* c */", Class::Comment),
                ("\"s\\\"t\"", Class::String),
                ("'a'", Class::String),
            ]
        );
    }

    #[test]
    fn ranges_cover_the_text_and_unfinished_text_never_fails() {
        for text in [
            "",
            "/* open",
            "\"open string\nnext",
            "é ü // ünï\n#",
            "x\\\ny",
            "1e",
            "'",
        ] {
            let ranges = highlight(text);
            let mut at = 0;
            for (r, _) in &ranges {
                assert_eq!(r.start, at, "{text:?}");
                assert!(text.is_char_boundary(r.end), "{text:?}");
                at = r.end;
            }
            assert_eq!(at, text.len(), "{text:?}");
        }
        assert_eq!(classes("/* open"), vec![("/* open", Class::Comment)]);
        assert_eq!(
            classes("\"open\nint"),
            vec![("\"open", Class::String), ("int", Class::Type)]
        );
    }
}
