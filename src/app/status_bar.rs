//! The status bar, one line: backend (why on hover), interop path, image size, frame time
//! (stage times on hover), inspected pixel, and the last message, which expires.

use crate::pipeline::{BackendStatus, InteropStatus, StageTime};
use egui::Ui;
use std::time::{Duration, Instant};

/// How long an information message stays in the status bar.
pub const INFO_TTL: Duration = Duration::from_secs(8);
/// How long an error stays (longer: it may need reading).
pub const ERROR_TTL: Duration = Duration::from_secs(20);

/// A message of the status bar and when it was posted.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusMessage {
    pub text: String,
    pub is_error: bool,
    pub posted: Instant,
}

impl StatusMessage {
    pub fn new(text: impl Into<String>, is_error: bool) -> Self {
        Self {
            text: text.into(),
            is_error,
            posted: Instant::now(),
        }
    }

    /// Time left before it disappears at `now` (None: gone).
    pub fn remaining(&self, now: Instant) -> Option<Duration> {
        let ttl = if self.is_error { ERROR_TTL } else { INFO_TTL };
        ttl.checked_sub(now.saturating_duration_since(self.posted))
            .filter(|d| !d.is_zero())
    }
}

/// What the status bar shows.
pub struct StatusLine<'a> {
    pub backend: &'a BackendStatus,
    pub interop: Option<&'a InteropStatus>,
    pub size: Option<(u32, u32)>,
    pub frame_ms: f64,
    pub stages: &'a [StageTime],
    pub pixel: Option<String>,
    pub zoom_percent: Option<f32>,
    pub message: Option<&'a StatusMessage>,
}

pub fn status_bar_ui(ui: &mut Ui, line: &StatusLine<'_>) {
    ui.horizontal(|ui| {
        let color = match line.backend.kind {
            crate::pipeline::BackendKind::Cuda => egui::Color32::from_rgb(118, 185, 0),
            crate::pipeline::BackendKind::Cpu => egui::Color32::from_rgb(230, 160, 60),
        };
        ui.colored_label(color, format!("{} backend", line.backend.kind))
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
        if let Some(z) = line.zoom_percent {
            ui.label(format!("{z:.0} %")).on_hover_text("zoom");
            ui.separator();
        }
        let stages: Vec<String> = line
            .stages
            .iter()
            .map(|s| format!("{} {:.2} ms", s.name, s.ms))
            .collect();
        let hint = if stages.is_empty() {
            "work of the last processed frame".to_string()
        } else {
            format!("work of the last processed frame:\n{}", stages.join("\n"))
        };
        ui.label(format!("frame {:.2} ms", line.frame_ms))
            .on_hover_text(hint);
        if let Some(pixel) = &line.pixel {
            ui.separator();
            ui.add(egui::Label::new(egui::RichText::new(pixel).monospace()).truncate());
        }
        if let Some(m) = line.message {
            ui.separator();
            let color = if m.is_error {
                egui::Color32::LIGHT_RED
            } else {
                egui::Color32::LIGHT_BLUE
            };
            ui.add(egui::Label::new(egui::RichText::new(&m.text).color(color)).truncate())
                .on_hover_text(&m.text);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_expire_and_errors_stay_longer() {
        let info = StatusMessage::new("opened", false);
        let error = StatusMessage::new("cannot read", true);
        let t = info.posted;
        assert!(info.remaining(t).is_some());
        assert!(info.remaining(t + INFO_TTL).is_none());
        assert!(error.remaining(error.posted + INFO_TTL).is_some());
        assert!(error.remaining(error.posted + ERROR_TTL).is_none());
    }
}
