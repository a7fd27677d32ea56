//! [`NppImage`]: an RGBA8 image in pitched linear device memory, the layout NPP works on.

use super::ffi::NppiSize;
use super::NppError;
use cudalens::cuda::{CudaDevice, CudaError};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaSlice, DevicePtr};
use image::RgbaImage;

/// Row pitch alignment in bytes (what cuMemAllocPitch picks on current GPUs).
const PITCH_ALIGN: usize = 512;

/// A `width × height` RGBA8 device image with rows `pitch` bytes apart; freed on drop.
pub struct NppImage {
    buffer: CudaSlice<u8>,
    pub width: u32,
    pub height: u32,
    pub pitch: usize,
}

impl NppImage {
    /// Allocates an image on `device` (contents undefined until written).
    pub fn new(device: &CudaDevice, width: u32, height: u32) -> Result<Self, NppError> {
        let pitch = (width as usize * 4).next_multiple_of(PITCH_ALIGN);
        if width == 0 || height == 0 || i32::try_from(pitch).is_err() {
            return Err(NppError::Size {
                width,
                height,
                reason: "empty, or rows too long for NPP's 32-bit step".into(),
            });
        }
        let buffer = device
            .stream
            .alloc_zeros::<u8>(pitch * height as usize)
            .map_err(CudaError::driver("cuMemAlloc(NPP image)"))?;
        Ok(Self {
            buffer,
            width,
            height,
            pitch,
        })
    }

    /// A new image holding `image`.
    pub fn from_image(device: &CudaDevice, image: &RgbaImage) -> Result<Self, NppError> {
        let mut out = Self::new(device, image.width(), image.height())?;
        out.upload(device, image)?;
        Ok(out)
    }

    /// Copies `image` (of this size) in.
    pub fn upload(&mut self, device: &CudaDevice, image: &RgbaImage) -> Result<(), NppError> {
        if image.dimensions() != (self.width, self.height) {
            return Err(self.size_error(format!("upload of {:?}", image.dimensions())));
        }
        let row = self.width as usize * 4;
        let mut staged = vec![0u8; self.pitch * self.height as usize];
        for (dst, src) in staged
            .chunks_exact_mut(self.pitch)
            .zip(image.as_raw().chunks_exact(row))
        {
            dst[..row].copy_from_slice(src);
        }
        device
            .stream
            .memcpy_htod(&staged, &mut self.buffer)
            .map_err(CudaError::driver("cuMemcpyHtoD(NPP image)"))?;
        Ok(())
    }

    /// Fills every byte with `value` (poisons an output before a run).
    pub fn fill(&mut self, device: &CudaDevice, value: u8) -> Result<(), NppError> {
        let bytes = vec![value; self.buffer.len()];
        device
            .stream
            .memcpy_htod(&bytes, &mut self.buffer)
            .map_err(CudaError::driver("cuMemcpyHtoD(NPP poison)"))?;
        Ok(())
    }

    /// Reads the image back (waits for the stream).
    pub fn download(&self, device: &CudaDevice) -> Result<RgbaImage, NppError> {
        let staged = device
            .stream
            .clone_dtoh(&self.buffer)
            .map_err(CudaError::driver("cuMemcpyDtoH(NPP image)"))?;
        let row = self.width as usize * 4;
        let mut pixels = Vec::with_capacity(row * self.height as usize);
        for line in staged.chunks_exact(self.pitch) {
            pixels.extend_from_slice(&line[..row]);
        }
        RgbaImage::from_raw(self.width, self.height, pixels)
            .ok_or_else(|| self.size_error("download".into()))
    }

    /// The ROI size of the whole image.
    pub fn size(&self) -> NppiSize {
        NppiSize {
            width: self.width as i32,
            height: self.height as i32,
        }
    }

    /// The row step in bytes, as NPP takes it (checked to fit at allocation).
    pub fn step(&self) -> i32 {
        self.pitch as i32
    }

    /// The device address of the first pixel, valid while `self` lives.
    pub fn device_address(&self, device: &CudaDevice) -> CUdeviceptr {
        let (ptr, _sync) = self.buffer.device_ptr(&device.stream);
        ptr
    }

    /// Image bytes without the row padding (what a filter reads or writes).
    pub fn bytes(&self) -> usize {
        self.width as usize * self.height as usize * 4
    }

    fn size_error(&self, reason: String) -> NppError {
        NppError::Size {
            width: self.width,
            height: self.height,
            reason,
        }
    }
}
