//! XaoS-like navigation of the explorer: hold the left button to zoom in toward the
//! pointer and the right button to zoom out, continuously at the display's rate; drag
//! (left after moving, or middle) to pan; shift-drag a box to zoom to it; wheel zoom;
//! hold PageUp/+ or PageDown/− to zoom at the centre and the arrows to pan. Each finished
//! gesture is one step of undo. Zoom and pan move the settings' exact location, so they
//! go on below f64's precision (deep views).

use crate::mandelbrot::{MandelbrotSettings, Place, View};
use egui::{Key, PointerButton, Pos2, Rect, Response, Ui};
use std::time::Instant;

/// Pointer travel (points) after which a press pans instead of zooming.
const DRAG_SLOP: f32 = 4.0;
/// Hold time (s) after which a still press zooms.
const HOLD_DELAY: f64 = 0.12;
/// Seconds the right button is held before it zooms out: a shorter press is a click (the
/// explorer's menu).
const RIGHT_HOLD_DELAY: f64 = 0.25;
/// Time (s) after the last wheel event that still counts as the same gesture.
const WHEEL_GESTURE: f64 = 0.4;
/// Arrow-key panning, in view widths per second.
const PAN_PER_SECOND: f64 = 0.6;

#[derive(Debug, Clone, Copy, PartialEq)]
enum PressMode {
    Undecided,
    Pan,
    ZoomIn,
    Box,
}

#[derive(Debug, Clone, Copy)]
struct Press {
    origin: Pos2,
    since: f64,
    mode: PressMode,
}

/// What one frame of input did.
#[derive(Debug, Default)]
pub struct NavOutcome {
    /// The view changed.
    pub changed: bool,
    /// A continuous motion is running: draw the next frame at once.
    pub animating: bool,
    /// A gesture ended that moved away from this place (for undo).
    pub finished: Option<Place>,
    /// The box being dragged (screen points), to draw.
    pub zoom_box: Option<Rect>,
    /// A right click (released before a hold zooms out) at this screen point: the menu.
    pub context_click: Option<Pos2>,
}

/// Wall-clock time between the frames of a continuous motion: a held zoom advances by
/// rate^dt with the real dt however slow the frames are, so 3 s at 3×/s is 27×.
#[derive(Debug, Default, Clone, Copy)]
pub struct MotionClock {
    /// When the last frame of a running motion was handled.
    last: Option<Instant>,
}

/// The step of a motion's first frame (nothing ran before it to measure).
const FIRST_STEP: f64 = 1.0 / 60.0;

impl MotionClock {
    /// Seconds the motion advances at `now`.
    pub fn dt(&self, now: Instant) -> f64 {
        self.last.map_or(FIRST_STEP, |t| {
            now.saturating_duration_since(t).as_secs_f64()
        })
    }

    /// Records whether a motion ran in the frame handled at `now`.
    pub fn mark(&mut self, now: Instant, moving: bool) {
        self.last = moving.then_some(now);
    }
}

/// The navigation state between frames.
#[derive(Debug)]
pub struct Navigator {
    /// Zoom factor per second of a held button or key.
    pub zoom_per_second: f64,
    press: Option<Press>,
    /// When the right button went down on the picture (it zooms out once held).
    secondary_since: Option<f64>,
    gesture_from: Option<Place>,
    last_wheel: f64,
    clock: MotionClock,
}

impl Default for Navigator {
    fn default() -> Self {
        Self {
            zoom_per_second: 3.0,
            press: None,
            secondary_since: None,
            gesture_from: None,
            last_wheel: f64::NEG_INFINITY,
            clock: MotionClock::default(),
        }
    }
}

/// What navigation moves: an f64 view, or the settings' exact location.
trait PanZoom {
    fn size(&self) -> (u32, u32);
    fn pan_pixels(&mut self, dx: f64, dy: f64);
    fn zoom_at(&mut self, px: f64, py: f64, factor: f64);
}

impl PanZoom for View {
    fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }
    fn pan_pixels(&mut self, dx: f64, dy: f64) {
        View::pan_pixels(self, dx, dy);
    }
    fn zoom_at(&mut self, px: f64, py: f64, factor: f64) {
        View::zoom_at(self, px, py, factor);
    }
}

impl PanZoom for MandelbrotSettings {
    fn size(&self) -> (u32, u32) {
        (self.view.width, self.view.height)
    }
    fn pan_pixels(&mut self, dx: f64, dy: f64) {
        MandelbrotSettings::pan_pixels(self, dx, dy);
    }
    fn zoom_at(&mut self, px: f64, py: f64, factor: f64) {
        MandelbrotSettings::zoom_at(self, px, py, factor);
    }
}

/// Zooms `view` so that the box (picture pixels) fills it.
fn zoom_to_box(view: &mut impl PanZoom, a: (f64, f64), b: (f64, f64)) {
    let (w, h) = ((a.0 - b.0).abs(), (a.1 - b.1).abs());
    let (cx, cy) = ((a.0 + b.0) * 0.5, (a.1 + b.1) * 0.5);
    let (width, height) = view.size();
    let scale = (w / f64::from(width)).max(h / f64::from(height));
    view.pan_pixels(f64::from(width) * 0.5 - cx, f64::from(height) * 0.5 - cy);
    view.zoom_at(f64::from(width) * 0.5, f64::from(height) * 0.5, scale);
}

impl Navigator {
    /// Applies this frame's pointer and keyboard input on the picture at `rect` (screen
    /// points; `ppp` pixels per point) to the settings' location.
    pub fn handle(
        &mut self,
        ui: &Ui,
        response: &Response,
        rect: Rect,
        ppp: f32,
        view: &mut MandelbrotSettings,
    ) -> NavOutcome {
        let before = view.place().ok();
        let mut out = NavOutcome::default();
        let to_px = |p: Pos2| {
            (
                f64::from((p.x - rect.left()) * ppp),
                f64::from((p.y - rect.top()) * ppp),
            )
        };
        let now = Instant::now();
        let dt = self.clock.dt(now);
        let (time, pointer, shift) =
            ui.input(|i| (i.time, i.pointer.interact_pos(), i.modifiers.shift));
        let zoom = |dir: f64| self.zoom_per_second.powf(-dir * dt);
        let primary = ui.input(|i| i.pointer.button_down(PointerButton::Primary));
        if primary && (self.press.is_some() || response.is_pointer_button_down_on()) {
            let origin = ui
                .input(|i| i.pointer.press_origin())
                .or(pointer)
                .unwrap_or(rect.center());
            let press = self.press.get_or_insert(Press {
                origin,
                since: time,
                mode: if shift {
                    PressMode::Box
                } else {
                    PressMode::Undecided
                },
            });
            let p = pointer.unwrap_or(origin);
            if press.mode == PressMode::Undecided {
                if p.distance(press.origin) > DRAG_SLOP {
                    press.mode = PressMode::Pan;
                } else if time - press.since > HOLD_DELAY {
                    press.mode = PressMode::ZoomIn;
                }
            }
            match press.mode {
                PressMode::Pan => {
                    let d = ui.input(|i| i.pointer.delta()) * ppp;
                    view.pan_pixels(f64::from(d.x), f64::from(d.y));
                }
                PressMode::ZoomIn => {
                    let (x, y) = to_px(p);
                    view.zoom_at(x, y, zoom(1.0));
                    out.animating = true;
                }
                PressMode::Box => out.zoom_box = Some(Rect::from_two_pos(press.origin, p)),
                PressMode::Undecided => out.animating = true,
            }
        } else if let Some(press) = self.press.take() {
            let end = pointer.unwrap_or(press.origin);
            if press.mode == PressMode::Box && end.distance(press.origin) > DRAG_SLOP {
                zoom_to_box(view, to_px(press.origin), to_px(end));
            }
        }
        let secondary = ui.input(|i| i.pointer.button_down(PointerButton::Secondary));
        if secondary && (self.secondary_since.is_some() || response.contains_pointer()) {
            let since = *self.secondary_since.get_or_insert(time);
            if time - since > RIGHT_HOLD_DELAY {
                let (x, y) = to_px(pointer.unwrap_or(rect.center()));
                view.zoom_at(x, y, zoom(-1.0));
            }
            out.animating = true;
        } else if let Some(since) = self.secondary_since.take() {
            if time - since <= RIGHT_HOLD_DELAY && response.contains_pointer() {
                out.context_click = pointer;
            }
        }
        if ui.input(|i| i.pointer.button_down(PointerButton::Middle)) && response.contains_pointer()
        {
            let d = ui.input(|i| i.pointer.delta()) * ppp;
            view.pan_pixels(f64::from(d.x), f64::from(d.y));
        }
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0 && response.contains_pointer() {
            let (x, y) = to_px(pointer.unwrap_or(rect.center()));
            view.zoom_at(x, y, f64::from((-scroll * 0.003).exp()));
            self.last_wheel = time;
        }
        let keys = self.keyboard(ui, view, dt);
        out.animating |= keys;
        self.clock.mark(now, out.animating);
        let after = view.place().ok();
        out.changed = after != before;
        let active = primary
            || secondary
            || keys
            || time - self.last_wheel < WHEEL_GESTURE
            || ui.input(|i| i.pointer.button_down(PointerButton::Middle));
        match (active || self.press.is_some(), self.gesture_from) {
            (true, None) => self.gesture_from = before,
            (false, Some(from)) => {
                self.gesture_from = None;
                out.finished = (Some(from) != after).then_some(from);
            }
            _ => {}
        }
        out
    }

    /// Held keys (when no text field has focus). Returns whether one is held.
    fn keyboard(&self, ui: &Ui, view: &mut MandelbrotSettings, dt: f64) -> bool {
        if ui.ctx().memory(|m| m.focused().is_some()) {
            return false;
        }
        let (w, h) = (f64::from(view.view.width), f64::from(view.view.height));
        let down = |keys: &[Key]| ui.input(|i| keys.iter().any(|&k| i.key_down(k)));
        let mut held = false;
        for (keys, dir) in [
            (&[Key::PageUp, Key::Plus, Key::Equals][..], 1.0),
            (&[Key::PageDown, Key::Minus][..], -1.0),
        ] {
            if down(keys) {
                view.zoom_at(w / 2.0, h / 2.0, self.zoom_per_second.powf(-dir * dt));
                held = true;
            }
        }
        let step = PAN_PER_SECOND * w * dt;
        for (key, dx, dy) in [
            (Key::ArrowLeft, step, 0.0),
            (Key::ArrowRight, -step, 0.0),
            (Key::ArrowUp, 0.0, step),
            (Key::ArrowDown, 0.0, -step),
        ] {
            if down(&[key]) {
                view.pan_pixels(dx, dy);
                held = true;
            }
        }
        held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_zoom_follows_the_wall_clock_at_any_frame_rate() {
        use std::time::Duration;
        let rate: f64 = 3.0;
        for frame_ms in [5u64, 10, 20, 250, 1000, 3000] {
            let mut clock = MotionClock::default();
            let t0 = Instant::now();
            clock.mark(t0, true);
            let mut factor = 1.0;
            let mut t = t0;
            let frames = 3000 / frame_ms;
            for _ in 0..frames {
                t += Duration::from_millis(frame_ms);
                factor *= rate.powf(clock.dt(t));
                clock.mark(t, true);
            }
            assert!(
                (factor / 27.0 - 1.0).abs() < 1e-9,
                "{frame_ms} ms frames: {factor}"
            );
            // Released: the next motion starts afresh, not from the old time.
            clock.mark(t, false);
            assert_eq!(clock.dt(t + Duration::from_secs(10)), FIRST_STEP);
        }
    }

    #[test]
    fn a_box_becomes_the_view() {
        let mut v = View {
            center: (0.0, 0.0),
            span: 4.0,
            width: 400,
            height: 200,
            max_dwell: 100,
            fractal: crate::mandelbrot::Fractal::Mandelbrot,
        };
        // The box from (100, 50) to (200, 100): a quarter of the width, centred at (150, 75).
        let want_center = v.point(150, 75);
        zoom_to_box(&mut v, (100.0, 50.0), (200.0, 100.0));
        assert!((v.span - 1.0).abs() < 1e-12);
        assert!((v.center.0 - want_center.0).abs() < 0.011);
        assert!((v.center.1 - want_center.1).abs() < 0.011);
    }

    #[test]
    fn boxes_zoom_the_exact_location_below_f64() {
        let mut s = MandelbrotSettings::default();
        (s.view.width, s.view.height) = (400, 200);
        for _ in 0..60 {
            zoom_to_box(&mut s, (100.0, 50.0), (200.0, 100.0));
        }
        let span = s.location().expect("location").span.to_f64();
        assert!(span > 1e-37 && span < 1e-35, "{span}");
        assert!(s.deep_precision().is_some());
    }
}
