//! `ImageBuf<T>`: interleaved samples of one type, row-major, tightly packed.

use super::sample::{convert_sample, Sample};

/// Why pixels could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PixelsError {
    #[error("{0} channels are not supported (1 grey, 3 RGB or 4 RGBA)")]
    Channels(u8),
    #[error("the image is too large to address")]
    TooLarge,
    #[error("{got} samples given where the size needs {want}")]
    Length { want: usize, got: usize },
}

/// A `width × height` image of `channels` (1, 3 or 4) interleaved samples of type `T`,
/// rows top to bottom with no padding.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageBuf<T: Sample> {
    width: u32,
    height: u32,
    channels: u8,
    data: Vec<T>,
}

/// Samples in a `width × height × channels` image, if it fits in memory's index range.
pub fn sample_count(width: u32, height: u32, channels: u8) -> Option<usize> {
    usize::try_from(width)
        .ok()?
        .checked_mul(usize::try_from(height).ok()?)?
        .checked_mul(usize::from(channels))
}

fn check_channels(channels: u8) -> Result<(), PixelsError> {
    match channels {
        1 | 3 | 4 => Ok(()),
        other => Err(PixelsError::Channels(other)),
    }
}

impl<T: Sample> ImageBuf<T> {
    /// An image filled with `value`.
    pub fn filled(width: u32, height: u32, channels: u8, value: T) -> Result<Self, PixelsError> {
        check_channels(channels)?;
        let len = sample_count(width, height, channels).ok_or(PixelsError::TooLarge)?;
        Ok(Self {
            width,
            height,
            channels,
            data: vec![value; len],
        })
    }

    /// An image filled with zeros.
    pub fn new(width: u32, height: u32, channels: u8) -> Result<Self, PixelsError> {
        Self::filled(width, height, channels, T::default())
    }

    /// A zeroed image of this one's size and channels (fresh pages from the allocator: a
    /// filter's output, cheaper than a copy it overwrites).
    pub fn zeroed_like(&self) -> Self {
        Self {
            width: self.width,
            height: self.height,
            channels: self.channels,
            data: vec![T::default(); self.data.len()],
        }
    }

    /// Wraps `data` (interleaved, row-major); its length must be `width · height · channels`.
    pub fn from_vec(
        width: u32,
        height: u32,
        channels: u8,
        data: Vec<T>,
    ) -> Result<Self, PixelsError> {
        check_channels(channels)?;
        let want = sample_count(width, height, channels).ok_or(PixelsError::TooLarge)?;
        if data.len() != want {
            return Err(PixelsError::Length {
                want,
                got: data.len(),
            });
        }
        Ok(Self {
            width,
            height,
            channels,
            data,
        })
    }

    /// Computes every sample from its position: `f(x, y, channel)`.
    pub fn from_fn(
        width: u32,
        height: u32,
        channels: u8,
        mut f: impl FnMut(u32, u32, u8) -> T,
    ) -> Result<Self, PixelsError> {
        let mut image = Self::new(width, height, channels)?;
        let c = usize::from(channels);
        for (i, px) in image.data.chunks_exact_mut(c).enumerate() {
            let (x, y) = ((i % width as usize) as u32, (i / width as usize) as u32);
            for (ch, v) in px.iter_mut().enumerate() {
                *v = f(x, y, ch as u8);
            }
        }
        Ok(image)
    }

    pub fn width(&self) -> u32 {
        self.width
    }
    pub fn height(&self) -> u32 {
        self.height
    }
    /// 1 (grey), 3 (RGB) or 4 (RGBA).
    pub fn channels(&self) -> u8 {
        self.channels
    }
    /// Samples in one row.
    pub fn row_len(&self) -> usize {
        self.width as usize * usize::from(self.channels)
    }
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }

    /// Row `y`'s samples.
    pub fn row(&self, y: u32) -> &[T] {
        let n = self.row_len();
        &self.data[y as usize * n..(y as usize + 1) * n]
    }

    /// The channels of pixel (`x`, `y`).
    pub fn pixel(&self, x: u32, y: u32) -> &[T] {
        let c = usize::from(self.channels);
        let i = (y as usize * self.width as usize + x as usize) * c;
        &self.data[i..i + c]
    }

    /// Mutable channels of pixel (`x`, `y`).
    pub fn pixel_mut(&mut self, x: u32, y: u32) -> &mut [T] {
        let c = usize::from(self.channels);
        let i = (y as usize * self.width as usize + x as usize) * c;
        &mut self.data[i..i + c]
    }

    /// Every sample converted to type `D` by the depth rules.
    pub fn convert<D: Sample>(&self) -> ImageBuf<D> {
        ImageBuf {
            width: self.width,
            height: self.height,
            channels: self.channels,
            data: self.data.iter().map(|&v| convert_sample(v)).collect(),
        }
    }

    /// The image with `channels` channels: grey → RGB repeats the value, a new alpha is
    /// white (opaque), RGB(A) → grey takes Rec. 709 luma of the colour channels (rounded per
    /// the type), and dropping alpha keeps the colour as it is.
    pub fn with_channels(&self, channels: u8) -> Result<ImageBuf<T>, PixelsError> {
        check_channels(channels)?;
        if channels == self.channels {
            return Ok(self.clone());
        }
        let (from, to) = (usize::from(self.channels), usize::from(channels));
        let mut data = Vec::with_capacity(self.data.len() / from * to);
        for px in self.data.chunks_exact(from) {
            match (from, to) {
                (1, _) => {
                    data.extend(std::iter::repeat_n(px[0], 3));
                    if to == 4 {
                        data.push(T::FULL);
                    }
                }
                (_, 1) => {
                    let y =
                        0.2126 * px[0].to_f64() + 0.7152 * px[1].to_f64() + 0.0722 * px[2].to_f64();
                    data.push(T::from_f64(y));
                }
                (3, 4) => {
                    data.extend_from_slice(px);
                    data.push(T::FULL);
                }
                _ => data.extend_from_slice(&px[..3]),
            }
        }
        ImageBuf::from_vec(self.width, self.height, channels, data)
    }

    /// Whether some pixel's alpha is not opaque (false without an alpha channel).
    pub fn has_transparency(&self) -> bool {
        self.channels == 4 && self.data.chunks_exact(4).any(|px| px[3] != T::FULL)
    }
}
