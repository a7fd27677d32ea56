//! A compiled user kernel on the device: the module loaded, its attributes read and checked
//! against the launch, launched on a texture and a surface. In-process: a faulting or
//! endless kernel takes this context with it, so the app runs this in the kernel worker
//! (docs/design/user-kernels.md); tests and the CLI may run it directly.

use super::compile::{CompiledKernel, KernelAttributes};
use super::params::ParamBlock;
use super::prelude::{grid_for, ENTRY_NAME};
use super::source::{KernelSource, MAX_SHARED_BYTES};
use crate::cuda::{memory, CudaArray2d, CudaDevice, CudaError, SurfaceObject, TextureObject};
use cudarc::driver::sys::CUfunction_attribute_enum as Attr;
use cudarc::driver::{CudaFunction, CudaModule, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use image::RgbaImage;
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error("loading the kernel: {0}")]
    Load(String),
    #[error(
        "the kernel can run at most {max} threads per block (registers), @block asks for {block}"
    )]
    TooManyThreads { max: u32, block: u32 },
    #[error("shared memory: {static_bytes} bytes of __shared__ arrays + {dynamic_bytes} from @shared is over {MAX_SHARED_BYTES}")]
    TooMuchShared {
        static_bytes: u32,
        dynamic_bytes: u32,
    },
    #[error("the image is empty")]
    EmptyImage,
    #[error(transparent)]
    Cuda(#[from] CudaError),
}

/// The NVRTC architecture for a device of compute capability `(major, minor)`.
pub fn arch_for(capability: (i32, i32)) -> String {
    format!("compute_{}{}", capability.0, capability.1)
}

/// How many blocks of the kernel's launch fit on one multiprocessor at once
/// (`cuOccupancyMaxActiveBlocksPerMultiprocessor`), and the resulting theoretical
/// occupancy: resident threads over the multiprocessor's maximum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Occupancy {
    pub blocks_per_sm: u32,
    block_threads: u32,
    threads_per_sm: u32,
    multiprocessors: u32,
}

impl Occupancy {
    /// Resident threads over the multiprocessor's maximum.
    pub fn theoretical(&self) -> f64 {
        f64::from(self.blocks_per_sm * self.block_threads) / f64::from(self.threads_per_sm)
    }

    /// The occupancy of a launch of `blocks` blocks, averaged over its waves: a grid
    /// smaller than one wave, or a partial last wave, leaves multiprocessors idle. A model
    /// (blocks of equal duration), not a counter: stalls inside blocks need the profiler.
    pub fn for_grid(&self, blocks: u64) -> f64 {
        let wave = u64::from(self.blocks_per_sm) * u64::from(self.multiprocessors);
        if wave == 0 || blocks == 0 || self.threads_per_sm == 0 {
            return 0.0;
        }
        let waves = blocks.div_ceil(wave);
        let resident_blocks = blocks as f64 / (waves * u64::from(self.multiprocessors)) as f64;
        resident_blocks * f64::from(self.block_threads) / f64::from(self.threads_per_sm)
    }
}

/// A user kernel loaded in a context, with what the launch needs.
pub struct LoadedKernel {
    // Keeps the function's module loaded.
    _module: Arc<CudaModule>,
    function: CudaFunction,
    pub attributes: KernelAttributes,
    /// None when the driver could not say.
    pub occupancy: Option<Occupancy>,
    source: KernelSource,
}

fn attribute(function: &CudaFunction, which: Attr) -> Result<u32, DeviceError> {
    // SAFETY: the function's module is loaded (held by the caller); the attribute is read only.
    let v = unsafe {
        cudarc::driver::result::function::get_function_attribute(function.cu_function(), which)
    }
    .map_err(CudaError::driver("cuFuncGetAttribute"))?;
    Ok(v.max(0) as u32)
}

fn occupancy(
    device: &CudaDevice,
    function: &CudaFunction,
    block: u32,
    shared_bytes: u32,
) -> Option<Occupancy> {
    use cudarc::driver::sys::CUdevice_attribute_enum as Dev;
    let per_sm = device
        .ctx
        .attribute(Dev::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
        .ok()?;
    let multiprocessors = device
        .ctx
        .attribute(Dev::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .ok()?;
    // SAFETY: the function's module is loaded (held by the caller); nothing is launched.
    let blocks = unsafe {
        cudarc::driver::result::occupancy::max_active_block_per_multiprocessor(
            function.cu_function(),
            i32::try_from(block).ok()?,
            shared_bytes as usize,
        )
    }
    .ok()?;
    let blocks = u32::try_from(blocks).ok()?;
    let threads_per_sm = u32::try_from(per_sm).ok().filter(|&n| n > 0)?;
    Some(Occupancy {
        blocks_per_sm: blocks,
        block_threads: block,
        threads_per_sm,
        multiprocessors: u32::try_from(multiprocessors).ok()?,
    })
}

impl LoadedKernel {
    /// The source it was compiled from.
    pub fn source(&self) -> &KernelSource {
        &self.source
    }

    /// Loads `compiled` (compiled from `source`) into the device's context.
    pub fn load(
        device: &CudaDevice,
        source: &KernelSource,
        compiled: &CompiledKernel,
    ) -> Result<Self, DeviceError> {
        let module = device
            .ctx
            .load_module(Ptx::from_src(compiled.ptx.clone()))
            .map_err(|e| DeviceError::Load(format!("{e:?}")))?;
        let function = module
            .load_function(ENTRY_NAME)
            .map_err(|e| DeviceError::Load(format!("{e:?}")))?;
        let attributes = KernelAttributes {
            registers: attribute(&function, Attr::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            local_bytes: attribute(&function, Attr::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            static_shared_bytes: attribute(&function, Attr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            const_bytes: attribute(&function, Attr::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)?,
            max_threads_per_block: attribute(
                &function,
                Attr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            )?,
            ptx_version: attribute(&function, Attr::CU_FUNC_ATTRIBUTE_PTX_VERSION)?,
            binary_version: attribute(&function, Attr::CU_FUNC_ATTRIBUTE_BINARY_VERSION)?,
        };
        let block = source.block.threads();
        if attributes.max_threads_per_block < block {
            return Err(DeviceError::TooManyThreads {
                max: attributes.max_threads_per_block,
                block,
            });
        }
        if attributes.static_shared_bytes + source.shared_bytes > MAX_SHARED_BYTES {
            return Err(DeviceError::TooMuchShared {
                static_bytes: attributes.static_shared_bytes,
                dynamic_bytes: source.shared_bytes,
            });
        }
        let occupancy = occupancy(device, &function, block, source.shared_bytes);
        Ok(Self {
            _module: module,
            function,
            attributes,
            occupancy,
            source: source.clone(),
        })
    }

    /// The launch over a `width × height` image.
    pub fn config(&self, width: u32, height: u32) -> LaunchConfig {
        let (gx, gy) = grid_for(&self.source, width, height);
        LaunchConfig {
            grid_dim: (gx, gy, 1),
            block_dim: (self.source.block.x, self.source.block.y, 1),
            shared_mem_bytes: self.source.shared_bytes,
        }
    }

    /// The modelled occupancy of a launch over a `width × height` image
    /// ([`Occupancy::for_grid`]); None when the driver gave no occupancy.
    pub fn occupancy_at(&self, width: u32, height: u32) -> Option<f64> {
        let (gx, gy) = grid_for(&self.source, width, height);
        self.occupancy
            .map(|o| o.for_grid(u64::from(gx) * u64::from(gy)))
    }

    /// Launches the kernel on `stream`: reads texture `src`, writes surface `dst`.
    ///
    /// # Safety
    /// `src` and `dst` must be live texture and surface objects of this context over
    /// RGBA8 arrays of at least `width × height` pixels, kept alive until the stream has
    /// run the kernel. The user's code is not checked: it may write anywhere in `dst`'s
    /// array and fault the context.
    pub unsafe fn launch(
        &self,
        stream: &Arc<CudaStream>,
        src: u64,
        dst: u64,
        width: u32,
        height: u32,
        params: &ParamBlock,
    ) -> Result<(), DeviceError> {
        let cfg = self.config(width, height);
        let (w, h) = (width as i32, height as i32);
        let mut b = stream.launch_builder(&self.function);
        b.arg(&src).arg(&dst).arg(&w).arg(&h).arg(params);
        // SAFETY: the arguments match `(cudaTextureObject_t, cudaSurfaceObject_t, int, int,
        // Params)` (the generated declaration, checked by static_assert, and `ParamBlock`
        // has `Params`' size and alignment); the caller guarantees the objects.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(|e| DeviceError::Cuda(CudaError::launch("user kernel")(e)))
    }
}

/// The output's pixels before [`run_on_image`] launches the kernel.
pub const POISON: [u8; 4] = [0xAB, 0xCD, 0xEF, 0x12];

/// Runs `kernel` on `image` with `params` and reads the result back (tests, CLI); pixels
/// the kernel does not write are [`POISON`].
pub fn run_on_image(
    device: &CudaDevice,
    kernel: &LoadedKernel,
    image: &RgbaImage,
    params: &ParamBlock,
) -> Result<RgbaImage, DeviceError> {
    let (w, h) = image.dimensions();
    if w == 0 || h == 0 {
        return Err(DeviceError::EmptyImage);
    }
    device.bind()?;
    let stream = &device.stream;
    let input = CudaArray2d::new(&device.ctx, w, h)?;
    let output = CudaArray2d::new(&device.ctx, w, h)?;
    let tex = TextureObject::from_array(&device.ctx, input.view())?;
    let surf = SurfaceObject::from_array(&device.ctx, output.view())?;
    // Pixels the kernel does not write keep this value.
    let poison: Vec<u8> = POISON
        .iter()
        .copied()
        .cycle()
        .take(image.as_raw().len())
        .collect();
    // SAFETY: both are live w × h RGBA8 arrays; each copy is waited for.
    unsafe {
        memory::write_array(input.view().raw(), w, h, image.as_raw(), stream)?;
        memory::write_array(output.view().raw(), w, h, &poison, stream)?;
    }
    // SAFETY: the objects are over w × h arrays kept alive until read_array below, which
    // waits for the stream.
    unsafe { kernel.launch(stream, tex.handle(), surf.handle(), w, h, params)? };
    let mut pixels = vec![0u8; w as usize * h as usize * 4];
    // SAFETY: `output` is a live w × h RGBA8 array; read_array waits for the stream.
    unsafe { memory::read_array(output.view().raw(), w, h, &mut pixels, stream)? };
    RgbaImage::from_raw(w, h, pixels).ok_or(DeviceError::EmptyImage)
}

#[cfg(test)]
mod tests {
    use super::Occupancy;

    fn h200(blocks_per_sm: u32, block_threads: u32) -> Occupancy {
        Occupancy {
            blocks_per_sm,
            block_threads,
            threads_per_sm: 2048,
            multiprocessors: 132,
        }
    }

    #[test]
    fn grid_occupancy_counts_waves() {
        let o = h200(8, 256);
        assert_eq!(o.theoretical(), 1.0);
        // Whole waves fill every multiprocessor.
        assert_eq!(o.for_grid(132 * 8 * 3), 1.0);
        // One wave and one block: two waves, about half full.
        let two = o.for_grid(132 * 8 + 1);
        assert!(
            (two - (1057.0 / 264.0) * 256.0 / 2048.0).abs() < 1e-12,
            "{two}"
        );
        // A grid of 66 blocks keeps half the multiprocessors at one block each.
        assert_eq!(o.for_grid(66), 0.5 * 256.0 / 2048.0);
        assert_eq!(o.for_grid(0), 0.0);
        assert_eq!(h200(0, 256).for_grid(100), 0.0);
    }
}
