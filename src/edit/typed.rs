//! The edits in every sample type and channel count.
//!
//! - Rotations, flips, crops and nearest-neighbour resizes move whole pixels (alpha with
//!   them): exact in every type.
//! - The other resizes follow Pillow's `Image.resize` windows and weights ([`UnitWeights`],
//!   horizontal pass then vertical). U8 takes Pillow's 8-bit path: fixed-point weights, each
//!   pass rounded and clamped, RGBA on premultiplied alpha (`rgbA2rgba`/`rgba2rgbA`); so U8
//!   RGBA equals [`super::cpu::resize`] exactly. U16 and F32 take Pillow's 32-bit path
//!   (modes `I` and `F`): the f64 weights, both passes summed in f64 without rounding in
//!   between, stored by `Sample::from_f64` (U16 rounds half away from zero and saturates,
//!   F32 unclamped); RGBA colour is premultiplied by `alpha / full scale` before and divided
//!   after (0 where alpha is 0).

use super::cpu::{apply_edit, move_matrix};
use super::resample::{nearest_table, premultiply, unpremultiply, AxisWeights, UnitWeights};
use super::{EditError, ImageEdit, ResizeFilter};
use crate::pixels::{ImageBuf, PixelImage, Sample, SampleType};
use image::RgbaImage;

/// Applies `edit` to an image of any type: RGBA8 through the RGBA8 reference, anything
/// else through [`edit_typed`].
pub fn apply_edit_typed(image: &PixelImage, edit: &ImageEdit) -> Result<PixelImage, EditError> {
    if let PixelImage::U8(b) = image {
        if b.channels() == 4 {
            let rgba = RgbaImage::from_raw(b.width(), b.height(), b.as_slice().to_vec())
                .unwrap_or_else(|| unreachable!("a 4-channel buffer holds w·h·4 samples"));
            return Ok(PixelImage::from_rgba8(apply_edit(&rgba, edit)?));
        }
    }
    Ok(crate::map_pixels!(image, b => edit_typed(b, edit)?))
}

/// Applies `edits` in order to an image of any type.
pub fn apply_edits_typed(image: &PixelImage, edits: &[ImageEdit]) -> Result<PixelImage, EditError> {
    edits
        .iter()
        .try_fold(image.clone(), |img, edit| apply_edit_typed(&img, edit))
}

/// [`super::keep_outside`] in any type: the pixels of `result` outside the rectangle
/// (x, y, width, height) are put back from `source` (nothing when sizes, types or channel
/// counts differ).
pub fn keep_outside_typed(
    result: &mut PixelImage,
    source: &PixelImage,
    (x, y, width, height): (u32, u32, u32, u32),
) {
    fn keep<T: Sample>(result: &mut ImageBuf<T>, source: &ImageBuf<T>, rect: (u32, u32, u32, u32)) {
        let (x, y, width, height) = rect;
        if (result.width(), result.height(), result.channels())
            != (source.width(), source.height(), source.channels())
        {
            return;
        }
        let (xs, ys) = (x..x.saturating_add(width), y..y.saturating_add(height));
        for py in 0..result.height() {
            for px in 0..result.width() {
                if !xs.contains(&px) || !ys.contains(&py) {
                    let from = source.pixel(px, py);
                    result.pixel_mut(px, py).copy_from_slice(from);
                }
            }
        }
    }
    let rect = (x, y, width, height);
    match (result, source) {
        (PixelImage::U8(r), PixelImage::U8(s)) => keep(r, s, rect),
        (PixelImage::U16(r), PixelImage::U16(s)) => keep(r, s, rect),
        (PixelImage::F32(r), PixelImage::F32(s)) => keep(r, s, rect),
        _ => {}
    }
}

/// The generic reference of `edit`.
pub fn edit_typed<T: Sample>(
    image: &ImageBuf<T>,
    edit: &ImageEdit,
) -> Result<ImageBuf<T>, EditError> {
    let (w, h) = (image.width(), image.height());
    let (ow, oh) = edit.output_size(w, h)?;
    if let ImageEdit::Resize { filter, .. } = *edit {
        return Ok(resize_typed(image, ow, oh, filter));
    }
    let Some([a, b, c, d, e, f]) = move_matrix(edit, w, h) else {
        unreachable!("every edit but a resize is a pixel move")
    };
    Ok(moved(image, ow, oh, |x, y| {
        let (x, y) = (x as i32, y as i32);
        ((a * x + b * y + c) as u32, (d * x + e * y + f) as u32)
    }))
}

/// A `width × height` image whose pixel (x, y) is `image`'s pixel `source(x, y)`.
fn moved<T: Sample>(
    image: &ImageBuf<T>,
    width: u32,
    height: u32,
    source: impl Fn(u32, u32) -> (u32, u32),
) -> ImageBuf<T> {
    ImageBuf::from_fn(width, height, image.channels(), |x, y, ch| {
        let (sx, sy) = source(x, y);
        image.pixel(sx, sy)[usize::from(ch)]
    })
    .unwrap_or_else(|_| unreachable!("an edit's output size was admitted"))
}

/// Pillow's resize of `image` to `width × height` in its own type.
pub fn resize_typed<T: Sample>(
    image: &ImageBuf<T>,
    width: u32,
    height: u32,
    filter: ResizeFilter,
) -> ImageBuf<T> {
    let (w, h) = (image.width(), image.height());
    if (w, h) == (width, height) {
        return image.clone();
    }
    if filter == ResizeFilter::Nearest {
        let (xs, ys) = (nearest_table(w, width), nearest_table(h, height));
        return moved(image, width, height, |x, y| {
            (xs[x as usize] as u32, ys[y as usize] as u32)
        });
    }
    if T::TYPE == SampleType::U8 {
        resize_fixed(image, width, height, filter)
    } else {
        resize_float(image, width, height, filter)
    }
}

/// One separable pass along x (`horizontal`) or y over `(w, h, c)` values, to `out` samples
/// along that axis: `apply(output index, at)` sums the window, `at(k)` the index of its
/// `k`th input value; `start` holds each window's first input.
fn pass<V: Copy + Default>(
    size: (u32, u32, usize),
    out: u32,
    horizontal: bool,
    start: &[i32],
    apply: impl Fn(usize, &dyn Fn(usize) -> usize) -> V,
) -> Vec<V> {
    let (w, h, c) = (size.0 as usize, size.1 as usize, size.2);
    let (ow, oh) = if horizontal {
        (out as usize, h)
    } else {
        (w, out as usize)
    };
    let mut values = vec![V::default(); ow * oh * c];
    for y in 0..oh {
        for x in 0..ow {
            for ch in 0..c {
                let index = |k: usize| {
                    let (sx, sy) = if horizontal {
                        (start[x] as usize + k, y)
                    } else {
                        (x, start[y] as usize + k)
                    };
                    (sy * w + sx) * c + ch
                };
                values[(y * ow + x) * c + ch] = apply(if horizontal { x } else { y }, &index);
            }
        }
    }
    values
}

/// Pillow's 8-bit path (U8 only): fixed-point weights, each pass clipped to 8 bits, RGBA
/// premultiplied.
fn resize_fixed<T: Sample>(
    image: &ImageBuf<T>,
    width: u32,
    height: u32,
    filter: ResizeFilter,
) -> ImageBuf<T> {
    let c = usize::from(image.channels());
    let mut values: Vec<u8> = image.as_slice().iter().map(|v| v.to_f64() as u8).collect();
    if c == 4 {
        for px in values.chunks_exact_mut(4) {
            px.copy_from_slice(&premultiply([px[0], px[1], px[2], px[3]]));
        }
    }
    values = two_passes::<AxisWeights>(
        values,
        (image.width(), image.height(), c),
        (width, height),
        filter,
    );
    if c == 4 {
        for px in values.chunks_exact_mut(4) {
            px.copy_from_slice(&unpremultiply([px[0], px[1], px[2], px[3]]));
        }
    }
    let data = values
        .into_iter()
        .map(|v| T::from_f64(f64::from(v)))
        .collect();
    ImageBuf::from_vec(width, height, image.channels(), data)
        .unwrap_or_else(|_| unreachable!("an edit's output size was admitted"))
}

/// One axis's weights: Pillow's 8-bit fixed-point ones or its f64 ones.
trait AxisFilter: Sized {
    type Value: Copy + Default;
    fn for_axis(from: u32, to: u32, filter: ResizeFilter) -> Option<Self>;
    fn starts(&self) -> &[i32];
    fn sample(&self, i: usize, value: impl Fn(usize) -> Self::Value) -> Self::Value;
}

impl AxisFilter for AxisWeights {
    type Value = u8;
    fn for_axis(from: u32, to: u32, filter: ResizeFilter) -> Option<Self> {
        AxisWeights::new(from, to, filter)
    }
    fn starts(&self) -> &[i32] {
        &self.start
    }
    fn sample(&self, i: usize, value: impl Fn(usize) -> u8) -> u8 {
        self.apply(i, value)
    }
}

impl AxisFilter for UnitWeights {
    type Value = f64;
    fn for_axis(from: u32, to: u32, filter: ResizeFilter) -> Option<Self> {
        UnitWeights::new(from, to, filter)
    }
    fn starts(&self) -> &[i32] {
        &self.start
    }
    fn sample(&self, i: usize, value: impl Fn(usize) -> f64) -> f64 {
        self.apply(i, value)
    }
}

/// Pillow's two passes, horizontal then vertical, each only where that side changes.
fn two_passes<W: AxisFilter>(
    mut values: Vec<W::Value>,
    (w, h, c): (u32, u32, usize),
    (width, height): (u32, u32),
    filter: ResizeFilter,
) -> Vec<W::Value> {
    let mut w = w;
    if let Some(weights) = (w != width)
        .then(|| W::for_axis(w, width, filter))
        .flatten()
    {
        let src = values;
        values = pass((w, h, c), width, true, weights.starts(), |i, at| {
            weights.sample(i, |k| src[at(k)])
        });
        w = width;
    }
    if let Some(weights) = (h != height)
        .then(|| W::for_axis(h, height, filter))
        .flatten()
    {
        let src = values;
        values = pass((w, h, c), height, false, weights.starts(), |i, at| {
            weights.sample(i, |k| src[at(k)])
        });
    }
    values
}

/// Pillow's 32-bit path (U16, F32): f64 weights and sums, rounded once at the end; RGBA
/// colour premultiplied by alpha's fraction of full scale.
fn resize_float<T: Sample>(
    image: &ImageBuf<T>,
    width: u32,
    height: u32,
    filter: ResizeFilter,
) -> ImageBuf<T> {
    let c = usize::from(image.channels());
    let full = f64::from(T::TYPE.full_scale());
    let mut values: Vec<f64> = image.as_slice().iter().map(|v| v.to_f64()).collect();
    if c == 4 {
        for px in values.chunks_exact_mut(4) {
            let a = px[3] / full;
            px[..3].iter_mut().for_each(|v| *v *= a);
        }
    }
    values = two_passes::<UnitWeights>(
        values,
        (image.width(), image.height(), c),
        (width, height),
        filter,
    );
    if c == 4 {
        for px in values.chunks_exact_mut(4) {
            let a = px[3] / full;
            px[..3]
                .iter_mut()
                .for_each(|v| *v = if a == 0.0 { 0.0 } else { *v / a });
        }
    }
    let data = values.into_iter().map(T::from_f64).collect();
    ImageBuf::from_vec(width, height, image.channels(), data)
        .unwrap_or_else(|_| unreachable!("an edit's output size was admitted"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::typed_test_inputs::{photo_crop, random, read_raw, worst_difference};

    const SPECS: [&str; 14] = [
        "rotate:90",
        "rotate:180",
        "rotate:270",
        "flip:h",
        "flip:v",
        "crop:3,2,17,11",
        "resize:19x13,filter=nearest",
        "resize:19x13,filter=bilinear",
        "resize:19x13,filter=bicubic",
        "resize:19x13",
        "resize:71x9,filter=lanczos3",
        "resize:5x40,filter=bicubic",
        "resize:250%,filter=bilinear",
        "resize:37x23,filter=lanczos3",
    ];

    fn edit(spec: &str) -> ImageEdit {
        spec.parse().expect("spec")
    }

    #[test]
    fn u8_rgba_equals_the_rgba8_reference_exactly() {
        let photo = photo_crop("assets/chelsea.png", 100, 50, 37, 23);
        let mut rnd = crate::ops::random_image(37, 23, 61);
        // Some clear and some opaque pixels, so the premultiplication is exercised.
        for (i, p) in rnd.pixels_mut().enumerate() {
            p.0[3] = [0, 255, p.0[3]][i % 3];
        }
        for img in [photo, rnd] {
            let PixelImage::U8(b) = PixelImage::from_rgba8(img.clone()) else {
                panic!("U8")
            };
            for spec in SPECS {
                let want = apply_edit(&img, &edit(spec)).expect("applies");
                let got = edit_typed(&b, &edit(spec)).expect("applies");
                assert_eq!(got.as_slice(), want.as_raw().as_slice(), "{spec}");
            }
        }
    }

    #[test]
    fn grey_u8_equals_the_rgba_paths_channel() {
        let img = photo_crop("tests/data/coffee.png", 150, 80, 37, 23);
        let PixelImage::U8(grey) = PixelImage::from_rgba8(img).with_channels(1).expect("grey")
        else {
            panic!("U8")
        };
        let rgba = RgbaImage::from_fn(37, 23, |x, y| {
            let v = grey.pixel(x, y)[0];
            image::Rgba([v, v, v, 255])
        });
        for spec in SPECS {
            let want: Vec<u8> = apply_edit(&rgba, &edit(spec))
                .expect("applies")
                .pixels()
                .map(|p| p.0[0])
                .collect();
            let got = edit_typed(&grey, &edit(spec)).expect("applies");
            assert_eq!(got.as_slice(), want.as_slice(), "{spec}");
        }
    }

    #[test]
    fn moves_are_exact_and_resizes_keep_constants_in_every_type() {
        for ty in SampleType::ALL {
            for channels in [1, 3, 4] {
                let img = random(ty, 37, 23, channels, 70);
                let turned = apply_edits_typed(&img, &[edit("rotate:90"); 4]).expect("applies");
                assert_eq!(turned, img, "{ty}");
                let flipped = apply_edits_typed(&img, &[edit("flip:h"), edit("flip:v")]);
                assert_eq!(flipped, apply_edit_typed(&img, &edit("rotate:180")), "{ty}");
                let constant = ImageBuf::filled(37, 23, channels, 0.4f32).expect("size");
                let grey = PixelImage::F32(constant).to_type(ty);
                for spec in SPECS {
                    let out = apply_edit_typed(&grey, &edit(spec)).expect("applies");
                    let first = crate::with_pixels!(&grey, b => b.as_slice()[0].to_f64());
                    crate::with_pixels!(&out, b => {
                        for v in b.as_slice() {
                            assert!((v.to_f64() - first).abs() <= 1e-6 * first, "{ty} {spec}");
                        }
                    });
                }
            }
        }
    }

    #[test]
    fn u16_and_f32_agree_with_pillow() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/typed_edits");
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).expect("manifest"))
                .expect("JSON");
        let mut compared = 0;
        for case in manifest["cases"].as_array().expect("cases") {
            let number = |v: &serde_json::Value, key: &str| v[key].as_u64().expect(key) as u32;
            let ty = case["type"].as_str().expect("type");
            let name = case["input"].as_str().expect("input");
            let (w, h) = (number(case, "width"), number(case, "height"));
            let input = read_raw(&format!("typed_edits/{name}"), ty, w, h, 1);
            for out in case["outputs"].as_array().expect("outputs") {
                let spec = out["spec"].as_str().expect("spec");
                let file = out["file"].as_str().expect("file");
                let (ow, oh) = (number(out, "width"), number(out, "height"));
                let want = read_raw(&format!("typed_edits/{file}"), ty, ow, oh, 1);
                let got = apply_edit_typed(&input, &edit(spec)).expect("applies");
                let worst = worst_difference(&got, &want);
                let exact = !spec.starts_with("resize") || spec.ends_with("nearest");
                let limit = if exact { 0.0 } else { 1.0 };
                assert!(worst <= limit, "{spec} on {name}: {worst} tolerances");
                compared += 1;
            }
        }
        assert_eq!(compared, 4 * 22, "every case of the manifest");
    }
}
