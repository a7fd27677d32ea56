//! The egui application: winit event handling, GL context, and the panels (`*_ui`
//! functions). Talks to `pipeline` for all image work; knows no CUDA details.

mod args;
mod config_dir;
mod cpu_jobs;
pub mod display;
mod edit_history;
mod edit_ui;
mod file_dialog;
mod filter_stack;
#[cfg(test)]
mod filter_stack_tests;
mod frame_log;
mod handler;
mod histogram_panel;
mod history_panel;
mod image_document;
mod image_edits;
mod image_view;
mod kernel_editor;
#[cfg(test)]
mod layout_tests;
mod mandelbrot_navigation;
mod mandelbrot_view;
mod menu;
mod palette_editor;
pub mod presets;
mod presets_ui;
mod recent;
mod session;
mod settings;
mod stack_history;
mod state;
mod status_bar;
mod typed;
mod unsaved;
mod user_bookmarks;
pub mod video;

pub use args::{
    parse_pair, parse_selection, parse_size_up_to, parse_window_size, screenshot_options, GuiArgs,
    MAX_WINDOW_SIDE,
};
pub use config_dir::{config_dir, CONFIG_DIR_ENV};
pub use filter_stack::{FilterEntry, FilterStack};

pub use handler::WindowTooLarge;
pub use view_text::{save_view_exr, view_chunks, view_from_text, view_to_text, ViewText};
mod view_history;
mod view_text;
mod worker;

use std::path::{Path, PathBuf};

/// The image shown when no file is given: the checkout's it was built in, an installed
/// copy in `share/cudalens/` beside the binary's `bin/` (the Debian package puts it there),
/// or the one of a checkout it runs in (a binary built elsewhere).
pub fn default_image_path() -> PathBuf {
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/chelsea.png");
    if built.exists() {
        return built;
    }
    let installed = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("share/cudalens/chelsea.png")));
    [installed, Some(PathBuf::from("assets/chelsea.png"))]
        .into_iter()
        .flatten()
        .find(|p| p.exists())
        .unwrap_or(built)
}

/// A file given to the window must be a regular file, as on the command line: a folder,
/// a pipe or a device is refused before the window opens (and before anything blocks
/// reading it).
pub fn check_window_file(path: &Path) -> Result<(), crate::image_io::LoadError> {
    use crate::image_io::LoadError;
    let meta = std::fs::metadata(path).map_err(|e| LoadError::from_io(path, e))?;
    if meta.is_dir() {
        return Err(LoadError::IsDirectory { path: path.into() });
    }
    if !meta.is_file() {
        return Err(LoadError::Io {
            path: path.into(),
            source: std::io::Error::other(
                "not a regular file (a pipe, socket or device); give an image file",
            ),
        });
    }
    Ok(())
}

/// Opens the window and runs until it is closed (or `--frames` frames were drawn).
pub fn run_app(file: Option<PathBuf>, args: GuiArgs) -> anyhow::Result<()> {
    if let Some(f) = &file {
        check_window_file(f)?;
    }
    let event_loop = winit::event_loop::EventLoop::new()
        .map_err(|e| anyhow::anyhow!("cannot open a window (is there a display?): {e}"))?;
    let explicit = file.is_some();
    let mut handler = handler::Handler::new(
        file.unwrap_or_else(default_image_path),
        explicit,
        args,
        event_loop.create_proxy(),
    );
    event_loop.run_app(&mut handler)?;
    handler.into_result()
}
