//! Running a filter stack on a backend: the CPU reference or CUDA through GL interop,
//! chosen with fallback and a stated reason. Also the Mandelbrot renderer.

mod backend;
mod cpu_frame;
mod cuda_frame;
mod cuda_mandelbrot;
mod deep_zoom;
mod error;
mod frame_runner;
mod frame_targets;
mod headless;
mod intermediates;
mod mandelbrot_renderer;
mod report;

pub use backend::{BackendKind, BackendRequest, BackendStatus};
pub use deep_zoom::cpu_deep_dwells;
pub use error::PipelineError;
pub use frame_runner::FrameRunner;
pub use frame_targets::FrameTargets;
pub use headless::{
    probe_cuda, process_headless, render_mandelbrot_headless, HeadlessOutput, MandelbrotOutput,
};
pub use mandelbrot_renderer::{MandelbrotFrame, MandelbrotRenderer, MandelbrotSettings};
pub use report::{FrameReport, StageTime};
