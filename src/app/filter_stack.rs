//! The filter stack of the side panel: ordered entries, each on/off with its parameters.

use crate::ops::{Filter, BOX_RADIUS_MAX, GAUSSIAN_RADIUS_MAX};
use egui::Ui;

/// One row of the stack.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterEntry {
    pub enabled: bool,
    pub filter: Filter,
    /// Gaussian radius follows ceil(3σ).
    pub auto_radius: bool,
}

/// The user's stack, applied top to bottom.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterStack {
    pub entries: Vec<FilterEntry>,
}

impl FilterStack {
    /// The four filters, off, with `initial` (from `--filter`) switched on first, in order.
    pub fn new(initial: &[Filter]) -> Self {
        let defaults = [
            Filter::gaussian(2.0),
            Filter::Box { radius: 3 },
            Filter::Sobel { scale: 1.0 },
            Filter::Transpose,
        ];
        let mut entries: Vec<FilterEntry> = initial
            .iter()
            .map(|f| FilterEntry {
                enabled: true,
                filter: *f,
                auto_radius: false,
            })
            .collect();
        for d in defaults {
            if !entries.iter().any(|e| e.filter.name() == d.name()) {
                entries.push(FilterEntry {
                    enabled: false,
                    filter: d,
                    auto_radius: true,
                });
            }
        }
        Self { entries }
    }

    /// The enabled filters in order.
    pub fn active(&self) -> Vec<Filter> {
        self.entries
            .iter()
            .filter(|e| e.enabled)
            .map(|e| e.filter)
            .collect()
    }
}

fn parameters_ui(ui: &mut Ui, entry: &mut FilterEntry) {
    match &mut entry.filter {
        Filter::Sobel { scale } => {
            ui.add(
                egui::Slider::new(scale, 0.05..=8.0)
                    .logarithmic(true)
                    .text("scale"),
            );
        }
        Filter::Box { radius } => {
            ui.add(
                egui::Slider::new(radius, 1..=BOX_RADIUS_MAX)
                    .logarithmic(true)
                    .text("radius"),
            );
        }
        Filter::Gaussian { sigma, radius } => {
            ui.add(
                egui::Slider::new(sigma, 0.1..=32.0)
                    .logarithmic(true)
                    .text("σ"),
            );
            ui.horizontal(|ui| {
                ui.checkbox(&mut entry.auto_radius, "radius = ceil(3σ)");
                if !entry.auto_radius {
                    ui.add(egui::Slider::new(radius, 1..=GAUSSIAN_RADIUS_MAX).text("radius"));
                }
            });
            if entry.auto_radius {
                *radius = crate::ops::filter_default_gaussian_radius(*sigma);
            }
        }
        Filter::Transpose => {
            ui.weak("output is H×W");
        }
    }
}

/// Draws the stack; returns true when anything changed.
pub fn filter_stack_ui(ui: &mut Ui, stack: &mut FilterStack) -> bool {
    let before = stack.clone();
    let n = stack.entries.len();
    let mut swap = None;
    for (i, entry) in stack.entries.iter_mut().enumerate() {
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.checkbox(
                    &mut entry.enabled,
                    egui::RichText::new(entry.filter.name()).strong(),
                );
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
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
            ui.add_enabled_ui(entry.enabled, |ui| parameters_ui(ui, entry));
        });
    }
    if let Some((a, b)) = swap {
        stack.entries.swap(a, b);
    }
    let order: Vec<String> = stack.active().iter().map(|f| f.to_string()).collect();
    ui.weak(if order.is_empty() {
        "no filter: the original is shown".to_string()
    } else {
        format!("order: {}", order.join(", then "))
    });
    *stack != before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_filters_come_first_and_enabled() {
        let s = FilterStack::new(&[Filter::Sobel { scale: 2.0 }, Filter::Box { radius: 4 }]);
        assert_eq!(
            s.active(),
            vec![Filter::Sobel { scale: 2.0 }, Filter::Box { radius: 4 }]
        );
        assert_eq!(s.entries.len(), 4);
    }
}
