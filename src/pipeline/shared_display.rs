//! The explorer's display texture on the external-memory path: one Vulkan image that GL
//! draws as an ordinary texture and CUDA writes through a surface object (the colour
//! kernels' output), for as long as the view's size stays, handed between the two by
//! semaphores. No pixel buffer and no GL copy per frame (the classic path's
//! `MandelbrotPbo` has both). Release with [`SharedDisplay::destroy`].

use super::external::{hand_back_to_gl, usable_sync, ExternalInterop, ExternalSync, SharedImage};
use super::interop_resources::{InteropResources, InteropViews};
use super::PipelineError;
use crate::cuda::SurfaceObject;
use crate::gl::{GlTexture, SharedObjects};
use cudarc::driver::CudaStream;
use std::sync::Arc;

pub struct SharedDisplay {
    interop: ExternalInterop,
    /// Before `image`: the surface must go before the array it was made on.
    surface: SurfaceObject,
    image: SharedImage,
    sync: Option<ExternalSync>,
}

impl SharedDisplay {
    /// Shared memory for a `width × height` picture, its GL texture and CUDA's surface.
    pub fn new(
        interop: &ExternalInterop,
        gl: &glow::Context,
        width: u32,
        height: u32,
    ) -> Result<Self, PipelineError> {
        let image = SharedImage::new(interop, gl, width, height)?;
        let array = image.backing.array();
        // SAFETY: the array is this context's RGBA8 array, imported with surface load/store
        // (SHARED_ARRAY_FLAGS); the surface is dropped before the image (field order,
        // `destroy`), and kernels using it are ordered before any release on the stream.
        let surface = match unsafe { SurfaceObject::from_array(&interop.ctx, array) } {
            Ok(s) => s,
            Err(e) => {
                image.destroy(gl);
                return Err(e.into());
            }
        };
        Ok(Self {
            interop: interop.clone(),
            surface,
            image,
            sync: None,
        })
    }

    /// The texture GL draws (the size it was made for).
    pub fn texture(&self) -> &GlTexture {
        &self.image.texture
    }

    /// The handle the colour kernels write through.
    pub fn surface(&self) -> u64 {
        self.surface.handle()
    }

    /// Deletes the semaphores, the surface, the texture and the memory.
    pub fn destroy(self, gl: &glow::Context) {
        if let Some(sync) = self.sync {
            sync.destroy(gl);
        }
        drop(self.surface);
        self.image.destroy(gl);
    }

    fn objects(&self) -> [glow::Texture; 1] {
        [self.image.texture.id]
    }
}

impl InteropResources for SharedDisplay {
    fn acquire(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
    ) -> Result<InteropViews, PipelineError> {
        let textures = self.objects();
        let objects = SharedObjects {
            buffers: &[],
            textures: &textures,
        };
        usable_sync(&mut self.sync, &self.interop, gl)?.hand_to_cuda(gl, &objects, stream)?;
        Ok(InteropViews {
            arrays: vec![self.image.backing.array()],
            pointers: Vec::new(),
        })
    }

    fn release(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
    ) -> Result<(), PipelineError> {
        let textures = self.objects();
        let objects = SharedObjects {
            buffers: &[],
            textures: &textures,
        };
        hand_back_to_gl(&mut self.sync, gl, &objects, stream)
    }
}
