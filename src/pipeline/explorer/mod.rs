//! The Mandelbrot explorer: `MandelbrotRenderer` over one `ExplorerBackend` (CUDA kernels
//! with the picture handed to GL, or the CPU reference), deep zoom by perturbation, and
//! headless renders.

mod cpu_mandelbrot;
mod cuda_mandelbrot;
mod deep_zoom;
mod explorer_backend;
mod headless;
mod mandelbrot_frame;
mod mandelbrot_kernels;
mod mandelbrot_pbo;
mod mandelbrot_renderer;
pub mod mandelbrot_tiles;
mod perturbation_kernels;
mod poster;

pub use cpu_mandelbrot::{
    cpu_dwells, cpu_dwells_cancellable, cpu_panned_dwells, cpu_picture, cpu_picture_keeping_dwells,
};
pub use deep_zoom::cpu_deep_dwells;
pub use headless::{render_mandelbrot_frames, render_mandelbrot_headless, MandelbrotOutput};
pub use mandelbrot_frame::{MandelbrotFrame, RenderControl};
pub use mandelbrot_kernels::MsSource;
pub use mandelbrot_renderer::MandelbrotRenderer;
pub use poster::{
    render_frames_spread, render_poster, DeviceChoice, PosterPixels, WorkerReport, Workers,
    BANDS_AHEAD,
};
