//! cudalens: live GPU image processing and Mandelbrot exploration.
//!
//! CUDA kernels read OpenGL textures through texture objects and write OpenGL textures
//! through surface objects (CUDA–GL interop); a CPU backend implements the same contract
//! and is the reference every kernel is tested against. See ARCHITECTURE.md.

pub mod app;
pub mod bench_stats;
pub mod cli;
pub mod cuda;
pub mod edit;
pub mod fault;
pub mod filters;
pub mod gl;
pub mod image_io;
pub mod kernel_constants;
pub mod mandelbrot;
pub mod ops;
pub mod pipeline;
pub mod pixels;
pub mod user_kernel;
pub mod video;
pub mod vk;
