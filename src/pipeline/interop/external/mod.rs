//! The external-memory interop path: images and buffers allocated once with Vulkan,
//! imported by GL (as ordinary texture and buffer names that egui draws) and by CUDA (as
//! arrays and device pointers), and a pair of semaphores that orders the two APIs each
//! frame instead of mapping and unmapping.

mod backing;
mod sync;

pub use backing::{BufferBacking, ImageBacking, SharedImage};
pub use sync::{hand_back_to_gl, handed_sync, usable_sync, ExternalSync};

use crate::cuda::CudaDevice;
use crate::gl::{ext_ffi, SharedObjects};
use crate::pipeline::GpuPixelFormat;
use crate::vk::VkExporter;
use cudarc::driver::{CudaContext, CudaStream};
use std::sync::Arc;

/// Vulkan on the CUDA GPU plus the CUDA context to import into. Cheap to clone.
#[derive(Clone)]
pub struct ExternalInterop {
    pub(in crate::pipeline) exporter: VkExporter,
    pub(in crate::pipeline) ctx: Arc<CudaContext>,
    /// What the path runs on, for `doctor` and the status bar.
    pub description: String,
}

/// Why the current GL context cannot share memory with `device`, if it cannot.
fn gl_obstacle(gl: &glow::Context, uuid: &[u8; 16]) -> Option<String> {
    let missing = ext_ffi::external_objects_missing(gl);
    if !missing.is_empty() {
        return Some(format!("the OpenGL context lacks {}", missing.join(", ")));
    }
    if let Err(e) = ext_ffi::fns() {
        return Some(e.to_string());
    }
    match ext_ffi::device_uuids(gl) {
        Ok(uuids) if uuids.contains(uuid) => None,
        Ok(_) => Some("the OpenGL context is not on the CUDA device (device UUIDs differ)".into()),
        Err(e) => Some(e.to_string()),
    }
}

impl ExternalInterop {
    /// Opens Vulkan on `device`'s GPU, checks the GL context's extensions and device, and
    /// shares one small image, buffer and semaphore pair end to end, so that a driver that
    /// refuses any step is found here rather than in a frame.
    pub fn open(gl: &glow::Context, device: &CudaDevice) -> Result<Self, String> {
        let uuid = device.uuid().map_err(|e| e.to_string())?;
        if let Some(reason) = gl_obstacle(gl, &uuid) {
            return Err(reason);
        }
        let exporter = VkExporter::shared(&uuid).map_err(|e| e.to_string())?;
        let interop = Self {
            description: format!(
                "{}; memory and semaphores shared with OpenGL and CUDA as opaque fds",
                exporter.info
            ),
            exporter,
            ctx: device.ctx.clone(),
        };
        interop
            .smoke_test(gl, device)
            .map_err(|e| format!("sharing a test image failed: {e}"))?;
        Ok(interop)
    }

    /// Shares a 16×16 image, a 4 KiB buffer and the semaphores, then hands them back, on a
    /// stream of its own (a hand-over that never completes must not block the app's).
    fn smoke_test(&self, gl: &glow::Context, device: &CudaDevice) -> Result<(), String> {
        let stream = device.ctx.new_stream().map_err(|e| format!("{e:?}"))?;
        let (image, texture) = ImageBacking::new(self, gl, (16, 16), GpuPixelFormat::RGBA8)
            .map_err(|e| e.to_string())?;
        let result = BufferBacking::new(self, gl, 4096)
            .map_err(|e| e.to_string())
            .and_then(|(buffer, gl_buffer)| {
                let objects = SharedObjects {
                    buffers: &[gl_buffer.id],
                    textures: &[texture.id],
                };
                let synced = ExternalSync::new(self, gl)
                    .and_then(|mut sync| {
                        let round = sync
                            .hand_to_cuda(gl, &objects, &stream)
                            .and_then(|_| sync.hand_to_gl(gl, &objects, &stream));
                        sync.destroy(gl);
                        round
                    })
                    .map_err(|e| e.to_string());
                gl_buffer.destroy(gl);
                buffer.destroy(gl);
                synced
            });
        texture.destroy(gl);
        image.destroy(gl);
        result.and_then(|_| stream_drains(&stream, std::time::Duration::from_secs(2)))
    }
}

/// Waits for `stream` to finish, at most `limit`: a semaphore that never arrives
/// must not hang the app at start-up.
fn stream_drains(stream: &CudaStream, limit: std::time::Duration) -> Result<(), String> {
    let event = stream
        .context()
        .new_event(None)
        .map_err(|e| format!("{e:?}"))?;
    event.record(stream).map_err(|e| format!("{e:?}"))?;
    let start = std::time::Instant::now();
    loop {
        match event.try_is_complete() {
            Ok(true) => return Ok(()),
            Ok(false) if start.elapsed() < limit => {
                std::thread::sleep(std::time::Duration::from_millis(1))
            }
            Ok(false) => {
                return Err(format!(
                    "the semaphore hand-over did not complete within {limit:?}"
                ))
            }
            Err(e) => return Err(format!("{e:?}")),
        }
    }
}
