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
        typed_note(SampleType::U16, BackendKind::Cpu),
        "16-bit image: filters run in its type on the CPU"
    );
    assert_eq!(
        typed_note(SampleType::F32, BackendKind::Cuda),
        "float image: filters run in its type on CUDA (user kernels take 8-bit images)"
    );
}

use crate::app::edit_history::{DocumentPixels, HistoryChange, ImageHistory};
use crate::app::edit_ui::run_edit_cpu;
use crate::app::filter_stack::FilterStack;
use crate::edit::typed::{apply_edit_typed, keep_outside_typed};
use crate::edit::ImageEdit;
use std::sync::Arc;

/// The samples of pixel (x, y) as f64.
fn pixel_at(image: &PixelImage, x: u32, y: u32) -> Vec<f64> {
    use crate::pixels::Sample;
    crate::with_pixels!(image, b => b.pixel(x, y).iter().map(|v| v.to_f64()).collect())
}

fn typed_pixels(change: HistoryChange) -> Arc<PixelImage> {
    match change {
        HistoryChange::Pixels {
            pixels: DocumentPixels::Typed(p),
            ..
        } => p,
        other => panic!("expected typed pixels, got {other:?}"),
    }
}

/// Rotates, resizes and crops a 16-bit TIFF as the window does (the worker's job, and the
/// undo history between): each result is `apply_edit_typed`'s bit for bit, and undoing
/// every step gives back each image before it exactly.
#[test]
fn a_16_bit_tiff_edits_and_undoes_in_its_own_type() {
    let source = load_typed(&data("tiff_u16_photo.tif"), &Admission::default()).expect("loads");
    assert_eq!(source.sample_type(), SampleType::U16);
    let edits: Vec<ImageEdit> = ["rotate:90", "resize:37x23,filter=bicubic", "crop:3,2,20,15"]
        .iter()
        .map(|s| s.parse().expect("an edit"))
        .collect();
    let mut stack = FilterStack::new(&[]);
    let mut history = ImageHistory::new(&stack);
    let mut current = DocumentPixels::Typed(Arc::new(source));
    let mut states = vec![current.clone()];
    for edit in &edits {
        let DocumentPixels::Typed(before) = &current else {
            panic!("typed pixels")
        };
        let reference = apply_edit_typed(before, edit).expect("the reference");
        let (label, out) = run_edit_cpu(&current, edit).expect("the edit");
        assert_eq!(label, edit.to_string());
        let DocumentPixels::Typed(after) = &out else {
            panic!("an edit keeps the type")
        };
        assert_eq!(bits(after), bits(&reference), "{label}");
        assert_eq!(after.sample_type(), SampleType::U16);
        assert!(history.push_edit(&stack, &label, current.clone()));
        current = out;
        states.push(current.clone());
    }
    assert_eq!(current.dimensions(), (20, 15));
    // Each edit step keeps one image in its own type: 2 bytes a sample.
    let (w, h) = states[0].dimensions();
    let DocumentPixels::Typed(first) = &states[0] else {
        panic!("typed pixels")
    };
    let samples = u64::from(w) * u64::from(h) * u64::from(first.channels());
    assert_eq!(states[0].bytes(), 2 * samples);
    let kept: u64 = states[..3].iter().map(DocumentPixels::bytes).sum();
    assert_eq!(history.pixel_bytes(), kept);

    for before in states[..3].iter().rev() {
        let back = typed_pixels(history.undo(&mut stack, &current));
        let DocumentPixels::Typed(want) = before else {
            panic!("typed pixels")
        };
        assert_eq!(bits(&back), bits(want));
        current = DocumentPixels::Typed(back);
        assert!(current.same(before), "undo gives back the very pixels");
    }
    assert_eq!(history.undo(&mut stack, &current), HistoryChange::None);
    // Redo gives the edits' results again.
    for after in &states[1..] {
        let again = typed_pixels(history.redo(&mut stack, &current));
        current = DocumentPixels::Typed(again);
        assert!(current.same(after));
    }
}

#[test]
fn a_float_image_rotates_in_its_own_type() {
    let source = load_typed(&data("tiff_f32_rgb_tiled.tif"), &Admission::default()).expect("loads");
    let edit: ImageEdit = "flip:h".parse().expect("an edit");
    let (_, out) =
        run_edit_cpu(&DocumentPixels::Typed(Arc::new(source.clone())), &edit).expect("the edit");
    let DocumentPixels::Typed(out) = out else {
        panic!("an edit keeps the type")
    };
    let reference = apply_edit_typed(&source, &edit).expect("the reference");
    assert_eq!(bits(&out), bits(&reference));
    assert_ne!(bits(&out), bits(&source));
}

/// "Filters on Selection Only": the saved result is the filtered one inside the
/// selection, the source outside, as `keep_outside_typed` makes it.
#[test]
fn a_selection_only_result_keeps_the_source_outside() {
    let source = load_typed(&data("tiff_u16_photo.tif"), &Admission::default()).expect("loads");
    let result = run_typed_stack(&source, &[gaussian()], &mut |_| true).expect("a result");
    let (w, h) = source.dimensions();
    let rect = (w / 4, h / 3, w / 2, h / 3);
    let mut reference = result.clone();
    keep_outside_typed(&mut reference, &source, rect);
    let saved = selection_result(&result, &source, Some(rect));
    assert_eq!(bits(&saved), bits(&reference));
    assert_ne!(bits(&saved), bits(&result), "the source shows outside");
    assert_ne!(bits(&saved), bits(&source), "the result shows inside");
    // The histogram panel counts what is shown (the window passes this composite).
    let counts = |image: &PixelImage| super::view::TypedHistogram::of(image).map(|h| h.channels);
    assert_ne!(
        counts(&saved),
        counts(&result),
        "the histogram of what is shown"
    );
    // Each pixel is the result's inside, the source's outside, as the inspector says.
    for (x, y) in [(0, 0), (w / 4, h / 3), (w / 4 - 1, h / 2), (w / 2, h / 2)] {
        let from = match shows_source_at((x, y), Some(rect)) {
            true => &source,
            false => &result,
        };
        assert_eq!(pixel_at(&saved, x, y), pixel_at(from, x, y), "({x}, {y})");
    }
    assert!(!shows_source_at((0, 0), None));
    assert_eq!(
        bits(&selection_result(&result, &source, None)),
        bits(&result)
    );
}
