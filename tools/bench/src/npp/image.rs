//! [`NppImage`]: an image of 4 interleaved samples a pixel (RGBA8, or 16-bit or float
//! samples for the typed peers) in pitched linear device memory, the layout NPP works on.

use super::ffi::NppiSize;
use super::NppError;
use cudalens::cuda::{CudaDevice, CudaError};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaSlice, DevicePtr};
use image::RgbaImage;

/// Row pitch alignment in bytes (what cuMemAllocPitch picks on current GPUs).
const PITCH_ALIGN: usize = 512;

/// A `width × height` device image of `pixel_bytes` a pixel (4 for RGBA8) with rows
/// `pitch` bytes apart; freed on drop.
pub struct NppImage {
    buffer: CudaSlice<u8>,
    pub width: u32,
    pub height: u32,
    pub pitch: usize,
    pub pixel_bytes: usize,
}

impl NppImage {
    /// Allocates an RGBA8 image on `device` (contents undefined until written).
    pub fn new(device: &CudaDevice, width: u32, height: u32) -> Result<Self, NppError> {
        Self::with_pixel_bytes(device, width, height, 4)
    }

    /// Allocates an image of `pixel_bytes` a pixel (8 for 16-bit RGBA, 16 for float RGBA).
    pub fn with_pixel_bytes(
        device: &CudaDevice,
        width: u32,
        height: u32,
        pixel_bytes: usize,
    ) -> Result<Self, NppError> {
        let pitch = (width as usize * pixel_bytes).next_multiple_of(PITCH_ALIGN);
        if width == 0 || height == 0 || pixel_bytes == 0 || i32::try_from(pitch).is_err() {
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
            pixel_bytes,
        })
    }

    /// A new image holding `image`.
    pub fn from_image(device: &CudaDevice, image: &RgbaImage) -> Result<Self, NppError> {
        let mut out = Self::new(device, image.width(), image.height())?;
        out.upload(device, image)?;
        Ok(out)
    }

    /// Copies `image` (of this size, RGBA8) in.
    pub fn upload(&mut self, device: &CudaDevice, image: &RgbaImage) -> Result<(), NppError> {
        if image.dimensions() != (self.width, self.height) || self.pixel_bytes != 4 {
            return Err(self.size_error(format!("upload of {:?} RGBA8", image.dimensions())));
        }
        self.upload_rows(device, image.as_raw())
    }

    /// Copies in `rows`: the image's pixels with rows packed (`width × pixel_bytes` each).
    pub fn upload_rows(&mut self, device: &CudaDevice, rows: &[u8]) -> Result<(), NppError> {
        let row = self.row_bytes();
        if rows.len() != row * self.height as usize {
            return Err(self.size_error(format!("upload of {} bytes", rows.len())));
        }
        let mut staged = vec![0u8; self.pitch * self.height as usize];
        for (dst, src) in staged
            .chunks_exact_mut(self.pitch)
            .zip(rows.chunks_exact(row))
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

    /// Reads the RGBA8 image back (waits for the stream).
    pub fn download(&self, device: &CudaDevice) -> Result<RgbaImage, NppError> {
        let pixels = self.download_rows(device)?;
        match self.pixel_bytes {
            4 => RgbaImage::from_raw(self.width, self.height, pixels),
            _ => None,
        }
        .ok_or_else(|| self.size_error("download as RGBA8".into()))
    }

    /// Reads the pixels back with rows packed (waits for the stream).
    pub fn download_rows(&self, device: &CudaDevice) -> Result<Vec<u8>, NppError> {
        let staged = device
            .stream
            .clone_dtoh(&self.buffer)
            .map_err(CudaError::driver("cuMemcpyDtoH(NPP image)"))?;
        let row = self.row_bytes();
        let mut pixels = Vec::with_capacity(row * self.height as usize);
        for line in staged.chunks_exact(self.pitch) {
            pixels.extend_from_slice(&line[..row]);
        }
        Ok(pixels)
    }

    /// Bytes of one row without the padding.
    fn row_bytes(&self) -> usize {
        self.width as usize * self.pixel_bytes
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
        self.row_bytes() * self.height as usize
    }

    fn size_error(&self, reason: String) -> NppError {
        NppError::Size {
            width: self.width,
            height: self.height,
            reason,
        }
    }
}
