//! The Presets section of the filter panel: save the enabled filters under a name, load
//! or delete a saved preset, and copy the stack as the equivalent `cudalens apply` call.

use super::filter_stack::FilterStack;
use super::presets::{
    command_line, delete_preset_in, list_presets_in, load_preset_in, presets_dir, save_preset_in,
    Preset,
};
use egui::Ui;
use std::path::{Path, PathBuf};

/// The section's state: the saved names and the name being typed.
pub struct PresetsPanel {
    dir: Option<PathBuf>,
    names: Vec<String>,
    new_name: String,
}

/// What a click did: the stack changed, and a line for the status bar.
#[derive(Default)]
pub struct PresetsOutcome {
    pub stack_changed: bool,
    pub message: Option<(String, bool)>,
}

impl PresetsPanel {
    pub fn new() -> Self {
        let dir = presets_dir().ok();
        let names = dir.as_deref().map(list_presets_in).unwrap_or_default();
        Self {
            dir,
            names,
            new_name: String::new(),
        }
    }

    fn refresh(&mut self) {
        self.names = self.dir.as_deref().map(list_presets_in).unwrap_or_default();
    }
}

/// Where "copy as command line" writes: `<stem>-cudalens.png` beside the input.
fn suggested_output(input: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .map_or("result".into(), |s| s.to_string_lossy());
    input.with_file_name(format!("{stem}-cudalens.png"))
}

fn saved_ui(
    ui: &mut Ui,
    panel: &mut PresetsPanel,
    dir: &Path,
    stack: &mut FilterStack,
) -> PresetsOutcome {
    let mut out = PresetsOutcome::default();
    let mut deleted = false;
    for name in &panel.names {
        ui.horizontal(|ui| {
            if ui.button(name).on_hover_text("load this stack").clicked() {
                out = match load_preset_in(dir, name) {
                    Ok(p) => {
                        *stack = FilterStack::new(&p.filters);
                        PresetsOutcome {
                            stack_changed: true,
                            message: Some((format!("preset '{name}' loaded"), false)),
                        }
                    }
                    Err(e) => PresetsOutcome {
                        stack_changed: false,
                        message: Some((e.to_string(), true)),
                    },
                };
            }
            if ui
                .small_button("delete")
                .on_hover_text("delete this preset")
                .clicked()
            {
                deleted = true;
                out.message = Some(match delete_preset_in(dir, name) {
                    Ok(()) => (format!("preset '{name}' deleted"), false),
                    Err(e) => (e.to_string(), true),
                });
            }
        });
    }
    if deleted {
        panel.refresh();
    }
    out
}

/// What "Copy as command line" reproduces besides the stack: the opened file, the edits
/// made to it since, and the selection the filters apply to (with "Filters on Selection
/// Only").
pub struct CommandSource<'a> {
    pub input: &'a Path,
    pub edits: &'a [crate::edit::ImageEdit],
    pub selection: Option<(u32, u32, u32, u32)>,
}

/// Draws the section.
pub fn presets_ui(
    ui: &mut Ui,
    panel: &mut PresetsPanel,
    stack: &mut FilterStack,
    document: CommandSource<'_>,
) -> PresetsOutcome {
    let input = document.input;
    let Some(dir) = panel.dir.clone() else {
        ui.weak("presets need a configuration folder (set CUDALENS_CONFIG_DIR)");
        return PresetsOutcome::default();
    };
    let mut out = saved_ui(ui, panel, &dir, stack);
    ui.horizontal(|ui| {
        ui.add(
            egui::TextEdit::singleline(&mut panel.new_name)
                .hint_text("preset name")
                .desired_width(140.0),
        );
        let can_save = !panel.new_name.trim().is_empty() && !stack.active().is_empty();
        if ui
            .add_enabled(can_save, egui::Button::new("Save stack"))
            .on_hover_text("save the enabled filters, in order, under this name")
            .clicked()
        {
            let preset = Preset {
                name: panel.new_name.trim().to_string(),
                filters: stack.active(),
            };
            out.message = Some(match save_preset_in(&dir, &preset) {
                Ok(path) => (format!("preset saved: {}", path.display()), false),
                Err(e) => (e.to_string(), true),
            });
            panel.new_name.clear();
            panel.refresh();
        }
    });
    let active = stack.active();
    if ui
        .add_enabled(
            !active.is_empty() || !document.edits.is_empty(),
            egui::Button::new("Copy as command line"),
        )
        .on_hover_text(
            "the equivalent `cudalens apply` call (edits, then filters), to the clipboard",
        )
        .clicked()
    {
        let line = command_line(
            document.edits,
            &active,
            document.selection,
            input,
            &suggested_output(input),
        );
        ui.ctx().copy_text(line.clone());
        out.message = Some((format!("copied: {line}"), false));
    }
    out
}
