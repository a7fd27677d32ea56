//! Image edits in the window: the Transform menu's actions (rotate, flip, resize, crop to the
//! selection), the Resize… window, running an edit (on the CUDA device of the frame
//! runner, or the CPU reference, on the worker for large images), replacing the
//! document's pixels as opening a file does, and undoing them with the filter stack.

use super::cpu_jobs::BACKGROUND_PIXELS;
use super::edit_history::HistoryChange;
use super::image_view::PixelRect;
use super::menu::Action;
use super::state::AppState;
use crate::edit::{ImageEdit, ResizeFilter, ResizeSize};
use image::RgbaImage;
use std::sync::Arc;

/// The result of an edit on the worker: its label and pixels, or the error.
pub type EditResult = Result<(String, RgbaImage), String>;

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
enum DialogOutcome {
    Open,
    Cancel,
    Apply(ImageEdit),
}

/// The Resize… window: width, height, keep aspect, filter, and the resulting size.
fn resize_dialog_ui(ctx: &egui::Context, d: &mut ResizeDialog) -> DialogOutcome {
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
                "{}×{} → {}×{}",
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

/// Copies `source`'s pixels outside `sel` into `result` (both the same size): the filters'
/// result inside the selection only.
pub fn composite_outside(result: &mut RgbaImage, source: &RgbaImage, sel: PixelRect) {
    if result.dimensions() != source.dimensions() {
        return;
    }
    let (x0, x1) = (sel.x, sel.x + sel.width);
    let (y0, y1) = (sel.y, sel.y + sel.height);
    for (x, y, p) in result.enumerate_pixels_mut() {
        if !(x0..x1).contains(&x) || !(y0..y1).contains(&y) {
            *p = *source.get_pixel(x, y);
        }
    }
}

impl AppState {
    /// Handles a Transform-menu action; false when `action` is not one.
    pub(super) fn edit_action(
        &mut self,
        gl: &glow::Context,
        ctx: &egui::Context,
        action: &Action,
    ) -> bool {
        match action {
            Action::Edit(edit) => self.start_edit(gl, ctx, *edit),
            Action::ResizeDialog => {
                self.resize_dialog = Some(ResizeDialog::new(self.document.size()));
            }
            Action::CropToSelection => match self.view.selection {
                Some(s) => self.start_edit(
                    gl,
                    ctx,
                    ImageEdit::Crop {
                        x: s.x,
                        y: s.y,
                        width: s.width,
                        height: s.height,
                    },
                ),
                None => self.set_message("crop: no selection (Ctrl+drag on the image)", true),
            },
            Action::ToggleSelectTool => self.view.select_tool = !self.view.select_tool,
            Action::ToggleSelectionOnly => {
                self.view.selection_only = !self.view.selection_only;
            }
            _ => return false,
        }
        true
    }

    /// The Resize… window, while open.
    pub(super) fn resize_window_ui(&mut self, gl: &glow::Context, ctx: &egui::Context) {
        let Some(d) = self.resize_dialog.as_mut() else {
            return;
        };
        match resize_dialog_ui(ctx, d) {
            DialogOutcome::Open => {}
            DialogOutcome::Cancel => self.resize_dialog = None,
            DialogOutcome::Apply(edit) => {
                self.resize_dialog = None;
                self.start_edit(gl, ctx, edit);
            }
        }
    }

    /// Runs `edit` on the document: on the CUDA device at once (milliseconds), else the
    /// CPU reference, on the worker for a large image.
    fn start_edit(&mut self, gl: &glow::Context, ctx: &egui::Context, edit: ImageEdit) {
        let (w, h) = self.document.size();
        if let Err(e) = edit.output_size(w, h) {
            return self.set_message(format!("{edit}: {e}"), true);
        }
        let label = edit.to_string();
        let image = self.document.image.clone();
        if let Some(device) = self.runner.cuda_device() {
            match crate::edit::cuda::apply_edits(device, &image, &[edit]) {
                Ok(out) => return self.finish_edit(gl, Ok((label, out))),
                Err(e) => log::warn!("{label} on CUDA failed, on the CPU instead: {e}"),
            }
        }
        let background = !self.synchronous && u64::from(w) * u64::from(h) >= BACKGROUND_PIXELS;
        let run = move || {
            crate::edit::cpu::apply_edit(&image, &edit)
                .map(|out| (label.clone(), out))
                .map_err(|e| format!("{label}: {e}"))
        };
        if background {
            let ctx = ctx.clone();
            self.edits
                .start(move || ctx.request_repaint(), move |job| job.send(run()));
        } else {
            let result = run();
            self.finish_edit(gl, result);
        }
    }

    /// Takes the worker's edit, if one finished.
    pub(super) fn take_edit_result(&mut self, gl: &glow::Context) {
        if let Some(result) = self.edits.poll() {
            self.finish_edit(gl, result);
        }
    }

    /// Makes an edit's pixels the document's (loaded into the source texture as opening a
    /// file does) and records the step; on failure the current image stays.
    fn finish_edit(&mut self, gl: &glow::Context, result: EditResult) {
        let (label, pixels) = match result {
            Ok(r) => r,
            Err(e) => return self.set_message(e, true),
        };
        let before = self.document.image.clone();
        if let Err(e) = self.replace_pixels(gl, Arc::new(pixels)) {
            return self.set_message(format!("{label}: {e}"), true);
        }
        let kept = self.history.push_edit(&self.stack, &label, before);
        let (w, h) = self.document.size();
        let text = if kept {
            format!("{label}: now {w}×{h} (Ctrl+Z undoes)")
        } else {
            format!("{label}: now {w}×{h} (too large for the undo budget: cannot be undone)")
        };
        self.set_message(text, false);
    }

    /// Loads `pixels` as the document's, keeping the current ones on failure.
    fn replace_pixels(&mut self, gl: &glow::Context, pixels: Arc<RgbaImage>) -> Result<(), String> {
        let max = crate::gl::max_texture_size(gl);
        if pixels.width() > max || pixels.height() > max {
            return Err(format!(
                "{}×{} is over the GPU's {max}×{max} texture limit",
                pixels.width(),
                pixels.height()
            ));
        }
        self.runner.trim(gl);
        if let Err(e) = self.runner.load_source(gl, &pixels) {
            if let Err(again) = self.runner.load_source(gl, &self.document.image) {
                log::error!("reloading the current image: {again}");
            }
            return Err(e.to_string());
        }
        let size = pixels.dimensions();
        if size != self.document.size() {
            self.view.fit_requested = true;
        }
        self.document.image = pixels;
        self.view.selection = self.view.selection.and_then(|s| s.clipped(size));
        self.filters.cancel(); // its result would be of the old pixels
        self.dirty = true;
        Ok(())
    }

    /// Undoes (or redoes, `forward`) one step of the image tab.
    pub(super) fn image_history_step(&mut self, gl: &glow::Context, forward: bool) {
        let current = self.document.image.clone();
        let change = if forward {
            self.history.redo(&mut self.stack, &current)
        } else {
            self.history.undo(&mut self.stack, &current)
        };
        match change {
            HistoryChange::None => {}
            HistoryChange::Stack => self.dirty = true,
            HistoryChange::Pixels { label, pixels } => {
                let what = if forward { "redo" } else { "undo" };
                match self.replace_pixels(gl, pixels) {
                    Ok(()) => self.set_message(format!("{what} {label}"), false),
                    Err(e) => self.set_message(format!("{what} {label}: {e}"), true),
                }
            }
        }
    }

    /// The result as saved: with the source outside the selection when the filters
    /// apply to the selection only.
    pub(super) fn saved_result(&self, mut result: RgbaImage) -> RgbaImage {
        if let (true, Some(sel)) = (self.view.selection_only, self.view.selection) {
            composite_outside(&mut result, &self.document.image, sel);
        }
        result
    }
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
