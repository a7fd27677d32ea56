//! CUDA–OpenGL interop as a consuming state machine:
//! [`Registered`] `--map(self)-->` [`Mapped`] `--unmap(self)-->` [`Registered`].
//!
//! All of a frame's resources are registered together and mapped and unmapped with one
//! call each. Dropping a `Mapped` unmaps (errors are logged); dropping a registration
//! unregisters. Nothing here panics in `drop`.

use super::{check, ffi, ArrayRef, BufferRef, CudaError};
use cudarc::driver::sys::{self, CUarray, CUgraphicsResource};
use cudarc::driver::{CudaContext, CudaStream};
use std::sync::Arc;

/// One registered GL object; unregistered on drop. Holds its context so that the context
/// outlives the registration whatever order its owners drop in.
pub struct GraphicsResource {
    raw: CUgraphicsResource,
    ctx: Arc<CudaContext>,
}

impl GraphicsResource {
    /// Registers a GL 2-D texture. `flags`: [`ffi::REGISTER_READ_ONLY`] for sources,
    /// [`ffi::REGISTER_SURFACE_LDST`] for targets.
    pub fn texture(
        ctx: &Arc<CudaContext>,
        texture: glow::NativeTexture,
        flags: u32,
    ) -> Result<Self, CudaError> {
        ctx.bind_to_thread()
            .map_err(CudaError::driver("cuCtxSetCurrent"))?;
        if crate::fault::injected(crate::fault::Fault::Register) {
            return Err(CudaError::raw("cuGraphicsGLRegisterImage", 999));
        }
        ffi::register_gl_image(texture.0.get(), glow::TEXTURE_2D, flags).map(|raw| Self {
            raw,
            ctx: ctx.clone(),
        })
    }

    /// Registers a GL buffer object (bins, pixel buffers).
    pub fn buffer(
        ctx: &Arc<CudaContext>,
        buffer: glow::NativeBuffer,
        flags: u32,
    ) -> Result<Self, CudaError> {
        ctx.bind_to_thread()
            .map_err(CudaError::driver("cuCtxSetCurrent"))?;
        ffi::register_gl_buffer(buffer.0.get(), flags).map(|raw| Self {
            raw,
            ctx: ctx.clone(),
        })
    }
}

impl Drop for GraphicsResource {
    fn drop(&mut self) {
        // SAFETY: `raw` came from a successful registration in this context and is
        // unregistered once.
        super::release_in(&self.ctx, "cuGraphicsUnregisterResource", || unsafe {
            sys::cuGraphicsUnregisterResource(self.raw)
        });
    }
}

/// A set of registered resources, not mapped: GL may use them.
pub struct Registered {
    resources: Vec<GraphicsResource>,
}

/// The same resources mapped for CUDA on a stream: GL must not touch them.
pub struct Mapped {
    registered: Option<Registered>,
    stream: Arc<CudaStream>,
}

fn raw_handles(resources: &[GraphicsResource]) -> Vec<CUgraphicsResource> {
    resources.iter().map(|r| r.raw).collect()
}

fn unmap_all(registered: &Registered, stream: &CudaStream) -> Result<(), CudaError> {
    let mut handles = raw_handles(&registered.resources);
    // SAFETY: the handles are mapped (Mapped exists only between map and unmap).
    check("cuGraphicsUnmapResources", unsafe {
        sys::cuGraphicsUnmapResources(
            handles.len() as u32,
            handles.as_mut_ptr(),
            stream.cu_stream(),
        )
    })
}

impl Registered {
    pub fn new(resources: Vec<GraphicsResource>) -> Self {
        Self { resources }
    }

    /// Maps every resource with one call, ordered after prior GL work.
    pub fn map(self, stream: &Arc<CudaStream>) -> Result<Mapped, CudaError> {
        let mut handles = raw_handles(&self.resources);
        // SAFETY: registered, unmapped handles; `stream` belongs to the current context.
        check("cuGraphicsMapResources", unsafe {
            sys::cuGraphicsMapResources(
                handles.len() as u32,
                handles.as_mut_ptr(),
                stream.cu_stream(),
            )
        })?;
        Ok(Mapped {
            registered: Some(self),
            stream: stream.clone(),
        })
    }
}

impl Mapped {
    fn resource(&self, index: usize) -> Result<CUgraphicsResource, CudaError> {
        self.registered
            .as_ref()
            .and_then(|r| r.resources.get(index))
            .map(|r| r.raw)
            .ok_or(CudaError::Driver {
                call: "Mapped::resource",
                reason: format!("no resource {index}"),
            })
    }

    /// The CUDA array behind mapped texture `index`, borrowed from the mapping: it cannot
    /// outlive the unmap (which consumes `self`).
    pub fn array(&self, index: usize) -> Result<ArrayRef<'_>, CudaError> {
        let mut array: CUarray = std::ptr::null_mut();
        // SAFETY: the resource is a mapped texture; `array` is a valid out-pointer.
        check("cuGraphicsSubResourceGetMappedArray", unsafe {
            sys::cuGraphicsSubResourceGetMappedArray(&mut array, self.resource(index)?, 0, 0)
        })?;
        // SAFETY: the array stays mapped while `self` lives (GL textures registered here
        // are RGBA8).
        Ok(unsafe { ArrayRef::new(array) })
    }

    /// Mapped buffer `index`, borrowed from the mapping as for [`Mapped::array`].
    pub fn pointer(&self, index: usize) -> Result<BufferRef<'_>, CudaError> {
        let (mut ptr, mut size) = (0, 0);
        // SAFETY: the resource is a mapped buffer; both out-pointers are valid.
        check("cuGraphicsResourceGetMappedPointer", unsafe {
            sys::cuGraphicsResourceGetMappedPointer_v2(&mut ptr, &mut size, self.resource(index)?)
        })?;
        // SAFETY: the buffer stays mapped while `self` lives.
        Ok(unsafe { BufferRef::new(ptr, size) })
    }

    /// Unmaps every resource with one call and hands the registration back.
    pub fn unmap(mut self) -> Result<Registered, CudaError> {
        let registered = self.registered.take().ok_or(CudaError::Driver {
            call: "Mapped::unmap",
            reason: "already unmapped".into(),
        })?;
        unmap_all(&registered, &self.stream)?;
        Ok(registered)
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        if let Some(registered) = self.registered.take() {
            if let Err(e) = unmap_all(&registered, &self.stream) {
                log::error!("unmapping on drop: {e}");
            }
        }
    }
}
