//! What the generic CPU references (`filters/<name>/typed.rs`) share: which channels a
//! filter touches, the luma they read, clamped fetches and outputs built plane by plane.
//!
//! Channels: grey filters its one channel, RGB its three, RGBA its three colour channels
//! with alpha copied from the source pixel (a pixel move carries alpha along).

use crate::pixels::{ImageBuf, Sample};
use rayon::prelude::*;

/// Channels a filter computes: 1 for grey, 3 for RGB and RGBA (alpha is kept).
pub fn colour_channels(channels: u8) -> usize {
    usize::from(channels.min(3))
}

/// Rec. 709 luma of one pixel in the type's units, in f32 and in the fixed order of
/// [`crate::ops::luma`] (`(0.2126 R + 0.7152 G) + 0.0722 B`, no fused multiply-add). Grey
/// counts as R = G = B, so a grey image filters as its RGB copy does (equal to the value
/// within f32 rounding; its rounded bin is the value for integers).
#[inline]
pub fn luma_of<T: Sample>(pixel: &[T]) -> f32 {
    let (r, g, b) = match pixel {
        [v] => (v.to_f32(), v.to_f32(), v.to_f32()),
        [r, g, b, ..] => (r.to_f32(), g.to_f32(), b.to_f32()),
        _ => (0.0, 0.0, 0.0),
    };
    (0.2126_f32 * r + 0.7152_f32 * g) + 0.0722_f32 * b
}

/// The luma of every pixel, row-major.
pub fn luma_plane<T: Sample>(image: &ImageBuf<T>) -> Vec<f32> {
    image
        .as_slice()
        .par_chunks_exact(usize::from(image.channels()))
        .map(luma_of)
        .collect()
}

/// Clamp-to-edge index: `i` moved into `0..len`.
#[inline]
pub fn clamp_to_edge(i: isize, len: usize) -> usize {
    i.clamp(0, len as isize - 1) as usize
}

/// An image of `image`'s size and channels whose colour channels come from `value(pixel
/// index, channel)` and whose alpha (if any) is the source's; rows in parallel.
pub fn with_colour<T: Sample>(
    image: &ImageBuf<T>,
    value: impl Fn(usize, usize) -> T + Sync,
) -> ImageBuf<T> {
    let mut out = image.clone();
    let c = usize::from(image.channels());
    let colour = colour_channels(image.channels());
    let row = image.row_len().max(1);
    let width = image.width() as usize;
    out.as_mut_slice()
        .par_chunks_mut(row)
        .enumerate()
        .for_each(|(y, samples)| {
            for (x, px) in samples.chunks_exact_mut(c).enumerate() {
                for (ch, v) in px.iter_mut().take(colour).enumerate() {
                    *v = value(y * width + x, ch);
                }
            }
        });
    out
}

/// `image` with every colour sample mapped by `f`; alpha kept.
pub fn map_colour<T: Sample>(image: &ImageBuf<T>, f: impl Fn(T) -> T + Sync) -> ImageBuf<T> {
    let mut out = image.clone();
    let c = usize::from(image.channels());
    let colour = colour_channels(image.channels());
    out.as_mut_slice()
        .par_chunks_mut(c * 4096)
        .for_each(|chunk| {
            for px in chunk.chunks_exact_mut(c) {
                for v in px.iter_mut().take(colour) {
                    *v = f(*v);
                }
            }
        });
    out
}

/// Test inputs in every type: real photos and random samples, never all zero.
#[cfg(test)]
pub(crate) mod test_inputs {
    use crate::pixels::{ImageBuf, PixelImage, Sample, SampleType};
    use rand::{Rng, SeedableRng};

    /// A photo of `tests/data/` (or `assets/`) as RGBA8.
    pub fn photo(path: &str) -> image::RgbaImage {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        image::open(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .into_rgba8()
    }

    /// A crop of a photo at (`x`, `y`), `w × h` (clamped to the photo).
    pub fn photo_crop(path: &str, x: u32, y: u32, w: u32, h: u32) -> image::RgbaImage {
        let img = photo(path);
        let (w, h) = (w.min(img.width() - x), h.min(img.height() - y));
        image::imageops::crop_imm(&img, x, y, w, h).to_image()
    }

    /// Random samples of every type and layout; floats partly outside 0..1.
    pub fn random(sample_type: SampleType, w: u32, h: u32, channels: u8, seed: u64) -> PixelImage {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let n = (w * h) as usize * usize::from(channels);
        let image = match sample_type {
            SampleType::U8 => PixelImage::U8(
                ImageBuf::from_vec(w, h, channels, (0..n).map(|_| rng.random()).collect())
                    .expect("size"),
            ),
            SampleType::U16 => PixelImage::U16(
                ImageBuf::from_vec(w, h, channels, (0..n).map(|_| rng.random()).collect())
                    .expect("size"),
            ),
            SampleType::F32 => PixelImage::F32(
                ImageBuf::from_vec(
                    w,
                    h,
                    channels,
                    (0..n).map(|_| rng.random_range(-0.25f32..1.25)).collect(),
                )
                .expect("size"),
            ),
        };
        assert!(crate::with_pixels!(&image, b => b.as_slice().iter().any(|v| v.to_f64() != 0.0)));
        image
    }

    /// Raw little-endian samples (`u16` or `f32`, as `sample_type` says) of `path` under
    /// `tests/data/`, as a `w × h` image of `channels` channels.
    pub fn read_raw(path: &str, sample_type: &str, w: u32, h: u32, channels: u8) -> PixelImage {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(path);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        match sample_type {
            "u16" => PixelImage::U16(
                ImageBuf::from_vec(
                    w,
                    h,
                    channels,
                    bytes
                        .chunks_exact(2)
                        .map(|b| u16::from_le_bytes([b[0], b[1]]))
                        .collect(),
                )
                .expect("size"),
            ),
            _ => PixelImage::F32(
                ImageBuf::from_vec(
                    w,
                    h,
                    channels,
                    bytes
                        .chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect(),
                )
                .expect("size"),
            ),
        }
    }

    /// The largest difference of `got` from `want` in units of the tolerance: 1 level for
    /// U16, `max(1e-5 · |want|, 1e-6)` for F32 (at most 1 passes).
    pub fn worst_difference(got: &PixelImage, want: &PixelImage) -> f64 {
        assert_eq!(got.dimensions(), want.dimensions(), "sizes");
        match (got, want) {
            (PixelImage::U16(g), PixelImage::U16(w)) => g
                .as_slice()
                .iter()
                .zip(w.as_slice())
                .map(|(a, b)| f64::from(a.abs_diff(*b)))
                .fold(0.0, f64::max),
            (PixelImage::F32(g), PixelImage::F32(w)) => g
                .as_slice()
                .iter()
                .zip(w.as_slice())
                .map(|(a, b)| f64::from((a - b).abs()) / (1e-5 * f64::from(b.abs())).max(1e-6))
                .fold(0.0, f64::max),
            _ => f64::INFINITY,
        }
    }
}
