//! The Vulkan instance and device on the CUDA GPU, with the fd-export entry points.

use super::VkError;
use ash::vk;
use std::ffi::CStr;
use std::sync::{Arc, Mutex};

/// What `doctor` and the status bar say about the Vulkan side.
#[derive(Debug, Clone)]
pub struct VkExporterInfo {
    pub device_name: String,
    pub api_version: String,
}

impl std::fmt::Display for VkExporterInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Vulkan {} on {}", self.api_version, self.device_name)
    }
}

/// Instance, device and extension tables; destroyed when the last owner drops.
pub(super) struct DeviceInner {
    _entry: ash::Entry,
    pub(super) instance: ash::Instance,
    pub(super) physical: vk::PhysicalDevice,
    pub(super) device: ash::Device,
    pub(super) memory_fd: ash::khr::external_memory_fd::Device,
    pub(super) semaphore_fd: ash::khr::external_semaphore_fd::Device,
    memory_properties: vk::PhysicalDeviceMemoryProperties,
}

impl DeviceInner {
    /// Index of a device-local memory type allowed by `type_bits`.
    pub(super) fn device_local_type(&self, type_bits: u32) -> Result<u32, VkError> {
        let props = &self.memory_properties;
        (0..props.memory_type_count)
            .find(|&i| {
                type_bits & (1 << i) != 0
                    && props.memory_types[i as usize]
                        .property_flags
                        .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
            })
            .ok_or_else(|| VkError::Unsupported("no device-local memory type".into()))
    }
}

impl Drop for DeviceInner {
    fn drop(&mut self) {
        // SAFETY: every object made from the device holds an Arc to this, so none is left;
        // the device goes before its instance.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// Allocates exportable memory and semaphores on one GPU. Cheap to clone.
#[derive(Clone)]
pub struct VkExporter {
    pub(super) inner: Arc<DeviceInner>,
    pub info: VkExporterInfo,
}

const DEVICE_EXTENSIONS: [&CStr; 2] = [
    ash::khr::external_memory_fd::NAME,
    ash::khr::external_semaphore_fd::NAME,
];

fn version_string(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}

/// The physical device whose UUID is `uuid`, with its name, or why there is none.
fn find_physical(
    instance: &ash::Instance,
    uuid: &[u8; 16],
) -> Result<(vk::PhysicalDevice, String, u32), VkError> {
    // SAFETY: a live instance; enumeration has no other preconditions.
    let devices = unsafe { instance.enumerate_physical_devices() }
        .map_err(VkError::call("vkEnumeratePhysicalDevices"))?;
    let mut seen = Vec::new();
    for physical in devices {
        let mut id = vk::PhysicalDeviceIDProperties::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut id);
        // SAFETY: `physical` came from this instance; `props2` chains a valid ID struct.
        unsafe { instance.get_physical_device_properties2(physical, &mut props2) };
        let props = props2.properties;
        let name = props
            .device_name_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "?".into());
        if id.device_uuid == *uuid {
            return Ok((physical, name, props.api_version));
        }
        seen.push(name);
    }
    Err(VkError::NoDevice(if seen.is_empty() {
        "no Vulkan device (is a Vulkan driver installed?)".into()
    } else {
        format!("none of [{}] has the CUDA device's UUID", seen.join(", "))
    }))
}

fn check_extensions(instance: &ash::Instance, physical: vk::PhysicalDevice) -> Result<(), VkError> {
    // SAFETY: `physical` belongs to `instance`.
    let available = unsafe { instance.enumerate_device_extension_properties(physical) }
        .map_err(VkError::call("vkEnumerateDeviceExtensionProperties"))?;
    for wanted in DEVICE_EXTENSIONS {
        if !available
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(wanted))
        {
            return Err(VkError::Unsupported(format!(
                "the Vulkan device lacks {}",
                wanted.to_string_lossy()
            )));
        }
    }
    Ok(())
}

fn create_instance(entry: &ash::Entry) -> Result<ash::Instance, VkError> {
    let app = vk::ApplicationInfo::default()
        .application_name(c"cudalens")
        .api_version(vk::API_VERSION_1_1);
    let create = vk::InstanceCreateInfo::default().application_info(&app);
    // SAFETY: `create` and what it points to live through the call.
    unsafe { entry.create_instance(&create, None) }.map_err(VkError::call("vkCreateInstance"))
}

fn create_device(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
) -> Result<ash::Device, VkError> {
    let priorities = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&priorities)];
    let names: Vec<*const std::ffi::c_char> =
        DEVICE_EXTENSIONS.iter().map(|n| n.as_ptr()).collect();
    let create = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&names);
    // SAFETY: the extensions were checked; all pointers live through the call.
    unsafe { instance.create_device(physical, &create, None) }
        .map_err(VkError::call("vkCreateDevice"))
}

/// The exporters opened so far, one per GPU, kept until the process exits.
static OPENED: Mutex<Vec<([u8; 16], VkExporter)>> = Mutex::new(Vec::new());

impl VkExporter {
    /// The process's exporter for the GPU whose UUID is `uuid`, opened on first use and
    /// never closed: on driver 580, destroying the Vulkan instance (which unloads NVIDIA's
    /// Vulkan driver, the library GLX shares) left the current OpenGL context unusable
    /// (`glGetIntegerv` returned 0, `cuGLGetDevices` failed with 219).
    /// A failure is not kept: the next call tries again.
    pub fn shared(uuid: &[u8; 16]) -> Result<Self, VkError> {
        let mut opened = OPENED
            .lock()
            .map_err(|_| VkError::Unsupported("Vulkan exporter registry poisoned".into()))?;
        if let Some((_, exporter)) = opened.iter().find(|(u, _)| u == uuid) {
            return Ok(exporter.clone());
        }
        let exporter = Self::open(uuid)?;
        opened.push((*uuid, exporter.clone()));
        Ok(exporter)
    }

    /// Opens the Vulkan device whose UUID is `uuid` (the CUDA device's), with
    /// `VK_KHR_external_memory_fd` and `VK_KHR_external_semaphore_fd`. Dropping the last
    /// clone destroys the device and the instance: the app uses [`VkExporter::shared`].
    pub fn open(uuid: &[u8; 16]) -> Result<Self, VkError> {
        // SAFETY: loading the Vulkan loader runs its initialisers, which have no
        // preconditions.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| VkError::NoLoader(e.to_string()))?;
        let instance = create_instance(&entry)?;
        let opened = find_physical(&instance, uuid).and_then(|(physical, name, api)| {
            check_extensions(&instance, physical)?;
            Ok((physical, name, api, create_device(&instance, physical)?))
        });
        let (physical, device_name, api, device) = match opened {
            Ok(o) => o,
            Err(e) => {
                // SAFETY: nothing was created from the instance.
                unsafe { instance.destroy_instance(None) };
                return Err(e);
            }
        };
        // SAFETY: `physical` belongs to `instance`.
        let memory_properties = unsafe { instance.get_physical_device_memory_properties(physical) };
        let inner = DeviceInner {
            memory_fd: ash::khr::external_memory_fd::Device::new(&instance, &device),
            semaphore_fd: ash::khr::external_semaphore_fd::Device::new(&instance, &device),
            _entry: entry,
            instance,
            physical,
            device,
            memory_properties,
        };
        Ok(Self {
            inner: Arc::new(inner),
            info: VkExporterInfo {
                device_name,
                api_version: version_string(api),
            },
        })
    }
}
