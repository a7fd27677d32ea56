//! Decoded frames kept on the device as RGBA8 arrays, so that a decoder thread can run a
//! few frames ahead of the one shown without the frames passing through the host: each
//! [`DeviceFrame`] owns an array from a [`FramePool`] and gives it back when dropped.

use super::NvdecReader;
use crate::cuda::{memory, ArrayRef, CudaArray2d, CudaDevice, CudaError};
use crate::video::VideoError;
use cudarc::driver::{CudaContext, CudaStream};
use image::RgbaImage;
use std::sync::{Arc, Mutex};

/// Arrays kept for reuse beyond those in flight (more are freed when given back).
const KEPT_ARRAYS: usize = 6;

/// Arrays of the frames' size, reused from frame to frame.
pub struct FramePool {
    ctx: Arc<CudaContext>,
    /// The device's own stream, on which the app reads frames back.
    reads: Arc<CudaStream>,
    free: Arc<Mutex<Vec<CudaArray2d>>>,
}

impl FramePool {
    pub fn new(device: &CudaDevice) -> Self {
        Self {
            ctx: device.ctx.clone(),
            reads: device.stream.clone(),
            free: Arc::default(),
        }
    }

    /// A free array of `size`, or a new one (arrays of other sizes are freed).
    fn take(&self, (width, height): (u32, u32)) -> Result<CudaArray2d, CudaError> {
        if let Ok(mut free) = self.free.lock() {
            free.retain(|a| (a.width, a.height) == (width, height));
            if let Some(array) = free.pop() {
                return Ok(array);
            }
        }
        CudaArray2d::new(&self.ctx, width, height)
    }
}

/// A decoded frame as RGBA8 on the device.
pub struct DeviceFrame {
    array: Option<CudaArray2d>,
    /// The stream its pixels are read back on (the device's).
    reads: Arc<CudaStream>,
    free: Arc<Mutex<Vec<CudaArray2d>>>,
}

impl DeviceFrame {
    fn array(&self) -> Result<&CudaArray2d, CudaError> {
        self.array
            .as_ref()
            .ok_or(CudaError::Missing("video frame's array"))
    }

    pub fn size(&self) -> (u32, u32) {
        self.array.as_ref().map_or((0, 0), |a| (a.width, a.height))
    }

    /// Copies the frame into `dst` (an RGBA8 array of at least its size) on `stream`, and
    /// waits for the copy.
    pub fn copy_to(&self, dst: ArrayRef<'_>, stream: &Arc<CudaStream>) -> Result<(), CudaError> {
        let array = self.array()?;
        // SAFETY: both arrays are RGBA8 and live until the copy is waited for below; the
        // caller's `dst` holds the frame's size.
        unsafe {
            memory::copy_array(
                array.view().raw(),
                dst.raw(),
                array.width,
                array.height,
                stream,
            )?
        };
        stream
            .synchronize()
            .map_err(CudaError::driver("cuStreamSynchronize(video frame)"))
    }

    /// The frame's pixels on the host.
    pub fn read_rgba(&self) -> Result<RgbaImage, CudaError> {
        let array = self.array()?;
        let (w, h) = (array.width, array.height);
        let mut pixels = vec![0u8; w as usize * h as usize * 4];
        // SAFETY: an RGBA8 array of w × h, alive while `self` is.
        unsafe { memory::read_array(array.view().raw(), w, h, &mut pixels, &self.reads)? };
        RgbaImage::from_raw(w, h, pixels).ok_or(CudaError::Missing("video frame's pixels"))
    }

    /// The pixel at (`x`, `y`), None outside the frame.
    pub fn pixel(&self, (x, y): (u32, u32)) -> Option<[u8; 4]> {
        let array = self.array().ok()?;
        if x >= array.width || y >= array.height {
            return None;
        }
        // SAFETY: (x, y) lies inside the RGBA8 array, alive while `self` is.
        unsafe { memory::read_pixel(array.view().raw(), (x, y), &self.reads) }.ok()
    }
}

impl Drop for DeviceFrame {
    fn drop(&mut self) {
        let Some(array) = self.array.take() else {
            return;
        };
        if let Ok(mut free) = self.free.lock() {
            if free.len() < KEPT_ARRAYS {
                free.push(array);
            }
        }
    }
}

impl NvdecReader {
    /// The next frame in presentation order converted to RGBA8 into an array of `pool`
    /// (on the reader's stream, waited for); None after the last.
    pub fn next_device_frame(
        &mut self,
        pool: &FramePool,
    ) -> Result<Option<DeviceFrame>, VideoError> {
        let Some(frame) = self.next_frame()? else {
            return Ok(None);
        };
        let failed = |e: CudaError| VideoError::Nvdec {
            path: frame.reader.path.clone(),
            frame: frame.index,
            reason: e.into(),
        };
        let array = pool.take(frame.size()).map_err(failed)?;
        frame.write_rgba(array.view()).map_err(failed)?;
        Ok(Some(DeviceFrame {
            array: Some(array),
            reads: pool.reads.clone(),
            free: pool.free.clone(),
        }))
    }
}
