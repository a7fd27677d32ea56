//! Launchers for the filter kernels (`kernels/{sobel,box_filter,convolution,histogram,
//! transpose}.cu`). Each checks its launch against the mirrored tile constants and the
//! device's limits before launching, and reports the launch status.

use super::tiles::*;
use super::{load_function, load_module, CudaDevice, CudaError, SurfaceObject, TextureObject};
use cudarc::driver::sys::{CUdeviceptr, CUfunction_attribute};
use cudarc::driver::{
    CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use std::sync::Arc;

/// Bytes of scratch per pixel needed by the separable passes (uint4 / float4).
pub const SCRATCH_BYTES_PER_PIXEL: usize = 16;

/// The loaded filter kernels of one device.
pub struct FilterKernels {
    sobel: CudaFunction,
    box_rows: CudaFunction,
    box_columns: CudaFunction,
    conv_rows: CudaFunction,
    conv_columns: CudaFunction,
    histogram: CudaFunction,
    transpose: CudaFunction,
    convolution_module: Arc<CudaModule>,
    sm_count: u32,
    max_shared: u32,
}

fn conv_rows_shared(radius: u32) -> u32 {
    CONV_ROW_BLOCK_Y * (CONV_ROW_BLOCK_X * CONV_ROW_RESULTS + 2 * radius) * 16
}

fn conv_columns_shared(radius: u32) -> u32 {
    (CONV_COL_BLOCK_Y * CONV_COL_RESULTS + 2 * radius) * CONV_COL_BLOCK_X * 16
}

/// Segment length of the column pass's running sums: long enough that starting a window
/// (2R+1 reads) costs at most a quarter of the run.
fn box_segment(radius: u32) -> u32 {
    BOX_MIN_SEGMENT.max(4 * (2 * radius + 1))
}

/// Outputs per warp of the row pass (a multiple of the warp width): the 2R+1 apron costs at
/// most a quarter of the work.
fn box_row_segment(radius: u32) -> u32 {
    BOX_ROW_MIN_SEGMENT
        .max(4 * (2 * radius + 1))
        .next_multiple_of(32)
}

impl FilterKernels {
    /// Loads the five filter modules and prepares kernel attributes.
    pub fn load(device: &CudaDevice) -> Result<Self, CudaError> {
        let sobel = load_module(device, "sobel")?;
        let box_filter = load_module(device, "box_filter")?;
        let convolution = load_module(device, "convolution")?;
        let histogram = load_module(device, "histogram")?;
        let transpose = load_module(device, "transpose")?;
        let kernels = Self {
            sobel: load_function(&sobel, "sobel")?,
            box_rows: load_function(&box_filter, "box_rows")?,
            box_columns: load_function(&box_filter, "box_columns")?,
            conv_rows: load_function(&convolution, "conv_rows")?,
            conv_columns: load_function(&convolution, "conv_columns")?,
            histogram: load_function(&histogram, "histogram")?,
            transpose: load_function(&transpose, "transpose")?,
            convolution_module: convolution,
            sm_count: device.info.sm_count.max(1),
            max_shared: device.info.max_shared_per_block_optin,
        };
        // The column pass needs more than the default 48 KB at large radii.
        let needed = conv_columns_shared(CONV_MAX_RADIUS).min(kernels.max_shared);
        kernels
            .conv_columns
            .set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                needed as i32,
            )
            .map_err(CudaError::driver("cuFuncSetAttribute"))?;
        Ok(kernels)
    }

    fn check_config(&self, kernel: &'static str, cfg: &LaunchConfig) -> Result<(), CudaError> {
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

    fn check_scratch(
        kernel: &'static str,
        scratch: &CudaSlice<u8>,
        w: u32,
        h: u32,
    ) -> Result<(), CudaError> {
        let need = w as usize * h as usize * SCRATCH_BYTES_PER_PIXEL;
        if scratch.len() < need {
            return Err(CudaError::Launch {
                kernel,
                reason: format!("scratch of {} B < {need} B", scratch.len()),
            });
        }
        Ok(())
    }

    /// Sobel magnitude of `src` into `dst` (`w × h`).
    pub fn sobel(
        &self,
        stream: &CudaStream,
        src: &TextureObject,
        dst: &SurfaceObject,
        w: u32,
        h: u32,
        scale: f32,
    ) -> Result<(), CudaError> {
        let cfg = LaunchConfig {
            grid_dim: (
                blocks(w, SOBEL_BLOCK_X),
                blocks(h, SOBEL_BLOCK_Y * SOBEL_PIXELS_PER_THREAD),
                1,
            ),
            block_dim: (SOBEL_BLOCK_X, SOBEL_BLOCK_Y, 1),
            shared_mem_bytes: 0,
        };
        self.check_config("sobel", &cfg)?;
        let (s, d, wi, hi) = (src.handle(), dst.handle(), w as i32, h as i32);
        let mut b = stream.launch_builder(&self.sobel);
        b.arg(&s).arg(&d).arg(&wi).arg(&hi).arg(&scale);
        // SAFETY: the argument list matches `sobel` in kernels/sobel.cu; the kernel only
        // writes inside `w × h` of `dst`, which has that size.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("sobel"))
    }

    /// Box mean of radius `radius`; `scratch` holds ≥ 16 bytes per pixel.
    #[allow(clippy::too_many_arguments)]
    pub fn box_filter(
        &self,
        stream: &CudaStream,
        src: &TextureObject,
        dst: &SurfaceObject,
        w: u32,
        h: u32,
        radius: u32,
        scratch: &mut CudaSlice<u8>,
    ) -> Result<(), CudaError> {
        Self::check_scratch("box_rows", scratch, w, h)?;
        let segment = box_segment(radius);
        let row_segment = box_row_segment(radius);
        let rows_cfg = LaunchConfig {
            grid_dim: (blocks(w, row_segment), h, 1),
            block_dim: (32, 1, 1),
            // R, G and B prefix sums over the segment and its apron.
            shared_mem_bytes: 3 * 4 * (row_segment + 2 * radius + 1),
        };
        let cols_cfg = LaunchConfig {
            grid_dim: (blocks(w * blocks(h, segment), BOX_BLOCK), 1, 1),
            block_dim: (BOX_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        self.check_config("box_rows", &rows_cfg)?;
        self.check_config("box_columns", &cols_cfg)?;
        let (s, d, wi, hi, r, seg) = (
            src.handle(),
            dst.handle(),
            w as i32,
            h as i32,
            radius as i32,
            segment as i32,
        );
        let row_seg = row_segment as i32;
        let mut rows = stream.launch_builder(&self.box_rows);
        rows.arg(&s)
            .arg(&mut *scratch)
            .arg(&wi)
            .arg(&hi)
            .arg(&r)
            .arg(&row_seg);
        // SAFETY: matches `box_rows(tex, uint4*, int, int, int, int)`; scratch holds
        // w·h uint4 (checked above).
        unsafe { rows.launch(rows_cfg) }.map_err(CudaError::launch("box_rows"))?;
        let mut cols = stream.launch_builder(&self.box_columns);
        cols.arg(&*scratch)
            .arg(&s)
            .arg(&d)
            .arg(&wi)
            .arg(&hi)
            .arg(&r)
            .arg(&seg);
        // SAFETY: matches `box_columns(const uint4*, tex, surf, int, int, int, int)`.
        unsafe { cols.launch(cols_cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("box_columns"))
    }

    /// Separable convolution with the `2R+1` weights; `scratch` holds ≥ 16 bytes per pixel.
    #[allow(clippy::too_many_arguments)]
    pub fn convolve(
        &self,
        stream: &Arc<CudaStream>,
        src: &TextureObject,
        dst: &SurfaceObject,
        w: u32,
        h: u32,
        weights: &[f32],
        scratch: &mut CudaSlice<u8>,
    ) -> Result<(), CudaError> {
        let radius = (weights.len() / 2) as u32;
        if weights.len() % 2 == 0 || radius > CONV_MAX_RADIUS {
            return Err(CudaError::Launch {
                kernel: "conv_rows",
                reason: format!(
                    "{} weights: need an odd count up to {}",
                    weights.len(),
                    2 * CONV_MAX_RADIUS + 1
                ),
            });
        }
        Self::check_scratch("conv_rows", scratch, w, h)?;
        let bytes: Vec<u8> = weights.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let mut symbol = self
            .convolution_module
            .get_global("c_weights", stream)
            .map_err(CudaError::driver("cuModuleGetGlobal(c_weights)"))?;
        let mut head = symbol.slice_mut(0..bytes.len());
        stream
            .memcpy_htod(&bytes, &mut head)
            .map_err(CudaError::driver("cuMemcpyHtoD(c_weights)"))?;
        let rows_cfg = LaunchConfig {
            grid_dim: (
                blocks(w, CONV_ROW_BLOCK_X * CONV_ROW_RESULTS),
                blocks(h, CONV_ROW_BLOCK_Y),
                1,
            ),
            block_dim: (CONV_ROW_BLOCK_X, CONV_ROW_BLOCK_Y, 1),
            shared_mem_bytes: conv_rows_shared(radius),
        };
        let cols_cfg = LaunchConfig {
            grid_dim: (
                blocks(w, CONV_COL_BLOCK_X),
                blocks(h, CONV_COL_BLOCK_Y * CONV_COL_RESULTS),
                1,
            ),
            block_dim: (CONV_COL_BLOCK_X, CONV_COL_BLOCK_Y, 1),
            shared_mem_bytes: conv_columns_shared(radius),
        };
        self.check_config("conv_rows", &rows_cfg)?;
        self.check_config("conv_columns", &cols_cfg)?;
        let (s, d, wi, hi, r) = (
            src.handle(),
            dst.handle(),
            w as i32,
            h as i32,
            radius as i32,
        );
        let mut rows = stream.launch_builder(&self.conv_rows);
        rows.arg(&s).arg(&mut *scratch).arg(&wi).arg(&hi).arg(&r);
        // SAFETY: matches `conv_rows(tex, float4*, int, int, int)`; scratch holds w·h float4.
        unsafe { rows.launch(rows_cfg) }.map_err(CudaError::launch("conv_rows"))?;
        let mut cols = stream.launch_builder(&self.conv_columns);
        cols.arg(&*scratch)
            .arg(&s)
            .arg(&d)
            .arg(&wi)
            .arg(&hi)
            .arg(&r);
        // SAFETY: matches `conv_columns(const float4*, tex, surf, int, int, int)`.
        unsafe { cols.launch(cols_cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("conv_columns"))
    }

    /// Transpose of `src` (`w × h`) into `dst` (`h × w`).
    pub fn transpose(
        &self,
        stream: &CudaStream,
        src: &TextureObject,
        dst: &SurfaceObject,
        w: u32,
        h: u32,
    ) -> Result<(), CudaError> {
        let cfg = LaunchConfig {
            grid_dim: (blocks(w, TRANSPOSE_TILE), blocks(h, TRANSPOSE_TILE), 1),
            block_dim: (TRANSPOSE_TILE, TRANSPOSE_ROWS, 1),
            shared_mem_bytes: 0,
        };
        self.check_config("transpose", &cfg)?;
        let (s, d, wi, hi) = (src.handle(), dst.handle(), w as i32, h as i32);
        let mut b = stream.launch_builder(&self.transpose);
        b.arg(&s).arg(&d).arg(&wi).arg(&hi);
        // SAFETY: matches `transpose(tex, surf, int, int)`; dst is h × w.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("transpose"))
    }

    /// Adds the R, G, B and luma counts of `src` to the 4 × 256 `u32` bins at `bins`
    /// (the caller zeroes them).
    pub fn histogram(
        &self,
        stream: &CudaStream,
        src: &TextureObject,
        w: u32,
        h: u32,
        bins: CUdeviceptr,
    ) -> Result<(), CudaError> {
        let block = HIST_WARPS * 32;
        let pixels = w as u64 * h as u64;
        let grid = pixels
            .div_ceil(u64::from(block))
            .min(u64::from(self.sm_count) * 4) as u32;
        let cfg = LaunchConfig {
            grid_dim: (grid.max(1), 1, 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        self.check_config("histogram", &cfg)?;
        let (s, wi, hi) = (src.handle(), w as i32, h as i32);
        let mut b = stream.launch_builder(&self.histogram);
        b.arg(&s).arg(&wi).arg(&hi).arg(&bins);
        // SAFETY: matches `histogram(tex, int, int, unsigned int*)`; `bins` points to
        // 4 · HIST_BINS u32 (the mapped bin buffer).
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("histogram"))
    }
}
