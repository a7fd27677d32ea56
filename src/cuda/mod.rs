//! The CUDA layer: raw FFI for the `cudaGL.h` calls that cudarc lacks (`ffi`), thin
//! `Result` functions, and RAII types on top (device, arrays, texture and surface objects,
//! the interop state machine, event timelines), plus one launcher per kernel file.
//!
//! Everything here runs on the thread where the GL context is current and the CUDA context
//! is bound (the main thread): see ARCHITECTURE.md.

mod array;
mod bandwidth;
mod device;
mod error;
pub mod ffi;
mod filter_kernels;
pub mod interop;
mod mandelbrot_kernels;
pub mod memory;
mod modules;
mod perturbation_kernels;
mod surface_object;
mod texture_object;
pub mod tiles;
mod timeline;

pub use array::CudaArray2d;
pub use bandwidth::copy_bandwidth_samples;
pub use device::{CudaDevice, DeviceInfo};
pub use error::{check, release_in, CudaError};
pub use filter_kernels::{FilterKernels, SCRATCH_BYTES_PER_PIXEL};
pub use mandelbrot_kernels::{MandelbrotKernels, MsRecordBuffer};
pub use modules::{kernel_build_description, load_function, load_module};
pub use perturbation_kernels::{DeviceOrbit, PerturbationKernels, PerturbationPath};
pub use surface_object::SurfaceObject;
pub use texture_object::TextureObject;
pub use timeline::GpuTimeline;
