//! The CUDA path of the edits (`kernels/edits/geometry.cu`): the host image is uploaded
//! to a CUDA array once, each edit reads it through a texture object and writes a new
//! array through a surface object, and the last one is read back. Resizes run as Pillow's
//! two separable passes with the windows and weights of [`super::resample`], so the result
//! equals the CPU reference.

use super::cpu::move_matrix;
use super::resample::{nearest_table, AxisWeights, PRECISION_BITS};
use super::{EditError, ImageEdit, ResizeFilter};
use crate::cuda::{blocks, memory, CudaDevice, CudaError, ImageArray, KernelSet};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use image::RgbaImage;
use std::sync::Arc;

/// The kernel module of the edits.
pub const MODULE: &str = "geometry";
const BLOCK: u32 = 16;

impl From<CudaError> for EditError {
    fn from(e: CudaError) -> Self {
        EditError::Device(e.to_string())
    }
}

fn config(w: u32, h: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks(w, BLOCK), blocks(h, BLOCK), 1),
        block_dim: (BLOCK, BLOCK, 1),
        shared_mem_bytes: 0,
    }
}

/// The edit kernels loaded on one device.
pub struct EditKernels<'d> {
    device: &'d CudaDevice,
    kernels: KernelSet,
}

impl<'d> EditKernels<'d> {
    /// Loads the edits' module on `device`.
    pub fn load(device: &'d CudaDevice) -> Result<Self, EditError> {
        device.bind()?;
        let kernels = KernelSet::load(device, [MODULE])?;
        Ok(Self { device, kernels })
    }

    fn stream(&self) -> &Arc<CudaStream> {
        &self.device.stream
    }

    fn target(&self, w: u32, h: u32) -> Result<ImageArray, CudaError> {
        ImageArray::new(&self.device.ctx, w, h)
    }

    fn upload(&self, values: &[i32]) -> Result<CudaSlice<i32>, CudaError> {
        self.stream()
            .clone_htod(values)
            .map_err(CudaError::driver("cuMemcpyHtoD(edit table)"))
    }

    /// Runs `edits` on `image` in order and reads the result back.
    pub fn apply(&self, image: &RgbaImage, edits: &[ImageEdit]) -> Result<RgbaImage, EditError> {
        let (w, h) = image.dimensions();
        ImageEdit::chain_size(edits, w, h)?;
        self.device.bind()?;
        let mut current = self.target(w, h)?;
        // SAFETY: `current` is a live w × h RGBA8 array; the copy is waited for.
        unsafe {
            memory::write_array(
                current.array().view().raw(),
                w,
                h,
                image.as_raw(),
                self.stream(),
            )?
        };
        for edit in edits {
            if let Some(next) = self.apply_one(&current, edit)? {
                current = next;
            }
        }
        let (ow, oh) = (current.array().width, current.array().height);
        let mut pixels = vec![0u8; ow as usize * oh as usize * 4];
        // SAFETY: `current` is a live ow × oh RGBA8 array; each launch was waited for.
        let out = current.array().view().raw();
        unsafe { memory::read_array(out, ow, oh, &mut pixels, self.stream())? };
        RgbaImage::from_raw(ow, oh, pixels).ok_or(EditError::EmptyImage)
    }

    /// One edit of `src` into a new array, or `None` when it leaves the image as it is.
    fn apply_one(
        &self,
        src: &ImageArray,
        edit: &ImageEdit,
    ) -> Result<Option<ImageArray>, EditError> {
        let (w, h) = (src.array().width, src.array().height);
        let (ow, oh) = edit.output_size(w, h)?;
        if let Some(m) = move_matrix(edit, w, h) {
            let out = self.target(ow, oh)?;
            self.launch_move(src, &out, ow, oh, m)?;
            return Ok(Some(out));
        }
        let ImageEdit::Resize { filter, .. } = *edit else {
            return Ok(None);
        };
        if (ow, oh) == (w, h) {
            return Ok(None);
        }
        if filter == ResizeFilter::Nearest {
            let out = self.target(ow, oh)?;
            self.launch_nearest(src, &out, &nearest_table(w, ow), &nearest_table(h, oh))?;
            return Ok(Some(out));
        }
        let horizontal = (ow != w).then(|| AxisWeights::new(w, ow, filter)).flatten();
        let vertical = (oh != h).then(|| AxisWeights::new(h, oh, filter)).flatten();
        Ok(Some(match (horizontal, vertical) {
            (Some(hw), Some(vw)) => {
                let mid = self.target(ow, h)?;
                self.launch_resample(src, &mid, ow, h, &hw, false, true, false)?;
                let out = self.target(ow, oh)?;
                self.launch_resample(&mid, &out, ow, oh, &vw, true, false, true)?;
                out
            }
            (Some(hw), None) => {
                let out = self.target(ow, oh)?;
                self.launch_resample(src, &out, ow, oh, &hw, false, true, true)?;
                out
            }
            (None, Some(vw)) => {
                let out = self.target(ow, oh)?;
                self.launch_resample(src, &out, ow, oh, &vw, true, true, true)?;
                out
            }
            (None, None) => return Ok(None),
        }))
    }

    fn launch_move(
        &self,
        src: &ImageArray,
        dst: &ImageArray,
        ow: u32,
        oh: u32,
        m: [i32; 6],
    ) -> Result<(), CudaError> {
        let cfg = config(ow, oh);
        let f = self.kernels.function(MODULE, "edit_move", &cfg)?;
        let (s, d, wi, hi) = (
            src.texture().handle(),
            dst.surface().handle(),
            ow as i32,
            oh as i32,
        );
        let mut b = self.stream().launch_builder(&f);
        b.arg(&s).arg(&d).arg(&wi).arg(&hi);
        for v in &m {
            b.arg(v);
        }
        // SAFETY: matches `edit_move(tex, surf, int, int, int × 6)`; the kernel writes only
        // inside `ow × oh` of `dst`, which has that size, and reads `src` through a
        // clamp-addressed texture. The objects outlive the launch (synchronized below).
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("edit_move"))?;
        self.synchronize()
    }

    /// Waits for the stream: every launch finishes before its arrays and tables may drop.
    fn synchronize(&self) -> Result<(), CudaError> {
        self.stream()
            .synchronize()
            .map_err(CudaError::driver("cuStreamSynchronize"))
    }

    fn launch_nearest(
        &self,
        src: &ImageArray,
        dst: &ImageArray,
        xs: &[i32],
        ys: &[i32],
    ) -> Result<(), CudaError> {
        let (ow, oh) = (xs.len() as u32, ys.len() as u32);
        let (dx, dy) = (self.upload(xs)?, self.upload(ys)?);
        let cfg = config(ow, oh);
        let f = self.kernels.function(MODULE, "edit_nearest", &cfg)?;
        let (s, d, wi, hi) = (
            src.texture().handle(),
            dst.surface().handle(),
            ow as i32,
            oh as i32,
        );
        let mut b = self.stream().launch_builder(&f);
        b.arg(&s).arg(&d).arg(&dx).arg(&dy).arg(&wi).arg(&hi);
        // SAFETY: matches `edit_nearest(tex, surf, const int*, const int*, int, int)`; the
        // tables hold `ow` and `oh` indices inside the source; the kernel writes only inside
        // `ow × oh` of `dst`. The tables drop after the stream is synchronized.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("edit_nearest"))?;
        self.synchronize()
    }

    #[allow(clippy::too_many_arguments)]
    fn launch_resample(
        &self,
        src: &ImageArray,
        dst: &ImageArray,
        ow: u32,
        oh: u32,
        weights: &AxisWeights,
        vertical: bool,
        premultiply_in: bool,
        unpremultiply_out: bool,
    ) -> Result<(), CudaError> {
        let start = self.upload(&weights.start)?;
        let count = self.upload(&weights.count)?;
        let table = self.upload(&weights.weights)?;
        let cfg = config(ow, oh);
        let f = self.kernels.function(MODULE, "edit_resample", &cfg)?;
        let (s, d) = (src.texture().handle(), dst.surface().handle());
        let (ksize, wi, hi) = (weights.ksize as i32, ow as i32, oh as i32);
        let flags = [
            i32::from(vertical),
            i32::from(premultiply_in),
            i32::from(unpremultiply_out),
            PRECISION_BITS as i32,
        ];
        let mut b = self.stream().launch_builder(&f);
        b.arg(&s)
            .arg(&d)
            .arg(&start)
            .arg(&count)
            .arg(&table)
            .arg(&ksize)
            .arg(&wi)
            .arg(&hi);
        for v in &flags {
            b.arg(v);
        }
        // SAFETY: matches `edit_resample(tex, surf, const int* × 3, int × 7)`; `start` and
        // `count` have one entry per output pixel along the pass's axis (`ow` or `oh`), the
        // weights `ksize` per entry, and every window lies inside the source; the kernel
        // writes only inside `ow × oh` of `dst`.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(CudaError::launch("edit_resample"))?;
        self.synchronize()
    }
}

/// Runs `edits` on `image` on `device` (tests, the command line, the window's worker).
pub fn apply_edits(
    device: &CudaDevice,
    image: &RgbaImage,
    edits: &[ImageEdit],
) -> Result<RgbaImage, EditError> {
    EditKernels::load(device)?.apply(image, edits)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_kernel_file_is_embedded() {
        assert!(crate::cuda::kernel_embedded(super::MODULE));
    }
}
