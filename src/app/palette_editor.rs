//! The explorer's palettes: the choice of a built-in or user palette, the editor of a user
//! palette's stops (colour, position, add, remove) with a preview strip, `.map` import,
//! and the palettes as the settings keep them.

use super::settings::{SavedPalette, SavedStop};
use crate::mandelbrot::{Gradient, Palette, PaletteChoice, Stop};
use clap::ValueEnum;
use egui::{vec2, Color32, Sense, Stroke, Ui};

/// The editor's state: the stops being edited, in the order the user sees them (sorting
/// while a position slider is dragged would move the row under the pointer).
#[derive(Debug, Default)]
pub struct PaletteEditor {
    editing: Option<(String, Vec<Stop>)>,
    /// The name field (for a rename).
    name: String,
}

/// What the palette section asks of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaletteRequest {
    /// Pick a `.map` file to import.
    ImportMap,
}

/// The settings' name of a palette: a built-in one's command-line name, or the user's.
pub fn palette_setting_name(p: &PaletteChoice) -> String {
    match p {
        PaletteChoice::Builtin(b) => b
            .to_possible_value()
            .map(|v| v.get_name().to_string())
            .unwrap_or_default(),
        PaletteChoice::User(g) => g.name().to_string(),
    }
}

/// The palette the settings name: a built-in one, else a user palette of that name.
pub fn palette_from_setting(name: &str, user: &[Gradient]) -> Option<PaletteChoice> {
    Palette::from_str(name, true)
        .ok()
        .map(PaletteChoice::Builtin)
        .or_else(|| {
            user.iter()
                .find(|g| g.name() == name)
                .cloned()
                .map(PaletteChoice::User)
        })
}

pub fn saved_palettes(user: &[Gradient]) -> Vec<SavedPalette> {
    user.iter()
        .map(|g| SavedPalette {
            name: g.name().to_string(),
            stops: g
                .stops()
                .iter()
                .map(|s| SavedStop {
                    position: s.position,
                    rgb: s.rgb,
                })
                .collect(),
        })
        .collect()
}

/// The saved palettes that are still valid (the others are noted and left out).
pub fn restore_palettes(saved: &[SavedPalette], notes: &mut Vec<String>) -> Vec<Gradient> {
    let mut out: Vec<Gradient> = Vec::new();
    for p in saved {
        let stops = p
            .stops
            .iter()
            .map(|s| Stop {
                position: s.position,
                rgb: s.rgb,
            })
            .collect();
        match Gradient::new(&p.name, stops) {
            Ok(g) if !name_taken(g.name(), &out) => out.push(g),
            Ok(_) => notes.push(format!("saved palette '{}' is there twice", p.name)),
            Err(e) => notes.push(format!("saved palette '{}' skipped: {e}", p.name)),
        }
    }
    out
}

/// Whether `name` is a built-in palette's (either of its names) or one of `user`'s.
fn name_taken(name: &str, user: &[Gradient]) -> bool {
    let builtin = Palette::ALL.iter().any(|p| {
        p.name().eq_ignore_ascii_case(name)
            || palette_setting_name(&(*p).into()).eq_ignore_ascii_case(name)
    });
    builtin || user.iter().any(|g| g.name().eq_ignore_ascii_case(name))
}

/// `base`, or `base 2`, `base 3`, … : a name no palette has.
pub fn unique_name(base: &str, user: &[Gradient]) -> String {
    let base = base.trim();
    let base = if base.is_empty() { "palette" } else { base };
    if !name_taken(base, user) {
        return base.to_string();
    }
    (2..)
        .map(|i| format!("{base} {i}"))
        .find(|n| !name_taken(n, user))
        .unwrap_or_else(|| base.to_string())
}

/// Adds an imported palette to `user` (renamed if its name is taken) and returns it.
pub fn add_user_palette(g: Gradient, user: &mut Vec<Gradient>) -> Gradient {
    let name = unique_name(g.name(), user);
    let g = g.renamed(&name).unwrap_or(g);
    user.push(g.clone());
    g
}

fn to_color(rgb: [u8; 3]) -> Color32 {
    Color32::from_rgb(rgb[0], rgb[1], rgb[2])
}

/// One cycle of `palette` as a strip, the stops of a user palette marked under it.
pub fn preview_strip_ui(ui: &mut Ui, palette: &PaletteChoice) {
    let width = ui.available_width().max(32.0);
    let (rect, _) = ui.allocate_exact_size(vec2(width, 18.0), Sense::hover());
    let painter = ui.painter_at(rect);
    let steps = (width as usize).clamp(16, 256);
    let step = rect.width() / steps as f32;
    for i in 0..steps {
        let colour = palette.at((i as f64 + 0.5) / steps as f64);
        let x = rect.left() + i as f32 * step;
        let cell = egui::Rect::from_min_max(
            egui::pos2(x, rect.top()),
            egui::pos2(x + step + 0.5, rect.bottom()),
        );
        painter.rect_filled(cell, 0.0, to_color(colour));
    }
    if let PaletteChoice::User(g) = palette {
        for s in g.stops() {
            let x = rect.left() + s.position * rect.width();
            painter.line_segment(
                [
                    egui::pos2(x, rect.bottom() - 5.0),
                    egui::pos2(x, rect.bottom()),
                ],
                Stroke::new(2.0, Color32::WHITE),
            );
        }
    }
}

/// The palette choice, the preview strip, new / import / delete, and the stops of a user
/// palette. Edits replace `palette` (and its entry in `user`): the caller's change check
/// then recolours.
pub fn palette_ui(
    ui: &mut Ui,
    palette: &mut PaletteChoice,
    user: &mut Vec<Gradient>,
    editor: &mut PaletteEditor,
) -> Option<PaletteRequest> {
    let mut request = None;
    egui::ComboBox::from_label("palette")
        .selected_text(palette.name().to_string())
        .show_ui(ui, |ui| {
            for p in Palette::ALL {
                ui.selectable_value(palette, p.into(), p.name());
            }
            if !user.is_empty() {
                ui.separator();
            }
            for g in user.iter() {
                ui.selectable_value(palette, PaletteChoice::User(g.clone()), g.name());
            }
        });
    preview_strip_ui(ui, palette);
    ui.horizontal(|ui| {
        if ui
            .button("Edit a copy")
            .on_hover_text("a new palette of your own from this one's colours")
            .clicked()
        {
            let name = unique_name(&format!("{} copy", palette.name()), user);
            if let Ok(g) = Gradient::new(&name, palette.to_stops()) {
                user.push(g.clone());
                *palette = PaletteChoice::User(g);
            }
        }
        if ui
            .button("Import .map…")
            .on_hover_text("a Fractint palette map (lines of R G B, 0–255)")
            .clicked()
        {
            request = Some(PaletteRequest::ImportMap);
        }
        if let PaletteChoice::User(g) = palette {
            if ui.button("Delete").clicked() {
                user.retain(|u| u.name() != g.name());
                *palette = PaletteChoice::default();
            }
        }
    });
    if let PaletteChoice::User(g) = palette {
        let g = g.clone();
        if let Some(edited) = stops_ui(ui, &g, user, editor) {
            if let Some(slot) = user.iter_mut().find(|u| u.name() == g.name()) {
                *slot = edited.clone();
            }
            *palette = PaletteChoice::User(edited);
        }
    }
    request
}

/// The editor of `g`'s stops; the palette as edited when something changed.
fn stops_ui(
    ui: &mut Ui,
    g: &Gradient,
    user: &[Gradient],
    editor: &mut PaletteEditor,
) -> Option<Gradient> {
    // Take up the palette shown when it is not the one being edited.
    let in_sync = matches!(&editor.editing, Some((name, stops))
        if name == g.name() && Gradient::new(name, stops.clone()).as_ref() == Ok(g));
    if !in_sync {
        editor.editing = Some((g.name().to_string(), g.stops().to_vec()));
        editor.name = g.name().to_string();
    }
    let current = editor
        .editing
        .as_ref()
        .map_or_else(Vec::new, |(_, stops)| stops.clone());
    let mut stops = current.clone();
    let mut name = g.name().to_string();
    ui.horizontal(|ui| {
        ui.label("name");
        let field = ui.add(egui::TextEdit::singleline(&mut editor.name).desired_width(120.0));
        let others: Vec<Gradient> = user
            .iter()
            .filter(|u| u.name() != g.name())
            .cloned()
            .collect();
        let wanted = editor.name.trim();
        if field.lost_focus() && wanted != g.name() {
            if wanted.is_empty() || name_taken(wanted, &others) {
                editor.name = g.name().to_string();
            } else {
                name = wanted.to_string();
            }
        }
    });
    let mut remove = None;
    let mut insert_after = None;
    for (i, stop) in stops.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            ui.color_edit_button_srgb(&mut stop.rgb);
            ui.add(egui::Slider::new(&mut stop.position, 0.0..=1.0).fixed_decimals(3));
            if ui
                .small_button("+")
                .on_hover_text("a stop after this one")
                .clicked()
            {
                insert_after = Some(i);
            }
            if ui
                .add_enabled(current.len() > 1, egui::Button::new("−").small())
                .on_hover_text("remove this stop")
                .clicked()
            {
                remove = Some(i);
            }
        });
    }
    if let Some(i) = insert_after {
        stops.insert(i + 1, stop_after(g, &stops, i));
    }
    if let Some(i) = remove {
        stops.remove(i);
    }
    if stops == current && name == g.name() {
        return None;
    }
    let edited = Gradient::new(&name, stops.clone()).ok()?;
    editor.editing = Some((name.clone(), stops));
    editor.name = name;
    Some(edited)
}

/// A new stop halfway from stop `i` to the next one along the cycle, in the colour the
/// palette has there.
fn stop_after(g: &Gradient, stops: &[Stop], i: usize) -> Stop {
    let a = stops[i].position;
    let next = stops
        .iter()
        .map(|s| s.position)
        .filter(|&p| p > a)
        .fold(None, |m: Option<f32>, p| Some(m.map_or(p, |m| m.min(p))));
    let b = next.unwrap_or(stops.iter().map(|s| s.position).fold(1.0, f32::min) + 1.0);
    let position = ((a + b) / 2.0).rem_euclid(1.0);
    Stop {
        position,
        rgb: g.at(f64::from(position)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(name: &str) -> Gradient {
        Gradient::new(
            name,
            vec![
                Stop {
                    position: 0.0,
                    rgb: [0, 0, 0],
                },
                Stop {
                    position: 0.5,
                    rgb: [200, 100, 50],
                },
            ],
        )
        .expect("valid")
    }

    #[test]
    fn palettes_survive_the_settings() {
        let user = vec![g("dusk"), g("dawn")];
        let mut notes = Vec::new();
        let back = restore_palettes(&saved_palettes(&user), &mut notes);
        assert_eq!((back, notes.len()), (user.clone(), 0));
        assert_eq!(palette_setting_name(&Palette::Fire.into()), "fire");
        assert_eq!(
            palette_setting_name(&PaletteChoice::User(g("dusk"))),
            "dusk"
        );
        assert_eq!(
            palette_from_setting("fire", &user),
            Some(Palette::Fire.into())
        );
        assert_eq!(
            palette_from_setting("dawn", &user),
            Some(PaletteChoice::User(g("dawn")))
        );
        assert_eq!(palette_from_setting("gone", &user), None);
    }

    #[test]
    fn bad_or_twice_saved_palettes_are_notes() {
        let mut saved = saved_palettes(&[g("dusk"), g("dusk")]);
        saved.push(SavedPalette {
            name: "empty".into(),
            stops: Vec::new(),
        });
        let mut notes = Vec::new();
        let back = restore_palettes(&saved, &mut notes);
        assert_eq!(back.len(), 1);
        assert_eq!(notes.len(), 2, "{notes:?}");
    }

    #[test]
    fn names_stay_unique_and_apart_from_the_builtins() {
        let user = vec![g("dusk")];
        assert_eq!(unique_name("dawn", &user), "dawn");
        assert_eq!(unique_name("Dusk", &user), "Dusk 2");
        assert_eq!(unique_name("fire", &user), "fire 2");
        assert_eq!(unique_name("  ", &user), "palette");
        let mut user = user;
        let added = add_user_palette(g("dusk"), &mut user);
        assert_eq!(added.name(), "dusk 2");
        assert_eq!(user.len(), 2);
    }

    #[test]
    fn a_new_stop_lies_halfway_to_the_next_one_round_the_cycle() {
        let p = g("x");
        let stops = p.stops().to_vec();
        let s = stop_after(&p, &stops, 0);
        assert_eq!(s.position, 0.25);
        assert_eq!(s.rgb, p.at(0.25));
        let s = stop_after(&p, &stops, 1);
        assert_eq!(s.position, 0.75);
    }
}
