//! Borrowed handles of CUDA memory: an array or a device buffer that stays valid for a
//! lifetime `'a`, tied to its owner (an allocation, a mapping, imported external memory).
//! Texture and surface objects made over an [`ArrayRef<'a>`] carry `'a` too, so the borrow
//! checker proves the memory outlives them: a mapping cannot be released while a view of it
//! or an object over it exists.
//!
//! ```compile_fail,E0597
//! # use cudalens::cuda::{CudaArray2d, CudaError, TextureObject};
//! # fn f(ctx: &std::sync::Arc<cudarc::driver::CudaContext>) -> Result<(), CudaError> {
//! let texture = {
//!     let array = CudaArray2d::new(ctx, 4, 4)?;
//!     TextureObject::from_array(ctx, array.view())?
//! }; // the array is freed here, while the texture still reads it: refused
//! # drop(texture);
//! # Ok(())
//! # }
//! ```

use cudarc::driver::sys::{CUarray, CUdeviceptr};
use std::marker::PhantomData;

/// A CUDA RGBA8 array valid for `'a` (a surface over it also needs surface load/store, which
/// the driver checks when the surface is made).
#[derive(Debug, Clone, Copy)]
pub struct ArrayRef<'a> {
    raw: CUarray,
    owner: PhantomData<&'a ()>,
}

impl<'a> ArrayRef<'a> {
    /// Names `raw` as valid for `'a`.
    ///
    /// # Safety
    /// `raw` must be a live RGBA8 array of the context it is used with that stays allocated
    /// (and mapped, for a graphics resource) for all of `'a`.
    pub unsafe fn new(raw: CUarray) -> Self {
        Self {
            raw,
            owner: PhantomData,
        }
    }

    /// The driver's handle, for the few calls that take one (copies, descriptors).
    pub fn raw(self) -> CUarray {
        self.raw
    }
}

/// A device buffer of `size` bytes at `ptr`, valid for `'a`.
#[derive(Debug, Clone, Copy)]
pub struct BufferRef<'a> {
    pub ptr: CUdeviceptr,
    pub size: usize,
    owner: PhantomData<&'a ()>,
}

impl<'a> BufferRef<'a> {
    /// Names `size` bytes at `ptr` as valid for `'a`.
    ///
    /// # Safety
    /// The memory must stay allocated (and mapped, for a graphics resource) for all of `'a`.
    pub unsafe fn new(ptr: CUdeviceptr, size: usize) -> Self {
        Self {
            ptr,
            size,
            owner: PhantomData,
        }
    }
}
