//! The one place that says how an image of each sample type and channel count is stored
//! on the GPU: the GL texture format, the Vulkan image format (external memory), the CUDA
//! array format and texture read mode, and the bytes per pixel.
//!
//! 3-channel images are stored as 4 channels with opaque alpha: CUDA arrays have 1, 2 or
//! 4 channels only (no 3-channel `CUarray` format, so no 3-channel texture or surface
//! object), Vulkan's 3-channel formats are rarely optimal-tiling or exportable, and GL's
//! interop with CUDA registers only what CUDA can map. Grey (1 channel) keeps 1.

use crate::cuda::ArrayFormat;
use crate::gl::TexelFormat;
use crate::pixels::{ImageBuf, PixelImage, PixelsError, Sample, SampleType};
use ash::vk;
use cudarc::driver::sys::CUarray_format;

/// How one image's pixels are stored on the GPU: its sample type and 1 or 4 channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GpuPixelFormat {
    pub sample: SampleType,
    /// 1 or 4.
    pub channels: u8,
}

/// An image that cannot go to the GPU as it is.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum GpuFormatError {
    #[error("{got} bytes of texels for a {width}×{height} {format} image, which needs {want}")]
    TexelBytes {
        width: u32,
        height: u32,
        format: GpuPixelFormat,
        want: usize,
        got: usize,
    },
    #[error("GPU image: {0}")]
    Pixels(#[from] PixelsError),
    #[error("no GPU pixel format stores GL texels of {0}")]
    UnknownTexels(&'static str),
}

impl std::fmt::Display for GpuPixelFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let layout = if self.channels == 1 { "grey" } else { "RGBA" };
        write!(f, "{} {layout}", self.sample)
    }
}

impl GpuPixelFormat {
    /// 8-bit RGBA: what the window shows and every filter kernel reads and writes.
    pub const RGBA8: GpuPixelFormat = GpuPixelFormat {
        sample: SampleType::U8,
        channels: 4,
    };

    /// Every stored format.
    pub const ALL: [GpuPixelFormat; 6] = [
        Self::stored(SampleType::U8, 1),
        Self::RGBA8,
        Self::stored(SampleType::U16, 1),
        Self::stored(SampleType::U16, 4),
        Self::stored(SampleType::F32, 1),
        Self::stored(SampleType::F32, 4),
    ];

    /// The format an image of `sample` with `channels` (1, 3 or 4) is stored in: grey as
    /// 1 channel, RGB and RGBA as 4.
    pub const fn stored(sample: SampleType, channels: u8) -> GpuPixelFormat {
        GpuPixelFormat {
            sample,
            channels: if channels == 1 { 1 } else { 4 },
        }
    }

    /// The format `image` is stored in.
    pub fn of(image: &PixelImage) -> GpuPixelFormat {
        Self::stored(image.sample_type(), image.channels())
    }

    /// The (sample type, stored channels) a filter's launcher gets.
    pub fn layout(self) -> (SampleType, u8) {
        (self.sample, self.channels)
    }

    /// Bytes of one stored pixel.
    pub fn bytes_per_pixel(self) -> usize {
        self.sample.bytes() * usize::from(self.channels)
    }

    /// The GL texture format: R8, RGBA8, R16, RGBA16 (unsigned normalised: GL samples
    /// them as 0..1, CUDA reads the integers), R32F or RGBA32F.
    pub fn gl(self) -> TexelFormat {
        let (internal, name, ty) = match (self.sample, self.channels) {
            (SampleType::U8, 1) => (glow::R8, "R8", glow::UNSIGNED_BYTE),
            (SampleType::U8, _) => return TexelFormat::RGBA8,
            (SampleType::U16, 1) => (glow::R16, "R16", glow::UNSIGNED_SHORT),
            (SampleType::U16, _) => (glow::RGBA16, "RGBA16", glow::UNSIGNED_SHORT),
            (SampleType::F32, 1) => (glow::R32F, "R32F", glow::FLOAT),
            (SampleType::F32, _) => (glow::RGBA32F, "RGBA32F", glow::FLOAT),
        };
        TexelFormat {
            internal,
            format: if self.channels == 1 {
                glow::RED
            } else {
                glow::RGBA
            },
            ty,
            bytes: self.bytes_per_pixel(),
            name,
        }
    }

    /// The stored format of GL texels of `texels` (the inverse of [`GpuPixelFormat::gl`]).
    pub fn from_gl(texels: TexelFormat) -> Result<GpuPixelFormat, GpuFormatError> {
        Self::ALL
            .into_iter()
            .find(|f| f.gl() == texels)
            .ok_or(GpuFormatError::UnknownTexels(texels.name))
    }

    /// The Vulkan format of an exported image with the same bits (UNORM for integers,
    /// which CUDA still reads as integers: the format only names the bits).
    pub fn vk(self) -> vk::Format {
        match (self.sample, self.channels) {
            (SampleType::U8, 1) => vk::Format::R8_UNORM,
            (SampleType::U8, _) => vk::Format::R8G8B8A8_UNORM,
            (SampleType::U16, 1) => vk::Format::R16_UNORM,
            (SampleType::U16, _) => vk::Format::R16G16B16A16_UNORM,
            (SampleType::F32, 1) => vk::Format::R32_SFLOAT,
            (SampleType::F32, _) => vk::Format::R32G32B32A32_SFLOAT,
        }
    }

    /// The CUDA array format; its texture objects read elements as stored (integers
    /// unnormalised, floats as floats), point-sampled and clamped.
    pub fn cuda(self) -> ArrayFormat {
        let format = match self.sample {
            SampleType::U8 => CUarray_format::CU_AD_FORMAT_UNSIGNED_INT8,
            SampleType::U16 => CUarray_format::CU_AD_FORMAT_UNSIGNED_INT16,
            SampleType::F32 => CUarray_format::CU_AD_FORMAT_FLOAT,
        };
        ArrayFormat {
            format,
            channels: u32::from(self.channels),
        }
    }

    /// `image`'s samples as this format's texels (its format: see [`GpuPixelFormat::of`]),
    /// native byte order, rows packed; RGB gains an opaque alpha.
    pub fn texels(image: &PixelImage) -> Result<Vec<u8>, GpuFormatError> {
        let stored = match image.channels() {
            3 => image.with_channels(4)?,
            _ => image.clone(),
        };
        Ok(crate::with_pixels!(&stored, b => sample_bytes(b.as_slice())))
    }

    /// The image of `channels` (1, 3 or 4) held by `texels` of this format, `width ×
    /// height` (RGB drops the stored alpha).
    pub fn image(
        self,
        (width, height): (u32, u32),
        channels: u8,
        texels: &[u8],
    ) -> Result<PixelImage, GpuFormatError> {
        let want = self.bytes_per_pixel() * width as usize * height as usize;
        if texels.len() != want {
            return Err(GpuFormatError::TexelBytes {
                width,
                height,
                format: self,
                want,
                got: texels.len(),
            });
        }
        let size = (width, height, self.channels);
        let stored = match self.sample {
            SampleType::U8 => PixelImage::U8(buffer_from(size, texels, |b| b[0])?),
            SampleType::U16 => PixelImage::U16(buffer_from(size, texels, |b| {
                u16::from_ne_bytes([b[0], b[1]])
            })?),
            SampleType::F32 => PixelImage::F32(buffer_from(size, texels, |b| {
                f32::from_ne_bytes([b[0], b[1], b[2], b[3]])
            })?),
        };
        match channels == self.channels {
            true => Ok(stored),
            false => Ok(stored.with_channels(channels)?),
        }
    }
}

/// Samples as native-endian bytes.
fn sample_bytes<T: Sample + ToNeBytes>(samples: &[T]) -> Vec<u8> {
    samples.iter().flat_map(|s| s.ne_bytes()).collect()
}

/// A sample's bytes in native order.
trait ToNeBytes {
    fn ne_bytes(self) -> impl IntoIterator<Item = u8>;
}

impl ToNeBytes for u8 {
    fn ne_bytes(self) -> impl IntoIterator<Item = u8> {
        [self]
    }
}

impl ToNeBytes for u16 {
    fn ne_bytes(self) -> impl IntoIterator<Item = u8> {
        self.to_ne_bytes()
    }
}

impl ToNeBytes for f32 {
    fn ne_bytes(self) -> impl IntoIterator<Item = u8> {
        self.to_ne_bytes()
    }
}

/// A buffer of `(width, height, channels)` from `texels`, each sample read from its bytes
/// by `sample`.
fn buffer_from<T: Sample>(
    (width, height, channels): (u32, u32, u8),
    texels: &[u8],
    sample: impl Fn(&[u8]) -> T,
) -> Result<ImageBuf<T>, PixelsError> {
    let samples = texels.chunks_exact(T::TYPE.bytes()).map(sample).collect();
    ImageBuf::from_vec(width, height, channels, samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_maps_consistently() {
        for f in GpuPixelFormat::ALL {
            let gl = f.gl();
            let cuda = f.cuda();
            assert_eq!(gl.bytes, f.bytes_per_pixel(), "{f}");
            assert_eq!(cuda.bytes_per_pixel(), f.bytes_per_pixel(), "{f}");
            assert_eq!(cuda.is_integer(), f.sample != SampleType::F32, "{f}");
            assert_eq!(GpuPixelFormat::from_gl(gl), Ok(f));
        }
        assert_eq!(GpuPixelFormat::RGBA8.gl(), TexelFormat::RGBA8);
        assert_eq!(GpuPixelFormat::RGBA8.cuda(), ArrayFormat::RGBA8);
        assert_eq!(
            GpuPixelFormat::stored(SampleType::U16, 3).gl().name,
            "RGBA16"
        );
        let vk_formats: Vec<i32> = GpuPixelFormat::ALL
            .iter()
            .map(|f| f.vk().as_raw())
            .collect();
        let want = [
            vk::Format::R8_UNORM,
            vk::Format::R8G8B8A8_UNORM,
            vk::Format::R16_UNORM,
            vk::Format::R16G16B16A16_UNORM,
            vk::Format::R32_SFLOAT,
            vk::Format::R32G32B32A32_SFLOAT,
        ];
        assert_eq!(vk_formats, want.map(|f| f.as_raw()));
    }

    #[test]
    fn every_format_has_its_copy_kernel_in_copy_cu() {
        let source = include_str!("../../kernels/copy.cu");
        for f in GpuPixelFormat::ALL {
            let name = crate::filters::copy_kernel_name(f.sample, f.channels).expect("name");
            let c_type = match f.sample {
                SampleType::U8 => "unsigned char",
                SampleType::U16 => "unsigned short",
                SampleType::F32 => "float",
            };
            let line = format!("COPY_KERNEL({name}, {c_type}, {})", f.channels);
            assert!(source.contains(&line), "copy.cu lacks {line}");
        }
    }

    fn random_image(sample: SampleType, channels: u8, seed: u32) -> PixelImage {
        let mut state = seed.wrapping_mul(2_654_435_761) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let (w, h) = (7, 5);
        match sample {
            SampleType::U8 => PixelImage::U8(
                ImageBuf::from_fn(w, h, channels, |_, _, _| next() as u8).expect("size"),
            ),
            SampleType::U16 => PixelImage::U16(
                ImageBuf::from_fn(w, h, channels, |_, _, _| next() as u16).expect("size"),
            ),
            SampleType::F32 => PixelImage::F32(
                ImageBuf::from_fn(w, h, channels, |_, _, _| f32::from_bits(next())).expect("size"),
            ),
        }
    }

    /// Bit patterns, so that NaNs compare too.
    fn bits(image: &PixelImage) -> Vec<u64> {
        crate::with_pixels!(image, b => b.as_slice().iter().map(|s| s.to_f64().to_bits()).collect())
    }

    #[test]
    fn texels_round_trip_every_type_and_layout() {
        for sample in SampleType::ALL {
            for channels in [1, 3, 4] {
                let image = random_image(sample, channels, u32::from(channels) + 7);
                let format = GpuPixelFormat::of(&image);
                let texels = GpuPixelFormat::texels(&image).expect("texels");
                assert_eq!(texels.len(), 7 * 5 * format.bytes_per_pixel());
                let back = format.image((7, 5), channels, &texels).expect("image");
                assert_eq!(back.describe(), image.describe());
                if sample == SampleType::F32 {
                    let raw = |i: &PixelImage| match i {
                        PixelImage::F32(b) => {
                            b.as_slice().iter().map(|v| v.to_bits()).collect::<Vec<_>>()
                        }
                        _ => unreachable!(),
                    };
                    assert_eq!(raw(&back), raw(&image), "{sample:?}×{channels}");
                } else {
                    assert_eq!(bits(&back), bits(&image), "{sample:?}×{channels}");
                }
            }
        }
    }

    #[test]
    fn rgb_is_stored_with_opaque_alpha() {
        let rgb = ImageBuf::<u16>::from_vec(1, 1, 3, vec![1, 2, 3]).expect("size");
        let texels = GpuPixelFormat::texels(&PixelImage::U16(rgb)).expect("texels");
        let samples: Vec<u16> = texels
            .chunks_exact(2)
            .map(|b| u16::from_ne_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(samples, [1, 2, 3, 65535]);
        let short = GpuPixelFormat::RGBA8.image((2, 2), 4, &[0; 15]);
        assert!(matches!(
            short,
            Err(GpuFormatError::TexelBytes {
                want: 16,
                got: 15,
                ..
            })
        ));
    }
}
