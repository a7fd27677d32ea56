//! The filter stack of the side panel: an ordered list of entries, each on/off with its
//! parameters, applied top to bottom. Any registered filter (`filters::FILTERS`) and any
//! user kernel (`kernel:PATH.cu`, sliders from its `// @param` declarations) can be added
//! any number of times, removed, and dragged to another place.

use crate::filters::{FilterDef, ParamDef, ParamDefault, FILTERS};
use crate::pipeline::Stage;
use crate::user_kernel::examples::{Example, EXAMPLES};
use crate::user_kernel::{KernelSource, KernelStage, ParamKind};
use egui::Ui;

/// One row of the stack.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterEntry {
    pub enabled: bool,
    pub filter: Stage,
    /// Derived parameters (the Gaussian radius) follow the others.
    pub auto_derived: bool,
}

impl FilterEntry {
    /// A registered filter as the stack adds it: on, with the filter's UI defaults.
    pub fn of_def(def: &FilterDef) -> Option<Self> {
        match def.ui_default.parse() {
            Ok(filter) => Some(Self {
                enabled: true,
                filter: Stage::Filter(filter),
                auto_derived: true,
            }),
            Err(e) => {
                log::error!("UI default '{}' does not parse: {e}", def.ui_default);
                None
            }
        }
    }

    /// `stage` as given (on the command line, in a preset): on, parameters as they are.
    pub fn of_stage(stage: Stage) -> Self {
        Self {
            enabled: true,
            filter: stage,
            auto_derived: false,
        }
    }
}

/// Whether `kernel`'s file does not hold its source (never saved, changed since, or
/// unreadable).
pub fn unsaved_on_disk(kernel: &KernelStage) -> bool {
    std::fs::read_to_string(kernel.path()).ok().as_deref() != Some(kernel.source().text.as_str())
}

/// The user's stack, applied top to bottom.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FilterStack {
    pub entries: Vec<FilterEntry>,
}

impl FilterStack {
    /// A stack of `initial` (from `--filter` or a preset), every entry on.
    pub fn new(initial: &[Stage]) -> Self {
        Self {
            entries: initial.iter().cloned().map(FilterEntry::of_stage).collect(),
        }
    }

    /// The enabled filters in order.
    pub fn active(&self) -> Vec<Stage> {
        self.entries
            .iter()
            .filter(|e| e.enabled)
            .map(|e| e.filter.clone())
            .collect()
    }

    /// The enabled stages that can run: without user kernels when `kernels_off` says why
    /// they cannot (the CPU backend).
    pub fn runnable(&self, kernels_off: Option<&str>) -> Vec<Stage> {
        self.entries
            .iter()
            .filter(|e| e.enabled && !(kernels_off.is_some() && e.filter.kernel().is_some()))
            .map(|e| e.filter.clone())
            .collect()
    }

    /// Appends `stage` (switched on) at the end of the stack; returns its index.
    pub fn push(&mut self, stage: Stage) -> usize {
        self.entries.push(FilterEntry::of_stage(stage));
        self.entries.len() - 1
    }

    /// Moves the entry at `from` so that it lands before the entry now at `before`
    /// (`entries.len()`: to the end). Out-of-range indices change nothing.
    pub fn move_entry(&mut self, from: usize, before: usize) {
        if from >= self.entries.len() || before > self.entries.len() {
            return;
        }
        let entry = self.entries.remove(from);
        let to = if before > from { before - 1 } else { before };
        self.entries.insert(to, entry);
    }

    /// The user kernels whose files do not hold their sources, once each.
    pub fn unsaved_kernels(&self) -> Vec<&KernelStage> {
        let mut out: Vec<&KernelStage> = Vec::new();
        for k in self.entries.iter().filter_map(|e| e.filter.kernel()) {
            if !out.iter().any(|o| o.path() == k.path()) && unsaved_on_disk(k) {
                out.push(k);
            }
        }
        out
    }

    /// Puts a copy of the entry at `index` right after it.
    pub fn duplicate(&mut self, index: usize) {
        if let Some(e) = self.entries.get(index).cloned() {
            self.entries.insert(index + 1, e);
        }
    }
}

/// What the stack's drawing reports besides a change.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct StackAction {
    pub changed: bool,
    /// The user asked to edit the kernel of this entry (or added it from an example).
    pub edit: Option<usize>,
    /// The name of the change, when the drawing knows it better than a comparison of
    /// the stack before and after would ("Move sobel").
    pub label: Option<String>,
}

/// What the Add menu offers.
enum AddChoice {
    Filter(&'static FilterDef),
    Example(&'static Example),
}

impl AddChoice {
    fn name(&self) -> &'static str {
        match self {
            AddChoice::Filter(d) => d.name,
            AddChoice::Example(e) => e.file,
        }
    }
}

/// Whether `query` (lowercase words) finds `texts`: every word in one of them.
fn matches_query(query: &str, texts: &[&str]) -> bool {
    query.split_whitespace().all(|word| {
        texts
            .iter()
            .any(|t| t.to_lowercase().contains(&word.to_lowercase()))
    })
}

/// The choices of the Add menu that `query` finds, filters first.
fn add_choices(query: &str) -> Vec<AddChoice> {
    let filters = FILTERS.iter().filter(|d| {
        let mut texts = vec![d.name, d.summary];
        texts.extend(d.aliases);
        matches_query(query, &texts)
    });
    let examples = EXAMPLES
        .iter()
        .filter(|e| matches_query(query, &[e.file, e.summary, "kernel"]));
    let mut choices: Vec<AddChoice> = filters
        .map(|&d| AddChoice::Filter(d))
        .chain(examples.map(AddChoice::Example))
        .collect();
    // Names that start with the query first (filters, then kernels, each in their order).
    let q = query.trim().to_lowercase();
    choices.sort_by_key(|c| !c.name().starts_with(&q));
    choices
}

/// A user kernel example as a new entry: its source, to be saved as `my_<file>` in the
/// working folder (the editor opens on it).
fn example_stage(e: &Example) -> Option<Stage> {
    let source = KernelSource::parse(e.source)
        .map_err(|err| log::error!("example {} does not parse: {err}", e.file))
        .ok()?;
    let path = std::env::current_dir()
        .unwrap_or_default()
        .join(format!("my_{}", e.file));
    Some(Stage::Kernel(KernelStage::from_source(&path, source)))
}

/// The Add menu: a search field (focused; Enter takes the first match) over every filter
/// and the user kernel examples. Returns the entry to append.
fn add_menu_ui(ui: &mut Ui) -> Option<FilterEntry> {
    let mut chosen = None;
    ui.menu_button("Add filter…", |ui| {
        let id = egui::Id::unique("filter_stack_add_query");
        let mut query: String = ui.data_mut(|d| d.get_temp(id).unwrap_or_default());
        let field = ui.add(
            egui::TextEdit::singleline(&mut query)
                .hint_text("search filters and kernels")
                .desired_width(220.0),
        );
        // Enter in the field (it surrenders its focus on Enter) takes the first match.
        let enter = (field.lost_focus() || field.has_focus())
            && ui.input(|i| i.key_pressed(egui::Key::Enter));
        field.request_focus();
        let choices = add_choices(&query);
        if choices.is_empty() {
            ui.weak("nothing matches");
        }
        let mut picked = enter.then_some(0).filter(|_| !choices.is_empty());
        for (i, choice) in choices.iter().enumerate() {
            let clicked = match choice {
                AddChoice::Filter(d) => ui.button(d.name).on_hover_text(d.summary).clicked(),
                AddChoice::Example(e) => {
                    ui.horizontal(|ui| {
                        let b = ui.button(e.file).on_hover_text(e.summary).clicked();
                        ui.weak("your kernel, from an example");
                        b
                    })
                    .inner
                }
            };
            if clicked {
                picked = Some(i);
            }
        }
        if let Some(i) = picked {
            chosen = match &choices[i] {
                AddChoice::Filter(d) => FilterEntry::of_def(d),
                AddChoice::Example(e) => example_stage(e).map(FilterEntry::of_stage),
            };
            query.clear();
            ui.close();
        }
        ui.data_mut(|d| d.insert_temp(id, query));
    });
    chosen
}

/// A range this wide (max over min) gets a logarithmic slider, so that every part of it
/// takes a fair share of the slider's length.
const LOG_RANGE: f32 = 30.0;

/// Whether `def`'s slider is logarithmic (declared so, or a wide range).
pub fn slider_is_logarithmic(def: &ParamDef) -> bool {
    let min = def.slider_min();
    def.logarithmic || (min > 0.0 && def.max / min >= LOG_RANGE)
}

/// One parameter's slider (as wide as the panel allows); returns the new value when the
/// user moved it.
fn param_slider_ui(ui: &mut Ui, def: &ParamDef, value: f32) -> Option<f32> {
    let mut v = value;
    // Room beside the slider for its value and its parameter's name.
    ui.spacing_mut().slider_width = (ui.available_width() - 160.0).max(100.0);
    let slider = egui::Slider::new(&mut v, def.slider_min()..=def.max)
        .logarithmic(slider_is_logarithmic(def))
        .text(def.label);
    let slider = if def.integer {
        slider.integer()
    } else {
        slider
    };
    ui.add(slider).changed().then_some(v)
}

/// A choice parameter's combo box; returns the index of the word the user picked.
fn param_combo_ui(ui: &mut Ui, def: &ParamDef, value: f32) -> Option<f32> {
    let mut picked = None;
    egui::ComboBox::from_label(def.label)
        .selected_text(def.word(value).unwrap_or("?"))
        .show_ui(ui, |ui| {
            for (i, word) in def.choices.iter().enumerate() {
                if ui
                    .selectable_label(def.word(value) == Some(word), *word)
                    .clicked()
                {
                    picked = Some(i as f32);
                }
            }
        });
    picked
}

/// A user kernel's parameters: a slider per float or int, a checkbox per bool.
fn kernel_parameters_ui(ui: &mut Ui, kernel: &mut KernelStage) {
    let decls = kernel.source().params.clone();
    ui.spacing_mut().slider_width = (ui.available_width() - 160.0).max(100.0);
    for (i, d) in decls.iter().enumerate() {
        let value = kernel.values().values.get(i).copied().unwrap_or(d.default);
        let changed = match d.kind {
            ParamKind::Bool => {
                let mut on = value != 0.0;
                ui.checkbox(&mut on, &d.name)
                    .changed()
                    .then_some(if on { 1.0 } else { 0.0 })
            }
            ParamKind::Int | ParamKind::Float => {
                let mut v = value;
                let slider = egui::Slider::new(&mut v, d.min..=d.max).text(&d.name);
                let slider = if d.kind == ParamKind::Int {
                    slider.integer()
                } else {
                    slider
                };
                ui.add(slider).changed().then_some(v)
            }
        };
        if let Some(v) = changed {
            kernel.set_value(i, v);
        }
    }
}

fn parameters_ui(ui: &mut Ui, entry: &mut FilterEntry) {
    let filter = match &mut entry.filter {
        Stage::Filter(f) => f,
        Stage::Kernel(k) => return kernel_parameters_ui(ui, k),
    };
    let def = filter.def();
    for (i, p) in def.params.iter().enumerate() {
        let value = filter.params().get(i);
        if p.is_choice() {
            if let Some(v) = param_combo_ui(ui, p, value) {
                filter.set_param(i, v, !entry.auto_derived);
            }
        } else if p.default == ParamDefault::Derived {
            ui.horizontal(|ui| {
                if ui.checkbox(&mut entry.auto_derived, "auto").changed() && entry.auto_derived {
                    filter.rederive();
                }
                if !entry.auto_derived {
                    if let Some(v) = param_slider_ui(ui, p, value) {
                        filter.set_param(i, v, true);
                    }
                }
            });
        } else if let Some(v) = param_slider_ui(ui, p, value) {
            filter.set_param(i, v, !entry.auto_derived);
        }
    }
    if let Some(note) = def.note {
        ui.weak(note);
    }
}

/// The hover text of an entry's name.
fn summary_of(stage: &Stage) -> String {
    match stage {
        Stage::Filter(f) => f.def().summary.to_string(),
        Stage::Kernel(k) => format!("user kernel {}", k.path().display()),
    }
}

/// An entry's edit, asked for from its row (applied after the rows are drawn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RowEdit {
    Remove(usize),
    Duplicate(usize),
    /// Move the entry at `.0` before the one now at `.1`.
    Move(usize, usize),
}

/// The payload of an entry being dragged: its index.
struct DraggedEntry(usize);

/// The index of the stack entry being dragged, if one is.
pub fn dragged_entry(ctx: &egui::Context) -> Option<usize> {
    egui::DragAndDrop::payload::<DraggedEntry>(ctx).map(|d| d.0)
}

/// The row of one entry: drag handle, switch and name, its buttons and context menu.
fn entry_header_ui(
    ui: &mut Ui,
    i: usize,
    n: usize,
    entry: &mut FilterEntry,
    off: Option<&str>,
    out: &mut (Option<RowEdit>, Option<usize>),
) {
    let is_kernel = entry.filter.kernel().is_some();
    ui.horizontal(|ui| {
        let handle = drag_handle_ui(ui).on_hover_text("drag to apply earlier or later");
        handle.dnd_set_drag_payload(DraggedEntry(i));
        let name = ui
            .add_enabled_ui(off.is_none(), |ui| {
                ui.checkbox(
                    &mut entry.enabled,
                    egui::RichText::new(entry.filter.label()).strong(),
                )
                .on_hover_text(summary_of(&entry.filter))
                .on_disabled_hover_text(off.unwrap_or_default())
            })
            .inner;
        name.context_menu(|ui| {
            let mut item = |ui: &mut Ui, label: &str, enabled: bool, edit: RowEdit| {
                if ui.add_enabled(enabled, egui::Button::new(label)).clicked() {
                    out.0 = Some(edit);
                    ui.close();
                }
            };
            item(ui, "Duplicate", true, RowEdit::Duplicate(i));
            item(ui, "Move to Top", i > 0, RowEdit::Move(i, 0));
            item(ui, "Move to Bottom", i + 1 < n, RowEdit::Move(i, n));
            item(ui, "Remove", true, RowEdit::Remove(i));
        });
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if ui.button("×").on_hover_text("remove").clicked() {
                out.0 = Some(RowEdit::Remove(i));
            }
            if ui
                .add_enabled(i + 1 < n, egui::Button::new("down"))
                .on_hover_text("apply later")
                .clicked()
            {
                out.0 = Some(RowEdit::Move(i, i + 2));
            }
            if ui
                .add_enabled(i > 0, egui::Button::new("up"))
                .on_hover_text("apply earlier")
                .clicked()
            {
                out.0 = Some(RowEdit::Move(i, i - 1));
            }
            if is_kernel
                && ui
                    .button("edit")
                    .on_hover_text("open the kernel editor")
                    .clicked()
            {
                out.1 = Some(i);
            }
        });
    });
}

/// A grip of three short lines (the default fonts have no such glyph), sensing drags.
fn drag_handle_ui(ui: &mut Ui) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(egui::vec2(12.0, 14.0), egui::Sense::drag());
    let color = ui.style().interact(&response).fg_stroke.color;
    for k in 0..3 {
        let y = rect.top() + 3.0 + 4.0 * k as f32;
        ui.painter()
            .hline(rect.x_range().shrink(1.0), y, egui::Stroke::new(1.5, color));
    }
    response.on_hover_cursor(egui::CursorIcon::Grab)
}

/// Where a dragged entry would land over the row `rect` of entry `i`: before it in the
/// row's upper half, else after it. Draws the insertion line there.
fn drop_target_ui(ui: &Ui, rect: egui::Rect, i: usize) -> Option<usize> {
    let pointer = ui.ctx().pointer_interact_pos()?;
    let before = pointer.y < rect.center().y;
    let y = if before { rect.top() } else { rect.bottom() };
    let stroke = egui::Stroke::new(2.0, ui.visuals().selection.stroke.color);
    ui.painter().hline(rect.x_range(), y, stroke);
    Some(if before { i } else { i + 1 })
}

/// Draws the stack; `kernels_off` says why user kernels cannot run here (they are shown
/// disabled with it), if so.
pub fn filter_stack_ui(
    ui: &mut Ui,
    stack: &mut FilterStack,
    kernels_off: Option<&str>,
) -> StackAction {
    let before = stack.clone();
    let mut edit = None;
    let mut label = None;
    if let Some(entry) = add_menu_ui(ui) {
        label = Some(format!("Add {}", entry.filter.label()));
        let is_kernel = entry.filter.kernel().is_some();
        stack.entries.push(entry);
        if is_kernel {
            edit = Some(stack.entries.len() - 1);
        }
    }
    let n = stack.entries.len();
    let mut row = (None, None);
    for (i, entry) in stack.entries.iter_mut().enumerate() {
        let off = kernels_off.filter(|_| entry.filter.kernel().is_some());
        // Each entry's own id space: a combo box keeps its state under its label's id.
        let frame = ui.push_id(i, |ui| {
            egui::Frame::group(ui.style())
                .show(ui, |ui| {
                    entry_header_ui(ui, i, n, entry, off, &mut row);
                    if let Some(reason) = off {
                        ui.weak(format!("disabled: {reason}"));
                    }
                    ui.add_enabled_ui(entry.enabled, |ui| parameters_ui(ui, entry));
                })
                .response
        });
        let rect = frame.inner.rect;
        if frame.inner.dnd_hover_payload::<DraggedEntry>().is_some() {
            let target = drop_target_ui(ui, rect, i);
            if let (Some(to), Some(from)) =
                (target, frame.inner.dnd_release_payload::<DraggedEntry>())
            {
                row.0 = Some(RowEdit::Move(from.0, to));
            }
        }
    }
    let name = |i: usize| stack.entries.get(i).map(|e| e.filter.label());
    match row.0 {
        Some(RowEdit::Remove(i)) if i < n => {
            label = name(i).map(|l| format!("Remove {l}"));
            stack.entries.remove(i);
        }
        Some(RowEdit::Duplicate(i)) => {
            label = name(i).map(|l| format!("Duplicate {l}"));
            stack.duplicate(i);
        }
        Some(RowEdit::Move(from, to)) if to != from && to != from + 1 => {
            label = name(from).map(|l| format!("Move {l}"));
            stack.move_entry(from, to);
        }
        _ => {}
    }
    edit = edit.or(row.1);
    let order: Vec<String> = stack.active().iter().map(|f| f.to_string()).collect();
    ui.weak(if stack.entries.is_empty() {
        "no filter: the original is shown (Add filter… puts one here)".to_string()
    } else if order.is_empty() {
        "every filter is off: the original is shown".to_string()
    } else {
        format!("order: {}", order.join(", then "))
    });
    let changed = *stack != before;
    StackAction {
        changed,
        edit,
        label: label.filter(|_| changed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_ranges_get_logarithmic_sliders() {
        for def in FILTERS {
            for p in def.params {
                let min = p.slider_min();
                if min > 0.0 && p.max / min >= 100.0 {
                    assert!(slider_is_logarithmic(p), "{}: {}", def.name, p.name);
                }
            }
        }
    }

    fn stage(spec: &str) -> Stage {
        spec.parse().expect("spec")
    }

    fn labels(s: &FilterStack) -> Vec<String> {
        s.entries.iter().map(|e| e.filter.to_string()).collect()
    }

    #[test]
    fn a_new_stack_holds_the_initial_filters_on_and_nothing_else() {
        let initial = vec![stage("sobel:scale=2"), stage("box:radius=4")];
        let s = FilterStack::new(&initial);
        assert_eq!(s.active(), initial);
        assert!(FilterStack::new(&[]).entries.is_empty());
    }

    #[test]
    fn every_filter_can_be_added_on_with_its_defaults_any_number_of_times() {
        let mut s = FilterStack::default();
        for def in FILTERS {
            let e = FilterEntry::of_def(def).expect("UI default parses");
            assert!(e.enabled && e.auto_derived);
            assert_eq!(e.filter.label(), def.name);
            s.entries.push(e.clone());
            s.entries.push(e);
        }
        assert_eq!(s.active().len(), 2 * FILTERS.len());
    }

    #[test]
    fn moves_land_before_the_named_entry_and_duplicates_after_the_original() {
        let mut s = FilterStack::new(&[stage("sobel"), stage("box:radius=4"), stage("transpose")]);
        let names = |s: &FilterStack| -> Vec<String> {
            s.entries
                .iter()
                .map(|e| e.filter.label().to_string())
                .collect()
        };
        s.move_entry(0, 3); // to the end
        assert_eq!(names(&s), ["box", "transpose", "sobel"]);
        s.move_entry(2, 0); // to the top
        assert_eq!(names(&s), ["sobel", "box", "transpose"]);
        s.move_entry(0, 2); // after box
        assert_eq!(names(&s), ["box", "sobel", "transpose"]);
        s.move_entry(1, 1); // onto itself
        s.move_entry(1, 2);
        assert_eq!(names(&s), ["box", "sobel", "transpose"]);
        s.move_entry(7, 0); // out of range: nothing
        s.move_entry(0, 9);
        assert_eq!(names(&s), ["box", "sobel", "transpose"]);
        s.duplicate(1);
        assert_eq!(labels(&s)[1], labels(&s)[2]);
        assert_eq!(s.entries.len(), 4);
    }

    #[test]
    fn the_add_search_finds_filters_by_name_alias_and_summary_words() {
        let names = |q: &str| -> Vec<String> {
            add_choices(q)
                .iter()
                .map(|c| match c {
                    AddChoice::Filter(d) => d.name.to_string(),
                    AddChoice::Example(e) => e.file.to_string(),
                })
                .collect()
        };
        assert_eq!(names("").len(), FILTERS.len() + EXAMPLES.len());
        assert_eq!(
            names("GAUS")[0],
            "gaussian",
            "by name first, then by summary"
        );
        assert!(names("kernel").iter().all(|n| n.ends_with(".cu")));
        assert_eq!(names("vignette")[0], "vignette.cu");
        assert_eq!(
            names("invert")[0],
            "invert.cu",
            "a kernel's name before a summary"
        );
        assert!(names("zzz no such").is_empty());
        for def in FILTERS {
            assert_eq!(names(def.name)[0], def.name, "exact name first");
        }
    }

    #[test]
    fn every_example_becomes_a_kernel_entry() {
        for e in EXAMPLES {
            let s = example_stage(e).expect("example parses");
            assert!(s.kernel().is_some(), "{}", e.file);
        }
    }
}
