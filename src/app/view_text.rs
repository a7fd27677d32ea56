//! The explorer's view as text: short scientific readouts for the panel, and the exact
//! view as one line (`re=…, im=…, span=…, dwell=…`, and `julia_re=…, julia_im=…` for a
//! Julia set) to copy and paste.

use crate::mandelbrot::deep::{Decimal, DeepLocation};
use crate::mandelbrot::{Fractal, JuliaC};

/// `d` with at most `digits` significant digits: positional near 1 ("-0.5"), scientific
/// otherwise ("-3.00253…e-52", "…" when digits were cut).
pub fn short_scientific(d: &Decimal, digits: usize) -> String {
    if d.is_zero() {
        return "0".into();
    }
    let lead = d.leading_exponent();
    if (-4..=4).contains(&lead) {
        let decimals = (digits as i64 - 1 - lead).clamp(0, 16) as usize;
        let text = format!("{:.decimals$}", d.to_f64());
        return if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        };
    }
    let full = d.scientific();
    let (mantissa, exponent) = full.split_once('e').unwrap_or((&full, "0"));
    let sign = if mantissa.starts_with('-') { "-" } else { "" };
    let digits_only: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.max(1);
    let cut = digits_only.len() > digits;
    let kept = &digits_only[..digits_only.len().min(digits)];
    let (first, rest) = kept.split_at(1.min(kept.len()));
    let point = if rest.is_empty() { "" } else { "." };
    let more = if cut { "…" } else { "" };
    let exp = if exponent == "0" {
        String::new()
    } else {
        format!("e{exponent}")
    };
    format!("{sign}{first}{point}{rest}{more}{exp}")
}

/// The exact view as one line.
pub fn view_to_text(loc: &DeepLocation, max_dwell: u32, fractal: &Fractal) -> String {
    let julia = match fractal.julia_c() {
        None => String::new(),
        Some(c) => format!(
            ", julia_re={}, julia_im={}",
            c.re().scientific(),
            c.im().scientific()
        ),
    };
    format!(
        "re={}, im={}, span={}, dwell={max_dwell}{julia}",
        loc.re.scientific(),
        loc.im.scientific(),
        loc.span.scientific()
    )
}

/// The PNG text chunks of a picture of `s`: its exact view (under `cudalens-view`) and
/// the program (`Software`).
pub fn view_chunks(s: &crate::mandelbrot::MandelbrotSettings) -> Vec<(&'static str, String)> {
    let mut chunks = vec![(
        "Software",
        format!("cudalens {}", env!("CARGO_PKG_VERSION")),
    )];
    if let Ok(loc) = s.location() {
        let text = view_to_text(&loc, s.view.max_dwell, &s.view.fractal);
        chunks.push((crate::image_io::VIEW_KEYWORD, text));
    }
    chunks
}

/// Writes the dwells and continuous values of view `s` as a raw EXR carrying the view
/// (`mandelbrot::write_dwells_exr`), through a temporary file renamed over `path`.
pub fn save_view_exr(
    dwells: &crate::mandelbrot::Dwells,
    s: &crate::mandelbrot::MandelbrotSettings,
    path: &std::path::Path,
    options: &crate::image_io::SaveOptions,
) -> Result<(), crate::image_io::SaveError> {
    crate::image_io::check_save_target(path, options)?;
    let chunks = view_chunks(s);
    let texts: Vec<(&str, &str)> = chunks.iter().map(|(k, t)| (*k, t.as_str())).collect();
    crate::image_io::write_file_atomically(path, |file| {
        crate::mandelbrot::write_dwells_exr(dwells, &texts, file)
    })?
    .map_err(|e| crate::image_io::SaveError::Encode {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// An exact view read from text: where, the max dwell if given, and which fractal.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewText {
    pub location: DeepLocation,
    pub max_dwell: Option<u32>,
    pub fractal: Fractal,
}

/// Parses `view_to_text`'s line (keys in any order, separated by commas, semicolons or
/// spaces; `dwell` optional; the Mandelbrot set without `julia_re` and `julia_im`).
pub fn view_from_text(text: &str) -> Result<ViewText, String> {
    let (mut re, mut im, mut span, mut dwell) = (None, None, None, None);
    let (mut julia_re, mut julia_im) = (None, None);
    for part in text
        .split([',', ';', ' ', '\n', '\t'])
        .filter(|p| !p.trim().is_empty())
    {
        let (key, value) = part
            .split_once('=')
            .ok_or_else(|| format!("'{part}': expected key=value"))?;
        let value = value.trim();
        let number = || value.parse::<Decimal>().map_err(|e| format!("{key}: {e}"));
        match key.trim() {
            "re" => re = Some(number()?),
            "im" => im = Some(number()?),
            "span" => span = Some(number()?),
            "julia_re" => julia_re = Some(number()?),
            "julia_im" => julia_im = Some(number()?),
            "dwell" => {
                dwell = Some(
                    value
                        .parse::<u32>()
                        .map_err(|_| format!("dwell: '{value}' is not a whole number"))?,
                )
            }
            other => {
                return Err(format!(
                    "unknown key '{other}' (re, im, span, dwell, julia_re, julia_im)"
                ))
            }
        }
    }
    let missing = |k: &str| format!("no {k}= in the text");
    let loc = DeepLocation::new(
        re.ok_or_else(|| missing("re"))?,
        im.ok_or_else(|| missing("im"))?,
        span.ok_or_else(|| missing("span"))?,
    )
    .map_err(|e| e.to_string())?;
    let fractal = match (julia_re, julia_im) {
        (None, None) => Fractal::Mandelbrot,
        (Some(re), Some(im)) => Fractal::Julia {
            c: JuliaC::new(re, im),
        },
        _ => return Err("a Julia set needs both julia_re= and julia_im=".into()),
    };
    Ok(ViewText {
        location: loc,
        max_dwell: dwell,
        fractal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().expect("decimal")
    }

    #[test]
    fn deep_readouts_keep_their_exponent() {
        let x = d("-3.002531234567890123456789e-52");
        assert_eq!(short_scientific(&x, 6), "-3.00253…e-52");
        assert_eq!(short_scientific(&d("1.5"), 6), "1.5");
        assert_eq!(short_scientific(&d("2e-100"), 4), "2e-100");
        assert_eq!(short_scientific(&d("0.25"), 4), "0.25");
        assert_eq!(short_scientific(&d("-0.5"), 8), "-0.5");
        assert_eq!(short_scientific(&d("0"), 8), "0");
        assert_eq!(
            short_scientific(&d("-1.76857365631527099328"), 8),
            "-1.7685737"
        );
        assert_eq!(short_scientific(&d("123456.75"), 4), "1.234…e5");
    }

    #[test]
    fn a_view_round_trips_through_its_text_exactly() {
        let loc = DeepLocation::new(
            d("-1.7685736563152709932817429153295447129341200534055498823375111352827765533646353820119779335363321986478087958745766432300344486098206084588445291690832853792608335811319613234806674959498380432536269122404488847453646628324959064543"),
            d("-0.0009642968513582800001762427203738194482747761226565635652857831533070475543049432821690905886267077827082648536767158842150785735585268529053863779924036154700718315104048108"),
            d("1e-200"),
        )
        .expect("location");
        let text = view_to_text(&loc, 50_000, &Fractal::Mandelbrot);
        let back = view_from_text(&text).expect("parses");
        assert_eq!(back.location, loc);
        assert_eq!(back.max_dwell, Some(50_000));
        assert_eq!(back.fractal, Fractal::Mandelbrot);
        // A Julia set keeps its c whole.
        let c = JuliaC::new(loc.re, d("0.1234567890123456789012345678901234567890123"));
        let julia = Fractal::Julia { c };
        let text = view_to_text(&loc, 700, &julia);
        let back = view_from_text(&text).expect("parses");
        assert_eq!((back.location, back.fractal), (loc, julia));
    }

    #[test]
    fn bad_view_text_is_a_clear_error() {
        for (text, want) in [
            ("re=1, im=0", "no span="),
            ("re=x, im=0, span=1", "re:"),
            ("re=0 im=0 span=1 zoom=2", "unknown key 'zoom'"),
            ("hello", "expected key=value"),
            ("re=0, im=0, span=1, dwell=-4", "dwell:"),
            (
                "re=0, im=0, span=1, julia_re=0.3",
                "both julia_re= and julia_im=",
            ),
            ("re=0, im=0, span=1, julia_re=0.3, julia_im=i", "julia_im:"),
        ] {
            let e = view_from_text(text).expect_err(text);
            assert!(e.contains(want), "{text}: {e}");
        }
        assert!(view_from_text("span=1e-30; re=-0.75; im=0.1").is_ok());
    }

    /// "Save view as PNG" writes what "Copy view" copies; read back, it is the same view.
    #[test]
    fn a_saved_pictures_chunk_is_the_copied_view() {
        use crate::image_io::{read_png_text, save_png_with_text, SaveOptions, VIEW_KEYWORD};
        let loc = DeepLocation::new(
            d("-1.768573656315270993281742915329544712934120053405549882337511135"),
            d("0.00096429685135828000017624272037381944827477612265656356528578"),
            d("1e-45"),
        )
        .expect("location");
        let mut s = crate::mandelbrot::MandelbrotSettings::default();
        s.set_location(loc);
        s.view.max_dwell = 9000;
        let chunks = view_chunks(&s);
        let (_, text) = chunks
            .iter()
            .find(|(k, _)| *k == VIEW_KEYWORD)
            .expect("a view chunk");
        assert_eq!(*text, view_to_text(&loc, 9000, &Fractal::Mandelbrot));
        assert!(chunks.iter().any(|(k, _)| *k == "Software"));
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("view.png");
        let texts: Vec<(&str, &str)> = chunks.iter().map(|(k, t)| (*k, t.as_str())).collect();
        let picture = image::DynamicImage::ImageRgba8(image::RgbaImage::new(4, 3));
        save_png_with_text(&picture, &path, &SaveOptions::default(), &texts).expect("saves");
        let back = read_png_text(&path, VIEW_KEYWORD)
            .expect("reads")
            .expect("the chunk");
        assert_eq!(back, *text);
        let view = view_from_text(&back).expect("parses");
        assert_eq!((view.location, view.max_dwell), (loc, Some(9000)));
    }
}
