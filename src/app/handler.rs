//! winit event handling: the window, egui_glow, redraws, dropped files, screenshots.

use super::config_dir::config_dir;
use super::frame_log::{attention_of, FrameLine, FrameLog};
use super::settings::{SavedWindow, Settings, SettingsStore};
use super::state::{AppState, Tab};
use super::GuiArgs;
use crate::gl::GlWindow;
use glow::HasContext;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoopProxy};
use winit::window::WindowId;

/// When egui wants the next frame: set from egui's repaint callback (on any thread, e.g.
/// a worker finishing), read by the event loop before it sleeps. Reactive mode: without
/// input, an animation or finished work, the loop sleeps and draws nothing.
#[derive(Debug, Default)]
pub struct RepaintClock {
    next: Mutex<Option<Instant>>,
}

/// The shortest time between frames that are not answers to input (120 per second).
const MIN_FRAME: Duration = Duration::from_micros(8_333);

/// What the event loop does before it sleeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// Draw a frame now.
    Now,
    /// Sleep until then (or input).
    At(Instant),
    /// Sleep until input.
    Never,
}

impl RepaintClock {
    /// A frame is wanted `delay` from `now` (egui's `Duration::MAX` means never).
    pub fn schedule(&self, now: Instant, delay: Duration) {
        let Some(at) = now.checked_add(delay) else {
            return;
        };
        if let Ok(mut next) = self.next.lock() {
            *next = Some(next.map_or(at, |n| n.min(at)));
        }
    }

    /// A frame is being drawn: what was scheduled is served by it.
    pub fn clear(&self) {
        if let Ok(mut next) = self.next.lock() {
            *next = None;
        }
    }

    /// What to do at `now`; a due frame is taken off the schedule.
    pub fn wake(&self, now: Instant) -> Wake {
        let Ok(mut next) = self.next.lock() else {
            return Wake::Now;
        };
        match *next {
            Some(at) if at <= now => {
                *next = None;
                Wake::Now
            }
            Some(at) => Wake::At(at),
            None => Wake::Never,
        }
    }
}

struct Running {
    window: GlWindow,
    gl: Arc<glow::Context>,
    egui: egui_glow::EguiGlow,
    state: AppState,
}

pub struct Handler {
    initial: PathBuf,
    args: GuiArgs,
    running: Option<Running>,
    frames: u32,
    error: Option<anyhow::Error>,
    store: SettingsStore,
    /// The saved session read at start, and why it could not be read.
    saved: Option<Settings>,
    settings_problem: Option<String>,
    repaint: Arc<RepaintClock>,
    /// Wakes the event loop when egui asks for a frame from outside an event.
    proxy: Arc<Mutex<EventLoopProxy<()>>>,
    /// The file came from the command line (it opens in the image tab, a failure is fatal).
    explicit_file: bool,
    last_frame: Option<Instant>,
    /// `CUDALENS_FRAME_LOG`: a line per painted frame.
    frame_log: FrameLog,
    /// The window's title as last set.
    title: String,
}

impl Handler {
    pub fn new(
        initial: PathBuf,
        explicit_file: bool,
        args: GuiArgs,
        proxy: EventLoopProxy<()>,
    ) -> Self {
        let mut store = SettingsStore::in_dir(config_dir().as_deref());
        let (saved, settings_problem) = if args.reset_settings {
            (None, None)
        } else {
            match store.load() {
                Ok(saved) => (saved, None),
                Err(e) => {
                    log::warn!("{e}");
                    (None, Some(e.to_string()))
                }
            }
        };
        Self {
            initial,
            args,
            running: None,
            frames: 0,
            error: None,
            store,
            saved,
            settings_problem,
            repaint: Arc::default(),
            proxy: Arc::new(Mutex::new(proxy)),
            explicit_file,
            last_frame: None,
            frame_log: FrameLog::from_env(),
            title: String::new(),
        }
    }

    /// Saves the session now (failures logged and shown, never fatal).
    fn save_settings(&mut self) {
        let Some(r) = self.running.as_mut() else {
            return;
        };
        let window = &r.window.window;
        let size = window.inner_size();
        let geometry = SavedWindow {
            size: Some([size.width, size.height]),
            position: window.outer_position().ok().map(|p| [p.x, p.y]),
        };
        if let Err(e) = self.store.save(&r.state.settings(geometry)) {
            log::warn!("{e}");
            r.state.set_message(e.to_string(), true);
        }
    }

    /// The first fatal error, if any, after the loop ended.
    pub fn into_result(self) -> anyhow::Result<()> {
        self.error.map_or(Ok(()), Err)
    }

    fn start(&self, event_loop: &ActiveEventLoop) -> anyhow::Result<Running> {
        let saved_window = self.saved.as_ref().map(|s| &s.window);
        let saved_size = saved_window.and_then(|w| w.size).map(|[w, h]| (w, h));
        let display = largest_display(event_loop);
        // An explicit --size must fit; a remembered one is shrunk to the display.
        let (w, h) = match (self.args.size, saved_size) {
            (None, Some((sw, sh))) => display.map_or((sw, sh), |(dw, dh)| (sw.min(dw), sh.min(dh))),
            (requested, _) => window_size(requested, display)?,
        };
        let mut attributes = winit::window::Window::default_attributes()
            .with_title("cudalens")
            .with_inner_size(winit::dpi::PhysicalSize::new(w.max(200), h.max(150)));
        if let (None, Some([x, y])) = (self.args.size, saved_window.and_then(|w| w.position)) {
            attributes = attributes.with_position(winit::dpi::PhysicalPosition::new(x, y));
        }
        let (window, gl) = GlWindow::new(event_loop, attributes)?;
        let (vw, vh) = crate::gl::max_viewport(&gl);
        if w > vw || h > vh {
            return Err(WindowTooLarge {
                size: (w, h),
                limit: (vw, vh),
                what: "the GPU's viewport limit",
            }
            .into());
        }
        let gl = Arc::new(gl);
        let mut egui = egui_glow::EguiGlow::new(event_loop, gl.clone(), None, None, true);
        let (clock, proxy) = (self.repaint.clone(), self.proxy.clone());
        egui.egui_ctx.set_request_repaint_callback(move |info| {
            clock.schedule(Instant::now(), info.delay);
            if let Ok(p) = proxy.lock() {
                // Fails only once the loop has ended.
                let _ = p.send_event(());
            }
        });
        let mut state = AppState::new(&gl, &mut egui.painter, &self.args)?;
        // A file named on the command line must open (as on the CLI); the default image
        // failing is shown in the window.
        match state.try_open(&gl, &self.initial) {
            Ok(()) => state.select_from_args(&self.args),
            Err(e) if self.explicit_file => return Err(e),
            Err(e) => state.set_message(format!("{e:#}"), true),
        }
        if let Some(saved) = &self.saved {
            let notes = state.restore(saved, &self.args, self.explicit_file);
            notes.iter().for_each(|n| log::warn!("{n}"));
            if !notes.is_empty() {
                state.set_message(notes.join("; "), true);
            }
        }
        if let Some(problem) = &self.settings_problem {
            state.set_message(problem.clone(), true);
        }
        log::info!("OpenGL: {}", crate::gl::renderer_description(&gl));
        Ok(Running {
            window,
            gl,
            egui,
            state,
        })
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, e: anyhow::Error) {
        self.error.get_or_insert(e);
        self.shutdown(event_loop);
    }

    fn shutdown(&mut self, event_loop: &ActiveEventLoop) {
        self.save_settings();
        if let Some(mut r) = self.running.take() {
            r.state.destroy(&r.gl);
            r.egui.destroy();
        }
        event_loop.exit();
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let Some(r) = self.running.as_mut() else {
            return;
        };
        let size = r.window.window.inner_size();
        if size.width == 0 || size.height == 0 {
            return; // minimised: nothing to draw into
        }
        // Requests made from here on (this frame's own included) schedule the next one.
        self.repaint.clear();
        let (gl, state) = (&r.gl, &mut r.state);
        r.egui.run(&r.window.window, |ui| state.ui(ui, gl));
        // The source, the output texture and the explorer's are re-made on a resize on
        // the external-memory interop path.
        let output = state.runner.targets.output.id;
        r.egui
            .painter
            .replace_native_texture(state.output_id, output);
        if let Some(source) = state.runner.source() {
            r.egui
                .painter
                .replace_native_texture(state.document.texture_id, source.id);
        }
        let explorer = &state.mandelbrot;
        r.egui
            .painter
            .replace_native_texture(explorer.texture_id, explorer.picture().id);
        // SAFETY: clearing the default framebuffer of the current context.
        unsafe {
            r.gl.clear_color(0.08, 0.08, 0.09, 1.0);
            r.gl.clear(glow::COLOR_BUFFER_BIT);
        }
        r.egui.paint(&r.window.window);
        let title = r.state.window_title();
        if title != self.title {
            r.window.window.set_title(&title);
            self.title = title;
        }
        self.frame_log.frame(FrameLine {
            tab: match r.state.tab {
                Tab::Image => "image",
                Tab::Mandelbrot => "mandelbrot",
            },
            busy: r.state.tab_busy(),
            filters: r.state.stack.active().len(),
            image: r.state.document.size(),
            fractal: r.state.mandelbrot.settings.view.fractal.kind().name(),
            selection: r
                .state
                .view
                .selection
                .map(|s| (s.x, s.y, s.width, s.height)),
            stack: r
                .state
                .stack
                .entries
                .iter()
                .map(|e| (e.filter.label(), e.enabled))
                .collect(),
            undo: r.state.history.undo_label(&r.state.stack),
            display: r.state.typed.as_ref().map(|t| {
                let range = t.panel.adjuster.range();
                (range.min, range.max)
            }),
            video: r.state.video.as_ref().map(|v| v.shown()),
            attention: attention_of(&r.state, &r.egui.egui_ctx),
        });
        self.frames += 1;
        self.last_frame = Some(Instant::now());
        let last = self.args.frames > 0 && self.frames >= self.args.frames;
        if last {
            if let Some(v) = &r.state.video {
                log::info!(
                    "video: frame {} shown, {} dropped, decode {} fps, decoded by {}",
                    v.shown(),
                    v.dropped(),
                    v.decode_fps()
                        .map_or_else(|| "?".into(), |f| format!("{f:.0}")),
                    v.decoded_by()
                );
            }
            if let Some(path) = self.args.screenshot.clone() {
                let shot = r
                    .window
                    .screenshot(&r.gl)
                    .map_err(anyhow::Error::from)
                    .and_then(|img| {
                        let options = super::screenshot_options(&self.initial, self.args.force);
                        Ok(crate::image_io::save_image(&img, &path, &options)?)
                    });
                if let Err(e) = shot {
                    return self.fail(event_loop, e.context("screenshot not saved"));
                }
            }
        }
        if let Err(e) = r.window.swap_buffers() {
            log::warn!("swap buffers: {e}");
        }
        if last || r.state.quit {
            return self.shutdown(event_loop);
        }
        // Every repaint that is not input goes through the clock (and its frame-rate cap):
        // egui's own requests (animations, tooltips, finished work) and waiting work.
        if r.state.wants_repaint() || self.args.frames > 0 {
            self.repaint.schedule(Instant::now(), Duration::ZERO);
        }
        if self.store.save_due() {
            self.save_settings();
        }
    }
}

/// A window size over what the display or the GPU can show (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("window size {}x{} is larger than {what} ({}x{})", size.0, size.1, limit.0, limit.1)]
pub struct WindowTooLarge {
    pub size: (u32, u32),
    pub limit: (u32, u32),
    pub what: &'static str,
}

/// The window size when none is given.
const DEFAULT_WINDOW: (u32, u32) = (1400, 900);

/// The largest width and height of the connected displays, if the system tells.
fn largest_display(event_loop: &ActiveEventLoop) -> Option<(u32, u32)> {
    event_loop
        .available_monitors()
        .map(|m| m.size())
        .map(|s| (s.width, s.height))
        .filter(|&(w, h)| w > 0 && h > 0)
        .reduce(|a, b| (a.0.max(b.0), a.1.max(b.1)))
}

/// The size to open: an explicit size must fit the display; the default shrinks to fit.
fn window_size(
    requested: Option<(u32, u32)>,
    display: Option<(u32, u32)>,
) -> Result<(u32, u32), WindowTooLarge> {
    match (requested, display) {
        (Some((w, h)), Some((dw, dh))) if w > dw || h > dh => Err(WindowTooLarge {
            size: (w, h),
            limit: (dw, dh),
            what: "the display",
        }),
        (Some(size), _) => Ok(size),
        (None, Some((dw, dh))) => Ok((DEFAULT_WINDOW.0.min(dw), DEFAULT_WINDOW.1.min(dh))),
        (None, None) => Ok(DEFAULT_WINDOW),
    }
}

impl ApplicationHandler for Handler {
    /// Sleeps until input or the next frame egui asked for; never polls.
    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let Some(r) = self.running.as_ref() else {
            return;
        };
        let now = Instant::now();
        match self.repaint.wake(now) {
            // Without vsync (Xvfb, some drivers) animations would run as fast as the CPU
            // allows: not sooner than MIN_FRAME after the last frame.
            Wake::Now => match self.last_frame.map(|t| t + MIN_FRAME) {
                Some(next) if next > now => {
                    self.repaint.schedule(now, next - now);
                    event_loop.set_control_flow(ControlFlow::WaitUntil(next));
                }
                _ => {
                    r.window.window.request_redraw();
                    event_loop.set_control_flow(ControlFlow::Wait);
                }
            },
            Wake::At(at) => event_loop.set_control_flow(ControlFlow::WaitUntil(at)),
            Wake::Never => event_loop.set_control_flow(ControlFlow::Wait),
        }
    }

    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        match self.start(event_loop) {
            Ok(r) => {
                r.window.window.request_redraw();
                self.running = Some(r);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(r) = self.running.as_mut() else {
            return;
        };
        match &event {
            WindowEvent::CloseRequested => {
                if r.state.request_quit() {
                    return self.shutdown(event_loop);
                }
                r.window.window.request_redraw(); // the question shows
                return;
            }
            WindowEvent::RedrawRequested => return self.redraw(event_loop),
            WindowEvent::Resized(size) => r.window.resize(size.width, size.height),
            WindowEvent::DroppedFile(path) => r.state.open(&r.gl, path),
            _ => {}
        }
        let response = r.egui.on_window_event(&r.window.window, &event);
        if response.repaint
            || matches!(event, WindowEvent::DroppedFile(_) | WindowEvent::Resized(_))
        {
            r.window.window.request_redraw();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_keeps_the_earliest_request_and_sleeps_without_one() {
        let clock = RepaintClock::default();
        let t0 = Instant::now();
        assert_eq!(clock.wake(t0), Wake::Never);
        clock.schedule(t0, Duration::MAX);
        assert_eq!(clock.wake(t0), Wake::Never, "MAX means no repaint");
        clock.schedule(t0, Duration::from_secs(2));
        clock.schedule(t0, Duration::from_millis(500));
        clock.schedule(t0, Duration::from_secs(1));
        let at = t0 + Duration::from_millis(500);
        assert_eq!(clock.wake(t0), Wake::At(at));
        assert_eq!(clock.wake(at), Wake::Now);
        assert_eq!(clock.wake(at), Wake::Never, "a due frame is taken off");
        clock.schedule(t0, Duration::ZERO);
        clock.clear();
        assert_eq!(clock.wake(t0), Wake::Never);
    }

    #[test]
    fn explicit_sizes_must_fit_the_display_and_the_default_shrinks() {
        assert_eq!(
            window_size(Some((800, 600)), Some((1280, 800))).ok(),
            Some((800, 600))
        );
        let e = window_size(Some((4000, 3000)), Some((1280, 800))).expect_err("too large");
        assert_eq!(
            e.to_string(),
            "window size 4000x3000 is larger than the display (1280x800)"
        );
        assert_eq!(window_size(None, Some((1280, 800))).ok(), Some((1280, 800)));
        assert_eq!(window_size(None, None).ok(), Some(DEFAULT_WINDOW));
        assert_eq!(window_size(Some((9000, 10)), None).ok(), Some((9000, 10)));
    }
}
