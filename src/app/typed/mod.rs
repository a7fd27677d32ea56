//! 16-bit and float images in the window: they stay in their own type from open to save.
//! Their filter stack runs the typed CUDA kernels through the frame runner on the CUDA
//! backend and the typed CPU references on a worker otherwise; they show through the
//! Brightness/Contrast window/level (`display`), and save with `save_pixels` keeping type
//! and channels. This file is free of GL and egui; `view.rs` shows them.

mod view;

pub use view::{typed_histogram_ui, DisplayTargets, TypedView};

use crate::edit::typed::keep_outside_typed;
use crate::filters::Filter;
use crate::image_io::{save_pixels, SaveConversion, SaveError, SaveOptions};
use crate::pipeline::BackendKind;
use crate::pixels::{PixelImage, SampleType};
use std::path::Path;

/// Whether the image runs as RGBA8 (the GPU fast path): 8-bit images of any channel count.
pub fn runs_as_rgba8(image: &PixelImage) -> bool {
    image.sample_type() == SampleType::U8
}

/// The status line said once when a typed image opens on `backend`.
pub fn typed_note(sample_type: SampleType, backend: BackendKind) -> String {
    let image = match sample_type {
        SampleType::F32 => "float image",
        _ => "16-bit image",
    };
    match backend {
        BackendKind::Cuda => {
            format!("{image}: filters run in its type on CUDA (user kernels take 8-bit images)")
        }
        BackendKind::Cpu => format!("{image}: filters run in its type on the CPU"),
    }
}

/// The status bar's stage for a typed stack run on the CPU.
pub const TYPED_CPU_STAGE: &str = "typed CPU stack";

/// The status bar's stage for reading a typed result back from the GPU (for the
/// histogram, the pixel inspector and Save).
pub const TYPED_READ_BACK_STAGE: &str = "read back";

/// Runs `filters` on `image` with their typed CPU references, one after another;
/// `progress` gets the share done and answers whether to go on (None: cancelled).
pub fn run_typed_stack(
    image: &PixelImage,
    filters: &[Filter],
    progress: &mut dyn FnMut(f32) -> bool,
) -> Option<PixelImage> {
    let mut current = image.clone();
    for (i, f) in filters.iter().enumerate() {
        if !progress(i as f32 / filters.len() as f32) {
            return None;
        }
        current = f.apply_cpu_typed(&current);
    }
    Some(current)
}

/// Saves `image` to `path` in its own type and channels where the format holds them,
/// never over `protected` (the input), atomically; the conversions the format forced.
pub fn save_typed(
    image: &PixelImage,
    path: &Path,
    protected: &Path,
    jpeg_quality: u8,
) -> Result<Vec<SaveConversion>, SaveError> {
    let options = SaveOptions {
        overwrite: true,
        jpeg_quality: Some(jpeg_quality),
        protected: vec![protected.to_path_buf()],
        depth: None,
    };
    save_pixels(image, path, &options)
}

/// The status bar's message for a save: "saved PATH", then each conversion, "; " between.
pub fn saved_message(path: &Path, conversions: &[SaveConversion]) -> (String, bool) {
    let lines: Vec<String> = std::iter::once(format!("saved {}", path.display()))
        .chain(conversions.iter().map(ToString::to_string))
        .collect();
    let warning = conversions.iter().any(SaveConversion::is_warning);
    (lines.join("; "), warning)
}

/// `result` with `source`'s pixels outside `rect` (x, y, width, height) when the filters
/// apply to a selection only (`rect` given): what Save writes.
pub fn selection_result(
    result: &PixelImage,
    source: &PixelImage,
    rect: Option<(u32, u32, u32, u32)>,
) -> PixelImage {
    let mut out = result.clone();
    if let Some(rect) = rect {
        keep_outside_typed(&mut out, source, rect);
    }
    out
}

/// Whether the pixel (x, y) shows the source, not the result: outside the selection the
/// filters apply to only.
pub fn shows_source_at((x, y): (u32, u32), rect: Option<(u32, u32, u32, u32)>) -> bool {
    rect.is_some_and(|(rx, ry, w, h)| {
        !(rx..rx.saturating_add(w)).contains(&x) || !(ry..ry.saturating_add(h)).contains(&y)
    })
}

/// An 8-bit result read back as RGBA8, in the document's channel count again (grey stays
/// grey, RGB stays RGB; an alpha that is not opaque is kept).
pub fn rgba8_in_channels(result: image::RgbaImage, channels: u8) -> PixelImage {
    let pixels = PixelImage::from_rgba8(result);
    let channels = if pixels.has_transparency() {
        4
    } else {
        channels
    };
    pixels.with_channels(channels).unwrap_or(pixels)
}

#[cfg(test)]
mod tests;
