//! The generic CPU references against the RGBA8 fast paths, for every registered filter and
//! specification it names: equal on real photos and random images in U8 RGBA, and a grey
//! image filtered as its one channel equals the RGBA path's channel of its RGBA copy.

use super::typed::test_inputs::{photo_crop, random};
use super::{Filter, FILTERS};
use crate::pixels::{ImageBuf, PixelImage, Sample, SampleType};
use image::RgbaImage;

/// Every specification a filter names (UI default, benchmark and test specs, goldens).
fn specs() -> Vec<Filter> {
    let mut out = Vec::new();
    for d in FILTERS {
        let own = std::iter::once(d.ui_default)
            .chain(d.bench_specs.iter().copied())
            .chain(d.test_specs.iter().copied())
            .chain(d.goldens.iter().map(|g| g.specs[0]));
        for spec in own {
            let f: Filter = spec.parse().expect("registered specs parse");
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

fn inputs() -> Vec<RgbaImage> {
    vec![
        photo_crop("assets/chelsea.png", 120, 40, 203, 157),
        photo_crop("tests/data/coffee.png", 200, 100, 96, 131),
        crate::ops::random_image(67, 45, 31),
        crate::ops::random_image(1, 9, 32),
    ]
}

#[test]
fn generic_references_equal_the_rgba8_fast_paths_exactly() {
    for img in inputs() {
        let typed = PixelImage::from_rgba8(img.clone());
        for f in specs() {
            let fast = f.apply_cpu(&img);
            let generic = f.def().ops.cpu(&typed, f.params());
            assert!(
                generic == PixelImage::from_rgba8(fast.clone()),
                "{f} on {}x{}",
                img.width(),
                img.height()
            );
        }
    }
}

#[test]
fn grey_equals_the_rgba_paths_channel() {
    for img in inputs() {
        let PixelImage::U8(grey) = PixelImage::from_rgba8(img).with_channels(1).expect("grey")
        else {
            panic!("U8")
        };
        let rgba = RgbaImage::from_fn(grey.width(), grey.height(), |x, y| {
            let v = grey.pixel(x, y)[0];
            image::Rgba([v, v, v, 255])
        });
        for f in specs() {
            let fast = f.apply_cpu(&rgba);
            let PixelImage::U8(got) = f.def().ops.cpu(&PixelImage::U8(grey.clone()), f.params())
            else {
                panic!("U8")
            };
            let channel: Vec<u8> = fast.pixels().map(|p| p.0[0]).collect();
            assert_eq!((got.width(), got.height()), fast.dimensions(), "{f}");
            assert!(got.as_slice() == channel.as_slice(), "{f}");
        }
    }
}

#[test]
fn every_type_and_layout_keeps_its_shape_and_alpha() {
    for (i, ty) in SampleType::ALL.into_iter().enumerate() {
        for channels in [1, 3, 4] {
            let img = random(ty, 12, 7, channels, 40 + i as u64);
            for f in specs() {
                let out = f.apply_cpu_typed(&img);
                assert_eq!(out.sample_type(), ty, "{f}");
                assert_eq!(out.channels(), channels, "{f}");
                let (w, h) = f.output_size(12, 7);
                assert_eq!(out.dimensions(), (w, h), "{f}");
                if channels == 4 {
                    let alpha = |p: &PixelImage, x: u32, y: u32| crate::with_pixels!(p, b => b.pixel(x, y)[3].to_f64());
                    for y in 0..h {
                        for x in 0..w {
                            let (sx, sy) = if (w, h) == (12, 7) { (x, y) } else { (y, x) };
                            assert_eq!(alpha(&out, x, y), alpha(&img, sx, sy), "{f}");
                        }
                    }
                }
            }
        }
    }
}

/// Hostile float samples through every filter on the CPU: NaN, both infinities, the
/// extremes, subnormals and negative zero (the banded sums, key orders and ranges must not
/// panic); shape and alpha are kept, and 16-bit white everywhere stays within the type.
#[test]
fn extreme_samples_keep_shape_and_alpha_in_every_filter() {
    let special = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        f32::MIN,
        1e-40,
        -0.0,
        0.5,
    ];
    let floats = ImageBuf::from_fn(23, 19, 4, |x, y, c| {
        special[(x as usize * 3 + y as usize * 5 + usize::from(c)) % special.len()]
    })
    .expect("size");
    let white = ImageBuf::<u16>::filled(23, 19, 3, u16::MAX).expect("size");
    for img in [PixelImage::F32(floats), PixelImage::U16(white)] {
        for f in specs() {
            let out = f.apply_cpu_typed(&img);
            assert_eq!(out.dimensions(), f.output_size(23, 19), "{f}");
            assert_eq!(
                (out.sample_type(), out.channels()),
                (img.sample_type(), img.channels())
            );
            if let (PixelImage::F32(o), PixelImage::F32(i), (23, 19)) =
                (&out, &img, out.dimensions())
            {
                let alpha = |b: &ImageBuf<f32>| {
                    b.as_slice()
                        .iter()
                        .skip(3)
                        .step_by(4)
                        .map(|v| v.to_bits())
                        .collect::<Vec<_>>()
                };
                assert_eq!(alpha(o), alpha(i), "{f}: alpha");
            }
        }
    }
}

#[test]
fn rgba8_through_the_typed_entry_takes_the_fast_path() {
    let img = crate::ops::random_image(23, 19, 50);
    let buf = ImageBuf::from_vec(23, 19, 4, img.as_raw().clone()).expect("size");
    for f in specs() {
        assert_eq!(
            f.apply_cpu_typed(&PixelImage::U8(buf.clone())),
            PixelImage::from_rgba8(f.apply_cpu(&img)),
            "{f}"
        );
    }
}
