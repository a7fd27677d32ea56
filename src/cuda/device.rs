//! The CUDA device and context the app uses, created for the current GL context.

use super::{ffi, CudaError};
use cudarc::driver::sys::{self, CUdevice_attribute};
use cudarc::driver::{CudaContext, CudaStream};
use std::sync::Arc;

/// Facts about a device, for `doctor` and the status bar.
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub name: String,
    pub compute_capability: (i32, i32),
    pub sm_count: u32,
    pub total_memory: usize,
    pub max_shared_per_block_optin: u32,
    pub driver_version: i32,
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (major, minor) = self.compute_capability;
        write!(
            f,
            "{} (device {}, sm_{major}{minor}, {} SMs, {:.1} GiB, driver {}.{})",
            self.name,
            self.ordinal,
            self.sm_count,
            self.total_memory as f64 / (1u64 << 30) as f64,
            self.driver_version / 1000,
            (self.driver_version % 1000) / 10
        )
    }
}

/// A CUDA context (primary, device `ordinal`) with one stream that all work goes to.
#[derive(Clone)]
pub struct CudaDevice {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub info: DeviceInfo,
}

impl CudaDevice {
    /// Number of CUDA devices, or why there are none.
    pub fn count() -> Result<usize, CudaError> {
        ffi::driver_library_present()?;
        // SAFETY: only reads whether the library loads.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(CudaError::NoDriver("libcuda not found".into()));
        }
        let n = CudaContext::device_count().map_err(CudaError::driver("cuDeviceGetCount"))?;
        Ok(n.max(0) as usize)
    }

    /// Opens device `ordinal`.
    pub fn new(ordinal: usize) -> Result<Self, CudaError> {
        Self::open(ordinal, false)
    }

    /// Opens device `ordinal` with a stream of this handle's own, so that several threads
    /// on one device overlap their work (work spread over GPUs).
    pub fn with_own_stream(ordinal: usize) -> Result<Self, CudaError> {
        Self::open(ordinal, true)
    }

    fn open(ordinal: usize, own_stream: bool) -> Result<Self, CudaError> {
        if Self::count()? <= ordinal {
            return Err(CudaError::NoDevice);
        }
        let ctx = CudaContext::new(ordinal).map_err(CudaError::driver("cuCtxCreate"))?;
        let stream = if own_stream {
            ctx.new_stream()
                .map_err(CudaError::driver("cuStreamCreate"))?
        } else {
            ctx.default_stream()
        };
        let attr = |a| {
            ctx.attribute(a)
                .map_err(CudaError::driver("cuDeviceGetAttribute"))
        };
        let info = DeviceInfo {
            ordinal,
            name: ctx.name().map_err(CudaError::driver("cuDeviceGetName"))?,
            compute_capability: ctx
                .compute_capability()
                .map_err(CudaError::driver("cuDeviceComputeCapability"))?,
            sm_count: attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
            total_memory: ctx
                .total_mem()
                .map_err(CudaError::driver("cuDeviceTotalMem"))?,
            max_shared_per_block_optin: attr(
                CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )? as u32,
            driver_version: driver_version()?,
        };
        Ok(Self { ctx, stream, info })
    }

    /// Opens the CUDA device that the current GL context runs on. Fails with
    /// [`CudaError::GlNotOnCuda`] under Mesa or any GL that is not NVIDIA's.
    pub fn for_current_gl() -> Result<Self, CudaError> {
        Self::count()?;
        // cuGLGetDevices needs an initialised driver: creating a context on device 0
        // first would bind the wrong device, so initialise explicitly.
        // SAFETY: cuInit(0) has no preconditions.
        super::check("cuInit", unsafe { cudarc::driver::sys::cuInit(0) })?;
        let devices = ffi::gl_cuda_devices().map_err(|e| CudaError::GlNotOnCuda(e.to_string()))?;
        let first = *devices
            .first()
            .ok_or_else(|| CudaError::GlNotOnCuda("cuGLGetDevices found no device".into()))?;
        Self::new(first as usize)
    }

    /// Makes this context current on the calling thread (raw `sys` calls need it).
    pub fn bind(&self) -> Result<(), CudaError> {
        self.ctx
            .bind_to_thread()
            .map_err(CudaError::driver("cuCtxSetCurrent"))
    }

    /// The device's UUID (matched against Vulkan's and GL's device UUIDs).
    pub fn uuid(&self) -> Result<[u8; 16], CudaError> {
        let id = self
            .ctx
            .uuid()
            .map_err(CudaError::driver("cuDeviceGetUuid"))?;
        Ok(id.bytes.map(|b| b as u8))
    }

    /// Free and total device memory as the driver reports them (leak checks).
    pub fn memory_info(&self) -> Result<(usize, usize), CudaError> {
        self.bind()?;
        self.ctx
            .mem_get_info()
            .map_err(CudaError::driver("cuMemGetInfo"))
    }

    /// Waits for all work on the stream and reports any asynchronous kernel fault.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        self.stream
            .synchronize()
            .map_err(CudaError::driver("cuStreamSynchronize"))
    }

    /// Waits for the stream, then gives every unused chunk of the device's default memory
    /// pool (where cudarc's stream-ordered allocations live) back to the driver. The pool
    /// keeps a whole 32 MiB chunk while any allocation lives in it, so callers free all
    /// they hold first: what they allocate next then starts from an empty pool.
    pub fn release_pool(&self) -> Result<(), CudaError> {
        self.synchronize()?;
        if !self.ctx.has_async_alloc() {
            return Ok(()); // cudarc allocates with cuMemAlloc there: no pool
        }
        let pool = self.default_pool()?;
        // SAFETY: the device's own default pool; trimming frees only unused memory.
        super::check("cuMemPoolTrimTo", unsafe { sys::cuMemPoolTrimTo(pool, 0) })
    }

    /// Bytes the default memory pool holds from the driver, and bytes of them in use.
    pub fn pool_usage(&self) -> Result<(u64, u64), CudaError> {
        let pool = self.default_pool()?;
        let attribute = |attr| {
            let mut value = 0u64;
            // SAFETY: the device's own default pool; both attributes are u64 ones, written
            // into a local.
            super::check("cuMemPoolGetAttribute", unsafe {
                sys::cuMemPoolGetAttribute(pool, attr, (&mut value as *mut u64).cast())
            })
            .map(|()| value)
        };
        Ok((
            attribute(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?,
            attribute(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)?,
        ))
    }

    /// The device's default memory pool.
    fn default_pool(&self) -> Result<sys::CUmemoryPool, CudaError> {
        let mut pool = std::ptr::null_mut();
        // SAFETY: `pool` is a valid out-pointer; the device is this context's.
        super::check("cuDeviceGetDefaultMemPool", unsafe {
            sys::cuDeviceGetDefaultMemPool(&mut pool, self.ctx.cu_device())
        })?;
        Ok(pool)
    }
}

fn driver_version() -> Result<i32, CudaError> {
    let mut version = 0;
    // SAFETY: `version` is a valid out-pointer.
    super::check("cuDriverGetVersion", unsafe {
        cudarc::driver::sys::cuDriverGetVersion(&mut version)
    })?;
    Ok(version)
}
