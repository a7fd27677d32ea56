//! Exportable device memory: one dedicated allocation per image or buffer, handed out as
//! opaque file descriptors (each import into GL or CUDA consumes its own descriptor).

use super::device::DeviceInner;
use super::VkError;
use ash::vk;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::Arc;

/// What a dedicated allocation is for.
pub(super) enum Dedicated {
    Image(vk::Image),
    Buffer(vk::Buffer),
}

/// Device-local memory allocated for export as `OPAQUE_FD`; freed on drop.
pub struct ExportedMemory {
    inner: Arc<DeviceInner>,
    memory: vk::DeviceMemory,
    /// Bytes of the allocation: the size GL and CUDA must import.
    pub size: u64,
}

impl ExportedMemory {
    /// Allocates dedicated, exportable memory for `owner` from its requirements.
    pub(super) fn allocate(
        inner: &Arc<DeviceInner>,
        requirements: vk::MemoryRequirements,
        owner: Dedicated,
    ) -> Result<Self, VkError> {
        let type_index = inner.device_local_type(requirements.memory_type_bits)?;
        let mut export = vk::ExportMemoryAllocateInfo::default()
            .handle_types(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        let mut dedicated = match owner {
            Dedicated::Image(image) => vk::MemoryDedicatedAllocateInfo::default().image(image),
            Dedicated::Buffer(buffer) => vk::MemoryDedicatedAllocateInfo::default().buffer(buffer),
        };
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(requirements.size)
            .memory_type_index(type_index)
            .push_next(&mut export)
            .push_next(&mut dedicated);
        // SAFETY: `info` and its chain live through the call; the type index is valid.
        let memory = unsafe { inner.device.allocate_memory(&info, None) }
            .map_err(VkError::call("vkAllocateMemory"))?;
        Ok(Self {
            inner: inner.clone(),
            memory,
            size: requirements.size,
        })
    }

    pub(super) fn raw(&self) -> vk::DeviceMemory {
        self.memory
    }

    /// A new descriptor for the memory; the importer (GL or CUDA) takes ownership.
    pub fn export_fd(&self) -> Result<OwnedFd, VkError> {
        let info = vk::MemoryGetFdInfoKHR::default()
            .memory(self.memory)
            .handle_type(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        // SAFETY: the memory was allocated exportable as OPAQUE_FD.
        let fd = unsafe { self.inner.memory_fd.get_memory_fd(&info) }
            .map_err(VkError::call("vkGetMemoryFdKHR"))?;
        // SAFETY: vkGetMemoryFdKHR returned a new descriptor that we now own.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }
}

impl Drop for ExportedMemory {
    fn drop(&mut self) {
        // SAFETY: allocated on this device, freed once; whatever was bound to it has been
        // destroyed by its owner first (field order in ExportedImage/ExportedBuffer).
        unsafe { self.inner.device.free_memory(self.memory, None) };
    }
}
