//! The Mandelbrot explorer: a live view rendered at the panel's pixel size, XaoS-like
//! navigation (`mandelbrot_navigation`), undo/redo, colouring controls, bookmarks,
//! per-mode GPU times side by side, the explorer's frame time and the Mariani–Silver
//! overlay with its statistics. Zoom and pan move the exact (decimal) location, so the
//! explorer goes past f64 into deep views (perturbation, deep bookmarks). The Julia set of
//! the point under the cursor (J, or the right-click menu) or of a bookmark's centre is
//! explored the same way, and "Back to Mandelbrot" returns to where it was picked.

use super::cpu_jobs::{explorer_job, explorer_pan_job, ExplorerImage};
use super::mandelbrot_navigation::Navigator;
use super::palette_editor::{add_user_palette, palette_ui, PaletteEditor, PaletteRequest};
use super::settings::UserBookmark;
use super::user_bookmarks::{julia_button_ui, user_bookmarks_ui, BookmarkAction};
use super::view_history::ViewHistory;
use super::view_text::{short_scientific, view_from_text, view_to_text, ViewText};
use super::worker::{progress_ui, Worker};
use crate::mandelbrot::deep::{DeepBookmark, DEEP_BOOKMARKS};
#[cfg(test)]
use crate::mandelbrot::Palette;
use crate::mandelbrot::{
    kind_color, pan_offset, Dwells, Fractal, FractalKind, Gradient, JuliaC, MandelbrotSettings,
    Mode, MsRecord, PaletteChoice, Place, Precision, RectKind, Refinement, View, BOOKMARKS,
    DENSITY_RANGE, JULIA_START, MAX_DWELL_LIMIT, MAX_RENDER_SIDE,
};
use crate::pipeline::{BackendKind, MandelbrotFrame, MandelbrotRenderer};
use egui::{pos2, vec2, Color32, Rect, Sense, Stroke, Ui};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Overlay rectangles drawn at most, coarsest levels first (all are counted in the
/// statistics).
const OVERLAY_MAX: usize = 20_000;
/// How long a background frame that has shown nothing may run before a newer view
/// replaces it.
const RESTART_AFTER: std::time::Duration = std::time::Duration::from_millis(250);
/// The live Julia preview: size (pixels) and max dwell.
const PREVIEW_SIZE: (u32, u32) = (192, 144);
const PREVIEW_MAX_DWELL: u32 = 256;

pub struct MandelbrotView {
    pub renderer: MandelbrotRenderer,
    pub texture_id: egui::TextureId,
    pub settings: MandelbrotSettings,
    pub frame: Option<MandelbrotFrame>,
    /// Last dwell time of each mode, in the order of `Mode::ALL`.
    pub mode_ms: [Option<f64>; Mode::ALL.len()],
    pub dirty: bool,
    pub error: Option<String>,
    pub navigator: Navigator,
    pub history: ViewHistory,
    /// Wall time of the last render call (dwells, colour, interop, texture upload).
    pub render_ms: f64,
    /// Interval between the last two explorer frames (the whole UI frame).
    pub frame_interval_ms: Option<f64>,
    last_frame: Option<Instant>,
    /// The user's bookmarks (saved with the settings) and the name being typed.
    pub user_bookmarks: Vec<UserBookmark>,
    pub new_bookmark_name: String,
    /// The view being pasted as text.
    pub view_text: String,
    /// Frames computed in the background (CPU backend) and the texture they are shown in.
    worker: Worker<ExplorerImage>,
    cpu_texture: Option<crate::gl::GlTexture>,
    render_started: Instant,
    /// The settings of the picture shown (it lags the view while a frame computes).
    shown: Option<MandelbrotSettings>,
    /// The last full background frame's settings and dwells (with continuous values): a
    /// change of colouring or overlay alone recolours them, with no dwell work.
    kept: Option<(MandelbrotSettings, Arc<Dwells>)>,
    /// Work stays on the UI thread (scripted runs with --frames).
    pub synchronous: bool,
    /// The running job has shown a frame (its preview at least).
    delivered: bool,
    /// The Mandelbrot view a Julia set was picked from ("Back to Mandelbrot").
    julia_return: Option<Box<JuliaReturn>>,
    /// The right-click menu: where it opened (screen) and the pixel under it.
    menu: Option<(egui::Pos2, (f64, f64))>,
    /// Show a small Julia set of the point under the pointer while it moves.
    pub julia_preview: bool,
    /// That preview: the c it shows and its texture.
    preview: Option<((f64, f64), egui::TextureHandle)>,
    /// The user's palettes (saved with the settings) and their editor.
    pub user_palettes: Vec<Gradient>,
    palette_editor: PaletteEditor,
    /// The size "Save view as PNG" renders.
    pub save_size: SaveSize,
    /// A save rendered at another size than the window's, in the background.
    save_job: Worker<Result<PathBuf, ViewSaveError>>,
    save_started: Instant,
    /// For the status bar: a message (and whether it is an error) and the folder saved to.
    pub message: Option<(String, bool)>,
    pub saved_dir: Option<PathBuf>,
    /// The view an opened PNG carries ("Open View in Explorer"): the file and the view.
    pub offered_view: Option<(PathBuf, ViewText)>,
    /// The picture's pixel under the pointer (physical pixels), and the status bar's text
    /// for it once made (the point and its dwell).
    pub pointer: Option<(u32, u32)>,
    pointer_text: Option<((u32, u32), String)>,
    /// Colour cycling (XaoS's and Fractint's): the offset runs round the palette at this
    /// many cycles a second, recolouring the kept dwells each frame.
    pub cycling: bool,
    pub cycle_speed: f32,
    cycled_at: Option<Instant>,
}

/// What "Save view as PNG" renders: the picture shown, or the view at another size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaveSize {
    pub window: bool,
    pub width: u32,
    pub height: u32,
}

impl Default for SaveSize {
    fn default() -> Self {
        Self {
            window: true,
            width: 3840,
            height: 2160,
        }
    }
}

/// What the explorer's panel asks of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlsRequest {
    /// Ask where to save the view.
    SaveView,
    /// Ask for a `.map` palette file.
    ImportPalette,
}

/// `text` cut to at most `max` characters by an ellipsis in its middle: the leading
/// digits say where, the trailing ones which pixel.
fn elide_middle(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let chars: Vec<char> = text.chars().collect();
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[n - tail..]);
    out
}

/// The Mandelbrot view left for a Julia set: its place and undo history.
struct JuliaReturn {
    place: Place,
    history: ViewHistory,
}

impl MandelbrotView {
    pub fn new(
        renderer: MandelbrotRenderer,
        texture_id: egui::TextureId,
        overlay: bool,
        refinement: Refinement,
    ) -> Self {
        let settings = MandelbrotSettings {
            overlay,
            refinement,
            ..MandelbrotSettings::default()
        };
        Self {
            renderer,
            texture_id,
            settings,
            frame: None,
            mode_ms: [None; Mode::ALL.len()],
            dirty: true,
            error: None,
            navigator: Navigator::default(),
            history: ViewHistory::default(),
            render_ms: 0.0,
            frame_interval_ms: None,
            user_bookmarks: Vec::new(),
            new_bookmark_name: String::new(),
            last_frame: None,
            view_text: String::new(),
            worker: Worker::new("explorer"),
            cpu_texture: None,
            render_started: Instant::now(),
            shown: None,
            kept: None,
            synchronous: false,
            delivered: false,
            julia_return: None,
            menu: None,
            julia_preview: false,
            preview: None,
            user_palettes: Vec::new(),
            palette_editor: PaletteEditor::default(),
            save_size: SaveSize::default(),
            save_job: Worker::new("save view"),
            save_started: Instant::now(),
            message: None,
            saved_dir: None,
            offered_view: None,
            pointer: None,
            pointer_text: None,
            cycling: false,
            cycle_speed: 0.25,
            cycled_at: None,
        }
    }

    /// Moves the colour offset on by the time since the last frame while cycling (paused
    /// while a frame computes: only finished pictures cycle); asks for the next frame.
    fn cycle_colours(&mut self, ctx: &egui::Context) {
        if !self.cycling || self.busy() {
            self.cycled_at = None;
            return;
        }
        let now = Instant::now();
        if let Some(last) = self.cycled_at {
            let step = self.cycle_speed * now.duration_since(last).as_secs_f32();
            let c = &mut self.settings.coloring;
            c.offset = (c.offset + step).rem_euclid(1.0);
            self.dirty = true;
        }
        self.cycled_at = Some(now);
        ctx.request_repaint();
    }

    /// The dwell at pixel (x, y) of the picture shown: from the kept dwells (CPU backend)
    /// or the device's (CUDA); None while the picture is not of the current view.
    fn dwell_at(&self, (x, y): (u32, u32)) -> Option<u32> {
        if self.busy() {
            return None;
        }
        let s = &self.settings;
        match &self.kept {
            Some((kept, dwells)) if kept.same_dwells(s) => dwells
                .values
                .get(y as usize * dwells.width as usize + x as usize)
                .copied(),
            _ => self.renderer.dwell_at(s, x, y),
        }
    }

    /// The status bar's readout of the point under the pointer: its coordinates (to a few
    /// digits below a pixel, the middle of long ones elided) and its dwell.
    pub fn pointer_readout(&mut self) -> Option<String> {
        let p = self.pointer?;
        if let Some((at, text)) = &self.pointer_text {
            if *at == p {
                return Some(text.clone());
            }
        }
        let c = self
            .settings
            .point_at(f64::from(p.0) + 0.5, f64::from(p.1) + 0.5)
            .ok()?;
        let known = self.dwell_at(p);
        let dwell = match known {
            Some(d) if d >= self.settings.view.max_dwell => "inside (max dwell)".to_string(),
            Some(d) => format!("dwell {d}"),
            None => "dwell ?".to_string(),
        };
        let text = format!(
            "re {} im {} · {dwell}",
            elide_middle(&c.re().to_string(), 28),
            elide_middle(&c.im().to_string(), 28)
        );
        // A dwell still to come (a frame computing) is asked again next time.
        if known.is_some() {
            self.pointer_text = Some((p, text.clone()));
        }
        Some(text)
    }

    /// Imports the `.map` file at `path` as a user palette and shows it.
    pub fn import_palette(&mut self, path: &Path) {
        match crate::mandelbrot::load_map(path) {
            Ok(g) => {
                let g = add_user_palette(g, &mut self.user_palettes);
                self.message = Some((format!("palette '{}' imported", g.name()), false));
                self.settings.coloring.palette = PaletteChoice::User(g);
                self.dirty = true;
            }
            Err(e) => self.message = Some((e.to_string(), true)),
        }
    }

    /// Saves the view to `path` as a PNG that carries its parameters: the picture shown,
    /// or (another size) the view rendered on the CPU in the background; to a `.exr`, its
    /// raw dwells and continuous values, rendered on the CPU in the background. `protected`
    /// is never written (the open image).
    pub fn save_view(&mut self, gl: &glow::Context, path: &Path, protected: PathBuf) {
        let options = crate::image_io::SaveOptions {
            overwrite: true,
            protected: vec![protected],
            ..Default::default()
        };
        let mut s = self.settings.clone();
        if !self.save_size.window {
            (s.view.width, s.view.height) = (self.save_size.width, self.save_size.height);
        }
        let texts = super::view_text::view_chunks(&s);
        let exr = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("exr"));
        if self.save_size.window && !exr {
            let result = self
                .picture()
                .read(gl)
                .map_err(ViewSaveError::from)
                .and_then(|img| Ok(write_view_png(img, path, &options, &texts)?));
            self.saved(result.map(|()| path.to_path_buf()));
            return;
        }
        let (w, h) = (u64::from(s.view.width), u64::from(s.view.height));
        // Dwells, continuous values and colours: 12 bytes a pixel.
        if let Err(e) = crate::image_io::budget::check_host("this picture", w * h * 12) {
            self.message = Some((e, true));
            return;
        }
        s.overlay = false;
        let path = path.to_path_buf();
        self.save_started = Instant::now();
        self.save_job.start(
            || {},
            move |job| {
                let progress = |share: f32| job.set_progress(share * 0.9);
                let control = crate::pipeline::RenderControl {
                    cancelled: job.cancel_flag(),
                    progress: &progress,
                };
                let written = if exr {
                    s.coloring.smooth = true;
                    let (dwells, _) = crate::pipeline::cpu_dwells_cancellable(&s, control);
                    if job.cancelled() {
                        return;
                    }
                    job.set_progress(0.9);
                    super::view_text::save_view_exr(&dwells, &s, &path, &options)
                } else {
                    let (image, _) = crate::pipeline::cpu_picture(&s, control);
                    if job.cancelled() {
                        return;
                    }
                    job.set_progress(0.9);
                    write_view_png(image, &path, &options, &texts)
                };
                job.send(written.map(|()| path).map_err(ViewSaveError::from));
            },
        );
        self.message = Some((
            format!("rendering {w}×{h} in the background to save it"),
            false,
        ));
    }

    /// Reports a finished save.
    fn saved(&mut self, result: Result<PathBuf, ViewSaveError>) {
        self.message = Some(match result {
            Ok(path) => {
                self.saved_dir = path.parent().map(Path::to_path_buf);
                (format!("saved {} with its view", path.display()), false)
            }
            Err(e) => (e.to_string(), true),
        });
    }

    /// Remembers the view the PNG at `path` carries, if any (offered as "Open View in
    /// Explorer"); returns what to tell the user about it.
    pub fn offer_view_of(&mut self, path: &Path) -> Option<String> {
        self.offered_view = None;
        match crate::image_io::read_png_text(path, crate::image_io::VIEW_KEYWORD) {
            Ok(None) => None,
            Ok(Some(text)) => match view_from_text(&text) {
                Ok(view) => {
                    self.offered_view = Some((path.to_path_buf(), view));
                    Some("it carries a cudalens view: Open View in Explorer".into())
                }
                Err(e) => Some(format!("its cudalens view does not parse ({e})")),
            },
            Err(e) => Some(e.to_string()),
        }
    }

    /// Goes to the view the opened PNG carries.
    pub fn open_offered_view(&mut self) {
        if let Some((_, v)) = self.offered_view.clone() {
            self.go_to_text(&v);
        }
    }

    /// Goes to a view read from text (its max dwell, else the current one).
    pub fn go_to_text(&mut self, v: &ViewText) {
        let max_dwell = v.max_dwell.unwrap_or(self.settings.view.max_dwell);
        match Place::new(v.location, max_dwell) {
            Ok(place) => self.go_to_place_of(v.fractal, place),
            Err(e) => self.error = Some(format!("view: {e}")),
        }
    }

    /// Shows the Julia set of `c` (whole), remembering the Mandelbrot view to go back to.
    pub fn show_julia(&mut self, c: JuliaC) {
        let from_mandelbrot = self.settings.view.fractal == Fractal::Mandelbrot;
        let place = self.settings.place();
        match self.settings.show_julia(c) {
            Ok(()) => {
                let history = std::mem::take(&mut self.history);
                if let (true, Ok(place)) = (from_mandelbrot, place) {
                    self.julia_return = Some(Box::new(JuliaReturn { place, history }));
                }
                self.error = None;
                self.dirty = true;
            }
            Err(e) => self.error = Some(format!("Julia set: {e}")),
        }
    }

    /// The Julia set of the point under pixel (px, py) of the Mandelbrot view.
    pub fn julia_at(&mut self, px: f64, py: f64) {
        match self.settings.point_at(px, py) {
            Ok(c) => self.show_julia(c),
            Err(e) => self.error = Some(format!("Julia set: {e}")),
        }
    }

    /// Back to the Mandelbrot view the Julia set was picked from (its size stays the
    /// panel's), or to the whole set when there is none.
    pub fn back_to_mandelbrot(&mut self) {
        self.settings.view.fractal = Fractal::Mandelbrot;
        match self.julia_return.take() {
            Some(r) => {
                self.settings.set_place(&r.place);
                self.history = r.history;
            }
            None => {
                let home = View::default();
                (self.settings.view.center, self.settings.view.span) = (home.center, home.span);
                self.settings.view.max_dwell = home.max_dwell;
                self.settings.deep = None;
                self.history = ViewHistory::default();
            }
        }
        self.error = None;
        self.dirty = true;
    }

    /// J: the Julia set at pixel (px, py) from the Mandelbrot set, back from a Julia set.
    pub fn toggle_julia(&mut self, px: f64, py: f64) {
        match self.settings.view.fractal {
            Fractal::Mandelbrot => self.julia_at(px, py),
            Fractal::Julia { .. } => self.back_to_mandelbrot(),
        }
    }

    /// Whether frames are computed on a worker thread: on the CPU backend, unless a
    /// scripted run (--frames) wants each frame finished before it is drawn.
    fn in_background(&self) -> bool {
        !self.synchronous && self.renderer.status.kind == BackendKind::Cpu
    }

    /// The GL texture showing the explorer's picture.
    pub fn picture(&self) -> &crate::gl::GlTexture {
        match (&self.cpu_texture, self.in_background()) {
            (Some(t), true) => t,
            _ => self.renderer.texture(),
        }
    }

    /// Whether a frame is being computed in the background.
    pub fn busy(&self) -> bool {
        self.worker.busy()
    }

    /// Shows the worker's newest frame, if one arrived.
    fn take_result(&mut self, gl: &glow::Context) {
        let Some(r) = self.worker.poll() else {
            return;
        };
        if let Err(e) = self.show_cpu_picture(gl, &r.image) {
            self.error = Some(e.to_string());
            return;
        }
        self.shown = Some(r.settings.clone());
        self.delivered = true;
        if !r.preview {
            self.mode_ms[r.settings.mode.index()] = Some(r.frame.dwell_ms());
            self.frame = Some(r.frame);
            self.render_ms = self.render_started.elapsed().as_secs_f64() * 1e3;
            self.kept = r.dwells.map(|d| (r.settings, d));
        }
        self.error = None;
    }

    /// Uploads a picture computed on the CPU into the texture that shows it.
    fn show_cpu_picture(
        &mut self,
        gl: &glow::Context,
        image: &image::RgbaImage,
    ) -> Result<(), crate::gl::GlError> {
        match self.cpu_texture.as_mut() {
            Some(t) => t.upload(gl, image),
            None => {
                let mut t = crate::gl::GlTexture::new(gl, image.width(), image.height(), None)?;
                let up = t.upload(gl, image);
                self.cpu_texture = Some(t);
                up
            }
        }
    }

    /// Recolours the kept dwells when only the colouring or the overlay changed since
    /// they were computed (XaoS's palette changes: no dwell work); true when it did.
    fn recolour(&mut self, gl: &glow::Context) -> bool {
        let Some((computed, dwells)) = &self.kept else {
            return false;
        };
        if !computed.same_dwells(&self.settings) || !dwells.can_colour(&self.settings.coloring) {
            return false;
        }
        let start = Instant::now();
        let image = self
            .settings
            .coloring
            .colorize(dwells, self.settings.view.max_dwell);
        // A frame still computing for these dwells would show the old colours after these.
        self.worker.cancel();
        if let Err(e) = self.show_cpu_picture(gl, &image) {
            self.error = Some(e.to_string());
            return false;
        }
        self.shown = Some(self.settings.clone());
        self.render_ms = start.elapsed().as_secs_f64() * 1e3;
        self.error = None;
        true
    }

    /// Cancels the frame being computed (the last one stays shown).
    pub fn cancel(&mut self, gl: &glow::Context) {
        if !self.busy() {
            return;
        }
        self.worker.cancel();
        // A coarse preview may be showing: the last complete picture comes back instead,
        // drawn where its view lies in the one asked for.
        let restore = self
            .kept
            .clone()
            .filter(|(kept, _)| !self.shown.as_ref().is_some_and(|s| s.same_dwells(kept)));
        let note = match restore {
            Some((kept, dwells)) => {
                let image = self
                    .settings
                    .coloring
                    .colorize(&dwells, kept.view.max_dwell);
                match self.show_cpu_picture(gl, &image) {
                    Ok(()) => {
                        self.shown = Some(kept);
                        "render cancelled: the last complete picture stays"
                    }
                    Err(e) => {
                        self.error = Some(e.to_string());
                        "render cancelled"
                    }
                }
            }
            None => "render cancelled: the last complete picture stays",
        };
        self.message = Some((note.into(), false));
    }

    /// Renders if anything changed (in the background on the CPU backend, where the last
    /// frame stays shown until the new one, coarse first, arrives).
    pub fn render_if_dirty(&mut self, gl: &glow::Context, ctx: &egui::Context) {
        if self.in_background() {
            self.take_result(gl);
        }
        if !self.dirty {
            return;
        }
        // A job that has shown nothing yet gets a moment before a newer view replaces it
        // (else a held zoom would restart it every frame and show nothing).
        let young = self.render_started.elapsed() < RESTART_AFTER;
        if self.in_background() && self.busy() && !self.delivered && young {
            return;
        }
        self.dirty = false;
        if self.in_background() && self.recolour(gl) {
            return;
        }
        if self.in_background() {
            self.delivered = false;
            let s = self.settings.clone();
            let ctx = ctx.clone();
            self.render_started = Instant::now();
            // A pan of the kept picture computes only the strips it exposed (not with the
            // overlay on: its rectangles are the full render's).
            let pan = self
                .kept
                .as_ref()
                .filter(|(_, dwells)| !s.overlay && dwells.can_colour(&s.coloring))
                .and_then(|(kept, dwells)| {
                    pan_offset(kept, &s).map(|offset| (dwells.clone(), offset))
                });
            match pan {
                Some((kept, offset)) => self.worker.start(
                    move || ctx.request_repaint(),
                    move |job| explorer_pan_job(s, kept, offset, job),
                ),
                None => self.worker.start(
                    move || ctx.request_repaint(),
                    move |job| explorer_job(s, job),
                ),
            }
            return;
        }
        let start = Instant::now();
        match self.renderer.render(gl, &self.settings) {
            Ok(frame) => {
                // A recolour of kept dwells says nothing of the mode's speed.
                if frame.stages.iter().any(|s| s.name == "dwell") {
                    self.mode_ms[self.settings.mode.index()] = Some(frame.dwell_ms());
                }
                self.frame = Some(frame);
                self.error = None;
            }
            Err(e) => self.error = Some(e.to_string()),
        }
        self.render_ms = start.elapsed().as_secs_f64() * 1e3;
    }

    /// Times both modes on the current view (the side-by-side figures).
    pub fn compare_modes(&mut self) {
        for mode in Mode::ALL {
            let s = MandelbrotSettings {
                mode,
                overlay: false,
                ..self.settings.clone()
            };
            match self.renderer.time_dwells(&s) {
                Ok(stages) => {
                    self.mode_ms[mode.index()] =
                        stages.iter().find(|t| t.name == "dwell").map(|t| t.ms)
                }
                Err(e) => self.error = Some(e.to_string()),
            }
        }
    }

    /// Where the view is now (None only for an f64 view no decimal holds).
    fn current_place(&self) -> Option<Place> {
        self.settings.place().ok()
    }

    /// Goes to a deep bookmark, remembering the current place for undo.
    pub fn go_to_deep(&mut self, bookmark: &DeepBookmark) {
        match bookmark.place() {
            Ok(place) => self.go_to_place_of(Fractal::Mandelbrot, place),
            Err(e) => self.error = Some(format!("bookmark {}: {e}", bookmark.name)),
        }
    }

    /// Goes to `place` of `fractal` (a bookmark, a pasted view), from either fractal:
    /// a step of undo within that fractal's history.
    pub fn go_to_place_of(&mut self, fractal: Fractal, place: Place) {
        match fractal {
            Fractal::Mandelbrot if self.settings.view.fractal != fractal => {
                self.back_to_mandelbrot()
            }
            Fractal::Julia { c } if self.settings.view.fractal != fractal => self.show_julia(c),
            _ => {}
        }
        self.go_to(place);
        self.error = None;
    }

    /// Moves to `place` of the fractal shown, remembering the current one for undo.
    pub fn go_to(&mut self, place: Place) {
        let current = self.current_place();
        if current != Some(place) {
            if let Some(current) = current {
                self.history.push(current);
            }
            self.settings.set_place(&place);
            self.dirty = true;
        }
    }

    /// Releases the GL objects.
    pub fn destroy(mut self, gl: &glow::Context) {
        self.worker.cancel();
        if let Some(t) = self.cpu_texture.take() {
            t.destroy(gl);
        }
        self.renderer.destroy(gl);
    }

    pub fn undo(&mut self) {
        let Some(current) = self.current_place() else {
            return;
        };
        if let Some(p) = self.history.undo(current) {
            self.settings.set_place(&p);
            self.dirty = true;
        }
    }

    pub fn redo(&mut self) {
        let Some(current) = self.current_place() else {
            return;
        };
        if let Some(p) = self.history.redo(current) {
            self.settings.set_place(&p);
            self.dirty = true;
        }
    }

    fn tick(&mut self) {
        let now = Instant::now();
        if let Some(last) = self.last_frame {
            let ms = now.duration_since(last).as_secs_f64() * 1e3;
            // Only frames of a running animation say something about its rate.
            self.frame_interval_ms = (ms < 500.0).then_some(ms);
        }
        self.last_frame = Some(now);
    }
}

/// R (reset), O (overlay), S (smooth), Y (colour cycling), when no text field has focus
/// (J is the picture's; undo and redo come from the Edit menu's shortcuts).
fn shortcuts(ui: &Ui, m: &mut MandelbrotView) {
    if ui.ctx().memory(|mem| mem.focused().is_some()) {
        return;
    }
    let (reset, overlay, smooth, cycle) = ui.input(|i| {
        let ctrl = i.modifiers.command;
        (
            !ctrl && i.key_pressed(egui::Key::R),
            !ctrl && i.key_pressed(egui::Key::O),
            !ctrl && i.key_pressed(egui::Key::S),
            !ctrl && i.key_pressed(egui::Key::Y),
        )
    });
    m.cycling ^= cycle;
    if reset {
        let home = match m.settings.view.fractal {
            Fractal::Mandelbrot => View::default(),
            Fractal::Julia { .. } => View {
                center: (JULIA_START.0, JULIA_START.1),
                span: JULIA_START.2,
                ..View::default()
            },
        };
        match Place::from_f64(home.center, home.span, m.settings.view.max_dwell) {
            Ok(place) => m.go_to(place),
            Err(e) => m.error = Some(format!("reset: {e}")),
        }
    }
    m.settings.overlay ^= overlay;
    m.settings.coloring.smooth ^= smooth;
    m.dirty |= overlay || smooth;
}

fn to_color(c: [u8; 4]) -> Color32 {
    Color32::from_rgba_unmultiplied(c[0], c[1], c[2], c[3])
}

/// Outlines of the refinement's rectangles, split ones first so fills and leaves stay on top.
fn overlay_ui(painter: &egui::Painter, rect: Rect, view: &View, records: &[MsRecord]) {
    let sx = rect.width() / view.width.max(1) as f32;
    let sy = rect.height() / view.height.max(1) as f32;
    let mut shown: Vec<&MsRecord> = records.iter().collect();
    // Past the cap the finest rectangles are left out, all over the picture: taking the
    // first ones in record order drew the top of a 1290×919 view and nothing below.
    shown.sort_by_key(|r| r.level);
    shown.truncate(OVERLAY_MAX);
    shown.sort_by_key(|r| (r.kind != RectKind::Split, r.level));
    for r in shown {
        let min = pos2(
            rect.left() + r.rect.x0 as f32 * sx,
            rect.top() + r.rect.y0 as f32 * sy,
        );
        let max = pos2(
            rect.left() + (r.rect.x1 + 1) as f32 * sx,
            rect.top() + (r.rect.y1 + 1) as f32 * sy,
        );
        let width = if r.kind == RectKind::Split { 1.5 } else { 1.0 };
        painter.rect_stroke(
            Rect::from_min_max(min, max),
            0.0,
            Stroke::new(width, to_color(kind_color(r.kind))),
            egui::StrokeKind::Inside,
        );
    }
}

/// Where the picture of view `shown` lies on screen when `rect` shows view `now` (None
/// where f64 cannot place it: spans near the centre's precision).
pub fn picture_rect(shown: &View, now: &View, rect: Rect) -> Option<Rect> {
    if shown.fractal != now.fractal {
        return None;
    }
    let magnitude = now.center.0.abs().max(now.center.1.abs()).max(1.0);
    if !(now.span > 1e-12 * magnitude && shown.span > 1e-12 * magnitude) {
        return None;
    }
    let per_unit = f64::from(rect.width()) / now.span;
    let shown_height = shown.span * f64::from(shown.height) / f64::from(shown.width.max(1));
    let left =
        f64::from(rect.center().x) + (shown.center.0 - shown.span / 2.0 - now.center.0) * per_unit;
    let top = f64::from(rect.center().y)
        - (shown.center.1 + shown_height / 2.0 - now.center.1) * per_unit;
    let size = vec2(
        (shown.span * per_unit) as f32,
        (shown_height * per_unit) as f32,
    );
    let r = Rect::from_min_size(pos2(left as f32, top as f32), size);
    r.is_finite().then_some(r)
}

/// The picture: resizes the view to the panel, navigates, draws the overlay and the box.
pub fn mandelbrot_picture_ui(ui: &mut Ui, m: &mut MandelbrotView, gl: &glow::Context) {
    m.tick();
    let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
    let ppp = ui.ctx().pixels_per_point();
    let (w, h) = (
        ((rect.width() * ppp) as u32).max(1),
        ((rect.height() * ppp) as u32).max(1),
    );
    if (m.settings.view.width, m.settings.view.height) != (w, h) {
        // Keep the span (the real-axis width) when the panel changes size.
        (m.settings.view.width, m.settings.view.height) = (w, h);
        m.dirty = true;
    }
    shortcuts(ui, m);
    let to_px = |p: egui::Pos2| {
        (
            f64::from((p.x - rect.left()) * ppp),
            f64::from((p.y - rect.top()) * ppp),
        )
    };
    let typing = ui.ctx().memory(|mem| mem.focused().is_some());
    let julia_key = ui.input(|i| !i.modifiers.command && i.key_pressed(egui::Key::J));
    if julia_key && !typing {
        let at = response
            .hover_pos()
            .map_or((f64::from(w) * 0.5, f64::from(h) * 0.5), to_px);
        m.toggle_julia(at.0, at.1);
    }
    let nav = m
        .navigator
        .handle(ui, &response, rect, ppp, &mut m.settings);
    if let Some(p) = nav.context_click {
        m.menu = Some((p, to_px(p)));
    }
    let hovered = response
        .hover_pos()
        .map(to_px)
        .map(|(x, y)| (x as u32, y as u32))
        .filter(|&(x, y)| x < w && y < h);
    if hovered != m.pointer || nav.changed {
        m.pointer = hovered;
        m.pointer_text = None;
    }
    let preview_at = response.hover_pos().filter(|_| {
        m.julia_preview && m.settings.view.fractal == Fractal::Mandelbrot && !nav.animating
    });
    if let Some(from) = nav.finished {
        m.history.push(from);
    }
    m.dirty |= nav.changed;
    if nav.animating {
        ui.ctx().request_repaint();
    }
    m.cycle_colours(ui.ctx());
    m.render_if_dirty(gl, ui.ctx());
    let painter = ui.painter_at(rect);
    // While a frame computes (or after a cancel), the last one is drawn where its view
    // lies in the new one.
    let picture = match &m.shown {
        Some(shown) if shown.view != m.settings.view => {
            picture_rect(&shown.view, &m.settings.view, rect).unwrap_or(rect)
        }
        _ => rect,
    };
    if picture != rect {
        painter.rect_filled(rect, 0.0, Color32::from_gray(16));
    }
    painter.image(
        m.texture_id,
        picture,
        Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)),
        Color32::WHITE,
    );
    if let (Some(frame), true, false) = (&m.frame, m.settings.overlay, m.busy()) {
        overlay_ui(&painter, rect, &m.settings.view, &frame.records);
    }
    if let Some(b) = nav.zoom_box {
        painter.rect_stroke(
            b,
            0.0,
            Stroke::new(1.5, Color32::WHITE),
            egui::StrokeKind::Middle,
        );
    }
    if m.busy() {
        let elapsed = m.render_started.elapsed();
        // Cancel, or Esc: the last frame stays.
        let escape = ui.input(|i| i.key_pressed(egui::Key::Escape));
        if progress_ui(ui, "rendering", m.worker.progress(), elapsed) || escape {
            m.cancel(gl);
        }
    }
    match preview_at {
        Some(p) => julia_preview_ui(ui, &painter, rect, m, to_px(p)),
        None => m.preview = None,
    }
    context_menu_ui(ui, m);
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

/// The live preview: the Julia set of the point under the pointer, small, in the picture's
/// top right corner; computed only when that point moves (an idle window stays idle).
fn julia_preview_ui(
    ui: &Ui,
    painter: &egui::Painter,
    rect: Rect,
    m: &mut MandelbrotView,
    (px, py): (f64, f64),
) {
    let c = m.settings.view.point(px as u32, py as u32);
    if m.preview.as_ref().is_none_or(|(shown, _)| *shown != c) {
        let Ok(julia) = JuliaC::from_f64(c.0, c.1) else {
            return;
        };
        let view = View {
            center: (JULIA_START.0, JULIA_START.1),
            span: JULIA_START.2,
            width: PREVIEW_SIZE.0,
            height: PREVIEW_SIZE.1,
            max_dwell: PREVIEW_MAX_DWELL,
            fractal: Fractal::Julia { c: julia },
        };
        let coloring = m.settings.coloring.clone();
        let dwells = crate::mandelbrot::render_per_pixel(&view, coloring.smooth);
        let image = coloring.colorize(&dwells, PREVIEW_MAX_DWELL);
        let size = [image.width() as usize, image.height() as usize];
        let pixels = egui::ColorImage::from_rgba_unmultiplied(size, image.as_raw());
        match &mut m.preview {
            Some((shown, texture)) => {
                texture.set(pixels, egui::TextureOptions::LINEAR);
                *shown = c;
            }
            None => {
                let texture =
                    ui.ctx()
                        .load_texture("julia preview", pixels, egui::TextureOptions::LINEAR);
                m.preview = Some((c, texture));
            }
        }
    }
    if let Some((_, texture)) = &m.preview {
        let size = vec2(PREVIEW_SIZE.0 as f32, PREVIEW_SIZE.1 as f32);
        let at = Rect::from_min_size(rect.right_top() + vec2(-size.x - 8.0, 8.0), size);
        painter.image(
            texture.id(),
            at,
            Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)),
            Color32::WHITE,
        );
        painter.rect_stroke(
            at,
            0.0,
            Stroke::new(1.0, Color32::WHITE),
            egui::StrokeKind::Outside,
        );
    }
}

/// The right-click menu: the Julia set at the clicked point, or back to the Mandelbrot set.
fn context_menu_ui(ui: &Ui, m: &mut MandelbrotView) {
    let Some((pos, (px, py))) = m.menu else {
        return;
    };
    let area = egui::Area::new(egui::Id::unique("explorer menu"))
        .order(egui::Order::Foreground)
        .fixed_pos(pos)
        .show(ui.ctx(), |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                let julia = m.settings.view.fractal.julia_c().is_some();
                let (label, hint) = if julia {
                    (
                        "Back to Mandelbrot (J)",
                        "the Mandelbrot view this Julia set was picked in",
                    )
                } else {
                    (
                        "Julia set here (J)",
                        "the Julia set of c = the point under the cursor",
                    )
                };
                if ui.button(label).on_hover_text(hint).clicked() {
                    m.toggle_julia(px, py);
                    m.menu = None;
                }
                if ui.button("Close").clicked() {
                    m.menu = None;
                }
            })
        });
    let clicked_elsewhere = ui.input(|i| i.pointer.any_pressed())
        && !area.response.contains_pointer()
        && !ui.input(|i| i.pointer.button_down(egui::PointerButton::Secondary));
    if clicked_elsewhere || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
        m.menu = None;
    }
}

/// The fractal shown (the kinds side by side), and for a Julia set its c (exact, copyable)
/// with the way back.
fn fractal_ui(ui: &mut Ui, m: &mut MandelbrotView) {
    let shown = m.settings.view.fractal;
    ui.horizontal(|ui| {
        for kind in FractalKind::ALL {
            let picked = ui
                .selectable_label(shown.kind() == kind, kind.label())
                .on_hover_text(kind.describe());
            if picked.clicked() && shown.kind() != kind {
                match kind {
                    FractalKind::Mandelbrot => m.back_to_mandelbrot(),
                    FractalKind::Julia => {
                        // The Julia set of the view's centre.
                        let (w, h) = (m.settings.view.width, m.settings.view.height);
                        m.julia_at(f64::from(w) * 0.5, f64::from(h) * 0.5);
                    }
                }
            }
        }
    });
    if let Some(c) = shown.julia_c() {
        ui.label(format!(
            "c = {} {} {}i",
            short_scientific(c.re(), 10),
            if c.im().is_negative() { "−" } else { "+" },
            short_scientific(&c.im().neg(), 10).trim_start_matches('-')
        ))
        .on_hover_text(c.scientific());
        ui.horizontal(|ui| {
            if ui
                .button("Copy c")
                .on_hover_text("c exactly, as RE,IM (what --julia takes)")
                .clicked()
            {
                ui.ctx().copy_text(c.text());
            }
            if ui
                .button("Back to Mandelbrot")
                .on_hover_text("the Mandelbrot view this Julia set was picked in (J)")
                .clicked()
            {
                m.back_to_mandelbrot();
            }
        });
    } else {
        ui.checkbox(&mut m.julia_preview, "live Julia preview")
            .on_hover_text("a small Julia set of the point under the pointer, while it moves");
        ui.small("J or right-click: the Julia set of the point under the cursor");
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
fn deep_bookmarks_ui(ui: &mut Ui, m: &mut MandelbrotView) {
    ui.label("deep (perturbation):");
    for b in DEEP_BOOKMARKS {
        ui.horizontal(|ui| {
            if ui.button(format!("{} · {}", b.name, b.span)).clicked() {
                m.go_to_deep(&b);
            }
            if julia_button_ui(ui) {
                match b.location() {
                    Ok(l) => m.show_julia(JuliaC::new(l.re, l.im)),
                    Err(e) => m.error = Some(format!("bookmark {}: {e}", b.name)),
                }
            }
        });
    }
}

/// The exact centre and span in short scientific form (the whole on hover), a button that
/// copies the exact view as text, and a field to paste one.
fn location_ui(ui: &mut Ui, m: &mut MandelbrotView) {
    let Ok(loc) = m.settings.location() else {
        return;
    };
    let s = &m.settings;
    let full = view_to_text(&loc, s.view.max_dwell, &s.view.fractal);
    ui.label(format!(
        "centre {}, {}",
        short_scientific(&loc.re, 8),
        short_scientific(&loc.im, 8)
    ))
    .on_hover_text(&full);
    ui.label(format!(
        "span {} · {}×{}",
        short_scientific(&loc.span, 4),
        s.view.width,
        s.view.height
    ));
    ui.horizontal(|ui| {
        if ui
            .button("Copy view")
            .on_hover_text("the exact view as text (re=…, im=…, span=…, dwell=…)")
            .clicked()
        {
            ui.ctx().copy_text(full.clone());
        }
        ui.add(
            egui::TextEdit::singleline(&mut m.view_text)
                .hint_text("paste a view")
                .desired_width(120.0),
        );
        if ui
            .add_enabled(!m.view_text.trim().is_empty(), egui::Button::new("Go"))
            .clicked()
        {
            match view_from_text(&m.view_text) {
                Ok(v) => {
                    m.go_to_text(&v);
                    m.view_text.clear();
                }
                Err(e) => m.error = Some(format!("pasted view: {e}")),
            }
        }
    });
}

/// Why "Save view as PNG" wrote nothing: the picture could not be read back, or written.
#[derive(Debug, thiserror::Error)]
enum ViewSaveError {
    #[error(transparent)]
    Read(#[from] crate::gl::GlError),
    #[error(transparent)]
    Write(#[from] crate::image_io::SaveError),
}

/// Writes `image` as a PNG carrying `texts`.
fn write_view_png(
    image: image::RgbaImage,
    path: &Path,
    options: &crate::image_io::SaveOptions,
    texts: &[(&'static str, String)],
) -> Result<(), crate::image_io::SaveError> {
    let texts: Vec<(&str, &str)> = texts.iter().map(|(k, t)| (*k, t.as_str())).collect();
    let image = image::DynamicImage::ImageRgba8(image);
    crate::image_io::save_png_with_text(&image, path, options, &texts)
}

/// Distance shading on or off, and its width in pixels (kept while off).
fn distance_ui(ui: &mut Ui, distance: &mut Option<f32>) {
    let id = ui.make_persistent_id("distance width");
    let mut width = distance.unwrap_or_else(|| ui.data(|d| d.get_temp(id)).unwrap_or(2.0));
    let mut on = distance.is_some();
    ui.horizontal(|ui| {
        ui.checkbox(&mut on, "distance shading").on_hover_text(
            "pixels nearer the set than this many pixels, by the distance estimate, blend \
             toward the interior colour: the boundary and its filaments drawn as lines",
        );
        ui.add_enabled(
            on,
            egui::Slider::new(&mut width, crate::mandelbrot::DISTANCE_WIDTH_RANGE)
                .logarithmic(true)
                .text("px"),
        );
    });
    ui.data_mut(|d| d.insert_temp(id, width));
    *distance = on.then_some(width);
}

/// Palette (with the editor of the user's), density, offset, smooth, distance shading,
/// interior colour.
fn coloring_ui(ui: &mut Ui, m: &mut MandelbrotView) -> Option<PaletteRequest> {
    let c = &mut m.settings.coloring;
    let request = palette_ui(
        ui,
        &mut c.palette,
        &mut m.user_palettes,
        &mut m.palette_editor,
    );
    ui.add(
        egui::Slider::new(&mut c.density, DENSITY_RANGE)
            .logarithmic(true)
            .text("density"),
    );
    ui.add(egui::Slider::new(&mut c.offset, 0.0..=1.0).text("offset (cycle)"));
    ui.checkbox(&mut c.smooth, "smooth colouring (S)");
    distance_ui(ui, &mut c.distance);
    ui.horizontal(|ui| {
        ui.checkbox(&mut m.cycling, "cycle colours (Y)")
            .on_hover_text(
                "the offset runs round the palette: the kept dwells recoloured each frame",
            );
        ui.add_enabled(
            m.cycling,
            egui::Slider::new(&mut m.cycle_speed, 0.02..=2.0)
                .logarithmic(true)
                .text("cycles/s"),
        );
    });
    let mut rgb = [c.interior[0], c.interior[1], c.interior[2]];
    ui.horizontal(|ui| {
        ui.label("interior");
        ui.color_edit_button_srgb(&mut rgb);
    });
    c.interior = [rgb[0], rgb[1], rgb[2], 255];
    request
}

/// "Save view as PNG…" with its size (the window's, or one up to the command line's
/// largest), and the progress of a save rendering in the background.
fn save_ui(ui: &mut Ui, m: &mut MandelbrotView) -> bool {
    if let Some(result) = m.save_job.poll() {
        m.saved(result);
    }
    let size = &mut m.save_size;
    ui.horizontal(|ui| {
        ui.label("save size");
        ui.selectable_value(&mut size.window, true, "window");
        ui.selectable_value(&mut size.window, false, "other");
    });
    if !size.window {
        ui.horizontal(|ui| {
            ui.add(egui::DragValue::new(&mut size.width).range(1..=MAX_RENDER_SIDE));
            ui.label("×");
            ui.add(egui::DragValue::new(&mut size.height).range(1..=MAX_RENDER_SIDE));
        });
    }
    if m.save_job.busy() {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(format!(
                "saving… {:.0} s",
                m.save_started.elapsed().as_secs_f64()
            ));
            if ui.button("Cancel").clicked() {
                m.save_job.cancel();
                m.message = Some(("save cancelled".into(), false));
            }
        });
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_millis(200));
    }
    ui.add_enabled(!m.save_job.busy(), egui::Button::new("Save view as PNG…"))
        .on_hover_text("the picture with its view in the file: opened again, \"Open View in Explorer\" goes there; named .exr: the raw dwells and continuous values (channels dwell, nu)")
        .clicked()
}

/// "Open View in Explorer" while the opened image carries a view; true when clicked.
pub fn offered_view_ui(ui: &mut Ui, m: &mut MandelbrotView) -> bool {
    let Some((path, _)) = &m.offered_view else {
        return false;
    };
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let clicked = ui
        .button("Open View in Explorer")
        .on_hover_text(format!("go to the view saved in {name}"))
        .clicked();
    if clicked {
        m.open_offered_view();
    }
    clicked
}

/// How Mariani–Silver cuts the picture: the measured tuning, or one that shows the recursion.
fn refinement_ui(ui: &mut Ui, s: &mut MandelbrotSettings) {
    ui.add_enabled_ui(s.mode == Mode::MarianiSilver, |ui| {
        ui.horizontal(|ui| {
            ui.label("refinement");
            for r in Refinement::ALL {
                ui.selectable_value(&mut s.refinement, r, r.label())
                    .on_hover_text(refinement_hint(r));
            }
        });
    });
}

/// The choice's description: its doc comment, which `--refinement`'s help shows too.
fn refinement_hint(r: Refinement) -> String {
    use clap::ValueEnum;
    r.to_possible_value()
        .and_then(|v| v.get_help().map(ToString::to_string))
        .unwrap_or_default()
}

/// Times, the overlay's statistics and the modes side by side.
fn timings_ui(ui: &mut Ui, m: &mut MandelbrotView) {
    let used = m.frame.as_ref().map(|f| f.precision);
    ui.label(format!(
        "precision in use: {}",
        used.map_or("—", precision_name)
    ));
    if let Some(f) = &m.frame {
        ui.label(format!("backend: {}", f.backend));
        for st in &f.stages {
            ui.monospace(format!("{:<16} {:>8.3} ms", st.name, st.ms));
        }
        if let (Some(s), true) = (&f.stats, m.settings.overlay) {
            let pixels = u64::from(m.settings.view.width) * u64::from(m.settings.view.height);
            ui.label(format!("rectangles: {}", s.summary(pixels)));
        }
    }
    ui.monospace(format!("render (wall)    {:>8.3} ms", m.render_ms));
    ui.monospace(match m.frame_interval_ms {
        Some(ms) => format!(
            "explorer frame   {ms:>8.3} ms ({:.0} fps)",
            1e3 / ms.max(1e-3)
        ),
        None => "explorer frame          — (idle)".to_string(),
    });
    ui.separator();
    ui.strong("Dwell time by mode");
    let fmt = |v: Option<f64>| v.map_or("—".to_string(), |ms| format!("{ms:.3} ms"));
    for mode in Mode::ALL {
        let label = mode.label();
        ui.monospace(format!("{label:<16}{}", fmt(m.mode_ms[mode.index()])));
    }
    if ui.button("Time both modes on this view").clicked() {
        m.compare_modes();
    }
}

/// The side panel: parameters, navigation, bookmarks, timings; what it asks of the app.
pub fn mandelbrot_controls_ui(ui: &mut Ui, m: &mut MandelbrotView) -> Option<ControlsRequest> {
    let before = m.settings.clone();
    ui.heading(m.settings.view.fractal.kind().label());
    fractal_ui(ui, m);
    let s = &mut m.settings;
    ui.add(
        egui::Slider::new(&mut s.view.max_dwell, 16..=MAX_DWELL_LIMIT)
            .logarithmic(true)
            .text("max dwell"),
    );
    ui.horizontal(|ui| {
        for mode in Mode::ALL {
            ui.selectable_value(&mut s.mode, mode, mode.label())
                .on_hover_text(mode.describe());
        }
    });
    refinement_ui(ui, s);
    ui.horizontal(|ui| {
        ui.label("precision");
        for p in [Precision::Auto, Precision::F32, Precision::F64] {
            ui.selectable_value(&mut s.precision, p, precision_name(p));
        }
        ui.selectable_value(&mut s.precision, Precision::Perturbation, "perturb.");
    });
    ui.checkbox(&mut s.bla, "skip steps (BLA) on deep views")
        .on_hover_text("bivariate linear approximation: the same dwells, most iterations skipped");
    ui.checkbox(&mut s.overlay, "show Mariani–Silver rectangles (O)");
    let palette_request = coloring_ui(ui, m);
    ui.separator();
    ui.horizontal(|ui| {
        if ui
            .add_enabled(m.history.can_undo(), egui::Button::new("Undo"))
            .clicked()
        {
            m.undo();
        }
        if ui
            .add_enabled(m.history.can_redo(), egui::Button::new("Redo"))
            .clicked()
        {
            m.redo();
        }
    });
    ui.add(
        egui::Slider::new(&mut m.navigator.zoom_per_second, 1.2..=16.0)
            .logarithmic(true)
            .text("zoom × per second"),
    );
    ui.small("hold left: zoom in · hold right: zoom out · drag: pan · shift-drag: box · wheel · PgUp/PgDn · arrows · Ctrl+Z/Y");
    ui.separator();
    ui.strong("Bookmarks");
    for (name, center, span, max_dwell) in BOOKMARKS {
        ui.horizontal(|ui| {
            if ui.button(name).clicked() {
                match Place::from_f64(center, span, max_dwell) {
                    Ok(place) => m.go_to_place_of(Fractal::Mandelbrot, place),
                    Err(e) => m.error = Some(format!("bookmark {name}: {e}")),
                }
            }
            if julia_button_ui(ui) {
                match JuliaC::from_f64(center.0, center.1) {
                    Ok(c) => m.show_julia(c),
                    Err(e) => m.error = Some(format!("bookmark {name}: {e}")),
                }
            }
        });
    }
    let shown = m.settings.clone();
    match user_bookmarks_ui(ui, &mut m.user_bookmarks, &mut m.new_bookmark_name, &shown) {
        Some(BookmarkAction::Go(place, fractal)) => m.go_to_place_of(fractal, *place),
        Some(BookmarkAction::Invalid(e)) => m.error = Some(e),
        Some(BookmarkAction::Julia(c)) => m.show_julia(c),
        None => {}
    }
    deep_bookmarks_ui(ui, m);
    ui.separator();
    location_ui(ui, m);
    timings_ui(ui, m);
    let save = save_ui(ui, m);
    m.dirty |= m.settings != before;
    match (save, palette_request) {
        (true, _) => Some(ControlsRequest::SaveView),
        (_, Some(PaletteRequest::ImportMap)) => Some(ControlsRequest::ImportPalette),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_coordinates_keep_their_head_and_their_pixel_digits() {
        assert_eq!(elide_middle("-0.75", 28), "-0.75");
        let long = format!("-1.{}987654", "0".repeat(100));
        let short = elide_middle(&long, 28);
        assert_eq!(short.chars().count(), 28);
        assert!(
            short.starts_with("-1.000") && short.ends_with("987654"),
            "{short}"
        );
    }

    #[test]
    fn colouring_and_overlay_alone_keep_the_dwells() {
        let a = MandelbrotSettings::default();
        let mut b = a.clone();
        b.coloring.palette = Palette::ALL[1].into();
        b.coloring.density = 2.0;
        b.coloring.offset = 0.5;
        b.coloring.smooth = !a.coloring.smooth;
        b.overlay = !a.overlay;
        assert!(a.same_dwells(&b));
        let mut moved = a.clone();
        moved.view.center.0 += 1e-9;
        assert!(!a.same_dwells(&moved), "another view");
        let mut deeper = a.clone();
        deeper.view.max_dwell += 1;
        assert!(!a.same_dwells(&deeper), "another max dwell");
        let mut mode = a.clone();
        mode.mode = Mode::ALL[1 - Mode::ALL.iter().position(|m| *m == a.mode).unwrap_or(0)];
        assert!(!a.same_dwells(&mode), "another mode (other rectangles)");
    }

    fn view(center: (f64, f64), span: f64) -> View {
        View {
            center,
            span,
            width: 400,
            height: 200,
            max_dwell: 100,
            fractal: crate::mandelbrot::Fractal::Mandelbrot,
        }
    }

    #[test]
    fn the_last_picture_is_placed_in_the_new_view() {
        let rect = Rect::from_min_size(pos2(0.0, 0.0), vec2(400.0, 200.0));
        let v = view((-0.5, 0.0), 4.0);
        assert_eq!(picture_rect(&v, &v, rect), Some(rect));
        // Zoomed in 2× at the centre: the old picture is twice as large, centred.
        let z = view((-0.5, 0.0), 2.0);
        let r = picture_rect(&v, &z, rect).expect("placed");
        assert!((r.width() - 800.0).abs() < 1e-3 && (r.height() - 400.0).abs() < 1e-3);
        assert!((r.center() - rect.center()).length() < 1e-3);
        // Panned right by a quarter span: the old picture moves left by 100 points; up
        // by 0.5 in the imaginary axis: it moves down by 50.
        let p = view((0.5, 0.5), 4.0);
        let r = picture_rect(&v, &p, rect).expect("placed");
        assert!((r.left() + 100.0).abs() < 1e-3, "{r:?}");
        assert!((r.top() - 50.0).abs() < 1e-3, "{r:?}");
        // Past f64's precision there is no telling.
        let deep = view((-1.5, 0.0), 1e-15);
        assert_eq!(picture_rect(&deep, &deep, rect), None);
    }
}
