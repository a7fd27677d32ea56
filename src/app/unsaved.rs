//! Nothing lost on quitting: user kernel sources that their files do not hold (the
//! editor's text, entries of the stack from an example or edited since) are named in a
//! question before the app quits — save them all, quit keeping them in the session (it
//! restores them), or cancel.

use super::config_dir::write_atomically;
use super::state::AppState;
use crate::pipeline::Stage;
use std::path::PathBuf;

impl AppState {
    /// The files of the kernel sources not saved: the editor's, then the stack's.
    pub fn unsaved_kernel_files(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .kernel_editor
            .unsaved()
            .map(|(p, _)| p.to_path_buf())
            .into_iter()
            .collect();
        for k in self.stack.unsaved_kernels() {
            if !out.iter().any(|p| p == k.path()) {
                out.push(k.path().to_path_buf());
            }
        }
        out
    }

    /// Quit (the menu, Ctrl+Q, the window's close button): at once when nothing is
    /// unsaved, else after the question. Returns whether the app may quit now.
    pub fn request_quit(&mut self) -> bool {
        if self.quit || self.unsaved_kernel_files().is_empty() {
            self.quit = true;
        } else {
            self.quit_prompt = true;
        }
        self.quit
    }

    /// Writes every unsaved kernel source to its file; the errors, one line each.
    fn save_all_kernels(&mut self) -> Vec<String> {
        let mut errors = Vec::new();
        let editing = self.kernel_editor.unsaved().map(|(p, _)| p.to_path_buf());
        if let Some(path) = &editing {
            let index = self.stack.entries.iter().position(|e| {
                e.filter
                    .kernel()
                    .is_some_and(|k| k.path() == path.as_path())
            });
            let stage = index.and_then(|i| self.stack.entries[i].filter.kernel().cloned());
            if let (Some(i), Some(stage)) = (index, stage) {
                match self.kernel_editor.save(&stage) {
                    Some(next) => self.stack.entries[i].filter = Stage::Kernel(next),
                    None => errors.extend(self.kernel_editor.message.take().map(|m| m.0)),
                }
            }
        }
        let rest: Vec<(PathBuf, String)> = self
            .stack
            .unsaved_kernels()
            .into_iter()
            .filter(|k| Some(k.path()) != editing.as_deref())
            .map(|k| (k.path().to_path_buf(), k.source().text.clone()))
            .collect();
        for (path, text) in rest {
            if let Err(e) = write_atomically(&path, text.as_bytes()) {
                errors.push(e.to_string());
            }
        }
        errors
    }

    /// The question before quitting with unsaved kernel sources.
    pub(super) fn quit_prompt_ui(&mut self, ctx: &egui::Context) {
        if !self.quit_prompt {
            return;
        }
        let files = self.unsaved_kernel_files();
        if files.is_empty() {
            (self.quit_prompt, self.quit) = (false, true);
            return;
        }
        let modal = egui::Modal::new(egui::Id::unique("quit with unsaved kernels")).show(ctx, |ui| {
            ui.heading("Quit with unsaved kernel sources?");
            ui.label("These files do not hold the kernel sources of the stack:");
            for f in &files {
                ui.monospace(f.display().to_string());
            }
            ui.label("Quitting without saving keeps them in the session: the next start restores them.");
            ui.horizontal(|ui| {
                if ui.button("Save All and Quit").clicked() {
                    let errors = self.save_all_kernels();
                    if errors.is_empty() {
                        (self.quit_prompt, self.quit) = (false, true);
                    } else {
                        self.quit_prompt = false;
                        self.set_message(errors.join("; "), true);
                    }
                }
                if ui.button("Quit Without Saving").clicked() {
                    (self.quit_prompt, self.quit) = (false, true);
                }
                if ui.button("Cancel").clicked() {
                    self.quit_prompt = false;
                }
            });
        });
        if modal.should_close() {
            self.quit_prompt = false;
        }
    }
}
