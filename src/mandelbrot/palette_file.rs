//! Fractint `.map` palette files: one colour a line, "R G B" (0–255), any text after the
//! three numbers a comment. Colour i of n sits at position i / n of the cycle.

use super::palette::{Gradient, Stop};
use std::io::Read;
use std::path::Path;

/// Most bytes of a `.map` file read (256 lines with long comments fit many times over).
pub const MAP_MAX_BYTES: u64 = 256 * 1024;
/// Colours a map holds: at least two, at most Fractint's 256.
pub const MAP_MIN_COLOURS: usize = 2;
pub const MAP_MAX_COLOURS: usize = 256;

/// Why a `.map` file is not a palette: one line, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum MapError {
    #[error("{path}: cannot read: {reason}")]
    Read { path: String, reason: String },
    #[error("{path}: larger than {MAP_MAX_BYTES} bytes; not a palette map")]
    TooLarge { path: String },
    #[error("{path}: not a text file (a .map file is lines of R G B)")]
    NotText { path: String },
    #[error("{path}, line {line}: {reason}")]
    Line {
        path: String,
        line: usize,
        reason: String,
    },
    #[error("{path}: a palette needs at least {MAP_MIN_COLOURS} colours, the file has {found}")]
    TooFew { path: String, found: usize },
    #[error("{path}: more than {MAP_MAX_COLOURS} colours")]
    TooMany { path: String },
    #[error("{path}: {source}")]
    Palette {
        path: String,
        source: super::palette::GradientError,
    },
}

/// Reads the `.map` file at `path` (at most [`MAP_MAX_BYTES`]) as a palette named after
/// the file.
pub fn load_map(path: &Path) -> Result<Gradient, MapError> {
    let shown = path.display().to_string();
    let read_error = |e: std::io::Error| MapError::Read {
        path: shown.clone(),
        reason: e.to_string(),
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut bytes = Vec::new();
    file.take(MAP_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > MAP_MAX_BYTES {
        return Err(MapError::TooLarge { path: shown });
    }
    let name = path
        .file_stem()
        .map_or_else(|| "map".into(), |s| s.to_string_lossy().into_owned());
    parse_map(&shown, &name, &bytes)
}

/// Parses a `.map` file's bytes (`path` names it in messages) into a palette `name`.
pub fn parse_map(path: &str, name: &str, bytes: &[u8]) -> Result<Gradient, MapError> {
    let not_text = || MapError::NotText { path: path.into() };
    let text = std::str::from_utf8(bytes).map_err(|_| not_text())?;
    if text.contains('\0') {
        return Err(not_text());
    }
    let mut colours: Vec<[u8; 3]> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_error = |reason: String| MapError::Line {
            path: path.into(),
            line: i + 1,
            reason,
        };
        let words: Vec<&str> = line.split_whitespace().take(3).collect();
        if words.is_empty() {
            continue; // blank
        }
        let mut rgb = [0u8; 3];
        for (c, word) in words.iter().enumerate() {
            let value: u32 = word.parse().map_err(|_| {
                line_error(format!("expected R G B (0–255), found '{}'", clip(word)))
            })?;
            rgb[c] = u8::try_from(value)
                .map_err(|_| line_error(format!("{value} is not within 0–255")))?;
        }
        if words.len() < 3 {
            return Err(line_error("expected three values R G B".into()));
        }
        if colours.len() == MAP_MAX_COLOURS {
            return Err(MapError::TooMany { path: path.into() });
        }
        colours.push(rgb);
    }
    if colours.len() < MAP_MIN_COLOURS {
        return Err(MapError::TooFew {
            path: path.into(),
            found: colours.len(),
        });
    }
    let n = colours.len() as f32;
    let stops = colours
        .iter()
        .enumerate()
        .map(|(i, &rgb)| Stop {
            position: i as f32 / n,
            rgb,
        })
        .collect();
    Gradient::new(name, stops).map_err(|source| MapError::Palette {
        path: path.into(),
        source,
    })
}

/// A word cut short for a message.
fn clip(word: &str) -> String {
    match word.char_indices().nth(12) {
        Some((i, _)) => format!("{}…", &word[..i]),
        None => word.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map_text(colours: &[[u8; 3]]) -> String {
        colours
            .iter()
            .map(|[r, g, b]| format!("{r} {g} {b}\n"))
            .collect()
    }

    fn colours(n: usize) -> Vec<[u8; 3]> {
        (0..n)
            .map(|i| [i as u8, 255 - i as u8, (i * 7 % 256) as u8])
            .collect()
    }

    #[test]
    fn a_map_gives_its_colours_at_their_positions() {
        let want = colours(256);
        let g = parse_map("a.map", "a", map_text(&want).as_bytes()).expect("parses");
        assert_eq!(g.stops().len(), 256);
        for (i, c) in want.iter().enumerate() {
            assert_eq!(g.at(i as f64 / 256.0), *c, "colour {i}");
        }
    }

    #[test]
    fn comments_crlf_and_blank_lines_are_accepted() {
        let text = "0 0 0  black, as Fractint writes it\r\n\r\n 255 128 1\tnote\r\n10 20 30";
        let g = parse_map("c.map", "c", text.as_bytes()).expect("parses");
        let got: Vec<_> = g.stops().iter().map(|s| s.rgb).collect();
        assert_eq!(got, [[0, 0, 0], [255, 128, 1], [10, 20, 30]]);
    }

    /// Hostile files: each is one clear error, never a panic.
    #[test]
    fn hostile_maps_are_one_line_errors() {
        let mut garbage: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        garbage[0] = 0xff;
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            ("empty", Vec::new(), "at least 2 colours, the file has 0"),
            ("blank", b"\n\n  \r\n".to_vec(), "the file has 0"),
            ("one colour", b"1 2 3\n".to_vec(), "the file has 1"),
            ("binary", garbage, "not a text file"),
            ("nul", b"1 2 3\n\0\0\0".to_vec(), "not a text file"),
            (
                "too bright",
                b"0 0 0\n1 256 3\n".to_vec(),
                "line 2: 256 is not within",
            ),
            (
                "huge value",
                b"0 0 0\n99999999999 0 0\n".to_vec(),
                "line 2: expected R G B",
            ),
            (
                "negative",
                b"0 0 0\n-1 0 0\n".to_vec(),
                "line 2: expected R G B",
            ),
            (
                "short line",
                b"0 0 0\n1 2\n".to_vec(),
                "line 2: expected three values",
            ),
            (
                "words",
                b"red green blue\n".to_vec(),
                "line 1: expected R G B",
            ),
            ("fractions", b"0.5 0 0\n".to_vec(), "line 1: expected R G B"),
            (
                "too many",
                map_text(&colours(257)).into_bytes(),
                "more than 256",
            ),
        ];
        for (what, bytes, want) in cases {
            let e = parse_map("h.map", "h", &bytes).expect_err(what).to_string();
            assert!(e.contains(want), "{what}: {e}");
            assert!(e.starts_with("h.map"), "{what}: {e}");
            assert!(!e.contains('\n'), "{what}: one line: {e}");
        }
    }

    #[test]
    fn files_are_read_with_a_cap() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ok = dir.path().join("sunset.map");
        std::fs::write(&ok, map_text(&colours(16))).expect("write");
        assert_eq!(load_map(&ok).expect("loads").name(), "sunset");
        let huge = dir.path().join("huge.map");
        let line = "1 2 3 a comment that goes on and on\n";
        std::fs::write(&huge, line.repeat(MAP_MAX_BYTES as usize / line.len() + 2)).expect("write");
        let e = load_map(&huge).expect_err("too large").to_string();
        assert!(e.contains("larger than"), "{e}");
        let e = load_map(&dir.path().join("missing.map")).expect_err("missing");
        assert!(e.to_string().contains("cannot read"), "{e}");
    }
}
