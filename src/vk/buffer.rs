//! An exportable buffer in its own memory (the histogram bins, the Mandelbrot pixels).

use super::device::DeviceInner;
use super::memory::{Dedicated, ExportedMemory};
use super::{VkError, VkExporter};
use ash::vk;
use std::sync::Arc;

/// Buffer and memory; the buffer is destroyed before its memory is freed.
pub struct ExportedBuffer {
    inner: Arc<DeviceInner>,
    buffer: vk::Buffer,
    pub memory: ExportedMemory,
    /// Bytes the buffer was created with (the memory may be larger).
    pub size: u64,
}

impl ExportedBuffer {
    /// A buffer of `size` bytes with dedicated exportable memory.
    pub fn new(exporter: &VkExporter, size: u64) -> Result<Self, VkError> {
        let inner = &exporter.inner;
        let mut external = vk::ExternalMemoryBufferCreateInfo::default()
            .handle_types(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        let create = vk::BufferCreateInfo::default()
            .size(size)
            .usage(
                vk::BufferUsageFlags::STORAGE_BUFFER
                    | vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
                    | vk::BufferUsageFlags::TRANSFER_SRC
                    | vk::BufferUsageFlags::TRANSFER_DST,
            )
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .push_next(&mut external);
        // SAFETY: `create` and its chain live through the call.
        let buffer = unsafe { inner.device.create_buffer(&create, None) }
            .map_err(VkError::call("vkCreateBuffer"))?;
        let bound = (|| {
            // SAFETY: `buffer` is live on this device.
            let requirements = unsafe { inner.device.get_buffer_memory_requirements(buffer) };
            let memory = ExportedMemory::allocate(inner, requirements, Dedicated::Buffer(buffer))?;
            // SAFETY: fresh buffer and memory sized from its requirements, offset 0.
            unsafe { inner.device.bind_buffer_memory(buffer, memory.raw(), 0) }
                .map_err(VkError::call("vkBindBufferMemory"))?;
            Ok(memory)
        })();
        match bound {
            Ok(memory) => Ok(Self {
                inner: inner.clone(),
                buffer,
                memory,
                size,
            }),
            Err(e) => {
                // SAFETY: the buffer is unused and destroyed once.
                unsafe { inner.device.destroy_buffer(buffer, None) };
                Err(e)
            }
        }
    }
}

impl Drop for ExportedBuffer {
    fn drop(&mut self) {
        // SAFETY: created on this device, destroyed once, before its memory (a field).
        unsafe { self.inner.device.destroy_buffer(self.buffer, None) };
    }
}
