//! Every character the app's UI code writes exists in egui's default fonts: a missing
//! glyph draws as an empty box (icons such as check marks or arrows that the fonts lack).

use std::path::Path;

/// The characters beyond ASCII in string literals of `text` (comments left out).
fn literal_chars(text: &str) -> Vec<char> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut in_string = false;
        let mut prev = ' ';
        for c in line.chars() {
            if c == '"' && prev != '\\' {
                in_string = !in_string;
            } else if in_string && !c.is_ascii() {
                out.push(c);
            }
            prev = c;
        }
    }
    out
}

#[test]
fn every_ui_character_has_a_glyph() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app");
    let ctx = egui::Context::default();
    // Fonts load in the first pass.
    ctx.run_ui(egui::RawInput::default(), |_| {})
        .textures_delta
        .clear();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("src/app").flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("source");
        for c in literal_chars(&text) {
            let ok = ctx.fonts_mut(|f| {
                f.has_glyph(&egui::FontId::proportional(14.0), c)
                    && f.has_glyph(&egui::FontId::monospace(14.0), c)
            });
            if !ok {
                missing.push(format!("{} U+{:04X} in {}", c, c as u32, path.display()));
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "characters without a glyph: {missing:#?}"
    );
}
