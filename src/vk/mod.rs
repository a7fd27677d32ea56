//! Vulkan, used only as the allocator of memory and semaphores that OpenGL and CUDA both
//! import (the "external memory" interop path): exportable images, buffers and binary
//! semaphores on the GPU whose UUID is the CUDA device's, handed out as opaque file
//! descriptors. No Vulkan work is ever submitted.
//!
//! The loader is opened at run time (ash's `loaded` feature): a machine without Vulkan
//! fails here with a reason, and the app keeps the map/unmap path.

mod buffer;
mod device;
mod error;
mod image;
mod memory;
mod semaphore;

pub use buffer::ExportedBuffer;
pub use device::{VkExporter, VkExporterInfo};
pub use error::VkError;
pub use image::ExportedImage;
pub use memory::ExportedMemory;
pub use semaphore::ExportedSemaphore;
