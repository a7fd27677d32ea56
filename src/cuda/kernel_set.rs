//! The loaded kernel modules of one device, looked up by file name, and the launch checks
//! every launcher runs before it launches.

use super::{load_module, CudaDevice, CudaError};
use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaFunction, CudaModule, LaunchConfig};
use std::collections::HashMap;
use std::sync::Arc;

/// Shared memory a kernel may use without opting in.
const DEFAULT_SHARED: u32 = 48 * 1024;

/// Kernel modules (`kernels/<name>.cu`) loaded into one context.
pub struct KernelSet {
    modules: HashMap<&'static str, Arc<CudaModule>>,
    pub sm_count: u32,
    pub max_shared: u32,
}

impl KernelSet {
    /// Loads each named module once.
    pub fn load(
        device: &CudaDevice,
        names: impl IntoIterator<Item = &'static str>,
    ) -> Result<Self, CudaError> {
        let mut modules = HashMap::new();
        for name in names {
            if !modules.contains_key(name) {
                modules.insert(name, load_module(device, name)?);
            }
        }
        Ok(Self {
            modules,
            sm_count: device.info.sm_count.max(1),
            max_shared: device.info.max_shared_per_block_optin,
        })
    }

    /// A loaded module.
    pub fn module(&self, name: &str) -> Result<&Arc<CudaModule>, CudaError> {
        self.modules.get(name).ok_or_else(|| CudaError::Module {
            name: name.to_string(),
            reason: "not loaded".into(),
        })
    }

    /// Kernel `kernel` of module `module`, allowed the dynamic shared memory of `cfg`.
    pub fn function(
        &self,
        module: &str,
        kernel: &'static str,
        cfg: &LaunchConfig,
    ) -> Result<CudaFunction, CudaError> {
        self.check_config(kernel, cfg)?;
        let function = super::load_function(self.module(module)?, kernel)?;
        if cfg.shared_mem_bytes > DEFAULT_SHARED {
            function
                .set_attribute(
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    cfg.shared_mem_bytes as i32,
                )
                .map_err(CudaError::driver("cuFuncSetAttribute"))?;
        }
        Ok(function)
    }

    /// Refuses a launch the device cannot run: an empty grid, y/z over 65535, too much
    /// shared memory.
    pub fn check_config(&self, kernel: &'static str, cfg: &LaunchConfig) -> Result<(), CudaError> {
        let (gx, gy, gz) = cfg.grid_dim;
        let reason = if crate::fault::injected(crate::fault::Fault::Launch) {
            Some("launch refused (CUDALENS_FAULT=launch)".to_string())
        } else if gx == 0 || gy == 0 || gz == 0 {
            Some("empty grid".to_string())
        } else if gy > 65535 || gz > 65535 {
            Some(format!("grid {gx}×{gy}×{gz} exceeds the y/z limit"))
        } else if cfg.shared_mem_bytes > self.max_shared {
            Some(format!(
                "{} B of shared memory > device limit {}",
                cfg.shared_mem_bytes, self.max_shared
            ))
        } else {
            None
        };
        reason.map_or(Ok(()), |reason| Err(CudaError::Launch { kernel, reason }))
    }
}

/// Refuses a scratch buffer smaller than `need` bytes.
pub fn check_scratch(kernel: &'static str, have: usize, need: usize) -> Result<(), CudaError> {
    if have < need {
        return Err(CudaError::Launch {
            kernel,
            reason: format!("scratch of {have} B < {need} B"),
        });
    }
    Ok(())
}
