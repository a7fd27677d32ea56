//! Image edits in the window: the Transform menu's actions (rotate, flip, resize, crop to
//! the selection), running an edit (on the CUDA device of the frame runner, or the CPU
//! reference, on the worker for large images; 16-bit and float images in their own type),
//! replacing the document's pixels as opening a file does, and undoing them with the
//! filter stack.

use super::cpu_jobs::BACKGROUND_PIXELS;
use super::edit_history::{DocumentPixels, HistoryChange};
use super::edit_ui::{
    composite_outside, resize_dialog_ui, run_edit_cpu, DialogOutcome, EditResult, ResizeDialog,
};
use super::image_view::PixelRect;
use super::menu::Action;
use super::state::AppState;
use super::typed::selection_result;
use crate::edit::ImageEdit;
use crate::pixels::PixelImage;
use image::RgbaImage;
use std::sync::Arc;

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
            Action::SelectAll => {
                let (width, height) = self.document.size();
                self.view.selection = Some(PixelRect {
                    x: 0,
                    y: 0,
                    width,
                    height,
                });
            }
            Action::SelectNone => self.view.selection = None,
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

    /// Runs `edit` on the document: an 8-bit one on the CUDA device at once
    /// (milliseconds), else the CPU reference of the document's type, on the worker for a
    /// large image.
    fn start_edit(&mut self, gl: &glow::Context, ctx: &egui::Context, edit: ImageEdit) {
        if self.edits.busy() {
            // Each edit starts from the last one's pixels: one at a time.
            return self.set_message(format!("{edit}: an edit is still running"), true);
        }
        let (w, h) = self.document.size();
        if let Err(e) = edit.output_size(w, h) {
            return self.set_message(format!("{edit}: {e}"), true);
        }
        let pixels = self.document_pixels();
        if let (DocumentPixels::Rgba8(image), Some(device)) = (&pixels, self.runner.cuda_device()) {
            let label = edit.to_string();
            match crate::edit::cuda::apply_edits(device, image, &[edit]) {
                Ok(out) => {
                    let out = DocumentPixels::Rgba8(Arc::new(out));
                    return self.finish_edit(gl, Ok((label, out)));
                }
                Err(e) => log::warn!("{label} on CUDA failed, on the CPU instead: {e}"),
            }
        }
        let background = !self.synchronous && u64::from(w) * u64::from(h) >= BACKGROUND_PIXELS;
        if background {
            let ctx = ctx.clone();
            self.edits.start(
                move || ctx.request_repaint(),
                move |job| job.send(run_edit_cpu(&pixels, &edit)),
            );
        } else {
            let result = run_edit_cpu(&pixels, &edit);
            self.finish_edit(gl, result);
        }
    }

    /// The document's pixels as the undo history keeps them: the typed source of a 16-bit
    /// or float document, else the RGBA8 pixels.
    pub(super) fn document_pixels(&self) -> DocumentPixels {
        match &self.typed {
            Some(t) => DocumentPixels::Typed(t.source.clone()),
            None => DocumentPixels::Rgba8(self.document.image.clone()),
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
        let before = self.document_pixels();
        if let Err(e) = self.replace_pixels(gl, pixels) {
            return self.set_message(format!("{label}: {e}"), true);
        }
        let kept = self.history.push_edit(&self.stack, &label, before);
        self.edits_applied.extend(label.parse::<ImageEdit>().ok());
        let (w, h) = self.document.size();
        let text = if kept {
            format!("{label}: now {w}×{h} (Ctrl+Z undoes)")
        } else {
            format!("{label}: now {w}×{h} (too large for the undo budget: cannot be undone)")
        };
        self.set_message(text, false);
    }

    /// Loads `pixels` as the document's (a typed document's display too), keeping the
    /// current ones on failure.
    fn replace_pixels(&mut self, gl: &glow::Context, pixels: DocumentPixels) -> Result<(), String> {
        if matches!(pixels, DocumentPixels::Typed(_)) != self.typed.is_some() {
            return Err("these pixels are of another image".into());
        }
        let max = crate::gl::max_texture_size(gl);
        let (w, h) = pixels.dimensions();
        if w > max || h > max {
            return Err(format!(
                "{w}×{h} is over the GPU's {max}×{max} texture limit"
            ));
        }
        // A typed document's runner holds an RGBA8 rendition (nothing of it is shown; on
        // CUDA the next typed frame loads the typed pixels in its place).
        let rgba8 = match &pixels {
            DocumentPixels::Rgba8(p) => p.clone(),
            DocumentPixels::Typed(p) => Arc::new(p.as_ref().clone().into_rgba8()),
        };
        self.runner.trim(gl);
        if let Err(e) = self.runner.load_source(gl, &rgba8) {
            self.reload_document_source(gl);
            return Err(e.to_string());
        }
        if let (DocumentPixels::Typed(p), Some(t)) = (&pixels, self.typed.as_mut()) {
            if let Err(e) = t.replace_source(gl, p.clone()) {
                self.reload_document_source(gl);
                return Err(e.to_string());
            }
            if let Err(e) = t.redraw(gl, &mut self.display) {
                log::warn!("drawing the edited image: {e}"); // the next result draws again
            }
            self.typed_filters.cancel(); // its result would be of the old pixels
            self.typed_hover = None;
        }
        if (w, h) != self.document.size() {
            self.view.fit_requested = true;
        }
        self.document.image = rgba8;
        self.presize_output(gl);
        // Every edit moves pixels (rotate, flip, resize, crop, or undoing one): a selection
        // of the old pixels would frame other ones.
        self.view.selection = None;
        self.filters.cancel(); // its result would be of the old pixels
        self.dirty = true;
        Ok(())
    }

    /// Loads the document's pixels into the runner again (a failed replacement may have
    /// left its source half made).
    fn reload_document_source(&mut self, gl: &glow::Context) {
        if let Err(again) = self.runner.load_source(gl, &self.document.image) {
            log::error!("reloading the current image: {again}");
        }
    }

    /// Undoes (or redoes, `forward`) one step of the image tab.
    pub(super) fn image_history_step(&mut self, gl: &glow::Context, forward: bool) {
        if self.edits.busy() {
            // The running edit's result would land on the undone pixels.
            self.edits.cancel();
            return self.set_message("edit cancelled; the image stays", false);
        }
        let current = self.document_pixels();
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
                    Ok(()) => {
                        if forward {
                            self.edits_applied.extend(label.parse::<ImageEdit>().ok());
                        } else {
                            self.edits_applied.pop();
                        }
                        self.set_message(format!("{what} {label}"), false)
                    }
                    Err(e) => self.set_message(format!("{what} {label}: {e}"), true),
                }
            }
        }
    }

    /// The result as saved: with the source outside the selection when the filters
    /// apply to the selection only.
    pub(super) fn saved_result(&self, mut result: RgbaImage) -> RgbaImage {
        if let Some(sel) = self.selection_only() {
            composite_outside(&mut result, &self.document.image, sel);
        }
        result
    }

    /// A typed result as saved: with the source outside the selection when the filters
    /// apply to the selection only.
    pub(super) fn saved_typed_result(
        &self,
        result: &PixelImage,
        source: &PixelImage,
    ) -> PixelImage {
        let rect = self.selection_only().map(|s| (s.x, s.y, s.width, s.height));
        selection_result(result, source, rect)
    }

    /// The selection the filters apply to, when they apply to it only.
    pub(super) fn selection_only(&self) -> Option<PixelRect> {
        self.view.selection.filter(|_| self.view.selection_only)
    }
}
