//! The application state and one frame of UI.

use super::cpu_jobs::{filter_job, BACKGROUND_PIXELS};
use super::display::{brightness_contrast_window, pixel_values_text, samples_text};
use super::edit_history::{DocumentPixels, ImageHistory};
use super::edit_ui::{EditResult, ResizeDialog};
use super::file_dialog::{
    file_browser_ui, run_native, BrowserOutcome, DialogPurpose, FileBrowser, NativeAnswer,
};
use super::filter_stack::{filter_stack_ui, FilterStack};
use super::histogram_panel::{histogram_panel_ui, HistogramPanel};
use super::history_panel::{history_panel_ui, HistoryJump};
use super::image_document::ImageDocument;
use super::image_view::{image_view_ui, ImageViewState, PixelRect, ViewTextures};
use super::kernel_editor::{measure_copy_gbps, KernelEditor, StageFigures};
use super::mandelbrot_view::{
    mandelbrot_controls_ui, mandelbrot_picture_ui, offered_view_ui, ControlsRequest, MandelbrotView,
};
use super::menu::{menu_bar_ui, shortcut_actions, Action, MenuState};
use super::presets_ui::{presets_ui, CommandSource, PresetsPanel};
use super::recent::RecentFiles;
use super::status_bar::{status_bar_ui, StatusLine, StatusMessage};
use super::typed::{
    rgba8_in_channels, run_typed_stack, save_typed, saved_message, shows_source_at,
    typed_histogram_ui, typed_note, DisplayTargets, TypedView, TYPED_CPU_STAGE,
    TYPED_READ_BACK_STAGE,
};
use super::video::{
    handle_request, video_controls_ui, video_keys, FramePixels, PlayerEvent, ShownFrame,
    VideoPlayer, VideoRequest, Waker,
};
use super::worker::{progress_ui, Worker};
use super::GuiArgs;
use crate::gl::HistogramRenderer;
use crate::image_io::{load_image_with, LoadedImage, SAVE_EXTENSIONS};
use crate::mandelbrot::deep::find_bookmark;
use crate::ops::ShownSelection;
use crate::pipeline::{upload_cpu_bins, BackendKind, FrameReport, FrameRunner, MandelbrotRenderer};
use crate::pixels::PixelImage;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The side panels' widths: wide enough for a slider and its value, never the window.
pub(super) const SIDE_PANEL_WIDTHS: std::ops::RangeInclusive<f32> = 220.0..=480.0;

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
    /// The status bar's message (it expires).
    pub message: Option<StatusMessage>,
    /// Undo and redo of the filter stack and the image edits.
    pub history: ImageHistory,
    /// Image edits on the CPU backend, for large images.
    pub(super) edits: Worker<EditResult>,
    /// The Resize… window, while open.
    pub(super) resize_dialog: Option<ResizeDialog>,
    /// The built-in file dialog, while open.
    pub browser: Option<FileBrowser>,
    /// The filter stack on the CPU backend, for large images.
    pub(super) filters: Worker<(image::RgbaImage, FrameReport)>,
    filters_started: Instant,
    /// Work stays on the UI thread (scripted runs with --frames).
    pub(super) synchronous: bool,
    pub mandelbrot: MandelbrotView,
    /// The result pixel under the cursor, read back from GL.
    pub inspected: Option<((u32, u32), [u8; 4])>,
    pub presets: PresetsPanel,
    /// The user kernel editor (one kernel of the stack).
    pub kernel_editor: KernelEditor,
    /// The device's copy bandwidth for the editor's figures, measured once when needed
    /// (inner None: it could not be).
    kernel_copy_gbps: Option<Option<f64>>,
    /// The pixels and the enabled stack whose result is a file (as opened: no filter; as
    /// last saved): the title marks a result that differs, work not saved.
    written: (DocumentPixels, Vec<crate::pipeline::Stage>),
    /// The edits made to the opened file, in order (undone ones taken out): what "Copy as
    /// command line" passes as `--edit`.
    pub(super) edits_applied: Vec<crate::edit::ImageEdit>,
    /// The document pixels the output texture shows a result of: while they are not the
    /// document's, the view shows the new source.
    output_of: Option<Arc<image::RgbaImage>>,
    /// The document pixels the running background filter job works on.
    job_of: Option<Arc<image::RgbaImage>>,
    /// A background result going up to GL band by band.
    pending: Option<PendingResult>,
    /// Whether these document pixels have transparency (see `transparent`).
    alpha_of: Option<(Arc<image::RgbaImage>, bool)>,
    /// The folder of the last save (the save dialogs start there; kept in the settings).
    pub(super) save_dir: Option<PathBuf>,
    pub quit: bool,
    /// The question before quitting with unsaved kernel sources shows.
    pub(super) quit_prompt: bool,
    /// The quality results are saved at as JPEG (kept in the settings).
    pub(super) jpeg_quality: u8,
    /// A 16-bit or float document: its typed result and display (None for 8-bit ones).
    pub typed: Option<TypedView>,
    /// The textures typed images show through.
    pub(super) display: DisplayTargets,
    /// The typed filter stack on the CPU, with the source it runs on.
    pub(super) typed_filters: Worker<(PixelImage, f64)>,
    typed_job_of: Option<Arc<PixelImage>>,
    /// The typed source the runner holds (CUDA backend): loaded again when it changes.
    pub(super) typed_loaded: Option<Arc<PixelImage>>,
    /// Brightness/Contrast opens with Auto over the next typed result (`--auto-contrast`).
    auto_contrast: bool,
    /// The status bar's stages of the last typed result.
    typed_stages: Vec<crate::pipeline::StageTime>,
    /// The typed pixel under the cursor.
    pub(super) typed_hover: Option<(u32, u32)>,
    /// The video the document's pixels are a frame of (None for a still).
    pub(super) video: Option<VideoPlayer>,
    /// The video frame on screen when it was decoded on the device and the document's
    /// host pixels are not yet read back from it (they are when playback stops, or when
    /// something needs them).
    device_frame: Option<crate::video::nvdec::DeviceFrame>,
    /// The first video opened starts playing (`--play`).
    play_on_open: bool,
    /// The speed a video opened from the command line plays at.
    play_speed: f64,
    /// The egui context, for threads that wake the window (set on the first frame).
    repaint: Arc<std::sync::OnceLock<egui::Context>>,
}

/// Bytes of a background result uploaded per frame (about 15 ms of Mesa's upload).
const UPLOAD_BAND_BYTES: usize = 16 << 20;

/// A background filter result being uploaded: its pixels and report, the next row to
/// upload, the time spent uploading, and the document pixels it is of.
struct PendingResult {
    image: image::RgbaImage,
    report: FrameReport,
    next_row: u32,
    upload: Duration,
    of: Option<Arc<image::RgbaImage>>,
}

impl AppState {
    /// Creates the GL objects, the backend and the panels (no image yet: see `try_open`).
    pub fn new(
        gl: &Arc<glow::Context>,
        painter: &mut egui_glow::Painter,
        args: &GuiArgs,
    ) -> anyhow::Result<Self> {
        let placeholder = image::RgbaImage::from_pixel(1, 1, image::Rgba([40, 40, 40, 255]));
        let mut runner = FrameRunner::new(gl, args.backend, args.interop, 1, 1)?;
        let source = runner.load_source(gl, &placeholder)?;
        let display = DisplayTargets::new(gl, painter)?;
        let document = ImageDocument {
            path: PathBuf::new(),
            texture_id: painter.register_native_texture(source.id),
            channels: 4,
            image: Arc::new(placeholder),
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
        let stack = FilterStack::new(&args.filters);
        let written = (DocumentPixels::Rgba8(document.image.clone()), Vec::new());
        let mut state = Self {
            written,
            edits_applied: Vec::new(),
            output_of: None,
            save_dir: None,
            alpha_of: None,
            job_of: None,
            pending: None,
            history: ImageHistory::new(&stack),
            edits: Worker::new("edits"),
            resize_dialog: None,
            browser: None,
            filters: Worker::new("filters"),
            filters_started: Instant::now(),
            synchronous: args.frames > 0,
            tab: if args.mandelbrot {
                Tab::Mandelbrot
            } else {
                Tab::Image
            },
            document,
            runner,
            output_id,
            stack,
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
            kernel_editor: KernelEditor::default(),
            kernel_copy_gbps: None,
            quit: false,
            quit_prompt: false,
            jpeg_quality: crate::image_io::DEFAULT_JPEG_QUALITY,
            typed: None,
            display,
            typed_filters: Worker::new("typed filters"),
            typed_job_of: None,
            typed_loaded: None,
            typed_stages: Vec::new(),
            auto_contrast: args.auto_contrast,
            video: None,
            device_frame: None,
            play_on_open: args.play,
            play_speed: args.speed,
            repaint: Arc::default(),
            typed_hover: None,
        };
        state.mandelbrot.synchronous = state.synchronous;
        if let Some(b) = args.bookmark.as_deref().and_then(find_bookmark) {
            state.mandelbrot.go_to_deep(b);
        }
        state.mandelbrot.settings.coloring.smooth |= args.smooth;
        if let Some(px) = args.distance.filter(|px| px.is_finite()) {
            let range = crate::mandelbrot::DISTANCE_WIDTH_RANGE;
            state.mandelbrot.settings.coloring.distance =
                Some(px.clamp(*range.start(), *range.end()));
        }
        let julia = args.julia.as_deref();
        if let Some(c) = julia.and_then(|c| crate::mandelbrot::JuliaC::parse(c).ok()) {
            state.mandelbrot.show_julia(c);
        }
        if let Some(path) = &args.kernel_editor {
            state.open_kernel_editor_with(path);
        }
        Ok(state)
    }

    /// The selection `--selection` names, cut to the image (after the first image opened:
    /// opening one clears the selection); none when it lies outside the image.
    pub fn select_from_args(&mut self, args: &GuiArgs) {
        let Some((x, y, width, height)) = args.selection else {
            return;
        };
        let rect = PixelRect {
            x,
            y,
            width,
            height,
        };
        self.view.selection = rect.clipped(self.document.size());
        self.view.selection_only = args.selection_only;
    }

    /// Opens the kernel editor on the first kernel stage with `path`'s text as if typed.
    fn open_kernel_editor_with(&mut self, path: &std::path::Path) {
        let stage = self.stack.entries.iter().find_map(|e| e.filter.kernel());
        match (stage, std::fs::read_to_string(path)) {
            (Some(stage), Ok(text)) => {
                self.kernel_editor.open_on(stage);
                self.kernel_editor.type_text(text);
            }
            (None, _) => self.set_message("--kernel-editor: the stack has no kernel stage", true),
            (_, Err(e)) => self.set_message(format!("{}: {e}", path.display()), true),
        }
    }

    /// Shows `text` in the status bar (it expires).
    pub fn set_message(&mut self, text: impl Into<String>, is_error: bool) {
        self.message = Some(StatusMessage::new(text, is_error));
    }

    /// Loads `path` and shows the image tab; on failure the current image stays and the
    /// error is shown.
    pub fn open(&mut self, gl: &glow::Context, path: &Path) {
        match self.try_open(gl, path) {
            Ok(()) => self.tab = Tab::Image,
            Err(e) => self.set_message(format!("{e:#}"), true),
        }
    }

    /// Loads `path` (an image, or a video paused on its first frame); on failure the
    /// current image stays.
    pub fn try_open(&mut self, gl: &glow::Context, path: &Path) -> anyhow::Result<()> {
        if crate::video::is_video_path(path) {
            let repaint = self.repaint.clone();
            let wake: Waker = Arc::new(move || {
                if let Some(ctx) = repaint.get() {
                    ctx.request_repaint();
                }
            });
            let device = self.runner.cuda_device().cloned();
            let (player, first) = VideoPlayer::open(path, wake, device.as_ref())?;
            let image = first.pixels.into_host()?;
            log::info!("{}: decoded by {}", path.display(), player.decoded_by());
            let loaded = video_frame_document(&player, image);
            self.take_loaded(gl, loaded, path)?;
            self.device_frame = None;
            let mut player = player;
            if std::mem::take(&mut self.play_on_open) {
                player.set_speed(self.play_speed, Instant::now());
                player.play(Instant::now())?;
            }
            self.video = Some(player);
            return Ok(());
        }
        // The GPU's texture limit and the memory budget are checked from the header,
        // before anything is decoded.
        let max = crate::gl::max_texture_size(gl);
        let admission = crate::image_io::Admission {
            max_side: max.min(crate::image_io::MAX_IMAGE_SIDE),
            ..Default::default()
        };
        let loaded = load_image_with(path, &admission)?;
        self.take_loaded(gl, loaded, path)?;
        self.video = None;
        self.device_frame = None;
        Ok(())
    }

    /// Makes `loaded` (read from `path`) the document; on failure the current one stays.
    fn take_loaded(
        &mut self,
        gl: &glow::Context,
        loaded: crate::image_io::LoadedImage,
        path: &Path,
    ) -> anyhow::Result<()> {
        let max = crate::gl::max_texture_size(gl);
        let (width, height) = loaded.pixels.dimensions();
        if width > max || height > max {
            return Err(crate::image_io::LoadError::TooLarge {
                path: path.into(),
                width,
                height,
                max,
            }
            .into());
        }
        self.runner.trim(gl);
        let note = loaded.conversion_note.clone();
        let typed = match super::typed::runs_as_rgba8(&loaded.pixels) {
            true => None,
            false => Some(self.typed_view_of(gl, &loaded.pixels, path)?),
        };
        // The window shows and filters 8-bit RGBA: the pixels move into it (no copy of an
        // RGBA8 file) and the runner loads them before the document keeps them.
        let runner = &mut self.runner;
        if let Err(e) = self
            .document
            .replace(loaded, |image| runner.load_source(gl, image).map(|_| ()))
        {
            // The current image stays: load its pixels again in case the failure left
            // the source half made.
            if let Err(again) = self.runner.load_source(gl, &self.document.image) {
                log::error!("reloading the current image: {again}");
            }
            if let Some(t) = typed {
                t.destroy(gl);
            }
            return Err(anyhow::anyhow!("{}: {e}", path.display()));
        }
        let note = match &typed {
            Some(t) => Some(typed_note(t.source.sample_type(), self.runner.status.kind)),
            None => note,
        };
        let panel_open = self.typed.as_ref().is_some_and(|t| t.panel_open);
        if let Some(old) = std::mem::replace(&mut self.typed, typed) {
            old.destroy(gl);
        }
        if let Some(t) = self.typed.as_mut() {
            t.panel_open = panel_open; // the window stays as the user left it
        }
        self.typed_filters.cancel();
        self.typed_hover = None;
        self.presize_output(gl);
        self.written = (self.document_pixels(), Vec::new());
        self.edits_applied.clear();
        self.history.forget_edits(); // their pixels are of the old image
        self.edits.cancel();
        self.view.selection = None;
        self.recent.push(path);
        let view = self.mandelbrot.offer_view_of(path);
        let text = match (note, view) {
            (Some(n), Some(v)) => format!("{}: {n}; {v}", path.display()),
            (Some(n), None) => format!("{}: {n}", path.display()),
            (None, Some(v)) => format!("opened {}: {v}", path.display()),
            (None, None) => format!("opened {}", path.display()),
        };
        self.set_message(text, false);
        self.view.fit_requested = true;
        self.filters.cancel(); // its result would be of the old image
        self.dirty = true;
        Ok(())
    }

    /// The display of typed `pixels` (uploaded and drawn); on failure the current image
    /// stays (the runner gets its pixels back).
    fn typed_view_of(
        &mut self,
        gl: &glow::Context,
        pixels: &PixelImage,
        path: &Path,
    ) -> anyhow::Result<TypedView> {
        TypedView::new(gl, Arc::new(pixels.clone()), &mut self.display).map_err(|e| {
            if let Err(again) = self.runner.load_source(gl, &self.document.image) {
                log::error!("reloading the current image: {again}");
            }
            anyhow::anyhow!("{}: {e}", path.display())
        })
    }

    /// The window's title: the image's file name, `*` when the result is not saved.
    pub fn window_title(&self) -> String {
        let name = self
            .document
            .path
            .file_name()
            .map_or_else(|| "no image".into(), |n| n.to_string_lossy().into_owned());
        let saved =
            self.written.0.same(&self.document_pixels()) && self.written.1 == self.stack.active();
        format!("{name}{} — cudalens", if saved { "" } else { "*" })
    }

    /// Saves the result to `path` in the document's type and channels (the dialog already
    /// asked before replacing a file; the input stays protected) and reports in the status
    /// bar, one line per conversion; true when written.
    fn save_result_pixels(&mut self, pixels: Result<PixelImage, String>, path: &Path) -> bool {
        let result = pixels.and_then(|img| {
            save_typed(&img, path, &self.document.path, self.jpeg_quality)
                .map_err(|e| e.to_string())
        });
        match result {
            Ok(conversions) => {
                self.save_dir = path.parent().map(Path::to_path_buf);
                let (text, warning) = saved_message(path, &conversions);
                self.set_message(text, warning);
                true
            }
            Err(e) => {
                self.set_message(e, true);
                false
            }
        }
    }

    /// The result to save: the typed one, or the output read back from GL in the
    /// document's channel count.
    fn result_to_save(&mut self, gl: &glow::Context) -> Result<PixelImage, String> {
        if let Some(t) = &self.typed {
            return Ok(self.saved_typed_result(t.shown(), &t.source));
        }
        let output = self.runner.read_output(gl);
        output
            .map(|p| rgba8_in_channels(self.saved_result(p), self.document.channels))
            .map_err(|e| e.to_string())
    }

    /// Asks where to open or save: the desktop's dialog, else the built-in one (the
    /// answer then comes in a later frame, through `finish_dialog`).
    fn ask_path(&mut self, gl: &glow::Context, purpose: DialogPurpose) {
        let (dir, name, extensions): (PathBuf, String, &'static [&'static str]) = match purpose {
            DialogPurpose::Open => (self.document_dir(), String::new(), &OPEN_EXTENSIONS),
            DialogPurpose::SaveResult => {
                let stem = self
                    .document
                    .path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "result".into());
                // A video's result is the frame shown: its number goes in the name.
                let frame = self
                    .video
                    .as_ref()
                    .map_or_else(String::new, |v| format!("-frame{:06}", v.shown()));
                (
                    self.save_dir_or_document_dir(),
                    format!("{stem}{frame}-cudalens.png"),
                    &SAVE_EXTENSIONS,
                )
            }
            DialogPurpose::SaveMandelbrot => (
                self.save_dir_or_document_dir(),
                "mandelbrot.png".into(),
                &["png", "exr"],
            ),
            DialogPurpose::ImportPalette => (self.document_dir(), String::new(), &["map"]),
        };
        let native = run_native(|| {
            let d = rfd::FileDialog::new()
                .set_directory(&dir)
                .add_filter(purpose.filter_name(), extensions);
            if purpose.is_save() {
                d.set_file_name(name.as_str()).save_file()
            } else {
                d.pick_file()
            }
        });
        match native {
            NativeAnswer::Chosen(p) => self.finish_dialog(gl, purpose, &p),
            NativeAnswer::Cancelled => {}
            NativeAnswer::Unavailable => {
                self.browser = Some(FileBrowser::new(purpose, dir, &name, extensions));
            }
        }
    }

    /// Where the save dialogs start: the folder of the last save, while it exists, else
    /// the current image's.
    fn save_dir_or_document_dir(&self) -> PathBuf {
        self.save_dir
            .clone()
            .filter(|d| d.is_dir())
            .unwrap_or_else(|| self.document_dir())
    }

    /// The folder of the current image (where dialogs start).
    fn document_dir(&self) -> PathBuf {
        self.document
            .path
            .parent()
            .filter(|p| p.is_dir())
            .map_or_else(
                || std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
                Path::to_path_buf,
            )
    }

    /// Opens or saves `path`, as the dialog for `purpose` answered.
    fn finish_dialog(&mut self, gl: &glow::Context, purpose: DialogPurpose, path: &Path) {
        match purpose {
            DialogPurpose::Open => self.open(gl, path),
            DialogPurpose::SaveResult => {
                let pixels = self.result_to_save(gl);
                if self.save_result_pixels(pixels, path) {
                    self.written = (self.document_pixels(), self.stack.active());
                }
            }
            DialogPurpose::SaveMandelbrot => {
                self.mandelbrot
                    .save_view(gl, path, self.document.path.clone())
            }
            DialogPurpose::ImportPalette => self.mandelbrot.import_palette(path),
        }
    }

    fn undo(&mut self, gl: &glow::Context) {
        match self.tab {
            Tab::Image => self.image_history_step(gl, false),
            Tab::Mandelbrot => self.mandelbrot.undo(),
        }
    }

    fn redo(&mut self, gl: &glow::Context) {
        match self.tab {
            Tab::Image => self.image_history_step(gl, true),
            Tab::Mandelbrot => self.mandelbrot.redo(),
        }
    }

    fn apply(&mut self, gl: &glow::Context, action: Action) {
        // Actions read and change the document's host pixels.
        self.refresh_host_pixels();
        match action {
            Action::Open => self.ask_path(gl, DialogPurpose::Open),
            Action::OpenPath(p) => self.open(gl, &p),
            Action::SaveAs => self.ask_path(
                gl,
                match self.tab {
                    Tab::Image => DialogPurpose::SaveResult,
                    Tab::Mandelbrot => DialogPurpose::SaveMandelbrot,
                },
            ),
            Action::SetJpegQuality(q) => self.jpeg_quality = q.clamp(1, 100),
            Action::ToggleBrightnessContrast => match self.typed.as_mut() {
                Some(t) => t.panel_open = !t.panel_open,
                None => self.set_message(
                    "Brightness/Contrast adjusts 16-bit and float images; 8-bit ones show as they are",
                    false,
                ),
            },
            Action::Quit => {
                self.request_quit();
            }
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
            Action::Undo => self.undo(gl),
            Action::Redo => self.redo(gl),
            // The Transform menu's actions (handled by `edit_action` before this).
            Action::Edit(_)
            | Action::ResizeDialog
            | Action::CropToSelection
            | Action::SelectAll
            | Action::SelectNone
            | Action::ToggleSelectTool
            | Action::ToggleSelectionOnly => {}
        }
    }

    /// The video's keys and the frame its clock says is due (its stack runs this frame);
    /// the window wakes again when the next one is due.
    fn video_tick(&mut self, gl: &glow::Context, ctx: &egui::Context) {
        let Some(player) = self.video.as_mut() else {
            return;
        };
        if let Some(request) = video_keys(ctx, player.is_playing()) {
            self.video_request(request);
        }
        let Some(player) = self.video.as_mut() else {
            return;
        };
        let (shown, event) = player.poll(Instant::now());
        match event {
            Some(PlayerEvent::Ended) => self.set_message("end of the video", false),
            Some(PlayerEvent::Failed(e)) => self.set_message(e, true),
            None => {}
        }
        if let Some(frame) = shown {
            self.show_video_frame(gl, frame);
        }
        if !self.video.as_ref().is_some_and(VideoPlayer::is_playing) {
            self.refresh_host_pixels();
        }
        if let Some(wait) = self.video.as_ref().and_then(|v| v.next_due(Instant::now())) {
            ctx.request_repaint_after(wait);
        }
    }

    /// Carries out a request of the video's controls or keys (its frame comes through
    /// the player's poll).
    fn video_request(&mut self, request: VideoRequest) {
        let Some(player) = self.video.as_mut() else {
            return;
        };
        if let Err(e) = handle_request(player, request, Instant::now()) {
            self.set_message(e.to_string(), true);
        }
    }

    /// Makes `frame` the document's pixels (selection, stack and view stay) and runs the
    /// stack on it. A frame on the device goes into the source there; the document's host
    /// pixels follow when playback stops.
    fn show_video_frame(&mut self, gl: &glow::Context, frame: ShownFrame) {
        if frame.pixels.size() != self.document.size() {
            return self.set_message("the video changed size mid-stream; frame skipped", true);
        }
        let loaded = match frame.pixels {
            FramePixels::Device(f) if self.runner.cuda_device().is_some() => self
                .runner
                .load_source_on_device(gl, f.size(), |array, stream| f.copy_to(array, stream))
                .map(|_| self.device_frame = Some(f))
                .map_err(anyhow::Error::from),
            // CUDA fell back to the CPU since the video opened: through the host.
            pixels => pixels
                .into_host()
                .map_err(anyhow::Error::from)
                .and_then(|image| self.show_host_frame(gl, image)),
        };
        if let Err(e) = loaded {
            return self.set_message(format!("video frame: {e:#}"), true);
        }
        self.inspected = None;
        self.dirty = true;
    }

    /// Makes `image` the document's pixels and the source.
    fn show_host_frame(
        &mut self,
        gl: &glow::Context,
        image: image::RgbaImage,
    ) -> anyhow::Result<()> {
        self.runner.load_source(gl, &image)?;
        self.document.image = Arc::new(image);
        self.device_frame = None;
        Ok(())
    }

    /// Reads the pixels of the video frame on screen into the document when they are
    /// still only on the device (its result stays the result of the same pixels).
    fn refresh_host_pixels(&mut self) {
        let Some(frame) = self.device_frame.take() else {
            return;
        };
        match frame.read_rgba() {
            Ok(image) => {
                let was_result = self.result_ready();
                self.document.image = Arc::new(image);
                if was_result {
                    self.output_of = Some(self.document.image.clone());
                }
            }
            Err(e) => self.set_message(format!("reading the video frame: {e}"), true),
        }
    }

    /// Runs the filter stack if anything changed (or every frame when continuous).
    fn process_if_needed(&mut self, gl: &glow::Context, ctx: &egui::Context) {
        self.take_filter_result(gl);
        // The histogram counts what is shown: with filters on the selection only, the
        // result inside it and the source outside.
        let shown = self.selection_only().map(|s| ShownSelection {
            x: s.x,
            y: s.y,
            width: s.width,
            height: s.height,
        });
        if self.runner.targets.shown_selection != shown {
            self.runner.targets.shown_selection = shown;
            self.dirty = true;
        }
        let busy = self.filters.busy() || self.typed_filters.busy();
        if !(self.dirty || (self.continuous && !busy)) {
            return;
        }
        self.dirty = false;
        if self.typed.is_some() {
            return self.start_typed_filters(gl, ctx);
        }
        if self.filter_in_background() {
            let image = self.document.image.clone();
            let filters = self.builtin_filters();
            let ctx = ctx.clone();
            self.filters_started = Instant::now();
            self.job_of = Some(image.clone());
            self.filters.start(
                move || ctx.request_repaint(),
                move |job| filter_job(&image, &filters, shown, job),
            );
            return;
        }
        self.filters.cancel();
        let start = Instant::now();
        match self.runner.run_loaded(
            gl,
            &self.document.image,
            &self.stack.runnable(self.kernels_off()),
        ) {
            Ok(report) => {
                self.frame_ms = start.elapsed().as_secs_f64() * 1e3;
                self.report = Some(report);
                self.inspected = None; // the output changed under the cursor
                self.output_of = Some(self.document.image.clone());
            }
            Err(e) => self.set_message(format!("processing failed: {e}"), true),
        }
    }

    /// The built-in filters of the stack as it runs now (what the CPU workers take).
    fn builtin_filters(&self) -> Vec<crate::filters::Filter> {
        self.stack
            .runnable(self.kernels_off())
            .iter()
            .filter_map(|s| s.filter().copied())
            .collect()
    }

    /// Runs the stack on the typed source: through the runner's typed kernels on CUDA
    /// (here, as an 8-bit frame runs), otherwise the built-in filters' typed CPU references
    /// on the worker, or here in scripted runs (--frames).
    fn start_typed_filters(&mut self, gl: &glow::Context, ctx: &egui::Context) {
        let Some(source) = self.typed.as_ref().map(|t| t.source.clone()) else {
            return;
        };
        self.filters_started = Instant::now();
        self.typed_job_of = Some(source.clone());
        if self.runner.status.kind == BackendKind::Cuda {
            self.typed_filters.cancel();
            return self.typed_frame_on_gpu(gl, &source);
        }
        let filters = self.builtin_filters();
        if self.synchronous {
            self.typed_filters.cancel();
            let start = Instant::now();
            if let Some(result) = run_typed_stack(&source, &filters, &mut |_| true) {
                let ms = start.elapsed().as_secs_f64() * 1e3;
                self.typed_stages = vec![crate::pipeline::StageTime {
                    name: TYPED_CPU_STAGE.into(),
                    ms,
                }];
                self.typed_filters_done(gl, result, ms);
            }
            return;
        }
        let ctx = ctx.clone();
        self.typed_filters.start(
            move || ctx.request_repaint(),
            move |job| {
                let start = Instant::now();
                let done = run_typed_stack(&source, &filters, &mut |p| {
                    job.set_progress(p);
                    !job.cancelled()
                });
                if let Some(result) = done {
                    job.send((result, start.elapsed().as_secs_f64() * 1e3));
                }
            },
        );
    }

    /// One frame of the typed stack through the runner: the source loaded when it changed,
    /// the stack run in the source's type, the result read back once (the histogram, the
    /// pixel inspector and Save read it) and shown.
    fn typed_frame_on_gpu(&mut self, gl: &glow::Context, source: &Arc<PixelImage>) {
        let start = Instant::now();
        let stages = self.stack.runnable(self.kernels_off());
        let held = self
            .typed_loaded
            .as_ref()
            .is_some_and(|l| Arc::ptr_eq(l, source))
            && self.runner.source().is_some_and(|t| {
                let format = crate::pipeline::GpuPixelFormat::of(source).gl();
                (t.width, t.height, t.format) == (source.width(), source.height(), format)
            });
        let run = |app: &mut Self| -> Result<_, crate::pipeline::PipelineError> {
            if !held {
                app.typed_loaded = None;
                app.runner.load_pixels(gl, source)?;
                app.typed_loaded = Some(source.clone());
            }
            let report = app.runner.run_loaded_pixels(gl, source, &stages)?;
            let read = Instant::now();
            let result = app.runner.read_output_pixels(gl)?;
            Ok((
                report,
                crate::pipeline::StageTime::since(TYPED_READ_BACK_STAGE, read),
                result,
            ))
        };
        match run(self) {
            Ok((report, read_back, result)) => {
                let ms = start.elapsed().as_secs_f64() * 1e3;
                self.typed_stages = report.stages;
                self.typed_stages.push(read_back);
                self.typed_filters_done(gl, result, ms);
            }
            Err(e) => self.set_message(format!("processing failed: {e}"), true),
        }
    }

    /// Shows a typed result of the current source.
    fn typed_filters_done(&mut self, gl: &glow::Context, result: PixelImage, ms: f64) {
        let Some(source) = self.typed.as_ref().map(|t| t.source.clone()) else {
            return;
        };
        let current = self
            .typed_job_of
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(s, &source));
        if !current {
            return;
        }
        // With filters on a selection only, the histogram counts what is shown (as saved).
        let shown = self
            .selection_only()
            .map(|_| self.saved_typed_result(&result, &source));
        let Some(t) = self.typed.as_mut() else {
            return;
        };
        if let Err(e) = t.set_result(gl, result, &mut self.display, shown) {
            return self.set_message(format!("processing failed: {e}"), true);
        }
        self.frame_ms = ms;
        if std::mem::take(&mut self.auto_contrast) {
            t.panel_open = true;
            t.panel.adjuster.auto();
            if let Err(e) = t.display_changed(gl, &mut self.display) {
                self.set_message(format!("display failed: {e}"), true);
            }
        }
    }

    /// The kernel editor's window over its stage of the stack (closed when the stage is
    /// gone); an edit that compiled replaces the stage.
    fn kernel_editor_ui(&mut self, ctx: &egui::Context) {
        let Some(path) = self.kernel_editor.editing() else {
            return;
        };
        let Some(index) = self
            .stack
            .entries
            .iter()
            .position(|e| e.filter.kernel().is_some_and(|k| k.path() == path))
        else {
            self.kernel_editor.open = false;
            return;
        };
        let Some(stage) = self.stack.entries[index].filter.kernel().cloned() else {
            return;
        };
        if self.kernel_copy_gbps.is_none() {
            if let Some(d) = self.runner.cuda_device() {
                self.kernel_copy_gbps = Some(measure_copy_gbps(d));
            }
        }
        let figures = StageFigures {
            report: self.report.as_ref(),
            loaded: self.runner.user_kernel(&stage),
            arch: self
                .runner
                .cuda_device()
                .map(|d| crate::user_kernel::device::arch_for(d.info.compute_capability)),
            copy_gbps: self.kernel_copy_gbps.flatten(),
            no_cuda: (self.runner.status.kind == BackendKind::Cpu)
                .then(|| self.runner.status.reason.clone()),
        };
        if let Some(next) = self.kernel_editor.window_ui(ctx, &stage, &figures) {
            self.stack.entries[index].filter = crate::pipeline::Stage::Kernel(next);
            self.dirty = true;
        }
        if let Some((text, is_error)) = self.kernel_editor.message.take() {
            self.set_message(text, is_error);
        }
    }

    /// Why user kernels cannot run here (the CPU backend), if so.
    fn kernels_off(&self) -> Option<&'static str> {
        (self.runner.status.kind == BackendKind::Cpu).then_some(crate::user_kernel::CPU_REASON)
    }

    /// Whether the filter stack runs on a worker thread: the CPU backend on a large image
    /// (a scripted run with --frames stays on the UI thread, frame by frame).
    fn filter_in_background(&self) -> bool {
        let (w, h) = self.document.size();
        !self.synchronous
            && self.runner.status.kind == BackendKind::Cpu
            && u64::from(w) * u64::from(h) >= BACKGROUND_PIXELS
    }

    /// Shows the worker's result, if one arrived.
    fn take_filter_result(&mut self, gl: &glow::Context) {
        if let Some((result, ms)) = self.typed_filters.poll() {
            self.typed_stages = vec![crate::pipeline::StageTime {
                name: TYPED_CPU_STAGE.into(),
                ms,
            }];
            self.typed_filters_done(gl, result, ms);
        }
        if let Some((image, report)) = self.filters.poll() {
            let resized = self.runner.resize_output(gl, image.width(), image.height());
            if let Err(e) = resized {
                return self.set_message(format!("processing failed: {e}"), true);
            }
            self.pending = Some(PendingResult {
                image,
                report,
                next_row: 0,
                upload: Duration::ZERO,
                of: self.job_of.take(),
            });
        }
        self.upload_pending(gl);
    }

    /// Makes the output texture the size of the coming background result now, beside the
    /// source's upload (before the first picture), not when the result arrives: storage for
    /// 8000×6000 takes Mesa ~160 ms to make, a stall the UI would show.
    pub(super) fn presize_output(&mut self, gl: &glow::Context) {
        if !self.filter_in_background() {
            return;
        }
        let (w, h) = self.document.size();
        let (w, h) =
            crate::pipeline::Stage::chain_size(&self.stack.runnable(self.kernels_off()), w, h);
        if let Err(e) = self.runner.resize_output(gl, w, h) {
            log::warn!("output texture for the coming result: {e}");
        }
    }

    /// Uploads the next band of the background result (a band a frame, so that a large
    /// one never stalls the UI); the last band makes it the result shown.
    fn upload_pending(&mut self, gl: &glow::Context) {
        let Some(p) = self.pending.as_mut() else {
            return;
        };
        let (w, h) = p.image.dimensions();
        let rows = (UPLOAD_BAND_BYTES / (w as usize * 4)).clamp(1, h as usize) as u32;
        let end = (p.next_row + rows).min(h);
        let start = Instant::now();
        let band = self
            .runner
            .targets
            .output
            .upload_rows(gl, &p.image, p.next_row..end);
        p.upload += start.elapsed();
        p.next_row = end;
        let done = end >= h;
        let result = band.and_then(|()| match done {
            true => upload_cpu_bins(gl, &mut self.runner.targets, &p.report),
            false => Ok(()),
        });
        if let Err(e) = result {
            self.pending = None;
            return self.set_message(format!("processing failed: {e}"), true);
        }
        if !done {
            return;
        }
        let Some(PendingResult {
            mut report,
            upload,
            of,
            ..
        }) = self.pending.take()
        else {
            return;
        };
        report.stages.push(crate::pipeline::StageTime {
            name: "upload".into(),
            ms: upload.as_secs_f64() * 1e3,
        });
        self.frame_ms = crate::pipeline::total_of(&report.stages);
        self.report = Some(report);
        self.inspected = None;
        self.output_of = of;
    }

    /// Whether the document has pixels that are not opaque (remembered per document
    /// pixels: the view draws a checkerboard behind such images).
    fn transparent(&mut self) -> bool {
        use rayon::prelude::*;
        match &self.alpha_of {
            Some((image, has)) if Arc::ptr_eq(image, &self.document.image) => *has,
            _ => {
                let image = self.document.image.clone();
                let has = image.as_raw().par_chunks_exact(4).any(|p| p[3] != 255);
                self.alpha_of = Some((image, has));
                has
            }
        }
    }

    /// Whether the output texture shows a result of the document's pixels (not yet after
    /// an open or an edit, while the stack runs in the background).
    pub fn result_ready(&self) -> bool {
        if let Some(t) = &self.typed {
            return t.result.is_some();
        }
        self.output_of
            .as_ref()
            .is_some_and(|o| Arc::ptr_eq(o, &self.document.image))
    }

    /// Whether another frame should follow at once: work waits in the tab shown (the
    /// other tab's waits until it is shown).
    pub fn wants_repaint(&self) -> bool {
        match self.tab {
            Tab::Image => {
                let busy = self.filters.busy() || self.typed_filters.busy();
                (self.continuous && !busy) || self.dirty || self.pending.is_some()
            }
            Tab::Mandelbrot => self.mandelbrot.dirty,
        }
    }

    /// Whether the shown tab's work runs (the explorer's render, the CPU filter stack).
    pub fn tab_busy(&self) -> bool {
        match self.tab {
            Tab::Image => {
                self.filters.busy() || self.typed_filters.busy() || self.pending.is_some()
            }
            Tab::Mandelbrot => self.mandelbrot.busy(),
        }
    }

    /// One frame of UI.
    pub fn ui(&mut self, ui: &mut egui::Ui, gl: &glow::Context) {
        let _ = self.repaint.set(ui.ctx().clone()); // the first frame's; the same after
        let mut actions = if self.browser.is_some() {
            Vec::new() // the dialog has the keyboard
        } else {
            shortcut_actions(ui.ctx())
        };
        let undo_label = match self.tab {
            Tab::Image => self.history.undo_label(&self.stack),
            Tab::Mandelbrot => None,
        };
        let redo_label = match self.tab {
            Tab::Image => self.history.redo_label().map(str::to_string),
            Tab::Mandelbrot => None,
        };
        let menu = MenuState {
            jpeg_quality: self.jpeg_quality,
            undo_label: undo_label.as_deref(),
            redo_label: redo_label.as_deref(),
            split: self.view.split.is_some(),
            continuous: self.continuous,
            can_undo: match self.tab {
                Tab::Image => self.history.can_undo(&self.stack),
                Tab::Mandelbrot => self.mandelbrot.history.can_undo(),
            },
            can_redo: match self.tab {
                Tab::Image => self.history.can_redo(),
                Tab::Mandelbrot => self.mandelbrot.history.can_redo(),
            },
            has_selection: self.view.selection.is_some(),
            select_tool: self.view.select_tool,
            selection_only: self.view.selection_only,
        };
        egui::Panel::top("menu").show(ui, |ui| {
            actions.extend(menu_bar_ui(ui, &self.recent, menu));
        });
        egui::Panel::top("tabs").show(ui, |ui| {
            ui.horizontal(|ui| {
                tabs_ui(ui, &mut self.tab);
                if offered_view_ui(ui, &mut self.mandelbrot) {
                    self.tab = Tab::Mandelbrot;
                }
            })
        });
        for a in actions {
            let moves_pixels = matches!(
                a,
                Action::Edit(_) | Action::ResizeDialog | Action::CropToSelection
            );
            if moves_pixels && self.video.is_some() {
                self.set_message(
                    "Transform acts on still images; a video plays as it is",
                    true,
                );
                continue;
            }
            if a.is_image_edit() && self.tab != Tab::Image {
                // The Transform menu acts on the image, which this tab hides.
                self.set_message("Transform acts on the image: Ctrl+1 shows it", true);
                continue;
            }
            if !self.edit_action(gl, ui.ctx(), &a) {
                self.apply(gl, a);
            }
        }
        self.resize_window_ui(gl, ui.ctx());
        self.take_edit_result(gl);
        if let Some(b) = self.browser.as_mut() {
            match file_browser_ui(ui.ctx(), b) {
                BrowserOutcome::Open => {}
                BrowserOutcome::Cancelled => self.browser = None,
                BrowserOutcome::Chosen(p) => {
                    let purpose = b.purpose;
                    self.browser = None;
                    self.finish_dialog(gl, purpose, &p);
                }
            }
        }
        if self.tab == Tab::Image {
            self.video_tick(gl, ui.ctx());
            self.process_if_needed(gl, ui.ctx());
        }
        self.status_ui(ui);
        match self.tab {
            Tab::Image => self.image_tab_ui(ui, gl),
            Tab::Mandelbrot => {
                let mut request = None;
                side_panel_ui(ui, "mandel_controls", |ui| {
                    request = mandelbrot_controls_ui(ui, &mut self.mandelbrot)
                });
                egui::CentralPanel::default()
                    .show(ui, |ui| mandelbrot_picture_ui(ui, &mut self.mandelbrot, gl));
                match request {
                    Some(ControlsRequest::SaveView) => {
                        self.ask_path(gl, DialogPurpose::SaveMandelbrot)
                    }
                    Some(ControlsRequest::ImportPalette) => {
                        self.ask_path(gl, DialogPurpose::ImportPalette)
                    }
                    None => {}
                }
            }
        }
        if let Some((text, is_error)) = self.mandelbrot.message.take() {
            self.set_message(text, is_error);
        }
        if let Some(dir) = self.mandelbrot.saved_dir.take() {
            self.save_dir = Some(dir);
        }
        if self.tab == Tab::Image {
            self.kernel_editor_ui(&ui.ctx().clone());
            self.brightness_contrast_ui(gl, &ui.ctx().clone());
        }
        self.quit_prompt_ui(&ui.ctx().clone());
        // Changes of this frame (not yet those of a held drag) are steps of undo.
        let held = ui.input(|i| i.pointer.any_down());
        self.history.observe(&self.stack, held);
    }

    /// The Brightness/Contrast window of a typed image, while open; a change draws the
    /// display again (on the GPU, no upload).
    fn brightness_contrast_ui(&mut self, gl: &glow::Context, ctx: &egui::Context) {
        let Some(t) = self.typed.as_mut().filter(|t| t.panel_open) else {
            return;
        };
        let mut open = true;
        let changed = brightness_contrast_window(ctx, &mut open, &mut t.panel);
        t.panel_open = open;
        if changed {
            if let Err(e) = t.display_changed(gl, &mut self.display) {
                self.set_message(format!("display failed: {e}"), true);
            }
        }
    }

    /// The one-line status bar; an expired message is dropped (and a frame is asked for
    /// when the shown one expires, so it goes away without input).
    fn status_ui(&mut self, ui: &mut egui::Ui) {
        let now = Instant::now();
        match self.message.as_ref().map(|m| m.remaining(now)) {
            Some(None) => self.message = None,
            Some(Some(left)) => ui.ctx().request_repaint_after(left),
            None => {}
        }
        let (backend, interop) = if self.tab == Tab::Image {
            (self.runner.status.clone(), self.runner.interop.clone())
        } else {
            let r = &self.mandelbrot.renderer;
            (r.status.clone(), r.interop().cloned())
        };
        let ready = self.result_ready();
        let (size, stages) = match (&self.tab, &self.report, &self.mandelbrot.frame) {
            // A new image shows its source, with its size, until its result is ready.
            (Tab::Image, _, _) if !ready => (Some(self.document.size()), Vec::new()),
            (Tab::Image, _, _) if self.typed.is_some() => (
                self.typed.as_ref().map(|t| t.shown().dimensions()),
                self.typed_stages.clone(),
            ),
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
        let image_tab = self.tab == Tab::Image;
        let pixel = match &self.typed {
            Some(t) => self.typed_hover.filter(|_| image_tab).map(|(x, y)| {
                let source = pixel_values_text(&t.source, x, y);
                // Outside a selection the filters apply to only, the source shows.
                let rect = self.selection_only().map(|s| (s.x, s.y, s.width, s.height));
                let same_size = t.shown().dimensions() == t.source.dimensions();
                let shown = match same_size && shows_source_at((x, y), rect) {
                    true => &t.source,
                    false => t.shown(),
                };
                let out = pixel_values_text(shown, x, y).unwrap_or_default();
                typed_pixel_text((x, y), source, &out)
            }),
            None => self
                .inspected
                .filter(|_| image_tab)
                .map(|(p, out)| pixel_text(p, self.source_pixel_text(p), out)),
        };
        let selection = self
            .view
            .selection
            .filter(|_| image_tab)
            .map(|s| s.describe());
        let pixel = match (pixel, selection) {
            (Some(p), Some(s)) => Some(format!("{s} · {p}")),
            (p, s) => p.or(s),
        };
        let pixel = if image_tab {
            pixel
        } else {
            self.mandelbrot.pointer_readout()
        };
        let zoom_percent = image_tab.then(|| self.view.zoom * ui.ctx().pixels_per_point() * 100.0);
        egui::Panel::bottom("status").show(ui, |ui| {
            status_bar_ui(
                ui,
                &StatusLine {
                    backend: &backend,
                    interop: interop.as_ref(),
                    size,
                    frame_ms,
                    stages: &stages,
                    pixel,
                    zoom_percent,
                    message: self.message.as_ref(),
                },
            );
        });
    }

    /// The source pixel's values at `p`, in the image's units, when the result has the
    /// source's size (no transpose).
    fn source_pixel_text(&self, (x, y): (u32, u32)) -> Option<String> {
        let output = &self.runner.targets.output;
        let same = (output.width, output.height) == self.document.size();
        if !same {
            return None;
        }
        let pixel = match &self.device_frame {
            Some(frame) => frame.pixel((x, y)),
            None => self.document.image.get_pixel_checked(x, y).map(|p| p.0),
        };
        pixel.map(|p| samples_text(&p))
    }

    fn image_tab_ui(&mut self, ui: &mut egui::Ui, gl: &glow::Context) {
        side_panel_ui(ui, "filters", |ui| {
            ui.heading("Filters");
            let off = self.kernels_off();
            let action = filter_stack_ui(ui, &mut self.stack, off);
            self.dirty |= action.changed;
            if let Some(label) = action.label {
                self.history.stack.name_next(label);
            }
            if let Some(k) = action
                .edit
                .and_then(|i| self.stack.entries.get(i))
                .and_then(|e| e.filter.kernel())
            {
                self.kernel_editor.open_on(k);
            }
            let (done, undone) = self.history.labels();
            let jump = egui::CollapsingHeader::new("History")
                .show(ui, |ui| history_panel_ui(ui, &done, &undone))
                .body_returned
                .flatten();
            match jump {
                Some(HistoryJump::Back(n)) => {
                    (0..n).for_each(|_| self.image_history_step(gl, false))
                }
                Some(HistoryJump::Forward(n)) => {
                    (0..n).for_each(|_| self.image_history_step(gl, true))
                }
                None => {}
            }
            ui.collapsing("Presets", |ui| {
                let document = CommandSource {
                    input: &self.document.path,
                    edits: &self.edits_applied,
                    selection: self
                        .view
                        .selection
                        .filter(|_| self.view.selection_only)
                        .map(|s| (s.x, s.y, s.width, s.height)),
                };
                let out = presets_ui(ui, &mut self.presets, &mut self.stack, document);
                self.dirty |= out.stack_changed;
                if let Some((text, is_error)) = out.message {
                    self.set_message(text, is_error);
                }
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
        if let Some(player) = self.video.as_mut() {
            let mut request = None;
            egui::Panel::bottom("video").show(ui, |ui| request = video_controls_ui(ui, player));
            if let Some(r) = request {
                self.video_request(r);
                ui.ctx().request_repaint(); // the clock (or the seek's frame) from now on
            }
        }
        egui::Panel::bottom("histogram")
            .default_size(190.0)
            .resizable(true)
            .show(ui, |ui| {
                let ready = self.result_ready();
                if let Some(t) = &self.typed {
                    return typed_histogram_ui(ui, t.histogram.as_ref());
                }
                histogram_panel_ui(
                    ui,
                    &mut self.histogram,
                    self.report.as_ref().filter(|_| ready).map(|r| &r.histogram),
                );
            });
        let transparent = self.transparent();
        egui::CentralPanel::default().show(ui, |ui| {
            let output = &self.runner.targets.output;
            let ready = self.result_ready();
            let textures = match &self.typed {
                Some(t) => ViewTextures {
                    output: self.display.output_id,
                    output_size: t.shown().dimensions(),
                    original: self.display.original_id,
                    original_size: t.source.dimensions(),
                    result_ready: ready,
                    transparent,
                },
                None => ViewTextures {
                    output: self.output_id,
                    output_size: (output.width, output.height),
                    original: self.document.texture_id,
                    original_size: self.document.size(),
                    result_ready: ready,
                    transparent,
                },
            };
            let out = image_view_ui(ui, &mut self.view, &textures);
            if self.typed.is_some() {
                // Typed values come from the host pixels: no GL readback.
                self.typed_hover = out.hovered_pixel.filter(|_| ready);
                self.inspected = None;
            }
            // The pixel inspector reads the result: none while the source stands in for it.
            let hovered = out.hovered_pixel.filter(|_| ready);
            // A GL readback stalls the pipeline: read only when the hovered pixel changed
            // (a processed frame clears the cached value).
            self.inspected = match hovered {
                Some(p) if self.inspected.is_some_and(|(q, _)| q == p) => self.inspected,
                Some(_) if self.typed.is_some() => None,
                Some((x, y)) => output.read_pixel(gl, x, y).map(|px| ((x, y), px)),
                None => None,
            };
            if self.edits.busy() {
                let elapsed = self.filters_started.elapsed();
                if progress_ui(ui, "editing", self.edits.progress(), elapsed) {
                    self.edits.cancel();
                    self.set_message("edit cancelled; the image stays", false);
                }
            }
            if self.typed_filters.busy() {
                let elapsed = self.filters_started.elapsed();
                if progress_ui(ui, "filtering", self.typed_filters.progress(), elapsed) {
                    self.typed_filters.cancel();
                    self.set_message("filtering cancelled; the last result stays", false);
                }
            }
            if self.filters.busy() {
                let elapsed = self.filters_started.elapsed();
                if progress_ui(ui, "filtering", self.filters.progress(), elapsed) {
                    self.filters.cancel();
                    self.set_message("filtering cancelled; the last result stays", false);
                }
            }
        });
    }

    /// Releases GL objects (CUDA registrations first).
    pub fn destroy(self, gl: &glow::Context) {
        self.runner.destroy(gl);
        self.mandelbrot.destroy(gl);
        if let Some(t) = self.typed {
            t.destroy(gl);
        }
        self.display.destroy(gl);
        if let Ok(r) = Arc::try_unwrap(self.histogram.renderer) {
            r.destroy(gl);
        }
    }
}

/// The tab strip, under the menu bar.
pub fn tabs_ui(ui: &mut egui::Ui, tab: &mut Tab) {
    ui.horizontal(|ui| {
        ui.selectable_value(tab, Tab::Image, "Image")
            .on_hover_text("filters on an image (Ctrl+1)");
        ui.selectable_value(tab, Tab::Mandelbrot, "Mandelbrot")
            .on_hover_text("the Mandelbrot explorer (Ctrl+2)");
    });
}

/// Image formats the Open dialog lists.
const OPEN_EXTENSIONS: [&str; 18] = [
    "png", "jpg", "jpeg", "tif", "tiff", "bmp", "webp", "gif", "exr", "pgm", "ppm", "pnm", "mp4",
    "m4v", "mov", "mkv", "webm", "avi",
];

/// A video's frame as the document's loaded image, described by its stream.
fn video_frame_document(player: &VideoPlayer, frame: image::RgbaImage) -> LoadedImage {
    let info = player.info();
    let frames = player
        .frame_count()
        .map_or_else(String::new, |n| format!(", {n} frames"));
    LoadedImage {
        pixels: PixelImage::from_rgba8(frame),
        path: player.path().to_path_buf(),
        source_description: format!(
            "{} video ({}), {:.3} fps{frames}",
            info.codec,
            info.pixel_format,
            info.fps()
        ),
        conversion_note: None,
        exif_orientation: 1,
        source_profile: None,
    }
}

/// "(x, y) in R a G b B c A d · out R e …": the source pixel in its own units and the
/// result pixel under the cursor.
fn pixel_text((x, y): (u32, u32), source: Option<String>, out: [u8; 4]) -> String {
    let out = samples_text(&out);
    match source {
        Some(src) => format!("({x}, {y}) in {src} · out {out}"),
        None => format!("({x}, {y}) {out}"),
    }
}

/// "(x, y) in … · out …" for typed pixels, each in its own units.
fn typed_pixel_text((x, y): (u32, u32), source: Option<String>, out: &str) -> String {
    match source {
        Some(src) => format!("({x}, {y}) in {src} · out {out}"),
        None => format!("({x}, {y}) {out}"),
    }
}

/// A left side panel that scrolls, between [`SIDE_PANEL_WIDTHS`] wide.
pub(super) fn side_panel_ui<R>(
    ui: &mut egui::Ui,
    id: &str,
    add_contents: impl FnOnce(&mut egui::Ui) -> R,
) -> R {
    egui::Panel::left(id)
        .default_size(300.0)
        .size_range(SIDE_PANEL_WIDTHS)
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, add_contents)
                .inner
        })
        .inner
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pixel_readout_shows_source_and_result() {
        assert_eq!(
            pixel_text(
                (3, 4),
                Some(samples_text(&[1u8, 2, 3, 255])),
                [10, 20, 30, 255]
            ),
            "(3, 4) in R 1 G 2 B 3 A 255 · out R 10 G 20 B 30 A 255"
        );
        assert_eq!(
            pixel_text(
                (0, 0),
                Some(samples_text(&[0.5f32, -1.25, 3.0])),
                [0, 0, 0, 0]
            ),
            "(0, 0) in R 0.5 G −1.25 B 3 · out R 0 G 0 B 0 A 0"
        );
        assert_eq!(
            pixel_text((0, 0), None, [0, 0, 0, 0]),
            "(0, 0) R 0 G 0 B 0 A 0"
        );
    }
}
