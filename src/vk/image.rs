//! An exportable 2-D image (of the format the caller names) in its own memory (optimal tiling: the layout that GL's
//! `glTexStorageMem2DEXT` and CUDA's mapped mipmapped arrays read the same way).

use super::device::DeviceInner;
use super::memory::{Dedicated, ExportedMemory};
use super::{VkError, VkExporter};
use ash::vk;
use std::sync::Arc;

/// The usages GL may put the texture to: sampling (egui), load/store (CUDA surfaces),
/// copies (uploads, readback) and a framebuffer attachment (the pixel inspector reads
/// through one). CUDA maps it with `CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_COLOR_ATTACHMENT`
/// to match.
const USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::SAMPLED.as_raw()
        | vk::ImageUsageFlags::STORAGE.as_raw()
        | vk::ImageUsageFlags::TRANSFER_SRC.as_raw()
        | vk::ImageUsageFlags::TRANSFER_DST.as_raw()
        | vk::ImageUsageFlags::COLOR_ATTACHMENT.as_raw(),
);

/// Image and memory; the image is destroyed before its memory is freed.
pub struct ExportedImage {
    inner: Arc<DeviceInner>,
    image: vk::Image,
    pub memory: ExportedMemory,
    pub width: u32,
    pub height: u32,
    pub format: vk::Format,
}

/// Whether optimal-tiling images of `format` with [`USAGE`] can be exported as opaque
/// file descriptors on this device (asked per format: support differs between formats).
fn check_exportable(inner: &DeviceInner, format: vk::Format) -> Result<(), VkError> {
    let mut external_info = vk::PhysicalDeviceExternalImageFormatInfo::default()
        .handle_type(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
    let info = vk::PhysicalDeviceImageFormatInfo2::default()
        .format(format)
        .ty(vk::ImageType::TYPE_2D)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(USAGE)
        .push_next(&mut external_info);
    let mut external = vk::ExternalImageFormatProperties::default();
    let mut props = vk::ImageFormatProperties2::default().push_next(&mut external);
    // SAFETY: valid chains that live through the call; `physical` belongs to `instance`.
    unsafe {
        inner.instance.get_physical_device_image_format_properties2(
            inner.physical,
            &info,
            &mut props,
        )
    }
    .map_err(VkError::call("vkGetPhysicalDeviceImageFormatProperties2"))?;
    let features = external.external_memory_properties.external_memory_features;
    if features.contains(vk::ExternalMemoryFeatureFlags::EXPORTABLE) {
        Ok(())
    } else {
        Err(VkError::Unsupported(format!(
            "images of Vulkan format {} (optimal tiling) are not exportable as opaque fds (features {:#x})",
            format.as_raw(),
            features.as_raw()
        )))
    }
}

impl ExportedImage {
    /// A `width × height` image of `format` with dedicated exportable memory.
    pub fn new(
        exporter: &VkExporter,
        width: u32,
        height: u32,
        format: vk::Format,
    ) -> Result<Self, VkError> {
        let inner = &exporter.inner;
        check_exportable(inner, format)?;
        let mut external = vk::ExternalMemoryImageCreateInfo::default()
            .handle_types(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        let create = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width,
                height,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(USAGE)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .push_next(&mut external);
        // SAFETY: `create` and its chain live through the call.
        let image = unsafe { inner.device.create_image(&create, None) }
            .map_err(VkError::call("vkCreateImage"))?;
        let bound = (|| {
            // SAFETY: `image` is live on this device.
            let requirements = unsafe { inner.device.get_image_memory_requirements(image) };
            let memory = ExportedMemory::allocate(inner, requirements, Dedicated::Image(image))?;
            // SAFETY: fresh image and memory sized from its requirements, offset 0.
            unsafe { inner.device.bind_image_memory(image, memory.raw(), 0) }
                .map_err(VkError::call("vkBindImageMemory"))?;
            Ok(memory)
        })();
        match bound {
            Ok(memory) => Ok(Self {
                inner: inner.clone(),
                image,
                memory,
                width,
                height,
                format,
            }),
            Err(e) => {
                // SAFETY: the image is unused and destroyed once.
                unsafe { inner.device.destroy_image(image, None) };
                Err(e)
            }
        }
    }
}

impl Drop for ExportedImage {
    fn drop(&mut self) {
        // SAFETY: created on this device, destroyed once; the memory (a field) is freed
        // after this.
        unsafe { self.inner.device.destroy_image(self.image, None) };
    }
}
