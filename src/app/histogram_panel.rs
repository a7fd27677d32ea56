//! The histogram panel: bins drawn by the GLSL renderer straight from the GL bin buffer,
//! linear or log, statistics, and the counts of the bin under the cursor.

use crate::gl::{HistogramRenderer, HistogramStyle};
use crate::ops::histogram::CHANNEL_NAMES;
use crate::ops::Histogram;
use egui::{Sense, Ui};
use std::sync::Arc;

pub struct HistogramPanel {
    pub renderer: Arc<HistogramRenderer>,
    pub log_scale: bool,
    pub channels: [bool; 4],
}

fn max_count(h: &Histogram, channels: [bool; 4]) -> u32 {
    (0..4)
        .filter(|&c| channels[c])
        .flat_map(|c| h.bins[c].iter().copied())
        .max()
        .unwrap_or(1)
}

fn stats_ui(ui: &mut Ui, h: &Histogram) {
    egui::Grid::new("histogram_stats")
        .striped(true)
        .num_columns(7)
        .show(ui, |ui| {
            for head in ["", "count", "min", "max", "mean", "median", "std dev"] {
                ui.strong(head);
            }
            ui.end_row();
            for (i, name) in CHANNEL_NAMES.iter().enumerate() {
                let s = h.stats(i);
                ui.label(*name);
                ui.label(s.count.to_string());
                ui.label(s.min.to_string());
                ui.label(s.max.to_string());
                ui.label(format!("{:.2}", s.mean));
                ui.label(s.median.to_string());
                ui.label(format!("{:.2}", s.std_dev));
                ui.end_row();
            }
        });
}

/// Draws the panel for `histogram` (None before the first frame).
pub fn histogram_panel_ui(ui: &mut Ui, panel: &mut HistogramPanel, histogram: Option<&Histogram>) {
    ui.horizontal(|ui| {
        ui.strong("Histogram");
        ui.checkbox(&mut panel.log_scale, "log scale");
        for (on, name) in panel.channels.iter_mut().zip(CHANNEL_NAMES) {
            ui.checkbox(on, name);
        }
    });
    let Some(h) = histogram else {
        ui.weak("no image processed yet");
        return;
    };
    ui.horizontal(|ui| {
        let size = egui::vec2(
            (ui.available_width() - 430.0).max(256.0),
            ui.available_height().max(80.0),
        );
        let (rect, response) = ui.allocate_exact_size(size, Sense::hover());
        let hover_bin = response
            .hover_pos()
            .map(|p| (((p.x - rect.left()) / rect.width()) * 256.0).clamp(0.0, 255.0) as usize);
        let style = HistogramStyle {
            max_count: max_count(h, panel.channels) as f32,
            log_scale: panel.log_scale,
            channels: panel.channels,
            hover_bin,
        };
        ui.painter()
            .rect_filled(rect, 2.0, egui::Color32::from_gray(16));
        let renderer = panel.renderer.clone();
        ui.painter().add(egui::PaintCallback {
            rect,
            callback: Arc::new(egui_glow::CallbackFn::new(move |_info, painter| {
                renderer.draw(painter.gl(), &style)
            })),
        });
        if let Some(bin) = hover_bin {
            let text = CHANNEL_NAMES
                .iter()
                .enumerate()
                .map(|(c, n)| format!("{n}: {}", h.bins[c][bin]))
                .collect::<Vec<_>>()
                .join("\n");
            response.on_hover_text(format!("value {bin}\n{text}"));
        }
        ui.vertical(|ui| stats_ui(ui, h));
    });
}
