//! A texture object over a CUDA array: point sampling, clamp-to-edge, elements read as
//! stored (integers unnormalised, floats as floats).

use super::{check, ArrayFormat, ArrayRef, CudaError};
use cudarc::driver::sys::{self, CUarray};
use cudarc::driver::CudaContext;
use std::marker::PhantomData;
use std::sync::Arc;

/// Texture object reading an array's elements as stored (an RGBA8 array as `uchar4`) with
/// clamp addressing (the border
/// rule of the operation contract), valid while the array it reads (`'a`); destroyed on drop.
pub struct TextureObject<'a> {
    raw: sys::CUtexObject,
    ctx: Arc<CudaContext>,
    array: PhantomData<ArrayRef<'a>>,
}

/// The sampling every texture object of the project uses: point, clamp-to-edge, integer
/// reads.
pub fn point_clamp_integer_reads() -> sys::CUDA_TEXTURE_DESC {
    let clamp = sys::CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP;
    sys::CUDA_TEXTURE_DESC {
        addressMode: [clamp; 3],
        filterMode: sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
        flags: sys::CU_TRSF_READ_AS_INTEGER,
        maxAnisotropy: 0,
        mipmapFilterMode: sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
        mipmapLevelBias: 0.0,
        minMipmapLevelClamp: 0.0,
        maxMipmapLevelClamp: 0.0,
        borderColor: [0.0; 4],
        reserved: [0; 12],
    }
}

/// A resource descriptor naming one CUDA array.
pub(super) fn array_resource(array: CUarray) -> sys::CUDA_RESOURCE_DESC {
    let mut res = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1 {
        reserved: sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_5 { reserved: [0; 32] },
    };
    res.array = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_1 { hArray: array };
    sys::CUDA_RESOURCE_DESC {
        resType: sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY,
        res,
        flags: 0,
    }
}

impl<'a> TextureObject<'a> {
    /// Creates a texture object over `array` (an array of `ctx`), which outlives it by
    /// construction. Kernels launched with its handle are ordered on a stream before the
    /// array is released, as every launch is.
    pub fn from_array(ctx: &Arc<CudaContext>, array: ArrayRef<'a>) -> Result<Self, CudaError> {
        Self::from_typed_array(ctx, array, ArrayFormat::RGBA8)
    }

    /// As [`TextureObject::from_array`] over an array of `format`: point sampling, clamp,
    /// elements read as stored (the read mode `format` needs).
    pub fn from_typed_array(
        ctx: &Arc<CudaContext>,
        array: ArrayRef<'a>,
        format: ArrayFormat,
    ) -> Result<Self, CudaError> {
        ctx.bind_to_thread()
            .map_err(CudaError::driver("cuCtxSetCurrent"))?;
        let resource = array_resource(array.raw());
        let mut desc = point_clamp_integer_reads();
        desc.flags = format.texture_read_flags();
        let mut raw = 0;
        // SAFETY: both descriptors are fully initialised; `raw` is a valid out-pointer.
        check("cuTexObjectCreate", unsafe {
            sys::cuTexObjectCreate(&mut raw, &resource, &desc, std::ptr::null())
        })?;
        Ok(Self {
            raw,
            ctx: ctx.clone(),
            array: PhantomData,
        })
    }

    /// The handle passed to kernels (`cudaTextureObject_t`).
    pub fn handle(&self) -> u64 {
        self.raw
    }
}

impl Drop for TextureObject<'_> {
    fn drop(&mut self) {
        // SAFETY: created by cuTexObjectCreate in this context, destroyed once.
        super::release_in(&self.ctx, "cuTexObjectDestroy", || unsafe {
            sys::cuTexObjectDestroy(self.raw)
        });
    }
}
