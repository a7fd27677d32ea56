//! Videos in the window: [`VideoPlayer`] decodes and paces the frames (no GL, no egui);
//! each frame becomes the document's pixels and runs through the filter stack like a still.
//! `video_controls_ui` draws the transport bar under the picture.

mod player;

pub use player::{clock_text, FramePixels, PlayerEvent, ShownFrame, VideoPlayer, Waker};

use std::time::Instant;

/// Playback speeds offered.
const SPEEDS: [f64; 6] = [0.25, 0.5, 1.0, 1.5, 2.0, 4.0];

/// What the user asked of the video this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum VideoRequest {
    TogglePlay,
    StepBack,
    StepForward,
    Seek(u64),
    Speed(f64),
}

/// The keys of a player: space plays or pauses, ← and → step while paused. None while a
/// text field has the keyboard.
pub fn video_keys(ctx: &egui::Context, playing: bool) -> Option<VideoRequest> {
    if ctx.egui_wants_keyboard_input() {
        return None;
    }
    ctx.input_mut(|i| {
        if i.consume_key(egui::Modifiers::NONE, egui::Key::Space) {
            Some(VideoRequest::TogglePlay)
        } else if !playing && i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowLeft) {
            Some(VideoRequest::StepBack)
        } else if !playing && i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowRight) {
            Some(VideoRequest::StepForward)
        } else {
            None
        }
    })
}

/// The transport bar: play/pause, steps, the timeline (a seek when the drag ends), loop,
/// speed, and the frame, time, decode rate, dropped frames and the decoder.
pub fn video_controls_ui(ui: &mut egui::Ui, player: &mut VideoPlayer) -> Option<VideoRequest> {
    let mut request = None;
    let playing = player.is_playing();
    let shown = player.shown();
    ui.horizontal(|ui| {
        let play = if playing { "Pause" } else { "Play" };
        if ui.button(play).on_hover_text("Space").clicked() {
            request = Some(VideoRequest::TogglePlay);
        }
        let step = |ui: &mut egui::Ui, text: &str, hover: &str| {
            ui.add_enabled(!playing, egui::Button::new(text))
                .on_hover_text(hover)
                .clicked()
        };
        if step(ui, "< frame", "previous frame (←)") {
            request = Some(VideoRequest::StepBack);
        }
        if step(ui, "frame >", "next frame (→)") {
            request = Some(VideoRequest::StepForward);
        }
        ui.checkbox(&mut player.looping, "loop");
        let mut speed = player.speed();
        egui::ComboBox::from_id_salt("video speed")
            .width(60.0)
            .selected_text(format!("{speed}×"))
            .show_ui(ui, |ui| {
                for s in SPEEDS {
                    ui.selectable_value(&mut speed, s, format!("{s}×"));
                }
            });
        if speed != player.speed() {
            request = Some(VideoRequest::Speed(speed));
        }
        let info = player.info();
        let count = player.frame_count();
        let mut at = shown;
        if let Some(n) = count.filter(|&n| n > 1) {
            let width = (ui.available_width() - 440.0).max(120.0);
            ui.spacing_mut().slider_width = width;
            let slider = ui.add(egui::Slider::new(&mut at, 0..=n - 1).show_value(false));
            if slider.drag_stopped() || (slider.changed() && !slider.dragged()) {
                request = Some(VideoRequest::Seek(at));
            }
        }
        let total = count.map_or_else(|| "?".into(), |n| n.to_string());
        let mut text = format!(
            "frame {} / {total} · {} / {}",
            shown + 1,
            clock_text(info.frame_time(shown)),
            count.map_or_else(|| "?".into(), |n| clock_text(info.frame_time(n))),
        );
        if let Some(fps) = player.decode_fps() {
            text.push_str(&format!(" · decode {fps:.0} fps"));
        }
        text.push_str(&format!(" · dropped {}", player.dropped()));
        if player.is_seeking() {
            text.push_str(" · seeking…");
        }
        let decoder = player.decoded_by();
        text.push_str(&format!(" · {}", decoder.name()));
        ui.label(text)
            .on_hover_text(format!("decoded by {decoder}"));
    });
    request
}

/// Carries out `request` on `player` at `now` (a frame it asks for comes through
/// [`VideoPlayer::poll`]).
pub fn handle_request(
    player: &mut VideoPlayer,
    request: VideoRequest,
    now: Instant,
) -> Result<(), crate::video::VideoError> {
    match request {
        VideoRequest::TogglePlay if player.is_playing() => player.pause(),
        VideoRequest::TogglePlay => player.play(now)?,
        VideoRequest::StepBack => player.step_back()?,
        VideoRequest::StepForward => player.step_forward(),
        VideoRequest::Seek(index) => player.seek(index)?,
        VideoRequest::Speed(speed) => player.set_speed(speed, now),
    }
    Ok(())
}

#[cfg(test)]
mod tests;
