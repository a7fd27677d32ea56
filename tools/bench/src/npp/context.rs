//! [`Npp`]: the loaded library bound to one CUDA device and stream, with the
//! `NppStreamContext` filled from the device's attributes (CUDA 13's NPP no longer offers
//! `nppGetStreamContext`).

use super::ffi::{self, NppFunctions, NppStreamContext};
use super::NppError;
use cudalens::cuda::{check as check_cuda, CudaDevice, CudaError};
use cudarc::driver::sys::{self, CUdevice_attribute};
use std::ffi::c_uint;

/// NPP on one device: every call goes to the device's stream.
pub struct Npp {
    pub functions: NppFunctions,
    pub context: NppStreamContext,
    pub device: CudaDevice,
}

impl Npp {
    /// Loads NPP and prepares its stream context for `device`; [`NppError::NotFound`] when
    /// the libraries are not on this machine.
    pub fn load(device: &CudaDevice) -> Result<Self, NppError> {
        let functions = ffi::load().map_err(NppError::NotFound)?;
        Ok(Self {
            functions,
            context: stream_context(device)?,
            device: device.clone(),
        })
    }

    /// `major.minor.build` of the loaded library.
    pub fn version(&self) -> String {
        // SAFETY: nppGetLibVersion takes nothing and returns a pointer to static data
        // (or null, handled).
        let v = unsafe { (self.functions.version)() };
        // SAFETY: a non-null result points to NPP's static version record.
        match unsafe { v.as_ref() } {
            Some(v) => format!("{}.{}.{}", v.major, v.minor, v.build),
            None => "unknown".into(),
        }
    }
}

fn stream_context(device: &CudaDevice) -> Result<NppStreamContext, NppError> {
    device.bind()?;
    let attr = |a| {
        device
            .ctx
            .attribute(a)
            .map_err(CudaError::driver("cuDeviceGetAttribute"))
    };
    let stream = device.stream.cu_stream();
    let mut flags: c_uint = 0;
    if !stream.is_null() {
        // SAFETY: `stream` is the live stream of `device`; `flags` is a valid out-pointer.
        check_cuda("cuStreamGetFlags", unsafe {
            sys::cuStreamGetFlags(stream, &mut flags)
        })?;
    }
    let (major, minor) = device.info.compute_capability;
    Ok(NppStreamContext {
        stream: stream.cast(),
        device_id: device.info.ordinal as i32,
        multiprocessor_count: attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        max_threads_per_multiprocessor: attr(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
        )?,
        max_threads_per_block: attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        shared_mem_per_block: attr(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
        )? as usize,
        compute_capability_major: major,
        compute_capability_minor: minor,
        stream_flags: flags,
        reserved0: 0,
    })
}
