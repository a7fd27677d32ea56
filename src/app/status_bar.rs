//! The status bar: backend and why, the interop path and why, image size, frame and stage
//! times (the interop hand-over is a stage), inspected pixel.

use crate::pipeline::{BackendStatus, InteropStatus, StageTime};
use egui::Ui;

/// What the status bar shows.
pub struct StatusLine<'a> {
    pub backend: &'a BackendStatus,
    pub interop: Option<&'a InteropStatus>,
    pub size: Option<(u32, u32)>,
    pub frame_ms: f64,
    pub stages: &'a [StageTime],
    pub pixel: Option<((u32, u32), [u8; 4])>,
    pub message: Option<&'a (String, bool)>,
}

pub fn status_bar_ui(ui: &mut Ui, line: &StatusLine<'_>) {
    ui.horizontal_wrapped(|ui| {
        let color = match line.backend.kind {
            crate::pipeline::BackendKind::Cuda => egui::Color32::from_rgb(118, 185, 0),
            crate::pipeline::BackendKind::Cpu => egui::Color32::from_rgb(230, 160, 60),
        };
        ui.colored_label(color, format!("{} backend", line.backend.kind))
            .on_hover_text(&line.backend.reason);
        ui.label(egui::RichText::new(&line.backend.reason).weak())
            .on_hover_text(&line.backend.reason);
        if let Some(interop) = line.interop {
            ui.separator();
            ui.label(format!("interop: {}", interop.kind))
                .on_hover_text(&interop.reason);
        }
        ui.separator();
        if let Some((w, h)) = line.size {
            ui.label(format!("{w}×{h}"));
            ui.separator();
        }
        let stages: Vec<String> = line
            .stages
            .iter()
            .map(|s| format!("{} {:.2}", s.name, s.ms))
            .collect();
        ui.label(format!("frame {:.2} ms", line.frame_ms))
            .on_hover_text("work of the last processed frame");
        if !stages.is_empty() {
            ui.label(egui::RichText::new(format!("[{}]", stages.join(", "))).monospace());
        }
        if let Some(((x, y), [r, g, b, a])) = line.pixel {
            ui.separator();
            ui.label(egui::RichText::new(format!("({x}, {y}) RGBA {r} {g} {b} {a}")).monospace());
        }
        if let Some((text, is_error)) = line.message {
            ui.separator();
            let color = if *is_error {
                egui::Color32::LIGHT_RED
            } else {
                egui::Color32::LIGHT_BLUE
            };
            ui.colored_label(color, text);
        }
    });
}
