//! The CUDA layer: raw FFI for the `cudaGL.h` calls that cudarc lacks (`ffi`), thin
//! `Result` functions, and RAII types on top (device, arrays, borrowed views of arrays and
//! buffers tied to their owner's lifetime, texture and surface objects over those views,
//! the map/unmap interop state machine, memory and semaphores imported from Vulkan, event
//! timelines), plus the kernel set every launcher draws from. A pure wrapper layer: the
//! filters' launchers live with their descriptors in `filters/`, the Mandelbrot and
//! perturbation launchers in `pipeline/explorer/`.
//!
//! Everything here runs on the thread where the GL context is current and the CUDA context
//! is bound (the main thread): see ARCHITECTURE.md.

mod array;
mod array_format;
mod bandwidth;
mod device;
mod error;
mod external_memory;
mod external_semaphore;
pub mod ffi;
mod image_array;
pub mod interop;
mod kernel_set;
pub mod memory;
mod modules;
mod surface_object;
mod texture_object;
pub mod tiles;
mod timeline;
mod views;

pub use array::CudaArray2d;
pub use array_format::ArrayFormat;
pub use bandwidth::{copy_bandwidth_samples, copy_ms_samples, gb_per_s, rgba_pass_bytes};
pub use device::{CudaDevice, DeviceInfo};
pub use error::{check, release_in, CudaError};
pub use external_memory::{ExternalArray, ExternalBuffer, SharedObject, SHARED_ARRAY_FLAGS};
pub use external_semaphore::ExternalSemaphore;
pub use image_array::ImageArray;
pub use kernel_set::{check_scratch, KernelSet};
#[cfg(test)]
pub use modules::kernel_define;
pub use modules::{kernel_build_description, kernel_embedded, load_function, load_module};
pub use surface_object::SurfaceObject;
pub use texture_object::{point_clamp_integer_reads, TextureObject};
pub use tiles::{blocks, tile_height};
pub use timeline::GpuTimeline;
pub use views::{ArrayRef, BufferRef};
