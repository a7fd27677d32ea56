//! GPU test of the ranged histogram kernel (`kernels/histogram_ranged.cu`): its counts
//! (bins, below, above, NaN per channel) equal the CPU reference's exactly, for 8-bit,
//! 16-bit and float images of 1, 3 and 4 channels, real and random, over default and
//! chosen ranges, with shared sub-histograms and with global counts (65536 bins).
//!
//! CUDA only (no GL). Without a CUDA device it prints "skipped: no CUDA device" and
//! passes, or fails under `CUDALENS_REQUIRE_GPU=1`.

mod common;

use cudalens::cuda::{CudaDevice, KernelSet};
use cudalens::filters::{ranged_histogram_cuda, RANGED_MODULE};
use cudalens::ops::histogram::{ranged_histogram, HistogramOptions};
use cudalens::pixels::{ImageBuf, PixelImage, SampleType};

/// The device and the module, or None (with the skip message).
fn device() -> Option<(CudaDevice, KernelSet)> {
    common::gpu::cuda_devices()?;
    let device = CudaDevice::new(0).expect("CUDA device 0");
    let kernels = KernelSet::load(&device, [RANGED_MODULE]).expect("ranged module");
    Some((device, kernels))
}

/// xorshift64*: reproducible random numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// A random image: integers over the whole type, floats mostly in -0.5..1.5 with NaN, ±inf
/// and values on 0, 0.5 and 1 planted.
fn random(t: SampleType, w: u32, h: u32, channels: u8, seed: u64) -> PixelImage {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let n = w as usize * h as usize * usize::from(channels);
    match t {
        SampleType::U8 => {
            let v = (0..n).map(|_| rng.next() as u8).collect();
            PixelImage::U8(ImageBuf::from_vec(w, h, channels, v).expect("size"))
        }
        SampleType::U16 => {
            let v = (0..n).map(|_| rng.next() as u16).collect();
            PixelImage::U16(ImageBuf::from_vec(w, h, channels, v).expect("size"))
        }
        SampleType::F32 => {
            let special = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, 0.5, 1.0];
            let v = (0..n)
                .map(|_| match rng.next() % 50 {
                    k @ 0..=5 => special[k as usize],
                    _ => rng.unit() * 2.0 - 0.5,
                })
                .collect();
            PixelImage::F32(ImageBuf::from_vec(w, h, channels, v).expect("size"))
        }
    }
}

/// The photograph in every type and channel count.
fn photos() -> Vec<PixelImage> {
    let rgba = PixelImage::from_rgba8(common::photo("astronaut.png"));
    let mut out = Vec::new();
    for t in SampleType::ALL {
        let typed = rgba.to_type(t);
        for c in [1u8, 3, 4] {
            out.push(typed.with_channels(c).expect("channels"));
        }
    }
    out
}

fn options() -> Vec<HistogramOptions> {
    let o = |bins: Option<usize>, range: Option<(f64, f64)>| HistogramOptions { bins, range };
    vec![
        o(None, None),
        o(Some(1), None),
        o(Some(7), Some((0.25, 0.75))),
        o(Some(1000), Some((10.0, 50000.0))),
        o(Some(65536), None),
        o(Some(300), Some((-1.0, 300.5))),
    ]
}

fn check(device: &CudaDevice, kernels: &KernelSet, image: &PixelImage, label: &str) {
    for options in options() {
        let want = ranged_histogram(image, &options).expect("valid options");
        let got = ranged_histogram_cuda(device, kernels, image, &want.range).expect("kernel");
        let want = want.slot_counts();
        assert_eq!(got.len(), want.len(), "{label} {options:?}");
        if got != want {
            let first = got.iter().zip(&want).position(|(a, b)| a != b);
            panic!("{label} {options:?}: first difference at slot {first:?}");
        }
    }
}

#[test]
fn ranged_histograms_equal_the_cpu_reference() {
    let Some((device, kernels)) = device() else {
        return;
    };
    for image in photos() {
        check(
            &device,
            &kernels,
            &image,
            &format!("photo {}", image.describe()),
        );
    }
    let sizes = [(1, 1), (33, 7), (1000, 700)];
    for (i, t) in SampleType::ALL.into_iter().enumerate() {
        for c in [1u8, 3, 4] {
            for (k, &(w, h)) in sizes.iter().enumerate() {
                let image = random(t, w, h, c, (i * 10 + k) as u64 + u64::from(c));
                let label = format!("random {w}x{h} {}", image.describe());
                check(&device, &kernels, &image, &label);
            }
        }
    }
}
