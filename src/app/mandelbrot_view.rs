//! The Mandelbrot explorer: a live view rendered at the panel's pixel size, controls,
//! bookmarks, per-mode GPU times side by side and the Mariani–Silver overlay.

use crate::mandelbrot::deep::DEEP_BOOKMARKS;
use crate::mandelbrot::{
    Mode, MsRecord, Palette, Precision, RectKind, View, BOOKMARKS, MAX_DWELL_LIMIT,
};
use crate::pipeline::{MandelbrotFrame, MandelbrotRenderer, MandelbrotSettings};
use egui::{pos2, vec2, Color32, Rect, Sense, Stroke, Ui};

/// Overlay rectangles drawn at most (the rest are summarised).
const OVERLAY_MAX: usize = 20_000;

pub struct MandelbrotView {
    pub renderer: MandelbrotRenderer,
    pub texture_id: egui::TextureId,
    pub settings: MandelbrotSettings,
    pub frame: Option<MandelbrotFrame>,
    /// Last dwell time of per-pixel and Mariani–Silver.
    pub mode_ms: [Option<f64>; 2],
    pub dirty: bool,
    pub error: Option<String>,
}

fn mode_index(mode: Mode) -> usize {
    usize::from(mode == Mode::MarianiSilver)
}

impl MandelbrotView {
    pub fn new(renderer: MandelbrotRenderer, texture_id: egui::TextureId, overlay: bool) -> Self {
        let settings = MandelbrotSettings {
            overlay,
            ..MandelbrotSettings::default()
        };
        Self {
            renderer,
            texture_id,
            settings,
            frame: None,
            mode_ms: [None, None],
            dirty: true,
            error: None,
        }
    }

    /// Renders now if anything changed.
    pub fn render_if_dirty(&mut self, gl: &glow::Context) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        match self.renderer.render(gl, &self.settings) {
            Ok(frame) => {
                self.mode_ms[mode_index(self.settings.mode)] = Some(frame.dwell_ms());
                self.frame = Some(frame);
                self.error = None;
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// Times both modes on the current view (the side-by-side figures).
    pub fn compare_modes(&mut self) {
        for mode in [Mode::PerPixel, Mode::MarianiSilver] {
            let s = MandelbrotSettings {
                mode,
                overlay: false,
                ..self.settings
            };
            match self.renderer.time_dwells(&s) {
                Ok(stages) => {
                    self.mode_ms[mode_index(mode)] =
                        stages.iter().find(|t| t.name == "dwell").map(|t| t.ms)
                }
                Err(e) => self.error = Some(e.to_string()),
            }
        }
    }
}

fn keyboard(ui: &Ui, s: &mut MandelbrotSettings) -> bool {
    if ui.ctx().memory(|m| m.focused().is_some()) {
        return false;
    }
    let (w, h) = (f64::from(s.view.width), f64::from(s.view.height));
    ui.input(|i| {
        let mut changed = true;
        if i.key_pressed(egui::Key::Plus) || i.key_pressed(egui::Key::Equals) {
            s.zoom_at(w / 2.0, h / 2.0, 0.7);
        } else if i.key_pressed(egui::Key::Minus) {
            s.zoom_at(w / 2.0, h / 2.0, 1.0 / 0.7);
        } else if i.key_pressed(egui::Key::ArrowLeft) {
            s.pan_pixels(w * 0.1, 0.0);
        } else if i.key_pressed(egui::Key::ArrowRight) {
            s.pan_pixels(-w * 0.1, 0.0);
        } else if i.key_pressed(egui::Key::ArrowUp) {
            s.pan_pixels(0.0, h * 0.1);
        } else if i.key_pressed(egui::Key::ArrowDown) {
            s.pan_pixels(0.0, -h * 0.1);
        } else if i.key_pressed(egui::Key::R) {
            let (width, height, max_dwell) = (s.view.width, s.view.height, s.view.max_dwell);
            s.view = View {
                width,
                height,
                max_dwell,
                ..View::default()
            };
            s.deep = None;
        } else {
            changed = false;
        }
        changed
    })
}

fn overlay_ui(painter: &egui::Painter, rect: Rect, view: &View, records: &[MsRecord]) {
    let sx = rect.width() / view.width.max(1) as f32;
    let sy = rect.height() / view.height.max(1) as f32;
    for r in records
        .iter()
        .filter(|r| r.kind != RectKind::Split)
        .take(OVERLAY_MAX)
    {
        let color = match r.kind {
            RectKind::Fill => Color32::from_rgba_unmultiplied(80, 220, 120, 160),
            RectKind::Leaf => Color32::from_rgba_unmultiplied(240, 80, 80, 110),
            RectKind::Split => Color32::TRANSPARENT,
        };
        let min = pos2(rect.left() + r.x as f32 * sx, rect.top() + r.y as f32 * sy);
        let shown = Rect::from_min_size(min, vec2(r.w as f32 * sx, r.h as f32 * sy));
        painter.rect_stroke(
            shown,
            0.0,
            Stroke::new(1.0, color),
            egui::StrokeKind::Inside,
        );
    }
}

/// The picture: resizes the view to the panel, handles zoom and pan, draws the overlay.
pub fn mandelbrot_picture_ui(ui: &mut Ui, m: &mut MandelbrotView, gl: &glow::Context) {
    let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
    let ppp = ui.ctx().pixels_per_point();
    let (w, h) = (
        ((rect.width() * ppp) as u32).max(1),
        ((rect.height() * ppp) as u32).max(1),
    );
    let view = &mut m.settings.view;
    if (view.width, view.height) != (w, h) {
        // Keep the span (the real-axis width) when the panel changes size.
        (view.width, view.height) = (w, h);
        m.dirty = true;
    }
    // Zoom and pan move the exact (decimal) location: no floor at f64's precision.
    if response.dragged() {
        let d = response.drag_delta() * ppp;
        m.settings.pan_pixels(f64::from(d.x), f64::from(d.y));
        m.dirty = true;
    }
    if let Some(p) = response.hover_pos() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0 {
            let px = f64::from((p.x - rect.left()) * ppp);
            let py = f64::from((p.y - rect.top()) * ppp);
            m.settings
                .zoom_at(px, py, f64::from((-scroll * 0.003).exp()));
            m.dirty = true;
        }
    }
    m.dirty |= keyboard(ui, &mut m.settings);
    m.render_if_dirty(gl);
    let painter = ui.painter_at(rect);
    painter.image(
        m.texture_id,
        rect,
        Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)),
        Color32::WHITE,
    );
    if let Some(frame) = &m.frame {
        if m.settings.overlay {
            overlay_ui(&painter, rect, &m.settings.view, &frame.records);
        }
    }
    if let Some(e) = &m.error {
        painter.text(
            rect.left_top() + vec2(8.0, 8.0),
            egui::Align2::LEFT_TOP,
            e,
            egui::FontId::proportional(14.0),
            Color32::LIGHT_RED,
        );
    }
}

fn precision_name(p: Precision) -> &'static str {
    match p {
        Precision::F32 => "f32",
        Precision::F64 => "f64",
        Precision::Auto => "auto",
        Precision::Perturbation => "perturbation",
        Precision::Extended => "perturbation, extended exponent",
    }
}

/// Deep bookmarks (exact decimal centres); a failure to parse one is shown, not fatal.
fn deep_bookmarks_ui(ui: &mut Ui, s: &mut MandelbrotSettings) {
    ui.label("deep (perturbation):");
    for b in DEEP_BOOKMARKS {
        if ui.button(format!("{} · {}", b.name, b.span)).clicked() {
            if let Err(e) = s.go_to(&b) {
                log::error!("bookmark {}: {e}", b.name);
            }
        }
    }
}

/// The exact centre (first digits; the whole string on hover) and the span.
fn location_ui(ui: &mut Ui, s: &MandelbrotSettings) {
    let Ok(loc) = s.location() else { return };
    let shown = |d: String| {
        if d.len() > 24 {
            format!("{}… ({} chars)", &d[..22], d.len())
        } else {
            d
        }
    };
    let (re, im) = (loc.re.to_string(), loc.im.to_string());
    ui.label(format!(
        "centre {}, {}",
        shown(re.clone()),
        shown(im.clone())
    ))
    .on_hover_text(format!("{re}, {im}"));
    ui.label(format!(
        "span {} · {}×{}",
        loc.span.scientific(),
        s.view.width,
        s.view.height
    ));
}

/// The side panel: parameters, bookmarks, timings. Returns true if "save" was clicked.
pub fn mandelbrot_controls_ui(ui: &mut Ui, m: &mut MandelbrotView) -> bool {
    let before = m.settings;
    let s = &mut m.settings;
    ui.heading("Mandelbrot");
    ui.add(
        egui::Slider::new(&mut s.view.max_dwell, 16..=MAX_DWELL_LIMIT)
            .logarithmic(true)
            .text("max dwell"),
    );
    egui::ComboBox::from_label("palette")
        .selected_text(s.palette.name())
        .show_ui(ui, |ui| {
            for p in Palette::ALL {
                ui.selectable_value(&mut s.palette, p, p.name());
            }
        });
    ui.horizontal(|ui| {
        ui.selectable_value(&mut s.mode, Mode::PerPixel, "per-pixel");
        ui.selectable_value(&mut s.mode, Mode::MarianiSilver, "Mariani–Silver");
    });
    ui.horizontal(|ui| {
        ui.label("precision");
        for p in [Precision::Auto, Precision::F32, Precision::F64] {
            ui.selectable_value(&mut s.precision, p, precision_name(p));
        }
        ui.selectable_value(&mut s.precision, Precision::Perturbation, "perturb.");
    });
    ui.checkbox(&mut s.overlay, "show Mariani–Silver rectangles (O)");
    if ui.input(|i| i.key_pressed(egui::Key::O)) && ui.ctx().memory(|mem| mem.focused().is_none()) {
        s.overlay = !s.overlay;
    }
    let mut rgb = [s.interior[0], s.interior[1], s.interior[2]];
    ui.horizontal(|ui| {
        ui.label("interior");
        ui.color_edit_button_srgb(&mut rgb);
    });
    s.interior = [rgb[0], rgb[1], rgb[2], 255];
    ui.separator();
    ui.strong("Bookmarks");
    for (name, center, span, max_dwell) in BOOKMARKS {
        if ui.button(name).clicked() {
            (s.view.center, s.view.span, s.view.max_dwell) = (center, span, max_dwell);
            s.deep = None;
        }
    }
    deep_bookmarks_ui(ui, s);
    ui.separator();
    let used = m.frame.as_ref().map(|f| f.precision);
    location_ui(ui, s);
    ui.label(format!(
        "precision in use: {}",
        used.map_or("—", precision_name)
    ));
    if m.settings.mode == Mode::MarianiSilver && used.is_some_and(crate::mandelbrot::deep::is_deep)
    {
        ui.label("(deep views are computed per pixel)");
    }
    if let Some(f) = &m.frame {
        ui.label(format!("backend: {}", f.backend));
        for st in &f.stages {
            ui.monospace(format!("{:<16} {:>8.3} ms", st.name, st.ms));
        }
        if m.settings.mode == Mode::MarianiSilver && m.settings.overlay {
            let count = |k| f.records.iter().filter(|r| r.kind == k).count();
            ui.label(format!(
                "rectangles: {} filled, {} split, {} per-pixel",
                count(RectKind::Fill),
                count(RectKind::Split),
                count(RectKind::Leaf)
            ));
        }
    }
    ui.separator();
    ui.strong("Dwell time by mode");
    let fmt = |v: Option<f64>| v.map_or("—".to_string(), |ms| format!("{ms:.3} ms"));
    ui.monospace(format!("per-pixel       {}", fmt(m.mode_ms[0])));
    ui.monospace(format!("Mariani–Silver  {}", fmt(m.mode_ms[1])));
    if ui.button("Time both modes on this view").clicked() {
        m.compare_modes();
    }
    let save = ui.button("Save view as PNG…").clicked();
    m.dirty |= m.settings != before;
    save
}
