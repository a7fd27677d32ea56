//! The filter stack of the side panel: ordered entries, each on/off with its parameters.
//! Entries, sliders and ranges all come from the filter registry (`filters::FILTERS`);
//! user kernel entries (`kernel:PATH.cu`) from their `// @param` declarations.

use crate::filters::{ParamDef, ParamDefault, FILTERS};
use crate::pipeline::Stage;
use crate::user_kernel::{KernelStage, ParamKind};
use egui::Ui;

/// One row of the stack.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterEntry {
    pub enabled: bool,
    pub filter: Stage,
    /// Derived parameters (the Gaussian radius) follow the others.
    pub auto_derived: bool,
}

/// The user's stack, applied top to bottom.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterStack {
    pub entries: Vec<FilterEntry>,
}

/// A registered filter's starting entry (off).
fn default_entry(spec: &str) -> Option<FilterEntry> {
    match spec.parse() {
        Ok(filter) => Some(FilterEntry {
            enabled: false,
            filter: Stage::Filter(filter),
            auto_derived: true,
        }),
        Err(e) => {
            log::error!("UI default '{spec}' does not parse: {e}");
            None
        }
    }
}

impl FilterStack {
    /// Every registered filter, off, with `initial` (from `--filter`) switched on first, in
    /// order.
    pub fn new(initial: &[Stage]) -> Self {
        let mut entries: Vec<FilterEntry> = initial
            .iter()
            .map(|f| FilterEntry {
                enabled: true,
                filter: f.clone(),
                auto_derived: false,
            })
            .collect();
        for def in FILTERS {
            if !entries.iter().any(|e| e.filter.label() == def.name()) {
                entries.extend(default_entry(def.ui_default()));
            }
        }
        Self { entries }
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
        self.entries.push(FilterEntry {
            enabled: true,
            filter: stage,
            auto_derived: false,
        });
        self.entries.len() - 1
    }
}

/// What the stack's drawing reports besides a change.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct StackAction {
    pub changed: bool,
    /// The user asked to edit the kernel of this entry.
    pub edit: Option<usize>,
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
    for (i, p) in def.params().iter().enumerate() {
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
    if let Some(note) = def.note() {
        ui.weak(note);
    }
}

/// The hover text of an entry's name.
fn summary_of(stage: &Stage) -> String {
    match stage {
        Stage::Filter(f) => f.def().summary().to_string(),
        Stage::Kernel(k) => format!("user kernel {}", k.path().display()),
    }
}

/// Draws the stack; `kernels_off` says why user kernels cannot run here (they are shown
/// disabled with it), if so.
pub fn filter_stack_ui(
    ui: &mut Ui,
    stack: &mut FilterStack,
    kernels_off: Option<&str>,
) -> StackAction {
    let before = stack.clone();
    let n = stack.entries.len();
    let mut swap = None;
    let mut remove = None;
    let mut edit = None;
    for (i, entry) in stack.entries.iter_mut().enumerate() {
        let is_kernel = entry.filter.kernel().is_some();
        // Each entry's own id space: a combo box keeps its state under its label's id.
        ui.push_id(i, |ui| {
            egui::Frame::group(ui.style()).show(ui, |ui| {
                ui.horizontal(|ui| {
                    let off = kernels_off.filter(|_| is_kernel);
                    ui.add_enabled_ui(off.is_none(), |ui| {
                        ui.checkbox(
                            &mut entry.enabled,
                            egui::RichText::new(entry.filter.label()).strong(),
                        )
                        .on_hover_text(summary_of(&entry.filter))
                        .on_disabled_hover_text(off.unwrap_or_default());
                    });
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        if is_kernel {
                            if ui.button("remove").clicked() {
                                remove = Some(i);
                            }
                            if ui
                                .button("edit")
                                .on_hover_text("open the kernel editor")
                                .clicked()
                            {
                                edit = Some(i);
                            }
                        }
                        if ui
                            .add_enabled(i + 1 < n, egui::Button::new("down"))
                            .on_hover_text("apply later")
                            .clicked()
                        {
                            swap = Some((i, i + 1));
                        }
                        if ui
                            .add_enabled(i > 0, egui::Button::new("up"))
                            .on_hover_text("apply earlier")
                            .clicked()
                        {
                            swap = Some((i - 1, i));
                        }
                    });
                });
                if let Some(reason) = kernels_off.filter(|_| is_kernel) {
                    ui.weak(format!("disabled: {reason}"));
                }
                ui.add_enabled_ui(entry.enabled, |ui| parameters_ui(ui, entry));
            })
        });
    }
    if let Some((a, b)) = swap {
        stack.entries.swap(a, b);
    }
    if let Some(i) = remove {
        stack.entries.remove(i);
    }
    let order: Vec<String> = stack.active().iter().map(|f| f.to_string()).collect();
    ui.weak(if order.is_empty() {
        "no filter: the original is shown".to_string()
    } else {
        format!("order: {}", order.join(", then "))
    });
    StackAction {
        changed: *stack != before,
        edit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_ranges_get_logarithmic_sliders() {
        for def in FILTERS {
            for p in def.params() {
                let min = p.slider_min();
                if min > 0.0 && p.max / min >= 100.0 {
                    assert!(slider_is_logarithmic(p), "{}: {}", def.name(), p.name);
                }
            }
        }
    }

    #[test]
    fn initial_filters_come_first_and_enabled_and_every_filter_is_listed() {
        let initial: Vec<Stage> = ["sobel:scale=2", "box:radius=4"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let s = FilterStack::new(&initial);
        assert_eq!(s.active(), initial);
        assert_eq!(s.entries.len(), FILTERS.len());
        for def in FILTERS {
            assert!(s.entries.iter().any(|e| e.filter.label() == def.name()));
        }
    }
}
