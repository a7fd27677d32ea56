//! The image edits' window parts: the Resize… window and the composite of the filters'
//! result inside the selection only (for saving); the edit's result as the worker sends it.

use super::edit_history::DocumentPixels;
use super::image_view::PixelRect;
use crate::edit::{ImageEdit, ResizeFilter, ResizeSize};
use image::RgbaImage;

/// The result of an edit on the worker: its label and pixels, or the error.
pub type EditResult = Result<(String, DocumentPixels), String>;

/// The Resize… window's fields.
#[derive(Debug, Clone, PartialEq)]
pub struct ResizeDialog {
    pub width: u32,
    pub height: u32,
    pub keep_aspect: bool,
    pub filter: ResizeFilter,
    /// The image's size when the window opened (the aspect kept).
    source: (u32, u32),
}

impl ResizeDialog {
    pub fn new(size: (u32, u32)) -> Self {
        Self {
            width: size.0,
            height: size.1,
            keep_aspect: true,
            filter: ResizeFilter::default(),
            source: size,
        }
    }

    /// The height that keeps the aspect for `width`, and the other way round.
    fn height_for(&self, width: u32) -> u32 {
        let h = f64::from(width) * f64::from(self.source.1) / f64::from(self.source.0);
        (h.round() as u32).max(1)
    }

    fn width_for(&self, height: u32) -> u32 {
        let w = f64::from(height) * f64::from(self.source.0) / f64::from(self.source.1);
        (w.round() as u32).max(1)
    }

    /// The edit the fields describe.
    pub fn edit(&self) -> ImageEdit {
        ImageEdit::Resize {
            size: ResizeSize::Pixels {
                width: self.width,
                height: self.height,
            },
            filter: self.filter,
        }
    }
}

/// What the Resize… window asks for this frame.
pub enum DialogOutcome {
    Open,
    Cancel,
    Apply(ImageEdit),
}

/// The Resize… window: width, height, keep aspect, filter, and the resulting size.
pub fn resize_dialog_ui(ctx: &egui::Context, d: &mut ResizeDialog) -> DialogOutcome {
    let mut outcome = DialogOutcome::Open;
    let max = crate::image_io::MAX_IMAGE_SIDE;
    egui::Window::new("Resize")
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            egui::Grid::new("resize_grid")
                .num_columns(2)
                .show(ui, |ui| {
                    ui.label("Width");
                    if ui
                        .add(
                            egui::DragValue::new(&mut d.width)
                                .range(1..=max)
                                .suffix(" px"),
                        )
                        .changed()
                        && d.keep_aspect
                    {
                        d.height = d.height_for(d.width).min(max);
                    }
                    ui.end_row();
                    ui.label("Height");
                    if ui
                        .add(
                            egui::DragValue::new(&mut d.height)
                                .range(1..=max)
                                .suffix(" px"),
                        )
                        .changed()
                        && d.keep_aspect
                    {
                        d.width = d.width_for(d.height).min(max);
                    }
                    ui.end_row();
                    ui.label("");
                    if ui.checkbox(&mut d.keep_aspect, "keep aspect").changed() && d.keep_aspect {
                        d.height = d.height_for(d.width).min(max);
                    }
                    ui.end_row();
                    ui.label("Filter");
                    egui::ComboBox::from_id_salt("resize_filter")
                        .selected_text(d.filter.name())
                        .show_ui(ui, |ui| {
                            for f in ResizeFilter::ALL {
                                ui.selectable_value(&mut d.filter, f, f.name());
                            }
                        });
                    ui.end_row();
                });
            ui.label(format!(
                "{}×{} to {}×{}",
                d.source.0, d.source.1, d.width, d.height
            ));
            ui.horizontal(|ui| {
                if ui.button("Resize").clicked() {
                    outcome = DialogOutcome::Apply(d.edit());
                }
                if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                    outcome = DialogOutcome::Cancel;
                }
            });
        });
    outcome
}

/// Runs `edit` on the CPU reference of the document's type (the worker's job, or the
/// UI thread's for a small image): RGBA8 documents through the RGBA8 reference, 16-bit
/// and float ones through the typed one.
pub fn run_edit_cpu(pixels: &DocumentPixels, edit: &ImageEdit) -> EditResult {
    let label = edit.to_string();
    let out = match pixels {
        DocumentPixels::Rgba8(p) => {
            crate::edit::cpu::apply_edit(p, edit).map(|o| DocumentPixels::Rgba8(o.into()))
        }
        DocumentPixels::Typed(p) => {
            crate::edit::typed::apply_edit_typed(p, edit).map(|o| DocumentPixels::Typed(o.into()))
        }
    };
    out.map(|o| (label.clone(), o))
        .map_err(|e| format!("{label}: {e}"))
}

/// Copies `source`'s pixels outside `sel` into `result` (both the same size): the filters'
/// result inside the selection only.
pub fn composite_outside(result: &mut RgbaImage, source: &RgbaImage, sel: PixelRect) {
    crate::edit::keep_outside(result, source, (sel.x, sel.y, sel.width, sel.height));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resize_window_keeps_the_aspect() {
        let mut d = ResizeDialog::new((400, 300));
        assert_eq!(d.height_for(200), 150);
        assert_eq!(d.width_for(30), 40);
        d.width = 1;
        assert_eq!(d.height_for(d.width), 1);
        d.width = 800;
        d.height = 600;
        d.filter = ResizeFilter::Bicubic;
        assert_eq!(d.edit().to_string(), "resize:800x600,filter=bicubic");
    }

    #[test]
    fn the_composite_keeps_the_result_inside_the_selection_only() {
        let source = crate::ops::random_image(9, 7, 1);
        let result = crate::ops::random_image(9, 7, 2);
        let sel = PixelRect {
            x: 2,
            y: 1,
            width: 3,
            height: 4,
        };
        let mut out = result.clone();
        composite_outside(&mut out, &source, sel);
        for (x, y, p) in out.enumerate_pixels() {
            let inside = (2..5).contains(&x) && (1..5).contains(&y);
            let want = if inside { &result } else { &source };
            assert_eq!(p, want.get_pixel(x, y), "({x}, {y})");
        }
    }
}
