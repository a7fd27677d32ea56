//! An exportable binary semaphore: GL signals and CUDA waits on one, CUDA signals and GL
//! waits on another, once per frame each.

use super::device::DeviceInner;
use super::{VkError, VkExporter};
use ash::vk;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::Arc;

/// Destroyed on drop (the GL and CUDA imports hold their own references).
pub struct ExportedSemaphore {
    inner: Arc<DeviceInner>,
    semaphore: vk::Semaphore,
}

impl ExportedSemaphore {
    pub fn new(exporter: &VkExporter) -> Result<Self, VkError> {
        let inner = &exporter.inner;
        let info = vk::PhysicalDeviceExternalSemaphoreInfo::default()
            .handle_type(vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD);
        let mut props = vk::ExternalSemaphoreProperties::default();
        // SAFETY: valid structs; `physical` belongs to `instance`.
        unsafe {
            inner
                .instance
                .get_physical_device_external_semaphore_properties(
                    inner.physical,
                    &info,
                    &mut props,
                )
        };
        if !props
            .external_semaphore_features
            .contains(vk::ExternalSemaphoreFeatureFlags::EXPORTABLE)
        {
            return Err(VkError::Unsupported(
                "binary semaphores are not exportable as opaque fds".into(),
            ));
        }
        let mut export = vk::ExportSemaphoreCreateInfo::default()
            .handle_types(vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD);
        let create = vk::SemaphoreCreateInfo::default().push_next(&mut export);
        // SAFETY: `create` and its chain live through the call.
        let semaphore = unsafe { inner.device.create_semaphore(&create, None) }
            .map_err(VkError::call("vkCreateSemaphore"))?;
        Ok(Self {
            inner: inner.clone(),
            semaphore,
        })
    }

    /// A new descriptor for the semaphore; the importer takes ownership.
    pub fn export_fd(&self) -> Result<OwnedFd, VkError> {
        let info = vk::SemaphoreGetFdInfoKHR::default()
            .semaphore(self.semaphore)
            .handle_type(vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD);
        // SAFETY: the semaphore was created exportable as OPAQUE_FD.
        let fd = unsafe { self.inner.semaphore_fd.get_semaphore_fd(&info) }
            .map_err(VkError::call("vkGetSemaphoreFdKHR"))?;
        // SAFETY: vkGetSemaphoreFdKHR returned a new descriptor that we now own.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }
}

impl Drop for ExportedSemaphore {
    fn drop(&mut self) {
        // SAFETY: created on this device and destroyed once; Vulkan never queued it.
        unsafe { self.inner.device.destroy_semaphore(self.semaphore, None) };
    }
}
