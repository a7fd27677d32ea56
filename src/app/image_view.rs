//! The central image view: zoom at the cursor, drag to pan, fit and 1:1, a before/after
//! split, and the pixel inspector.

use egui::{pos2, vec2, Color32, Rect, Sense, Stroke, TextureId, Ui, Vec2};

/// Where the view looks: `zoom` screen points per image pixel, `center` in image pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageViewState {
    pub zoom: f32,
    pub center: Vec2,
    pub fit_requested: bool,
    pub one_to_one_requested: bool,
    /// Split position (0..1 of the view's width) when before/after is on.
    pub split: Option<f32>,
}

impl Default for ImageViewState {
    fn default() -> Self {
        Self {
            zoom: 1.0,
            center: Vec2::ZERO,
            fit_requested: true,
            one_to_one_requested: false,
            split: None,
        }
    }
}

/// What the view reports back.
#[derive(Debug, Default)]
pub struct ImageViewOutput {
    /// Image pixel under the cursor.
    pub hovered_pixel: Option<(u32, u32)>,
}

/// Textures to draw: the result and, for the split, the original.
pub struct ViewTextures {
    pub output: TextureId,
    pub output_size: (u32, u32),
    pub original: TextureId,
    pub original_size: (u32, u32),
}

/// Image pixel under screen point `p` (None outside the image).
pub fn pixel_in_image(
    state: &ImageViewState,
    rect: Rect,
    size: (u32, u32),
    p: egui::Pos2,
) -> Option<(u32, u32)> {
    let image_pos = state.center + (p - rect.center()) / state.zoom;
    let (x, y) = (image_pos.x.floor(), image_pos.y.floor());
    (x >= 0.0 && y >= 0.0 && x < size.0 as f32 && y < size.1 as f32).then_some((x as u32, y as u32))
}

fn image_rect(state: &ImageViewState, rect: Rect, size: (u32, u32)) -> Rect {
    let min = rect.center() - state.center * state.zoom;
    Rect::from_min_size(min, vec2(size.0 as f32, size.1 as f32) * state.zoom)
}

fn handle_input(
    ui: &Ui,
    state: &mut ImageViewState,
    response: &egui::Response,
    rect: Rect,
    size: (u32, u32),
) {
    let full = vec2(size.0 as f32, size.1 as f32);
    if state.fit_requested {
        state.zoom = (rect.width() / full.x)
            .min(rect.height() / full.y)
            .max(1e-4);
        state.center = full / 2.0;
        state.fit_requested = false;
    }
    if state.one_to_one_requested {
        state.zoom = 1.0 / ui.ctx().pixels_per_point();
        state.one_to_one_requested = false;
    }
    if response.dragged() && !ui.input(|i| i.modifiers.shift) {
        state.center -= response.drag_delta() / state.zoom;
    }
    if let Some(p) = response.hover_pos() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0 {
            let before = state.center + (p - rect.center()) / state.zoom;
            state.zoom = (state.zoom * (scroll * 0.0025).exp()).clamp(1e-3, 256.0);
            state.center = before - (p - rect.center()) / state.zoom;
        }
    }
}

/// Draws the view into the remaining space.
pub fn image_view_ui(
    ui: &mut Ui,
    state: &mut ImageViewState,
    textures: &ViewTextures,
) -> ImageViewOutput {
    let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, Color32::from_gray(24));
    let size = textures.output_size;
    handle_input(ui, state, &response, rect, size);
    let shown = image_rect(state, rect, size);
    let full_uv = Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0));
    painter.image(textures.output, shown, full_uv, Color32::WHITE);
    if let Some(split) = state.split {
        if textures.original_size == size {
            let x = rect.left() + split * rect.width();
            // Before (original) on the left of the split line.
            let left = Rect::from_min_max(
                shown.min,
                pos2(x.clamp(shown.left(), shown.right()), shown.bottom()),
            );
            let u = (left.right() - shown.left()) / shown.width().max(1e-6);
            painter.image(
                textures.original,
                left,
                Rect::from_min_max(pos2(0.0, 0.0), pos2(u, 1.0)),
                Color32::WHITE,
            );
            painter.line_segment(
                [pos2(x, rect.top()), pos2(x, rect.bottom())],
                Stroke::new(2.0, Color32::YELLOW),
            );
            painter.text(
                pos2(x - 6.0, rect.top() + 6.0),
                egui::Align2::RIGHT_TOP,
                "before",
                egui::FontId::proportional(14.0),
                Color32::YELLOW,
            );
            painter.text(
                pos2(x + 6.0, rect.top() + 6.0),
                egui::Align2::LEFT_TOP,
                "after",
                egui::FontId::proportional(14.0),
                Color32::YELLOW,
            );
            if response.dragged() && ui.input(|i| i.modifiers.shift) {
                if let Some(p) = response.interact_pointer_pos() {
                    state.split = Some(((p.x - rect.left()) / rect.width()).clamp(0.0, 1.0));
                }
            }
        } else {
            painter.text(
                rect.left_top() + vec2(8.0, 8.0),
                egui::Align2::LEFT_TOP,
                "split view needs equal sizes (transpose is on)",
                egui::FontId::proportional(14.0),
                Color32::LIGHT_RED,
            );
        }
    }
    ImageViewOutput {
        hovered_pixel: response
            .hover_pos()
            .and_then(|p| pixel_in_image(state, rect, size, p)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixel_under_the_cursor() {
        let state = ImageViewState {
            zoom: 2.0,
            center: vec2(50.0, 25.0),
            ..Default::default()
        };
        let rect = Rect::from_min_size(pos2(0.0, 0.0), vec2(200.0, 100.0));
        assert_eq!(
            pixel_in_image(&state, rect, (100, 50), pos2(100.0, 50.0)),
            Some((50, 25))
        );
        assert_eq!(
            pixel_in_image(&state, rect, (100, 50), pos2(0.5, 0.5)),
            Some((0, 0))
        );
        assert_eq!(
            pixel_in_image(&state, rect, (10, 10), pos2(199.0, 99.0)),
            None
        );
    }
}
