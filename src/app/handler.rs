//! winit event handling: the window, egui_glow, redraws, dropped files, screenshots.

use super::state::AppState;
use crate::cli::GuiArgs;
use crate::gl::GlWindow;
use glow::HasContext;
use std::path::PathBuf;
use std::sync::Arc;
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::ActiveEventLoop;
use winit::window::WindowId;

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
}

impl Handler {
    pub fn new(initial: PathBuf, args: GuiArgs) -> Self {
        Self {
            initial,
            args,
            running: None,
            frames: 0,
            error: None,
        }
    }

    /// The first fatal error, if any, after the loop ended.
    pub fn into_result(self) -> anyhow::Result<()> {
        self.error.map_or(Ok(()), Err)
    }

    fn start(&self, event_loop: &ActiveEventLoop) -> anyhow::Result<Running> {
        let (w, h) = self.args.size;
        let attributes = winit::window::Window::default_attributes()
            .with_title("cudalens")
            .with_inner_size(winit::dpi::PhysicalSize::new(w, h));
        let (window, gl) = GlWindow::new(event_loop, attributes)?;
        let gl = Arc::new(gl);
        let mut egui = egui_glow::EguiGlow::new(event_loop, gl.clone(), None, None, true);
        let state = AppState::new(&gl, &mut egui.painter, &self.initial, &self.args)?;
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
        let (gl, state) = (&r.gl, &mut r.state);
        r.egui.run(&r.window.window, |ui| state.ui(ui, gl));
        // The output texture is re-made on a resize on the external-memory interop path.
        let output = state.runner.targets.output.id;
        r.egui
            .painter
            .replace_native_texture(state.output_id, output);
        // SAFETY: clearing the default framebuffer of the current context.
        unsafe {
            r.gl.clear_color(0.08, 0.08, 0.09, 1.0);
            r.gl.clear(glow::COLOR_BUFFER_BIT);
        }
        r.egui.paint(&r.window.window);
        self.frames += 1;
        let last = self.args.frames > 0 && self.frames >= self.args.frames;
        if last {
            if let Some(path) = self.args.screenshot.clone() {
                let shot = r
                    .window
                    .screenshot(&r.gl)
                    .map_err(anyhow::Error::from)
                    .and_then(|img| {
                        let options = crate::image_io::SaveOptions {
                            overwrite: true,
                            protected: Vec::new(),
                        };
                        Ok(crate::image_io::save_image(&img, &path, &options)?)
                    });
                if let Err(e) = shot {
                    return self.fail(event_loop, e.context("screenshot"));
                }
            }
        }
        if let Err(e) = r.window.swap_buffers() {
            log::warn!("swap buffers: {e}");
        }
        if last || r.state.quit {
            return self.shutdown(event_loop);
        }
        if r.state.wants_repaint()
            || self.args.frames > 0
            || r.egui.egui_ctx.has_requested_repaint()
        {
            r.window.window.request_redraw();
        }
    }
}

impl ApplicationHandler for Handler {
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
            WindowEvent::CloseRequested => return self.shutdown(event_loop),
            WindowEvent::RedrawRequested => return self.redraw(event_loop),
            WindowEvent::Resized(size) => r.window.resize(size.width, size.height),
            WindowEvent::DroppedFile(path) => {
                r.state.open(&r.gl, path);
                r.state.tab = super::state::Tab::Image;
            }
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
