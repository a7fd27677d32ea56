//! The menu bar and keyboard shortcuts; both produce [`Action`]s.

use super::recent::RecentFiles;
use egui::{Key, KeyboardShortcut, Modifiers, Ui};
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Open,
    OpenPath(PathBuf),
    SaveAs,
    Quit,
    Fit,
    OneToOne,
    ToggleSplit,
    ToggleContinuous,
    ShowImage,
    ShowMandelbrot,
    /// Undo and redo in the tab shown (the filter stack, or the explorer's places).
    Undo,
    Redo,
    /// An image edit on the document.
    Edit(crate::edit::ImageEdit),
    ResizeDialog,
    CropToSelection,
    /// The whole image selected, or nothing.
    SelectAll,
    SelectNone,
    ToggleSelectTool,
    ToggleSelectionOnly,
    /// The quality results are saved at as JPEG.
    SetJpegQuality(u8),
    /// The Brightness/Contrast window shown or hidden.
    ToggleBrightnessContrast,
}

impl Action {
    /// The Transform menu's actions: they act on the image (and its selection).
    pub fn is_image_edit(&self) -> bool {
        matches!(
            self,
            Action::Edit(_)
                | Action::ResizeDialog
                | Action::CropToSelection
                | Action::SelectAll
                | Action::SelectNone
        )
    }
}

const OPEN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
const SAVE: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::S);
const QUIT: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Q);
const IMAGE_TAB: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Num1);
const MANDEL_TAB: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Num2);
const UNDO: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);
const REDO: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Y);
const REDO_SHIFT: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::Z);
const FIT: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::F);
const ONE_TO_ONE: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::Num1);
const SPLIT: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::B);
const CONTINUOUS: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::C);
/// ImageJ's crop.
const CROP: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::X);
/// GIMP's and ImageJ's Select All and Select None.
const SELECT_ALL: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::A);
const SELECT_NONE: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::A);
/// ImageJ's Brightness/Contrast.
const BRIGHTNESS_CONTRAST: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::C);

/// Shortcuts pressed this frame (plain keys only while no widget has keyboard focus).
pub fn shortcut_actions(ctx: &egui::Context) -> Vec<Action> {
    let typing = ctx.memory(|m| m.focused().is_some());
    let mut out = Vec::new();
    ctx.input_mut(|i| {
        let with_command = [
            (OPEN, Action::Open),
            (SAVE, Action::SaveAs),
            (QUIT, Action::Quit),
            (IMAGE_TAB, Action::ShowImage),
            (MANDEL_TAB, Action::ShowMandelbrot),
            (CROP, Action::CropToSelection),
            (BRIGHTNESS_CONTRAST, Action::ToggleBrightnessContrast),
        ];
        for (shortcut, action) in with_command {
            if i.consume_shortcut(&shortcut) {
                out.push(action);
            }
        }
        if !typing {
            // Ctrl+Shift+Z before Ctrl+Z, which would match it too (and so for A).
            for (shortcut, action) in [
                (REDO_SHIFT, Action::Redo),
                (REDO, Action::Redo),
                (UNDO, Action::Undo),
                (SELECT_NONE, Action::SelectNone),
                (SELECT_ALL, Action::SelectAll),
            ] {
                if i.consume_shortcut(&shortcut) {
                    out.push(action);
                }
            }
            for (shortcut, action) in [
                (FIT, Action::Fit),
                (ONE_TO_ONE, Action::OneToOne),
                (SPLIT, Action::ToggleSplit),
                (CONTINUOUS, Action::ToggleContinuous),
            ] {
                if i.consume_shortcut(&shortcut) {
                    out.push(action);
                }
            }
        }
    });
    out
}

fn item(
    ui: &mut Ui,
    label: &str,
    shortcut: &KeyboardShortcut,
    action: Action,
    out: &mut Vec<Action>,
) {
    let text = ui.ctx().format_shortcut(shortcut);
    if ui
        .add(egui::Button::new(label).shortcut_text(text))
        .clicked()
    {
        out.push(action);
        ui.close();
    }
}

/// A menu item that shows whether its setting is on.
fn toggle_item(
    ui: &mut Ui,
    label: &str,
    on: bool,
    shortcut: &KeyboardShortcut,
    action: Action,
    out: &mut Vec<Action>,
) {
    let text = ui.ctx().format_shortcut(shortcut);
    if ui
        .add(egui::Button::selectable(on, label).shortcut_text(text))
        .clicked()
    {
        out.push(action);
        ui.close();
    }
}

/// What the menus show as on or possible.
#[derive(Debug, Clone, Copy, Default)]
pub struct MenuState<'a> {
    pub split: bool,
    pub continuous: bool,
    pub can_undo: bool,
    pub can_redo: bool,
    pub jpeg_quality: u8,
    /// The names of the steps Undo and Redo would take ("Undo Add gaussian").
    pub undo_label: Option<&'a str>,
    pub redo_label: Option<&'a str>,
    pub has_selection: bool,
    pub select_tool: bool,
    pub selection_only: bool,
}

/// A menu entry without a shortcut.
fn plain_item(ui: &mut Ui, label: &str, action: Action, out: &mut Vec<Action>) {
    if ui.button(label).clicked() {
        out.push(action);
        ui.close();
    }
}

/// The Transform menu (image edits; "Image" names the tab): the edits of the registry,
/// the selection's tools.
fn image_menu_ui(ui: &mut Ui, state: MenuState<'_>, out: &mut Vec<Action>) {
    for (label, edit) in crate::edit::QUICK_EDITS {
        plain_item(ui, label, Action::Edit(edit), out);
    }
    plain_item(ui, "Resize…", Action::ResizeDialog, out);
    ui.add_enabled_ui(state.has_selection, |ui| {
        item(ui, "Crop to Selection", &CROP, Action::CropToSelection, out);
    });
    ui.separator();
    item(ui, "Select All", &SELECT_ALL, Action::SelectAll, out);
    ui.add_enabled_ui(state.has_selection, |ui| {
        item(ui, "Select None", &SELECT_NONE, Action::SelectNone, out);
    });
    if ui
        .add(egui::Button::selectable(state.select_tool, "Select Tool"))
        .on_hover_text("drag selects a rectangle (Ctrl+drag does too; Esc clears it)")
        .clicked()
    {
        out.push(Action::ToggleSelectTool);
        ui.close();
    }
    if ui
        .add(egui::Button::selectable(
            state.selection_only,
            "Filters on Selection Only",
        ))
        .on_hover_text("outside the selection the result shows the source pixels")
        .clicked()
    {
        out.push(Action::ToggleSelectionOnly);
        ui.close();
    }
}

/// The menu bar.
pub fn menu_bar_ui(ui: &mut Ui, recent: &RecentFiles, state: MenuState<'_>) -> Vec<Action> {
    let mut out = Vec::new();
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button("File", |ui| {
            item(ui, "Open…", &OPEN, Action::Open, &mut out);
            ui.menu_button("Open Recent", |ui| {
                if recent.paths.is_empty() {
                    ui.weak("(none)");
                }
                for p in &recent.paths {
                    if ui.button(p.display().to_string()).clicked() {
                        out.push(Action::OpenPath(p.clone()));
                        ui.close();
                    }
                }
            });
            item(ui, "Save Result As…", &SAVE, Action::SaveAs, &mut out);
            let mut quality = state.jpeg_quality;
            if ui
                .add(egui::Slider::new(&mut quality, 1..=100).text("JPEG quality"))
                .on_hover_text("for results saved as .jpg (as apply --quality)")
                .changed()
            {
                out.push(Action::SetJpegQuality(quality));
            }
            ui.separator();
            item(ui, "Quit", &QUIT, Action::Quit, &mut out);
        });
        ui.menu_button("Edit", |ui| {
            let named = |verb: &str, step: Option<&str>| match step {
                Some(step) => format!("{verb} {step}"),
                None => verb.to_string(),
            };
            ui.add_enabled_ui(state.can_undo, |ui| {
                let label = named("Undo", state.undo_label);
                item(ui, &label, &UNDO, Action::Undo, &mut out);
            });
            ui.add_enabled_ui(state.can_redo, |ui| {
                let label = named("Redo", state.redo_label);
                item(ui, &label, &REDO, Action::Redo, &mut out);
            });
        });
        ui.menu_button("Transform", |ui| image_menu_ui(ui, state, &mut out));
        ui.menu_button("Image", |ui| {
            ui.menu_button("Adjust", |ui| {
                item(
                    ui,
                    "Brightness/Contrast…",
                    &BRIGHTNESS_CONTRAST,
                    Action::ToggleBrightnessContrast,
                    &mut out,
                );
            });
        });
        ui.menu_button("View", |ui| {
            item(ui, "Image", &IMAGE_TAB, Action::ShowImage, &mut out);
            item(
                ui,
                "Mandelbrot",
                &MANDEL_TAB,
                Action::ShowMandelbrot,
                &mut out,
            );
            ui.separator();
            item(ui, "Fit to Window", &FIT, Action::Fit, &mut out);
            item(
                ui,
                "Actual Pixels (1:1)",
                &ONE_TO_ONE,
                Action::OneToOne,
                &mut out,
            );
            toggle_item(
                ui,
                "Before/After Split",
                state.split,
                &SPLIT,
                Action::ToggleSplit,
                &mut out,
            );
            toggle_item(
                ui,
                "Continuous Processing",
                state.continuous,
                &CONTINUOUS,
                Action::ToggleContinuous,
                &mut out,
            );
        });
        ui.menu_button("Help", |ui| {
            ui.label("Wheel: zoom at the cursor · drag: pan");
            ui.label("Shift+drag: move the before/after split");
            ui.label("Mandelbrot: wheel/drag, +/− zoom, arrows pan, R reset, O overlay");
            ui.label("Ctrl+Z / Ctrl+Y: undo / redo (filters, or the explorer's places)");
        });
    });
    out
}
