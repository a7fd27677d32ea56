//! A binary semaphore allocated outside CUDA (Vulkan, opaque fd) and imported: the stream
//! waits on the one GL signals and signals the one GL waits on. Destroyed on drop.

use super::external_memory::import_fd;
use super::{check, release_in, CudaError};
use cudarc::driver::sys::{self, CUexternalSemaphore, CUexternalSemaphoreHandleType};
use cudarc::driver::{CudaContext, CudaStream};
use std::os::fd::OwnedFd;
use std::sync::Arc;

pub struct ExternalSemaphore {
    raw: CUexternalSemaphore,
    ctx: Arc<CudaContext>,
}

impl ExternalSemaphore {
    /// Imports `fd`; CUDA owns it after a successful import, and it is closed otherwise.
    pub fn import(ctx: &Arc<CudaContext>, fd: OwnedFd) -> Result<Self, CudaError> {
        let raw = import_fd(ctx, fd, "cuImportExternalSemaphore", |raw_fd| {
            // SAFETY: an all-zero union of an int and pointers is a valid value.
            let mut handle: sys::CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_st__bindgen_ty_1 =
                unsafe { std::mem::zeroed() };
            handle.fd = raw_fd;
            let desc = sys::CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC {
                type_: CUexternalSemaphoreHandleType::CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD,
                handle,
                flags: 0,
                reserved: [0; 16],
            };
            let mut raw: CUexternalSemaphore = std::ptr::null_mut();
            // SAFETY: `desc` is fully initialised; `raw` is a valid out-pointer.
            let status = unsafe { sys::cuImportExternalSemaphore(&mut raw, &desc) };
            (status, raw)
        })?;
        Ok(Self {
            raw,
            ctx: ctx.clone(),
        })
    }

    /// Makes the work queued on `stream` after this wait for the semaphore's signal.
    pub fn wait(&self, stream: &CudaStream) -> Result<(), CudaError> {
        // SAFETY: integers and pointers only: all-zero is valid (binary: no value, flags 0).
        let params: sys::CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS = unsafe { std::mem::zeroed() };
        // SAFETY: one semaphore and one parameter block, both valid; the stream is live.
        check("cuWaitExternalSemaphoresAsync", unsafe {
            sys::cuWaitExternalSemaphoresAsync(&self.raw, &params, 1, stream.cu_stream())
        })
    }

    /// Signals the semaphore once the work queued on `stream` so far is done.
    pub fn signal(&self, stream: &CudaStream) -> Result<(), CudaError> {
        // SAFETY: integers and pointers only: all-zero is valid (binary: no value, flags 0).
        let params: sys::CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS = unsafe { std::mem::zeroed() };
        // SAFETY: as in `wait`.
        check("cuSignalExternalSemaphoresAsync", unsafe {
            sys::cuSignalExternalSemaphoresAsync(&self.raw, &params, 1, stream.cu_stream())
        })
    }
}

impl Drop for ExternalSemaphore {
    fn drop(&mut self) {
        // SAFETY: imported in this context and destroyed once.
        release_in(&self.ctx, "cuDestroyExternalSemaphore", || unsafe {
            sys::cuDestroyExternalSemaphore(self.raw)
        });
    }
}
