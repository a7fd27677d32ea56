//! A small C++ tokenizer for user kernels: enough to find directives in comments,
//! preprocessor lines and the entry function without compiling. Line splices are
//! removed, comments and literals are skipped, and every token keeps its source line.

use super::source_error::SourceError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenKind {
    Ident,
    Punct,
    /// A number, string or character literal (the text is not kept).
    Literal,
}

#[derive(Debug, Clone)]
pub struct Token {
    pub kind: TokenKind,
    pub text: String,
    pub line: usize,
}

/// A `// ...` comment: its text after the slashes, and its line.
#[derive(Debug, Clone)]
pub struct LineComment {
    pub text: String,
    pub line: usize,
}

/// A preprocessor line: `#name` and the line it starts on.
#[derive(Debug, Clone)]
pub struct PreprocessorLine {
    pub name: String,
    pub line: usize,
}

#[derive(Debug, Default)]
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub comments: Vec<LineComment>,
    pub preprocessor: Vec<PreprocessorLine>,
}

/// The characters of `text` with their 1-based lines, line splices (`\` newline) removed.
fn spliced(text: &str) -> Vec<(char, usize)> {
    let mut out = Vec::with_capacity(text.len());
    let mut line = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let mut look = chars.clone();
            if look.peek() == Some(&'\r') {
                look.next();
            }
            if look.peek() == Some(&'\n') {
                look.next();
                chars = look;
                line += 1;
                continue;
            }
        }
        out.push((c, line));
        if c == '\n' {
            line += 1;
        }
    }
    out
}

pub(super) fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

pub(super) fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Tokenizes `text`; an unterminated comment or literal is an error at its first line.
pub fn lex(text: &str) -> Result<Lexed, SourceError> {
    let s = spliced(text);
    let at = |i: usize| s.get(i).map(|&(c, _)| c);
    let mut out = Lexed::default();
    let mut i = 0;
    let mut line_start = true;
    // Set after `#` at the start of a line: the next identifier names the directive.
    let mut directive_line: Option<usize> = None;
    while i < s.len() {
        let (c, line) = s[i];
        if c == '\n' {
            line_start = true;
            directive_line = None;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '/' && at(i + 1) == Some('/') {
            let start = i + 2;
            while i < s.len() && s[i].0 != '\n' {
                i += 1;
            }
            let text: String = s[start..i].iter().map(|&(c, _)| c).collect();
            out.comments.push(LineComment { text, line });
            continue;
        }
        if c == '/' && at(i + 1) == Some('*') {
            i += 2;
            loop {
                match at(i) {
                    None => return Err(SourceError::at(line, "unterminated /* comment")),
                    Some('*') if at(i + 1) == Some('/') => {
                        i += 2;
                        break;
                    }
                    Some(_) => i += 1,
                }
            }
            continue;
        }
        let was_line_start = line_start;
        line_start = false;
        if (c == '#' || (c == '%' && at(i + 1) == Some(':'))) && was_line_start {
            i += if c == '#' { 1 } else { 2 };
            directive_line = Some(line);
            continue;
        }
        if is_ident_start(c) {
            let start = i;
            while at(i).is_some_and(is_ident_char) {
                i += 1;
            }
            let text: String = s[start..i].iter().map(|&(c, _)| c).collect();
            // A string prefix (u8"", L"", R"()" ...): the literal follows.
            if at(i) == Some('"') && matches!(text.as_str(), "L" | "u" | "U" | "u8") {
                i = skip_quoted(&s, i, '"')?;
                out.tokens.push(literal(line));
                continue;
            }
            if at(i) == Some('"') && text.ends_with('R') && text.len() <= 3 {
                i = skip_raw_string(&s, i)?;
                out.tokens.push(literal(line));
                continue;
            }
            if let Some(l) = directive_line.take() {
                out.preprocessor.push(PreprocessorLine {
                    name: text.clone(),
                    line: l,
                });
            }
            out.tokens.push(Token {
                kind: TokenKind::Ident,
                text,
                line,
            });
            continue;
        }
        // `# 12 "file"` is a line marker: the same as `#line`.
        if let Some(l) = directive_line.take().filter(|_| c.is_ascii_digit()) {
            out.preprocessor.push(PreprocessorLine {
                name: "line".into(),
                line: l,
            });
        }
        if c.is_ascii_digit() || (c == '.' && at(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            i = skip_number(&s, i);
            out.tokens.push(literal(line));
            continue;
        }
        if c == '"' || c == '\'' {
            i = skip_quoted(&s, i, c)?;
            out.tokens.push(literal(line));
            continue;
        }
        out.tokens.push(Token {
            kind: TokenKind::Punct,
            text: c.to_string(),
            line,
        });
        i += 1;
    }
    Ok(out)
}

fn literal(line: usize) -> Token {
    Token {
        kind: TokenKind::Literal,
        text: String::new(),
        line,
    }
}

/// The index after the literal opened by `quote` at `i` (escapes honoured; a newline
/// before the closing quote is an error).
fn skip_quoted(s: &[(char, usize)], mut i: usize, quote: char) -> Result<usize, SourceError> {
    let line = s[i].1;
    i += 1;
    while let Some(&(c, _)) = s.get(i) {
        match c {
            '\\' => i += 2,
            '\n' => break,
            c if c == quote => return Ok(i + 1),
            _ => i += 1,
        }
    }
    let what = if quote == '"' { "string" } else { "character" };
    Err(SourceError::at(
        line,
        format!("unterminated {what} literal"),
    ))
}

/// The index after a raw string `"delim( ... )delim"` whose quote is at `i`.
fn skip_raw_string(s: &[(char, usize)], i: usize) -> Result<usize, SourceError> {
    let line = s[i].1;
    let unterminated = || SourceError::at(line, "unterminated raw string literal");
    let mut j = i + 1;
    let mut delimiter = String::new();
    while let Some(&(c, _)) = s.get(j) {
        if c == '(' {
            break;
        }
        if delimiter.len() >= 16 || c.is_whitespace() || c == ')' || c == '\\' {
            return Err(unterminated());
        }
        delimiter.push(c);
        j += 1;
    }
    let close: Vec<char> = std::iter::once(')')
        .chain(delimiter.chars())
        .chain(std::iter::once('"'))
        .collect();
    j += 1;
    while j + close.len() <= s.len() {
        if s[j..j + close.len()]
            .iter()
            .map(|&(c, _)| c)
            .eq(close.iter().copied())
        {
            return Ok(j + close.len());
        }
        j += 1;
    }
    Err(unterminated())
}

/// The index after a preprocessing number (digits, letters, `.`, digit separators,
/// exponent signs).
fn skip_number(s: &[(char, usize)], mut i: usize) -> usize {
    while let Some(&(c, _)) = s.get(i) {
        let next = s.get(i + 1).map(|&(c, _)| c);
        if is_ident_char(c) || c == '.' {
            i += 1;
            if matches!(c, 'e' | 'E' | 'p' | 'P') && matches!(next, Some('+' | '-')) {
                i += 1;
            }
        } else if c == '\'' && next.is_some_and(is_ident_char) {
            i += 1;
        } else {
            break;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(text: &str) -> Vec<(String, usize)> {
        lex(text)
            .unwrap()
            .tokens
            .into_iter()
            .filter(|t| t.kind == TokenKind::Ident)
            .map(|t| (t.text, t.line))
            .collect()
    }

    #[test]
    fn comments_and_literals_hide_their_words() {
        let text = "a /* b\n c */ d // e\n\"f g\" 'h' 1'000 R\"x(i \" j)x\" k";
        let names: Vec<String> = idents(text).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["a", "d", "k"]);
    }

    #[test]
    fn lines_survive_splices_and_block_comments() {
        let text = "a\n/*\n\n*/ b \\\n c\nd";
        assert_eq!(
            idents(text),
            [
                ("a".into(), 1),
                ("b".into(), 4),
                ("c".into(), 5),
                ("d".into(), 6)
            ]
        );
    }

    #[test]
    fn preprocessor_names_in_every_spelling() {
        let text = "#include <x>\n  # /* c */ define A\n%:include \"y\"\n#\\\ninclude \"z\"\nx # y";
        let lexed = lex(text).unwrap();
        let names: Vec<(String, usize)> = lexed
            .preprocessor
            .into_iter()
            .map(|p| (p.name, p.line))
            .collect();
        assert_eq!(
            names,
            [
                ("include".into(), 1),
                ("define".into(), 2),
                ("include".into(), 3),
                ("include".into(), 4)
            ]
        );
    }

    #[test]
    fn unterminated_pieces_are_errors_at_their_line() {
        for (text, line) in [
            ("a\n/* open", 2),
            ("a\nb\n\"open\nc\"", 3),
            ("'x", 1),
            ("\n\nR\"d(never", 3),
        ] {
            let e = lex(text).unwrap_err();
            assert_eq!(e.line, Some(line), "{text:?}: {e}");
        }
    }

    #[test]
    fn comment_text_and_line() {
        let lexed = lex("x\n  // @param float a 0..1\n").unwrap();
        assert_eq!(lexed.comments.len(), 1);
        assert_eq!(lexed.comments[0].line, 2);
        assert_eq!(lexed.comments[0].text, " @param float a 0..1");
    }
}
