//! The Brightness/Contrast panel (Image → Adjust → Brightness/Contrast…, as Fiji's): the
//! displayed channel's histogram with the window drawn over it, the minimum, maximum,
//! brightness, contrast and gamma sliders, channel and link choice, Auto / Reset / Set and
//! the LUT of grey images. It only draws and edits [`BrightnessContrast`].

use super::adjuster::{BrightnessContrast, ChannelChoice, Slider};
use super::mapping::Lut;
use super::stats::DisplayHistogram;
use super::DisplayError;
use crate::pixels::SampleType;
use egui::{Color32, Pos2, Sense, Stroke, Ui};

/// The panel's state: the adjuster and the Set entry.
#[derive(Debug, Clone)]
pub struct BrightnessContrastPanel {
    pub adjuster: BrightnessContrast,
    /// The Set row's texts while it is open.
    set_entry: Option<(String, String)>,
    error: Option<String>,
}

impl BrightnessContrastPanel {
    pub fn new(adjuster: BrightnessContrast) -> Self {
        Self {
            adjuster,
            set_entry: None,
            error: None,
        }
    }
}

/// A value in the image's units: integers whole, floats with 4 significant decimals.
fn value_text(sample_type: SampleType, v: f64) -> String {
    match sample_type {
        SampleType::F32 => format!("{v:.4}"),
        _ => format!("{v:.0}"),
    }
}

/// Draws the panel; true when the display settings changed.
pub fn brightness_contrast_ui(ui: &mut Ui, panel: &mut BrightnessContrastPanel) -> bool {
    let before = *panel.adjuster.settings();
    histogram_ui(ui, &panel.adjuster);
    sliders_ui(ui, &mut panel.adjuster);
    channels_ui(ui, &mut panel.adjuster);
    buttons_ui(ui, panel);
    if let Some(e) = &panel.error {
        ui.colored_label(Color32::LIGHT_RED, e);
    }
    *panel.adjuster.settings() != before
}

/// The panel in its own window; true when the display settings changed.
pub fn brightness_contrast_window(
    ctx: &egui::Context,
    open: &mut bool,
    panel: &mut BrightnessContrastPanel,
) -> bool {
    let mut changed = false;
    egui::Window::new("Brightness/Contrast")
        .open(open)
        .default_pos([16.0, 16.0])
        .resizable(false)
        .default_width(280.0)
        .show(ctx, |ui| changed = brightness_contrast_ui(ui, panel));
    changed
}

/// The histogram (its tallest bin capped as ImageJ's plot does) and the mapping curve.
fn histogram_ui(ui: &mut Ui, bc: &BrightnessContrast) {
    let h = bc.histogram();
    let size = egui::vec2(ui.available_width().clamp(200.0, 320.0), 110.0);
    let (rect, _) = ui.allocate_exact_size(size, Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, Color32::from_gray(20));
    let top = plot_height(h) as f32;
    let bar_w = rect.width() / 256.0;
    for (i, &n) in h.bins.iter().enumerate() {
        let frac = (n as f32 / top).min(1.0);
        let x = rect.left() + i as f32 * bar_w;
        let bar = egui::Rect::from_min_max(
            Pos2::new(x, rect.bottom() - frac * rect.height()),
            Pos2::new(x + bar_w.max(1.0), rect.bottom()),
        );
        painter.rect_filled(bar, 0.0, Color32::from_gray(150));
    }
    let range = bc.range();
    let span = h.bin_size * 256.0;
    let to_x = |v: f64| {
        let t = if span > 0.0 {
            (v - h.hist_min) / span
        } else {
            0.5
        };
        rect.left() + t as f32 * rect.width()
    };
    let points: Vec<Pos2> = (0..=64)
        .map(|i| {
            let v = h.hist_min + span * f64::from(i) / 64.0;
            let level = f32::from(range.level(v)) / 255.0;
            Pos2::new(to_x(v), rect.bottom() - level * rect.height())
        })
        .collect();
    painter.add(egui::Shape::line(
        points,
        Stroke::new(1.5, Color32::from_rgb(230, 160, 60)),
    ));
    for v in [range.min, range.max] {
        let x = to_x(v);
        painter.line_segment(
            [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
            Stroke::new(1.0, Color32::LIGHT_BLUE),
        );
    }
    let t = bc.sample_type();
    ui.horizontal(|ui| {
        ui.monospace(value_text(t, range.min));
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.monospace(value_text(t, range.max));
        });
    });
}

/// The count the plot's top stands for: the tallest bin, unless it dwarfs the next one
/// (then 1.5 × the next, as ImageJ's ContrastPlot).
fn plot_height(h: &DisplayHistogram) -> u64 {
    let mut sorted = h.bins;
    sorted.sort_unstable();
    let (first, second) = (sorted[255], sorted[254]);
    if second > 0 && first > second * 2 {
        second * 3 / 2
    } else {
        first.max(1)
    }
}

fn sliders_ui(ui: &mut Ui, bc: &mut BrightnessContrast) {
    let (s, p) = bc.positions();
    let last = s.steps - 1;
    for (slider, name, pos) in [
        (Slider::Min, "minimum", p.min),
        (Slider::Max, "maximum", p.max),
        (Slider::Brightness, "brightness", p.brightness),
        (Slider::Contrast, "contrast", p.contrast),
    ] {
        let mut v = pos.clamp(0, last);
        let response = ui.add(
            egui::Slider::new(&mut v, 0..=last)
                .show_value(false)
                .text(name),
        );
        if response.changed() {
            bc.slide(slider, v);
        }
    }
    let mut gamma = bc.range().gamma;
    let response = ui.add(
        egui::Slider::new(&mut gamma, 0.1..=10.0)
            .logarithmic(true)
            .text("gamma"),
    );
    if response.changed() {
        // The slider keeps gamma in 0.1..=10: always accepted.
        let _ = bc.set_gamma(gamma);
    }
}

fn channels_ui(ui: &mut Ui, bc: &mut BrightnessContrast) {
    if bc.is_grey() {
        let mut lut = bc.settings().lut;
        egui::ComboBox::from_label("LUT")
            .selected_text(lut.name())
            .show_ui(ui, |ui| {
                for l in Lut::ALL {
                    ui.selectable_value(&mut lut, l, l.name());
                }
            });
        bc.set_lut(lut);
        return;
    }
    ui.horizontal(|ui| {
        let mut linked = bc.settings().linked;
        if ui
            .checkbox(&mut linked, "linked")
            .on_hover_text("one window for R, G and B")
            .changed()
        {
            bc.set_linked(linked);
        }
        let mut channel = bc.channel();
        ui.add_enabled_ui(!linked, |ui| {
            egui::ComboBox::from_label("channel")
                .selected_text(channel.name())
                .show_ui(ui, |ui| {
                    for c in ChannelChoice::ALL {
                        ui.selectable_value(&mut channel, c, c.name());
                    }
                });
        });
        bc.set_channel(channel);
    });
}

fn buttons_ui(ui: &mut Ui, panel: &mut BrightnessContrastPanel) {
    ui.horizontal(|ui| {
        if ui
            .button("Auto")
            .on_hover_text("saturate a few pixels at each end; press again for more")
            .clicked()
        {
            panel.adjuster.auto();
            panel.error = None;
        }
        if ui.button("Reset").clicked() {
            panel.adjuster.reset();
            panel.error = None;
        }
        if ui.button("Set…").clicked() {
            let r = panel.adjuster.range();
            let t = panel.adjuster.sample_type();
            panel.set_entry = Some((value_text(t, r.min), value_text(t, r.max)));
        }
    });
    let Some((min, max)) = panel.set_entry.as_mut() else {
        return;
    };
    let mut done = None;
    ui.horizontal(|ui| {
        ui.label("min");
        ui.add(egui::TextEdit::singleline(min).desired_width(70.0));
        ui.label("max");
        ui.add(egui::TextEdit::singleline(max).desired_width(70.0));
        if ui.button("OK").clicked() {
            done = Some(parse_window(min, max));
        }
        if ui.button("Cancel").clicked() {
            done = Some(Err(None));
        }
    });
    match done {
        Some(Ok((lo, hi))) => match panel.adjuster.set(lo, hi) {
            Ok(()) => (panel.set_entry, panel.error) = (None, None),
            Err(e) => panel.error = Some(e.to_string()),
        },
        Some(Err(Some(e))) => panel.error = Some(e.to_string()),
        Some(Err(None)) => (panel.set_entry, panel.error) = (None, None),
        None => {}
    }
}

/// The Set row's two numbers.
fn parse_window(min: &str, max: &str) -> Result<(f64, f64), Option<DisplayError>> {
    let number = |s: &str| {
        s.trim()
            .replace('−', "-")
            .parse::<f64>()
            .map_err(|_| Some(DisplayError::Number(s.trim().to_string())))
    };
    Ok((number(min)?, number(max)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_row_parses_numbers() {
        assert_eq!(parse_window(" 12 ", "−3.5"), Ok((12.0, -3.5)));
        assert_eq!(
            parse_window("a", "1"),
            Err(Some(DisplayError::Number("a".into())))
        );
    }

    #[test]
    fn a_dominant_bin_is_capped() {
        let image = crate::pixels::PixelImage::U8(
            crate::pixels::ImageBuf::from_fn(100, 1, 1, |x, _, _| if x < 90 { 0 } else { x as u8 })
                .expect("size"),
        );
        let h = DisplayHistogram::of(&image, &[0]);
        assert_eq!(
            plot_height(&h),
            1,
            "90 at 0 against 1 elsewhere: 1.5 × 1 → 1"
        );
    }

    /// The texts one pass of the panel draws in a `width` wide window, with where.
    fn panel_texts(panel: &mut BrightnessContrastPanel, width: f32) -> Vec<(String, egui::Rect)> {
        let ctx = egui::Context::default();
        let input = || egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                Pos2::ZERO,
                egui::vec2(width, 600.0),
            )),
            ..Default::default()
        };
        let mut ui_fn = |ui: &mut Ui| {
            egui::Panel::left("bc")
                .exact_size(width - 20.0)
                .show(ui, |ui| {
                    brightness_contrast_ui(ui, panel);
                });
        };
        ctx.run_ui(input(), &mut ui_fn).textures_delta.clear();
        let out = ctx.run_ui(input(), &mut ui_fn);
        let mut found = Vec::new();
        fn walk(shape: &egui::Shape, found: &mut Vec<(String, egui::Rect)>) {
            match shape {
                egui::Shape::Text(t) => found.push((
                    t.galley.text().to_string(),
                    t.galley.rect.translate(t.pos.to_vec2()),
                )),
                egui::Shape::Vec(v) => v.iter().for_each(|s| walk(s, found)),
                _ => {}
            }
        }
        out.shapes.iter().for_each(|c| walk(&c.shape, &mut found));
        found
    }

    #[test]
    fn the_panel_shows_its_controls_inside_a_side_panel() {
        let b = crate::pixels::ImageBuf::<u16>::from_fn(64, 32, 3, |x, y, c| {
            (x * 700 + y * 90 + u32::from(c) * 5000) as u16
        });
        let image = crate::pixels::PixelImage::U16(b.expect("size"));
        let mut panel = BrightnessContrastPanel::new(BrightnessContrast::for_image(&image));
        let found = panel_texts(&mut panel, 300.0);
        for label in [
            "minimum",
            "maximum",
            "brightness",
            "contrast",
            "gamma",
            "linked",
            "Auto",
            "Reset",
            "Set…",
            "0",
            "56890",
        ] {
            assert!(found.iter().any(|(t, _)| t == label), "{label}: {found:?}");
        }
        for (t, r) in &found {
            assert!(r.right() <= 300.5, "'{t}' runs off the panel: {r:?}");
        }
        // A grey float image offers the LUT instead of the channels.
        let grey = crate::pixels::PixelImage::F32(
            crate::pixels::ImageBuf::from_fn(8, 8, 1, |x, y, _| x as f32 * 0.5 - y as f32)
                .expect("size"),
        );
        let mut panel = BrightnessContrastPanel::new(BrightnessContrast::for_image(&grey));
        let found = panel_texts(&mut panel, 300.0);
        assert!(found.iter().any(|(t, _)| t == "LUT"));
        assert!(
            found.iter().any(|(t, _)| t == "−7.0000" || t == "-7.0000"),
            "{found:?}"
        );
    }
}
