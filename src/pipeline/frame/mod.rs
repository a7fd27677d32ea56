//! The image frame: a stack of `Stage`s run on the CPU reference or on CUDA through GL
//! interop, the targets and intermediate arrays it uses, the GPU budget check, and the
//! headless runs of a stack.

mod cpu_frame;
mod cuda_frame;
mod frame_runner;
mod frame_stages;
mod frame_targets;
mod headless;
mod hosted;
mod intermediates;
mod stage;
mod working_set;

pub use cpu_frame::{
    process_on_cpu_with, process_typed_on_cpu, upload_cpu_bins, upload_cpu_result,
};
pub use frame_runner::FrameRunner;
pub use frame_targets::FrameTargets;
pub use headless::{
    probe_cuda, process_frames_headless, process_headless, process_pixels_headless,
    process_video_headless, HeadlessOutput, HeadlessPixels, VideoDecoder,
};
pub use hosted::frame_work;
pub use stage::{cpu_filters, stage_parser, stage_spec_help, stages_of, Stage, StageSpecError};
pub use working_set::{check_gpu_frame, check_gpu_frame_as, gpu_frame_bytes, gpu_frame_bytes_as};
