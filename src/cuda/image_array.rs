//! A CUDA array owned together with a texture object (reads) and a surface object
//! (writes) over it: the pair every stage that owns its image needs.

use super::{ArrayFormat, ArrayRef, CudaArray2d, CudaError, SurfaceObject, TextureObject};
use cudarc::driver::CudaContext;
use std::sync::Arc;

/// A `width × height` array with its objects. The objects are private, lent out only for
/// as long as `self`, and dropped before the array (field order).
pub struct ImageArray {
    texture: TextureObject<'static>,
    surface: SurfaceObject<'static>,
    array: CudaArray2d,
}

impl ImageArray {
    /// Allocates an RGBA8 array in `ctx` and makes both objects over it.
    pub fn new(ctx: &Arc<CudaContext>, width: u32, height: u32) -> Result<Self, CudaError> {
        Self::with_format(ctx, width, height, ArrayFormat::RGBA8)
    }

    /// Allocates an array of `format` in `ctx` and makes both objects over it (the texture
    /// reads elements as stored).
    pub fn with_format(
        ctx: &Arc<CudaContext>,
        width: u32,
        height: u32,
        format: ArrayFormat,
    ) -> Result<Self, CudaError> {
        let array = CudaArray2d::with_format(ctx, width, height, format)?;
        // SAFETY: the objects made over this view live in the same struct as the array,
        // never leave it (private, lent out for `&self` only) and drop before it.
        let view = unsafe { ArrayRef::new(array.view().raw()) };
        let texture = TextureObject::from_typed_array(ctx, view, format)?;
        let surface = SurfaceObject::from_array(ctx, view)?;
        Ok(Self {
            texture,
            surface,
            array,
        })
    }

    pub fn texture(&self) -> &TextureObject<'_> {
        &self.texture
    }

    pub fn surface(&self) -> &SurfaceObject<'_> {
        &self.surface
    }

    /// The array (its size, its view for copies).
    pub fn array(&self) -> &CudaArray2d {
        &self.array
    }
}
