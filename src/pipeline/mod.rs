//! Running a filter stack on a backend: the CPU reference or CUDA through GL interop,
//! chosen with fallback and a stated reason. Also the Mandelbrot renderer.

mod backend;
mod cpu_frame;
mod cpu_mandelbrot;
mod cuda_frame;
mod cuda_mandelbrot;
mod deep_zoom;
mod error;
mod frame_runner;
mod frame_targets;
mod headless;
mod intermediates;
mod interop;
mod mandelbrot_frame;
mod mandelbrot_kernels;
mod mandelbrot_pbo;
mod mandelbrot_renderer;
pub mod mandelbrot_tiles;
mod perturbation_kernels;
mod report;
mod stage;
mod with_spare;
mod working_set;

pub use backend::{choose_backend, fall_back_after, BackendKind, BackendRequest, BackendStatus};
pub use cpu_frame::{process_on_cpu_with, upload_cpu_result};
pub use cpu_mandelbrot::{cpu_dwells, cpu_dwells_cancellable};
pub use deep_zoom::cpu_deep_dwells;
pub use error::PipelineError;
pub use frame_runner::FrameRunner;
pub use frame_targets::FrameTargets;
pub use headless::{
    cuda_headless_gl, probe_cuda, process_headless, render_mandelbrot_frames,
    render_mandelbrot_headless, HeadlessOutput, MandelbrotOutput,
};
pub use interop::{CudaShare, InteropKind, InteropRequest, InteropStatus};
pub use mandelbrot_frame::MandelbrotFrame;
pub use mandelbrot_kernels::MsSource;
pub use mandelbrot_renderer::MandelbrotRenderer;
pub use report::{counts_in_total, total_of, FrameReport, StageTime};
pub use stage::{cpu_filters, stage_spec_help, stages_of, Stage, StageSpecError};
pub use working_set::{check_gpu_frame, gpu_frame_bytes};
