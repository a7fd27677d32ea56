//! The application state and one frame of UI.

use super::filter_stack::{filter_stack_ui, FilterStack};
use super::histogram_panel::{histogram_panel_ui, HistogramPanel};
use super::image_document::ImageDocument;
use super::image_view::{image_view_ui, ImageViewState, ViewTextures};
use super::mandelbrot_view::{mandelbrot_controls_ui, mandelbrot_picture_ui, MandelbrotView};
use super::menu::{menu_bar_ui, shortcut_actions, Action};
use super::presets_ui::{presets_ui, PresetsPanel};
use super::recent::RecentFiles;
use super::status_bar::{status_bar_ui, StatusLine};
use super::GuiArgs;
use crate::gl::HistogramRenderer;
use crate::image_io::{load_image_with, save_image, SaveOptions, SAVE_EXTENSIONS};
use crate::mandelbrot::deep::find_bookmark;
use crate::pipeline::{FrameReport, FrameRunner, MandelbrotRenderer};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Image,
    Mandelbrot,
}

pub struct AppState {
    pub tab: Tab,
    pub document: ImageDocument,
    pub runner: FrameRunner,
    pub output_id: egui::TextureId,
    pub stack: FilterStack,
    pub report: Option<FrameReport>,
    pub frame_ms: f64,
    pub dirty: bool,
    pub continuous: bool,
    pub view: ImageViewState,
    pub histogram: HistogramPanel,
    pub recent: RecentFiles,
    /// (text, is_error) shown in the status bar.
    pub message: Option<(String, bool)>,
    pub mandelbrot: MandelbrotView,
    pub inspected: Option<((u32, u32), [u8; 4])>,
    pub presets: PresetsPanel,
    pub quit: bool,
}

impl AppState {
    /// Creates the GL objects, the backend and the panels, and loads `initial`.
    pub fn new(
        gl: &Arc<glow::Context>,
        painter: &mut egui_glow::Painter,
        initial: &Path,
        args: &GuiArgs,
    ) -> anyhow::Result<Self> {
        let placeholder = image::RgbaImage::from_pixel(1, 1, image::Rgba([40, 40, 40, 255]));
        let mut runner = FrameRunner::new(gl, args.backend, args.interop, 1, 1)?;
        let source = runner.load_source(gl, &placeholder)?;
        let document = ImageDocument {
            path: PathBuf::new(),
            texture_id: painter.register_native_texture(source.id),
            image: placeholder,
            description: "no image".into(),
            conversion_note: None,
        };
        let output_id = painter.register_native_texture(runner.targets.output.id);
        let histogram = HistogramPanel {
            renderer: Arc::new(HistogramRenderer::new(gl, &runner.targets.bins)?),
            log_scale: false,
            channels: [true; 4],
        };
        let mandel = MandelbrotRenderer::new(gl, args.backend, runner.cuda_share(), args.interop)?;
        let mandel_id = painter.register_native_texture(mandel.texture().id);
        let mut state = Self {
            tab: if args.mandelbrot {
                Tab::Mandelbrot
            } else {
                Tab::Image
            },
            document,
            runner,
            output_id,
            stack: FilterStack::new(&args.filters),
            report: None,
            frame_ms: 0.0,
            dirty: true,
            continuous: false,
            view: ImageViewState {
                split: args.split.then_some(0.5),
                ..ImageViewState::default()
            },
            histogram,
            recent: RecentFiles::load(),
            message: None,
            mandelbrot: MandelbrotView::new(
                mandel,
                mandel_id,
                args.overlay,
                args.refinement.unwrap_or_default(),
            ),
            inspected: None,
            presets: PresetsPanel::new(),
            quit: false,
        };
        if let Some(b) = args.bookmark.as_deref().and_then(find_bookmark) {
            state.mandelbrot.go_to_deep(b);
        }
        state.open(gl, initial);
        Ok(state)
    }

    /// Loads `path`; on failure the current image stays and the error is shown.
    pub fn open(&mut self, gl: &glow::Context, path: &Path) {
        // The GPU's texture limit and the memory budget are checked from the header,
        // before anything is decoded.
        let admission = crate::image_io::Admission {
            max_side: crate::gl::max_texture_size(gl).min(crate::image_io::MAX_IMAGE_SIDE),
            ..Default::default()
        };
        let loaded = match load_image_with(path, &admission) {
            Ok(l) => l,
            Err(e) => {
                self.message = Some((e.to_string(), true));
                return;
            }
        };
        let max = crate::gl::max_texture_size(gl);
        if loaded.image.width() > max || loaded.image.height() > max {
            self.message = Some((
                format!(
                    "{}: {}×{} exceeds this GPU's texture limit of {max}",
                    path.display(),
                    loaded.image.width(),
                    loaded.image.height()
                ),
                true,
            ));
            return;
        }
        self.runner.trim(gl);
        let note = loaded.conversion_note.clone();
        match self.runner.load_source(gl, &loaded.image) {
            Ok(_) => {
                self.document.replace(loaded);
                self.recent.push(path);
                self.message = Some(match note {
                    Some(n) => (format!("{}: {n}", path.display()), false),
                    None => (format!("opened {}", path.display()), false),
                });
                self.view.fit_requested = true;
                self.dirty = true;
            }
            Err(e) => {
                // The current image stays: load its pixels again in case the failure left
                // the source half made.
                if let Err(again) = self.runner.load_source(gl, &self.document.image) {
                    log::error!("reloading the current image: {again}");
                }
                self.message = Some((format!("{}: {e}", path.display()), true));
            }
        }
    }

    /// Saves pixels read back from GL to `path` (the dialog already asked before replacing
    /// a file; the input image stays protected) and reports in the status bar.
    fn save_pixels(&mut self, pixels: Result<image::RgbaImage, String>, path: &Path) {
        let options = SaveOptions {
            overwrite: true,
            protected: vec![self.document.path.clone()],
        };
        let result =
            pixels.and_then(|img| save_image(&img, path, &options).map_err(|e| e.to_string()));
        self.message = Some(match result {
            Ok(()) => (format!("saved {}", path.display()), false),
            Err(e) => (e, true),
        });
    }

    fn save_mandelbrot(&mut self, gl: &glow::Context) {
        let dialog = rfd::FileDialog::new()
            .add_filter("PNG", &["png"])
            .set_file_name("mandelbrot.png");
        if let Some(path) = dialog.save_file() {
            let pixels = self.mandelbrot.renderer.texture().read(gl);
            self.save_pixels(pixels.map_err(|e| e.to_string()), &path);
        }
    }

    fn apply(&mut self, gl: &glow::Context, action: Action) {
        match action {
            Action::Open => {
                let extensions = ["png", "jpg", "jpeg", "tif", "tiff", "bmp", "webp", "gif"];
                if let Some(p) = rfd::FileDialog::new()
                    .add_filter("Images", &extensions)
                    .pick_file()
                {
                    self.open(gl, &p);
                }
            }
            Action::OpenPath(p) => self.open(gl, &p),
            Action::SaveAs => {
                if self.tab == Tab::Mandelbrot {
                    return self.save_mandelbrot(gl);
                }
                let stem = self
                    .document
                    .path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "result".into());
                if let Some(p) = rfd::FileDialog::new()
                    .add_filter("Images", &SAVE_EXTENSIONS)
                    .set_file_name(format!("{stem}-cudalens.png"))
                    .save_file()
                {
                    let pixels = self.runner.read_output(gl).map_err(|e| e.to_string());
                    self.save_pixels(pixels, &p);
                }
            }
            Action::Quit => self.quit = true,
            Action::Fit => self.view.fit_requested = true,
            Action::OneToOne => self.view.one_to_one_requested = true,
            Action::ToggleSplit => {
                self.view.split = if self.view.split.is_some() {
                    None
                } else {
                    Some(0.5)
                }
            }
            Action::ToggleContinuous => self.continuous = !self.continuous,
            Action::ShowImage => self.tab = Tab::Image,
            Action::ShowMandelbrot => self.tab = Tab::Mandelbrot,
        }
    }

    /// Runs the filter stack if anything changed (or every frame when continuous).
    fn process_if_needed(&mut self, gl: &glow::Context) {
        if !(self.dirty || self.continuous) {
            return;
        }
        self.dirty = false;
        let start = Instant::now();
        match self
            .runner
            .run_loaded(gl, &self.document.image, &self.stack.active())
        {
            Ok(report) => {
                self.frame_ms = start.elapsed().as_secs_f64() * 1e3;
                self.report = Some(report);
                self.inspected = None; // the output changed under the cursor
            }
            Err(e) => self.message = Some((format!("processing failed: {e}"), true)),
        }
    }

    /// Whether another frame should follow at once.
    pub fn wants_repaint(&self) -> bool {
        self.continuous || self.dirty || self.mandelbrot.dirty
    }

    /// One frame of UI.
    pub fn ui(&mut self, ui: &mut egui::Ui, gl: &glow::Context) {
        let mut actions = shortcut_actions(ui.ctx());
        egui::Panel::top("menu").show(ui, |ui| {
            ui.horizontal(|ui| {
                actions.extend(menu_bar_ui(
                    ui,
                    &self.recent,
                    self.view.split.is_some(),
                    self.continuous,
                ));
                ui.separator();
                ui.selectable_value(&mut self.tab, Tab::Image, "🖼 Image");
                ui.selectable_value(&mut self.tab, Tab::Mandelbrot, "🌀 Mandelbrot");
            });
        });
        for a in actions {
            self.apply(gl, a);
        }
        if self.tab == Tab::Image {
            self.process_if_needed(gl);
        }
        let (backend, interop) = if self.tab == Tab::Image {
            (self.runner.status.clone(), self.runner.interop.clone())
        } else {
            let r = &self.mandelbrot.renderer;
            (r.status.clone(), r.interop().cloned())
        };
        let (size, stages) = match (&self.tab, &self.report, &self.mandelbrot.frame) {
            (Tab::Image, Some(r), _) => (Some((r.width, r.height)), r.stages.clone()),
            (Tab::Mandelbrot, _, Some(f)) => (
                Some((
                    self.mandelbrot.settings.view.width,
                    self.mandelbrot.settings.view.height,
                )),
                f.stages.clone(),
            ),
            _ => (None, Vec::new()),
        };
        let frame_ms = if self.tab == Tab::Image {
            self.frame_ms
        } else {
            crate::pipeline::total_of(&stages)
        };
        egui::Panel::bottom("status").show(ui, |ui| {
            status_bar_ui(
                ui,
                &StatusLine {
                    backend: &backend,
                    interop: interop.as_ref(),
                    size,
                    frame_ms,
                    stages: &stages,
                    pixel: self.inspected,
                    message: self.message.as_ref(),
                },
            );
        });
        match self.tab {
            Tab::Image => self.image_tab_ui(ui, gl),
            Tab::Mandelbrot => {
                let mut save = false;
                egui::Panel::left("mandel_controls")
                    .default_size(280.0)
                    .show(ui, |ui| {
                        egui::ScrollArea::vertical().show(ui, |ui| {
                            save = mandelbrot_controls_ui(ui, &mut self.mandelbrot)
                        });
                    });
                egui::CentralPanel::default()
                    .show(ui, |ui| mandelbrot_picture_ui(ui, &mut self.mandelbrot, gl));
                if save {
                    self.save_mandelbrot(gl);
                }
            }
        }
    }

    fn image_tab_ui(&mut self, ui: &mut egui::Ui, gl: &glow::Context) {
        egui::Panel::left("filters")
            .default_size(300.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    ui.heading("Filters");
                    self.dirty |= filter_stack_ui(ui, &mut self.stack);
                    ui.collapsing("Presets", |ui| {
                        let out =
                            presets_ui(ui, &mut self.presets, &mut self.stack, &self.document.path);
                        self.dirty |= out.stack_changed;
                        self.message = out.message.or(self.message.take());
                    });
                    ui.separator();
                    ui.checkbox(&mut self.continuous, "continuous (re-run every frame)");
                    ui.separator();
                    ui.strong("Image");
                    ui.label(self.document.path.display().to_string());
                    ui.label(format!(
                        "{}×{} · {}",
                        self.document.size().0,
                        self.document.size().1,
                        self.document.description
                    ));
                    if let Some(note) = &self.document.conversion_note {
                        ui.colored_label(egui::Color32::LIGHT_BLUE, note);
                    }
                });
            });
        egui::Panel::bottom("histogram")
            .default_size(190.0)
            .resizable(true)
            .show(ui, |ui| {
                histogram_panel_ui(
                    ui,
                    &mut self.histogram,
                    self.report.as_ref().map(|r| &r.histogram),
                );
            });
        egui::CentralPanel::default().show(ui, |ui| {
            let output = &self.runner.targets.output;
            let textures = ViewTextures {
                output: self.output_id,
                output_size: (output.width, output.height),
                original: self.document.texture_id,
                original_size: self.document.size(),
            };
            let out = image_view_ui(ui, &mut self.view, &textures);
            // A GL readback stalls the pipeline: read only when the hovered pixel changed
            // (a processed frame clears the cached value).
            self.inspected = match out.hovered_pixel {
                Some(p) if self.inspected.is_some_and(|(q, _)| q == p) => self.inspected,
                Some((x, y)) => output.read_pixel(gl, x, y).map(|px| ((x, y), px)),
                None => None,
            };
        });
    }

    /// Releases GL objects (CUDA registrations first).
    pub fn destroy(self, gl: &glow::Context) {
        self.runner.destroy(gl);
        self.mandelbrot.renderer.destroy(gl);
        if let Ok(r) = Arc::try_unwrap(self.histogram.renderer) {
            r.destroy(gl);
        }
    }
}
