//! The explorer's display texture on the external-memory path: one Vulkan image that GL
//! draws as an ordinary texture and CUDA writes through a surface object (the colour
//! kernels' output), for as long as the view's size stays, handed between the two by
//! semaphores. No pixel buffer and no GL copy per frame (the classic path's
//! `MandelbrotPbo` has both). Release with [`SharedDisplay::destroy`].

use super::external::{hand_back_to_gl, usable_sync, ExternalInterop, ExternalSync, SharedImage};
use super::resources::{InteropResources, InteropViews};
use crate::cuda::{ArrayRef, SurfaceObject};
use crate::gl::{GlTexture, SharedObjects};
use crate::pipeline::{GpuPixelFormat, PipelineError};
use cudarc::driver::CudaStream;
use std::sync::Arc;

pub struct SharedDisplay {
    interop: ExternalInterop,
    picture: Picture,
    /// Kept through changes of size: semaphores made per size cost the drivers a small
    /// mapping each, given back only in batches (host memory cycling by 2–3 MiB in the
    /// soak's random views).
    sync: Option<ExternalSync>,
}

/// What depends on the view's size: the shared image and CUDA's surface on it.
struct Picture {
    /// Before `image`: the surface must go before the array it was made on.
    surface: SurfaceObject<'static>,
    image: SharedImage,
}

impl Picture {
    fn new(
        interop: &ExternalInterop,
        gl: &glow::Context,
        width: u32,
        height: u32,
    ) -> Result<Self, PipelineError> {
        let image = SharedImage::new(interop, gl, (width, height), GpuPixelFormat::RGBA8)?;
        // SAFETY: the array is this context's RGBA8 array, imported with surface load/store
        // (SHARED_ARRAY_FLAGS), owned by `image` beside the surface, which is dropped before
        // it (field order, `destroy`); kernels using it are ordered before any release on
        // the stream.
        let array = unsafe { ArrayRef::new(image.backing.array().raw()) };
        match SurfaceObject::from_array(&interop.ctx, array) {
            Ok(surface) => Ok(Self { surface, image }),
            Err(e) => {
                image.destroy(gl);
                Err(e.into())
            }
        }
    }

    fn destroy(self, gl: &glow::Context) {
        drop(self.surface);
        self.image.destroy(gl);
    }
}

impl SharedDisplay {
    /// Shared memory for a `width × height` picture, its GL texture and CUDA's surface.
    pub fn new(
        interop: &ExternalInterop,
        gl: &glow::Context,
        width: u32,
        height: u32,
    ) -> Result<Self, PipelineError> {
        Ok(Self {
            interop: interop.clone(),
            picture: Picture::new(interop, gl, width, height)?,
            sync: None,
        })
    }

    /// The same display at `width × height`: a new picture (GL sees a new texture name)
    /// handed over by the same semaphores. The old picture goes first, so the two are
    /// never held together; if the new one cannot be made, everything is released.
    pub fn resized(
        mut self,
        gl: &glow::Context,
        width: u32,
        height: u32,
    ) -> Result<Self, PipelineError> {
        let sync = self.sync.take();
        self.picture.destroy(gl);
        match Picture::new(&self.interop, gl, width, height) {
            Ok(picture) => Ok(Self {
                interop: self.interop,
                picture,
                sync,
            }),
            Err(e) => {
                if let Some(sync) = sync {
                    sync.destroy(gl);
                }
                Err(e)
            }
        }
    }

    /// The texture GL draws (the size it was made for).
    pub fn texture(&self) -> &GlTexture {
        &self.picture.image.texture
    }

    /// The handle the colour kernels write through.
    pub fn surface(&self) -> u64 {
        self.picture.surface.handle()
    }

    /// Deletes the semaphores, the surface, the texture and the memory.
    pub fn destroy(self, gl: &glow::Context) {
        if let Some(sync) = self.sync {
            sync.destroy(gl);
        }
        self.picture.destroy(gl);
    }

    fn objects(&self) -> [glow::Texture; 1] {
        [self.picture.image.texture.id]
    }
}

impl InteropResources for SharedDisplay {
    fn acquire(
        &mut self,
        gl: &glow::Context,
        stream: &Arc<CudaStream>,
    ) -> Result<InteropViews<'_>, PipelineError> {
        let textures = self.objects();
        let objects = SharedObjects {
            buffers: &[],
            textures: &textures,
        };
        usable_sync(&mut self.sync, &self.interop, gl)?.hand_to_cuda(gl, &objects, stream)?;
        Ok(InteropViews {
            arrays: vec![self.picture.image.backing.array()],
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
