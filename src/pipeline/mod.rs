//! Running work on a backend: the CPU reference or CUDA through GL interop, chosen with
//! fallback and a stated reason. `frame/` runs the filter stack on an image, `explorer/`
//! renders the Mandelbrot view, `interop/` is CUDA's access to the GL objects; the backend
//! choice, errors and reports here serve both.

mod backend;
mod error;
mod explorer;
mod frame;
mod gpu_format;
mod headless;
mod interop;
mod report;
mod with_spare;

pub use backend::{choose_backend, fall_back_after, BackendKind, BackendRequest, BackendStatus};
pub use error::PipelineError;
pub use explorer::mandelbrot_tiles;
pub use explorer::{
    cpu_deep_dwells, cpu_dwells, cpu_dwells_cancellable, cpu_panned_dwells, cpu_picture,
    cpu_picture_keeping_dwells, render_mandelbrot_frames, render_mandelbrot_headless,
    MandelbrotFrame, MandelbrotOutput, MandelbrotRenderer, MsSource, RenderControl,
};
pub use explorer::{
    render_frames_spread, render_poster, DeviceChoice, PosterPixels, WorkerReport, Workers,
    BANDS_AHEAD,
};
pub use frame::{
    check_gpu_frame, check_gpu_frame_as, cpu_filters, frame_work, gpu_frame_bytes,
    gpu_frame_bytes_as, probe_cuda, process_frames_headless, process_headless, process_on_cpu_with,
    process_pixels_headless, process_typed_on_cpu, process_video_headless, stage_parser,
    stage_spec_help, stages_of, upload_cpu_bins, upload_cpu_result, FrameRunner, FrameTargets,
    HeadlessOutput, HeadlessPixels, Stage, StageSpecError, VideoDecoder,
};
pub use gpu_format::{GpuFormatError, GpuPixelFormat};
pub use headless::cuda_headless_gl;
pub use interop::{CudaShare, InteropKind, InteropRequest, InteropStatus};
pub use report::{
    counts_in_total, hand_over_stage, total_of, FrameReport, StageTime, KERNEL_HOST_STAGE,
};
