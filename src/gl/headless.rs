//! A headless OpenGL 3.3 core context through EGL (device platform, surfaceless): the
//! command line's `--backend cuda` and the GPU tests run the real interop path with it,
//! no display needed.

use super::{renderer_description, GlError};
use glutin::api::egl::{context::PossiblyCurrentContext, device::Device, display::Display};
use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
use glutin::prelude::*;
use std::sync::Arc;

/// A current, surfaceless GL context and its function table.
pub struct HeadlessGl {
    pub gl: Arc<glow::Context>,
    pub renderer: String,
    _context: PossiblyCurrentContext,
    _display: Display,
}

fn context_error(e: impl std::fmt::Display) -> GlError {
    GlError::Context(e.to_string())
}

impl HeadlessGl {
    /// Opens a context on the EGL device that CUDA can use (`EGL_NV_device_cuda`) when
    /// there is one, otherwise on the first device (Mesa's software device).
    pub fn new() -> Result<Self, GlError> {
        let devices: Vec<Device> = Device::query_devices().map_err(context_error)?.collect();
        let device = devices
            .iter()
            .find(|d| d.extensions().contains("EGL_NV_device_cuda"))
            .or_else(|| devices.first())
            .ok_or_else(|| GlError::Context("no EGL device".into()))?;
        // SAFETY: `device` came from query_devices and outlives this call; no native
        // display is involved.
        let display = unsafe { Display::with_device(device, None) }.map_err(context_error)?;
        let template = ConfigTemplateBuilder::new()
            .with_api(Api::OPENGL)
            .with_surface_type(ConfigSurfaceTypes::empty())
            .build();
        // SAFETY: the template asks for no native window.
        let config = unsafe { GlDisplay::find_configs(&display, template) }
            .map_err(context_error)?
            .next()
            .ok_or_else(|| GlError::Context("no OpenGL config for a surfaceless context".into()))?;
        let attributes = ContextAttributesBuilder::new()
            .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
            .with_profile(GlProfile::Core)
            .build(None);
        // SAFETY: `config` belongs to `display`; no window handle.
        let context = unsafe { GlDisplay::create_context(&display, &config, &attributes) }
            .map_err(context_error)?
            .make_current_surfaceless()
            .map_err(context_error)?;
        // SAFETY: the context is current on this thread; get_proc_address returns
        // entry points of that context.
        let gl = unsafe {
            glow::Context::from_loader_function_cstr(|name| {
                GlDisplay::get_proc_address(&display, name)
            })
        };
        super::ext_ffi::install(|name| GlDisplay::get_proc_address(&display, name));
        let renderer = renderer_description(&gl);
        Ok(Self {
            gl: Arc::new(gl),
            renderer,
            _context: context,
            _display: display,
        })
    }
}
