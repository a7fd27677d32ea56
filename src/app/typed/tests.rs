use super::*;
use crate::image_io::{load_image_with, Admission, LoadError};
use std::path::PathBuf;

/// Loads `path` in its own type, as the window's open does (minus GL).
fn load_typed(path: &Path, admission: &Admission) -> Result<PixelImage, LoadError> {
    load_image_with(path, admission).map(|l| l.pixels)
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/typed")
        .join(name)
}

/// The samples' bits (float NaNs compare equal to themselves).
fn bits(image: &PixelImage) -> (SampleType, u8, (u32, u32), Vec<u32>) {
    let samples: Vec<u32> = match image {
        PixelImage::U8(b) => b.as_slice().iter().map(|&v| u32::from(v)).collect(),
        PixelImage::U16(b) => b.as_slice().iter().map(|&v| u32::from(v)).collect(),
        PixelImage::F32(b) => b.as_slice().iter().map(|v| v.to_bits()).collect(),
    };
    (
        image.sample_type(),
        image.channels(),
        image.dimensions(),
        samples,
    )
}

fn gaussian() -> Filter {
    "gaussian:sigma=1.5".parse().expect("a gaussian")
}

/// Opens `name` as the window does, runs a gaussian through the typed stack, saves it as
/// TIFF and reads it back: bit-identical to `apply_cpu_typed`'s result.
fn round_trip(name: &str, sample_type: SampleType) {
    let source = load_typed(&data(name), &Admission::default()).expect("loads");
    assert_eq!(source.sample_type(), sample_type);
    assert!(!runs_as_rgba8(&source));
    let filters = [gaussian()];
    let result = run_typed_stack(&source, &filters, &mut |_| true).expect("not cancelled");
    let reference = filters[0].apply_cpu_typed(&source);
    assert_eq!(bits(&result), bits(&reference));
    assert_ne!(
        bits(&result),
        bits(&source),
        "the gaussian changed something"
    );

    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("result.tif");
    let conversions = save_typed(&result, &out, &data(name), 90).expect("saves");
    assert!(conversions.is_empty(), "{conversions:?}");
    let back = load_typed(&out, &Admission::default()).expect("loads back");
    assert_eq!(bits(&back), bits(&reference));
    let (message, warning) = saved_message(&out, &conversions);
    assert_eq!(message, format!("saved {}", out.display()));
    assert!(!warning);
}

#[test]
fn a_16_bit_tiff_filters_and_saves_in_its_own_type() {
    round_trip("tiff_u16_photo.tif", SampleType::U16);
}

#[test]
fn a_float_tiff_filters_and_saves_in_its_own_type() {
    round_trip("tiff_f32_rgb_tiled.tif", SampleType::F32);
}

#[test]
fn the_input_is_never_overwritten() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.tif");
    std::fs::copy(data("tiff_u16_grey_imagej.tif"), &input).expect("copy");
    let source = load_typed(&input, &Admission::default()).expect("loads");
    assert!(save_typed(&source, &input, &input, 90).is_err());
}

#[test]
fn saving_as_jpeg_reports_the_depth_conversion() {
    let source =
        load_typed(&data("tiff_f32_grey_imagej.tif"), &Admission::default()).expect("loads");
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out.jpg");
    let conversions = save_typed(&source, &out, &data("x.tif"), 90).expect("saves");
    assert!(!conversions.is_empty());
    let (message, _) = saved_message(&out, &conversions);
    assert!(
        message.starts_with(&format!("saved {}; ", out.display())),
        "{message}"
    );
}

#[test]
fn an_8_bit_result_keeps_the_documents_channels() {
    let grey = load_typed(&data("png_u8_grey.png"), &Admission::default()).expect("loads");
    assert!(runs_as_rgba8(&grey));
    let rgba = grey.with_channels(4).expect("rgba").into_rgba8();
    assert_eq!(rgba8_in_channels(rgba.clone(), 1), grey);
    let rgb = grey.with_channels(3).expect("rgb");
    assert_eq!(rgba8_in_channels(rgba, 3), rgb);
}

#[test]
fn cancelling_stops_the_stack() {
    let source =
        load_typed(&data("tiff_u16_grey_imagej.tif"), &Admission::default()).expect("loads");
    assert!(run_typed_stack(&source, &[gaussian()], &mut |_| false).is_none());
    assert_eq!(
        cpu_only_note(SampleType::U16),
        "16-bit image: filters run on the CPU (no 16-bit CUDA kernels yet)"
    );
}
