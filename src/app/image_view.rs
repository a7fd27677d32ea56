//! The central image view: zoom at the cursor, drag to pan, fit and 1:1, a before/after
//! split, the pixel inspector, and a rectangle selection (Ctrl+drag, or drag with the
//! Select tool; Esc clears it) drawn as a dashed outline.

use egui::{pos2, vec2, Color32, Rect, Sense, Stroke, TextureId, Ui, Vec2};

/// Where the view looks: `zoom` screen points per image pixel, `center` in image pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageViewState {
    pub zoom: f32,
    pub center: Vec2,
    pub fit_requested: bool,
    /// The size the view was last fitted to, until the user zooms or pans: a picture of
    /// another size (the result after the source, a turned result) is fitted again.
    pub fitted_for: Option<(u32, u32)>,
    pub one_to_one_requested: bool,
    /// Split position (0..1 of the view's width) when before/after is on.
    pub split: Option<f32>,
    /// The rectangle selection, in image pixels.
    pub selection: Option<PixelRect>,
    /// The Select tool: a plain drag selects instead of panning.
    pub select_tool: bool,
    /// Show the filters' result inside the selection only (the source outside it).
    pub selection_only: bool,
    /// Where a selecting drag started, in image coordinates.
    pub drag_anchor: Option<Vec2>,
}

/// A rectangle of whole image pixels: `x..x + width`, `y..y + height`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelRect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl PixelRect {
    /// The pixels a drag from `a` to `b` (image coordinates) covers, cut to a `size`
    /// image; None when nothing of it is inside.
    pub fn from_drag(a: Vec2, b: Vec2, size: (u32, u32)) -> Option<Self> {
        let (w, h) = (size.0 as f32, size.1 as f32);
        let x0 = a.x.min(b.x).floor().clamp(0.0, w);
        let y0 = a.y.min(b.y).floor().clamp(0.0, h);
        let x1 = a.x.max(b.x).ceil().clamp(0.0, w);
        let y1 = a.y.max(b.y).ceil().clamp(0.0, h);
        (x1 > x0 && y1 > y0).then_some(Self {
            x: x0 as u32,
            y: y0 as u32,
            width: (x1 - x0) as u32,
            height: (y1 - y0) as u32,
        })
    }

    /// This rectangle cut to a `size` image (after an edit changed the size).
    pub fn clipped(self, size: (u32, u32)) -> Option<Self> {
        let x1 = self.x.saturating_add(self.width).min(size.0);
        let y1 = self.y.saturating_add(self.height).min(size.1);
        (x1 > self.x && y1 > self.y).then_some(Self {
            width: x1.saturating_sub(self.x),
            height: y1.saturating_sub(self.y),
            ..self
        })
    }

    /// "W×H at (X, Y)", for the status bar.
    pub fn describe(&self) -> String {
        format!(
            "selection {}×{} at ({}, {})",
            self.width, self.height, self.x, self.y
        )
    }
}

impl Default for ImageViewState {
    fn default() -> Self {
        Self {
            zoom: 1.0,
            center: Vec2::ZERO,
            fit_requested: true,
            fitted_for: None,
            one_to_one_requested: false,
            split: None,
            selection: None,
            select_tool: false,
            selection_only: false,
            drag_anchor: None,
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
    /// The output is a result of the original's pixels; until then the original is shown
    /// in its place (a new image at once, fitted; its result follows).
    pub result_ready: bool,
    /// The image has pixels that are not opaque: a checkerboard is drawn behind it.
    pub transparent: bool,
}

/// Side of a checkerboard square, in points.
const CHECKER: f32 = 12.0;

/// A checkerboard of light and mid grey over `area` (squares fixed to the screen, as in
/// GIMP), the background of transparent pixels.
fn draw_checkerboard(painter: &egui::Painter, area: Rect) {
    painter.rect_filled(area, 0.0, Color32::from_gray(204));
    let (x0, y0) = (
        (area.left() / CHECKER).floor() as i64,
        (area.top() / CHECKER).floor() as i64,
    );
    let (x1, y1) = (
        (area.right() / CHECKER).ceil() as i64,
        (area.bottom() / CHECKER).ceil() as i64,
    );
    for j in y0..y1 {
        for i in (x0..x1).filter(|i| (i + j) % 2 == 0) {
            let square = Rect::from_min_size(
                pos2(i as f32 * CHECKER, j as f32 * CHECKER),
                vec2(CHECKER, CHECKER),
            )
            .intersect(area);
            painter.rect_filled(square, 0.0, Color32::from_gray(153));
        }
    }
}

/// Image coordinates (pixels, continuous) of screen point `p` in the view `rect`.
pub fn screen_to_image(state: &ImageViewState, rect: Rect, p: egui::Pos2) -> Vec2 {
    state.center + (p - rect.center()) / state.zoom
}

/// Screen point of image coordinates `v` in the view `rect`.
pub fn image_to_screen(state: &ImageViewState, rect: Rect, v: Vec2) -> egui::Pos2 {
    rect.center() + (v - state.center) * state.zoom
}

/// Screen rectangle of the image pixels of `r`.
pub fn selection_screen_rect(state: &ImageViewState, rect: Rect, r: PixelRect) -> Rect {
    Rect::from_min_max(
        image_to_screen(state, rect, vec2(r.x as f32, r.y as f32)),
        image_to_screen(
            state,
            rect,
            vec2((r.x + r.width) as f32, (r.y + r.height) as f32),
        ),
    )
}

/// Image pixel under screen point `p` (None outside the image).
pub fn pixel_in_image(
    state: &ImageViewState,
    rect: Rect,
    size: (u32, u32),
    p: egui::Pos2,
) -> Option<(u32, u32)> {
    let image_pos = screen_to_image(state, rect, p);
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
    if state.fit_requested || state.fitted_for.is_some_and(|f| f != size) {
        state.zoom = (rect.width() / full.x)
            .min(rect.height() / full.y)
            .max(1e-4);
        state.center = full / 2.0;
        state.fit_requested = false;
        state.fitted_for = Some(size);
    }
    if state.one_to_one_requested {
        state.zoom = 1.0 / ui.ctx().pixels_per_point();
        state.one_to_one_requested = false;
        state.fitted_for = None;
    }
    let (command, shift) = ui.input(|i| (i.modifiers.command, i.modifiers.shift));
    if response.drag_started() && (command || state.select_tool) {
        // From where the button went down, not where the drag was recognised.
        state.drag_anchor = ui
            .input(|i| i.pointer.press_origin())
            .or(response.interact_pointer_pos())
            .map(|p| screen_to_image(state, rect, p));
    }
    if let Some(anchor) = state.drag_anchor {
        if let Some(p) = response.interact_pointer_pos() {
            state.selection = PixelRect::from_drag(anchor, screen_to_image(state, rect, p), size);
        }
        if !response.dragged() {
            state.drag_anchor = None;
        }
    } else if response.dragged() && !shift {
        state.center -= response.drag_delta() / state.zoom;
        state.fitted_for = None;
    }
    if state.selection.is_some() && ui.input(|i| i.key_pressed(egui::Key::Escape)) {
        state.selection = None;
        state.drag_anchor = None;
    }
    if let Some(p) = response.hover_pos() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0 {
            let before = state.center + (p - rect.center()) / state.zoom;
            state.zoom = (state.zoom * (scroll * 0.0025).exp()).clamp(1e-3, 256.0);
            state.center = before - (p - rect.center()) / state.zoom;
            state.fitted_for = None;
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
    let (picture, size) = if textures.result_ready {
        (textures.output, textures.output_size)
    } else {
        (textures.original, textures.original_size)
    };
    handle_input(ui, state, &response, rect, size);
    let shown = image_rect(state, rect, size);
    if textures.transparent {
        draw_checkerboard(&painter, shown.intersect(rect));
    }
    let full_uv = Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0));
    painter.image(picture, shown, full_uv, Color32::WHITE);
    if let Some(sel) = state.selection {
        if state.selection_only && textures.original_size == size {
            draw_source_outside(&painter, textures.original, shown, size, sel);
        }
        draw_selection(&painter, selection_screen_rect(state, rect, sel));
    }
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

/// The source texture over every part of the image outside `sel`: the result shows the
/// filters inside the selection only. Exact: the same texels as the "before" view.
fn draw_source_outside(
    painter: &egui::Painter,
    original: TextureId,
    shown: Rect,
    size: (u32, u32),
    sel: PixelRect,
) {
    let (w, h) = (size.0 as f32, size.1 as f32);
    let (x0, y0) = (sel.x as f32, sel.y as f32);
    let (x1, y1) = (x0 + sel.width as f32, y0 + sel.height as f32);
    // Above, below, left and right of the selection, in image pixels.
    let bands = [
        (0.0, 0.0, w, y0),
        (0.0, y1, w, h),
        (0.0, y0, x0, y1),
        (x1, y0, w, y1),
    ];
    for (bx0, by0, bx1, by1) in bands {
        if bx1 <= bx0 || by1 <= by0 {
            continue;
        }
        let uv = Rect::from_min_max(pos2(bx0 / w, by0 / h), pos2(bx1 / w, by1 / h));
        let screen = Rect::from_min_max(
            shown.min + vec2(uv.min.x * shown.width(), uv.min.y * shown.height()),
            shown.min + vec2(uv.max.x * shown.width(), uv.max.y * shown.height()),
        );
        painter.image(original, screen, uv, Color32::WHITE);
    }
}

/// A dashed black-and-white outline (visible on any image; static, so an idle window
/// stays idle).
fn draw_selection(painter: &egui::Painter, r: Rect) {
    let points = [
        r.left_top(),
        r.right_top(),
        r.right_bottom(),
        r.left_bottom(),
        r.left_top(),
    ];
    painter.add(egui::Shape::line(
        points.to_vec(),
        Stroke::new(1.0, Color32::BLACK),
    ));
    painter.extend(egui::Shape::dashed_line(
        &points,
        Stroke::new(1.0, Color32::WHITE),
        5.0,
        5.0,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One pass of the view in an 800×600 window, with `textures`; the shapes it drew.
    fn view_pass(state: &mut ImageViewState, textures: &ViewTextures) -> Vec<egui::Shape> {
        let ctx = egui::Context::default();
        let input = egui::RawInput {
            screen_rect: Some(Rect::from_min_size(pos2(0.0, 0.0), vec2(800.0, 600.0))),
            ..Default::default()
        };
        let mut out = ctx.run_ui(input, |ui| {
            image_view_ui(ui, state, textures);
        });
        out.textures_delta.clear();
        out.shapes.into_iter().map(|s| s.shape).collect()
    }

    /// A transparent image has a checkerboard behind it (squares under the picture only);
    /// an opaque one does not.
    #[test]
    fn transparency_is_drawn_over_a_checkerboard() {
        let greys = |shapes: &[egui::Shape]| {
            shapes
                .iter()
                .filter_map(|s| match s {
                    egui::Shape::Rect(r) if r.fill == Color32::from_gray(153) => Some(r.rect),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        let mut textures = ViewTextures {
            output: TextureId::Managed(1),
            output_size: (400, 300),
            original: TextureId::Managed(2),
            original_size: (400, 300),
            result_ready: true,
            transparent: false,
        };
        let mut state = ImageViewState::default();
        assert!(greys(&view_pass(&mut state, &textures)).is_empty());
        textures.transparent = true;
        let squares = greys(&view_pass(&mut state, &textures));
        // The fitted 400×300 picture fills the 800×600 view: about (800·600)/(2·12²) squares.
        assert!(squares.len() > 1000, "{} squares", squares.len());
        let picture = image_rect(
            &state,
            Rect::from_min_size(pos2(0.0, 0.0), vec2(800.0, 600.0)),
            (400, 300),
        );
        assert!(squares
            .iter()
            .all(|r| picture.expand(0.5).contains_rect(*r)));
    }

    /// A new image is fitted while its source stands in for its result, and fitted again
    /// when the result has another size (a turned stack), until the user moves the view.
    #[test]
    fn a_new_image_is_fitted_before_and_after_its_result() {
        let id = |n| TextureId::Managed(n);
        let mut textures = ViewTextures {
            output: id(1),
            output_size: (300, 200), // the previous image's result
            original: id(2),
            original_size: (8000, 6000),
            result_ready: false,
            transparent: false,
        };
        let mut state = ImageViewState {
            zoom: 1.67,
            ..ImageViewState::default()
        };
        view_pass(&mut state, &textures);
        assert!(
            (state.zoom - 600.0 / 6000.0).abs() < 1e-4,
            "zoom {}",
            state.zoom
        );
        assert_eq!(state.center, vec2(4000.0, 3000.0));
        // The result arrives, turned: fitted to it.
        textures.output_size = (6000, 8000);
        textures.result_ready = true;
        view_pass(&mut state, &textures);
        assert!(
            (state.zoom - 600.0 / 8000.0).abs() < 1e-4,
            "zoom {}",
            state.zoom
        );
        assert_eq!(state.center, vec2(3000.0, 4000.0));
        // Once the user has moved the view, a new size keeps the zoom.
        state.fitted_for = None;
        state.zoom = 2.0;
        textures.output_size = (100, 100);
        view_pass(&mut state, &textures);
        assert_eq!(state.zoom, 2.0);
    }

    #[test]
    fn screen_and_image_coordinates_invert_each_other() {
        let rect = Rect::from_min_size(pos2(10.0, 20.0), vec2(300.0, 200.0));
        for (zoom, center) in [
            (1.0, vec2(0.0, 0.0)),
            (2.5, vec2(40.0, 7.5)),
            (0.125, vec2(900.0, 3.0)),
        ] {
            let state = ImageViewState {
                zoom,
                center,
                ..Default::default()
            };
            // The view's centre shows `center`.
            assert_eq!(screen_to_image(&state, rect, rect.center()), center);
            for p in [pos2(10.0, 20.0), pos2(123.5, 77.25), pos2(310.0, 220.0)] {
                let back = image_to_screen(&state, rect, screen_to_image(&state, rect, p));
                assert!((back - p).length() < 1e-3, "{zoom} {p:?} {back:?}");
            }
        }
    }

    #[test]
    fn a_drag_selects_the_pixels_it_covers() {
        let state = ImageViewState {
            zoom: 4.0,
            center: vec2(50.0, 25.0),
            ..Default::default()
        };
        let rect = Rect::from_min_size(pos2(0.0, 0.0), vec2(400.0, 200.0));
        // Screen (200, 100) is image (50, 25); 4 screen points per pixel.
        let a = screen_to_image(&state, rect, pos2(202.0, 102.0));
        let b = screen_to_image(&state, rect, pos2(190.0, 130.0));
        let sel = PixelRect::from_drag(a, b, (100, 50)).unwrap();
        assert_eq!(
            sel,
            PixelRect {
                x: 47,
                y: 25,
                width: 4,
                height: 8
            }
        );
        assert_eq!(sel.describe(), "selection 4×8 at (47, 25)");
        let on_screen = selection_screen_rect(&state, rect, sel);
        assert_eq!(on_screen.min, pos2(188.0, 100.0));
        assert_eq!(on_screen.max, pos2(204.0, 132.0));
        // Cut at the image's edges; nothing when wholly outside.
        let sel = PixelRect::from_drag(vec2(-5.0, -5.0), vec2(3.5, 200.0), (100, 50)).unwrap();
        assert_eq!((sel.x, sel.y, sel.width, sel.height), (0, 0, 4, 50));
        assert_eq!(
            PixelRect::from_drag(vec2(-5.0, 0.0), vec2(-1.0, 9.0), (100, 50)),
            None
        );
        assert_eq!(
            PixelRect::from_drag(vec2(3.0, 3.0), vec2(3.0, 9.0), (100, 50)),
            None
        );
        assert_eq!(
            sel.clipped((2, 10)),
            Some(PixelRect {
                x: 0,
                y: 0,
                width: 2,
                height: 10
            })
        );
        assert_eq!(
            PixelRect {
                x: 5,
                y: 0,
                width: 2,
                height: 2
            }
            .clipped((5, 5)),
            None
        );
        // A rectangle from the command line may reach past u32 without wrapping around.
        let huge = PixelRect {
            x: 3,
            y: 1,
            width: u32::MAX,
            height: u32::MAX,
        };
        assert_eq!(
            huge.clipped((5, 5)),
            Some(PixelRect {
                x: 3,
                y: 1,
                width: 2,
                height: 4
            })
        );
    }

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
