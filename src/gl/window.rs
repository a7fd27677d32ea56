//! The app's window: winit + glutin (GLX preferred on X11, EGL otherwise), OpenGL 3.3 core.

use super::{read_pixels, GlError};
use glutin::config::ConfigTemplateBuilder;
use glutin::context::{
    ContextApi, ContextAttributesBuilder, GlProfile, NotCurrentGlContext, PossiblyCurrentContext,
    Version,
};
use glutin::display::{GetGlDisplay, GlDisplay};
use glutin::surface::{GlSurface, Surface, SurfaceAttributesBuilder, SwapInterval, WindowSurface};
use raw_window_handle::HasWindowHandle;
use std::num::NonZeroU32;
use winit::event_loop::ActiveEventLoop;
use winit::window::{Window, WindowAttributes};

/// The window with its current GL context and surface. Fields drop in declaration
/// order: the surface and context go before the X window they live on.
pub struct GlWindow {
    surface: Surface<WindowSurface>,
    context: PossiblyCurrentContext,
    pub window: Window,
}

fn context_error(e: impl std::fmt::Display) -> GlError {
    GlError::Context(e.to_string())
}

impl GlWindow {
    /// Creates the window and a current GL context; returns the GL function table too.
    pub fn new(
        event_loop: &ActiveEventLoop,
        attributes: WindowAttributes,
    ) -> Result<(Self, glow::Context), GlError> {
        let template = ConfigTemplateBuilder::new()
            .with_depth_size(0)
            .with_stencil_size(0);
        let (window, config) = glutin_winit::DisplayBuilder::new()
            .with_preference(glutin_winit::ApiPreference::FallbackEgl)
            .with_window_attributes(Some(attributes.clone()))
            // glutin reports "no matching config" as an error before calling the picker,
            // so the iterator is never empty here.
            .build(event_loop, template, |mut configs| {
                configs.next().expect("glutin offers at least one config")
            })
            .map_err(context_error)?;
        let display = config.display();
        let window = match window {
            Some(w) => w,
            None => glutin_winit::finalize_window(event_loop, attributes, &config)
                .map_err(context_error)?,
        };
        let handle = window.window_handle().map_err(context_error)?.as_raw();
        let core = ContextAttributesBuilder::new()
            .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
            .with_profile(GlProfile::Core)
            .build(Some(handle));
        // SAFETY: `handle` is the live window created above, `config` belongs to `display`.
        let context = unsafe { display.create_context(&config, &core) }.map_err(context_error)?;
        let size = window.inner_size();
        let attrs = SurfaceAttributesBuilder::<WindowSurface>::new().build(
            handle,
            NonZeroU32::new(size.width).unwrap_or(NonZeroU32::MIN),
            NonZeroU32::new(size.height).unwrap_or(NonZeroU32::MIN),
        );
        // SAFETY: as above; the surface does not outlive the window (both in Self).
        let surface =
            unsafe { display.create_window_surface(&config, &attrs) }.map_err(context_error)?;
        let context = context.make_current(&surface).map_err(context_error)?;
        if let Err(e) = surface.set_swap_interval(&context, SwapInterval::Wait(NonZeroU32::MIN)) {
            log::warn!("vsync unavailable: {e}");
        }
        // SAFETY: the context is current on this thread.
        let gl = unsafe {
            glow::Context::from_loader_function_cstr(|name| display.get_proc_address(name))
        };
        super::ext_ffi::install(|name| display.get_proc_address(name));
        Ok((
            Self {
                window,
                context,
                surface,
            },
            gl,
        ))
    }

    /// Follows a window resize; a zero-sized (minimised) window keeps its surface.
    pub fn resize(&self, width: u32, height: u32) {
        if let (Some(w), Some(h)) = (NonZeroU32::new(width), NonZeroU32::new(height)) {
            self.surface.resize(&self.context, w, h);
        }
    }

    pub fn swap_buffers(&self) -> Result<(), GlError> {
        self.surface
            .swap_buffers(&self.context)
            .map_err(context_error)
    }

    /// The window's back buffer as an image, top row first (screenshots).
    pub fn screenshot(&self, gl: &glow::Context) -> Result<image::RgbaImage, GlError> {
        let size = self.window.inner_size();
        let mut img = read_pixels(gl, size.width.max(1), size.height.max(1))?;
        image::imageops::flip_vertical_in_place(&mut img);
        Ok(img)
    }
}
