//! Saving: format from the extension, never over an input, atomically (temp file + rename),
//! in the image's own sample type and channels where the format holds them.

use super::save_plan::{fit_to_format, SaveConversion, SaveFormat};
use crate::pixels::{PixelImage, SampleType};
use image::{ExtendedColorType, ImageEncoder, ImageFormat, RgbaImage};
use std::path::{Path, PathBuf};

/// Extensions that can be written, for file dialogs and messages.
pub const SAVE_EXTENSIONS: [&str; 11] = [
    "png", "jpg", "jpeg", "tif", "tiff", "bmp", "webp", "exr", "pgm", "ppm", "pnm",
];

/// JPEG quality when none is asked for (GIMP's default; the encoder's own is 75).
pub const DEFAULT_JPEG_QUALITY: u8 = 90;

/// What `save_image` may do.
#[derive(Debug, Clone, Default)]
pub struct SaveOptions {
    /// Replace an existing output file.
    pub overwrite: bool,
    /// Files that must never be written (the inputs), even with `overwrite`.
    pub protected: Vec<PathBuf>,
    /// JPEG quality, 1..=100 (`DEFAULT_JPEG_QUALITY` when None).
    pub jpeg_quality: Option<u8>,
    /// The sample type to save in (`--depth`); the image's own when None. A format that
    /// cannot hold it gets the nearest it holds, listed as a conversion.
    pub depth: Option<SampleType>,
}

/// Whether saving `image` to `path` loses its transparency: the format has no alpha
/// channel (JPEG) and some pixel is not opaque. The colour values are kept as they are.
pub fn drops_alpha(image: &RgbaImage, path: &Path) -> bool {
    format_of(path) == Some(ImageFormat::Jpeg) && image.pixels().any(|p| p.0[3] != 255)
}

/// Why an image was not saved. The target is left as it was, and no temporary file is
/// left behind. Every message names the user's path, never the temporary file.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("{path}: cannot write this format (use one of: {})", SAVE_EXTENSIONS.join(", "))]
    UnsupportedFormat { path: PathBuf },
    #[error("{path}: refusing to overwrite the input file")]
    WouldOverwriteInput { path: PathBuf },
    #[error("{path}: already exists (use --force to replace it)")]
    Exists { path: PathBuf },
    #[error("{path}: cannot write here: {reason}")]
    Target { path: PathBuf, reason: String },
    #[error("{path}: cannot write: {reason}")]
    Io { path: PathBuf, reason: String },
    #[error("{path}: cannot encode: {reason}")]
    Encode { path: PathBuf, reason: String },
}

/// The OS error code in `e` or anywhere in its chain (encoders and tempfile wrap it).
fn os_code(e: &std::io::Error) -> Option<i32> {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = next {
        if let Some(code) = err
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::raw_os_error)
        {
            return Some(code);
        }
        next = match err.downcast_ref::<std::io::Error>() {
            Some(io) => io
                .get_ref()
                .map(|r| r as &(dyn std::error::Error + 'static)),
            None => err.source(),
        };
    }
    None
}

/// The operating system's words for `e`, without any path it may carry (tempfile adds
/// the temporary file's name, which means nothing to the user).
fn describe(e: &std::io::Error) -> String {
    let text = match os_code(e) {
        Some(code) => std::io::Error::from_raw_os_error(code).to_string(),
        None if e.to_string().contains(".cudalens-") => e.kind().to_string(),
        None => e.to_string(),
    };
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

fn format_of(path: &Path) -> Option<ImageFormat> {
    SaveFormat::of_path(path)?;
    ImageFormat::from_path(path).ok()
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The folder a file at `path` goes into.
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A temporary file being written, registered for removal if the process is interrupted.
/// Fields drop in order: the file is removed before its registration is forgotten.
struct PartFile {
    temp: tempfile::NamedTempFile,
    #[cfg(unix)]
    _registered: super::posix::PartGuard,
}

/// Whether `e` says the path does not exist (or runs through something not a folder).
fn missing(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// Creates a new private file `.cudalens-<pid>-<random>.part` in `dir`. On Unix its path
/// is registered with the interrupt cleanup *before* the file exists, so that a signal at
/// any moment of its life (even between the creation and the registration, on any thread)
/// finds it registered; unlinking a name not yet created is harmless.
fn temporary_in(dir: &Path) -> std::io::Result<PartFile> {
    let mut last = None;
    for _ in 0..16 {
        let name = format!(
            ".cudalens-{}-{:016x}.part",
            std::process::id(),
            rand::random::<u64>()
        );
        // Absolute, so that the handler's unlink and the clean-up do not depend on the
        // working folder.
        let path = std::path::absolute(dir.join(name))?;
        #[cfg(unix)]
        let registered = super::posix::register_part(&path);
        let mut open = std::fs::OpenOptions::new();
        open.read(true).write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
        match open.open(&path) {
            Ok(file) => {
                let temp_path = match tempfile::TempPath::try_from_path(&path) {
                    Ok(t) => t,
                    Err(e) => {
                        let _ = std::fs::remove_file(&path);
                        return Err(e);
                    }
                };
                return Ok(PartFile {
                    temp: tempfile::NamedTempFile::from_parts(file, temp_path),
                    #[cfg(unix)]
                    _registered: registered,
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

/// Checks that a file may be created at `path`, replacing an existing regular file only
/// with `overwrite`: the folder exists, is a folder, and takes a new file (probed with a
/// temporary file, removed at once). Every failure is a [`SaveError::Target`] or
/// [`SaveError::Exists`]: a problem of the path, found before any work.
pub fn check_output_path(path: &Path, overwrite: bool) -> Result<(), SaveError> {
    let target = |reason: String| SaveError::Target {
        path: path.to_path_buf(),
        reason,
    };
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => return Err(target("it is a directory".into())),
        Ok(m) if !m.is_file() => return Err(target("it is not a regular file".into())),
        Ok(_) if !overwrite => {
            return Err(SaveError::Exists {
                path: path.to_path_buf(),
            })
        }
        Ok(_) => {}
        // A missing file, or a parent that is not a folder: the folder check says which.
        Err(e) if missing(&e) => {
            // A dangling symlink would be replaced, not followed: refuse it like a file.
            if std::fs::symlink_metadata(path).is_ok() && !overwrite {
                return Err(SaveError::Exists {
                    path: path.to_path_buf(),
                });
            }
        }
        Err(e) => return Err(target(describe(&e))),
    }
    let dir = folder_of(path);
    match std::fs::metadata(dir) {
        Ok(m) if !m.is_dir() => return Err(target(format!("{} is not a folder", dir.display()))),
        Ok(_) => {}
        Err(e) if missing(&e) => {
            return Err(target(format!(
                "the folder {} does not exist",
                dir.display()
            )))
        }
        Err(e) => return Err(target(format!("{}: {}", dir.display(), describe(&e)))),
    }
    temporary_in(dir).map(drop).map_err(|e| {
        target(format!(
            "cannot create a file in {}: {}",
            dir.display(),
            describe(&e)
        ))
    })
}

/// Checks that `path` may be written under `options`; returns its format. Done before
/// any work so that a doomed save fails fast.
pub fn check_save_target(path: &Path, options: &SaveOptions) -> Result<ImageFormat, SaveError> {
    let p = path.to_path_buf();
    let format = format_of(path).ok_or_else(|| SaveError::UnsupportedFormat { path: p.clone() })?;
    if options.protected.iter().any(|input| same_file(input, path)) {
        return Err(SaveError::WouldOverwriteInput { path: p });
    }
    check_output_path(path, options.overwrite)?;
    Ok(format)
}

/// Writes `image` to `path` in the format its extension names. JPEG drops alpha (it has
/// none: see `drops_alpha`) and is written at `options.jpeg_quality`; the others keep it.
pub fn save_image(image: &RgbaImage, path: &Path, options: &SaveOptions) -> Result<(), SaveError> {
    let format = check_save_target(path, options)?;
    if matches!(format, ImageFormat::OpenExr | ImageFormat::Pnm) || options.depth.is_some() {
        return save_pixels(&PixelImage::from_rgba8(image.clone()), path, options).map(drop);
    }
    let quality = options
        .jpeg_quality
        .unwrap_or(DEFAULT_JPEG_QUALITY)
        .clamp(1, 100);
    write_atomically(path, |w| {
        if format == ImageFormat::Jpeg {
            // One RGB copy (3/4 of the image), not a clone of the RGBA image first.
            let rgb: image::RgbImage = image::buffer::ConvertBuffer::convert(image);
            image::codecs::jpeg::JpegEncoder::new_with_quality(w, quality).encode_image(&rgb)
        } else {
            image.write_to(w, format)
        }
    })
}

/// Writes `image` to `path` in the format its extension names, in `options.depth` or the
/// image's own sample type, with its own channels, where the format holds them; otherwise
/// converted by the rules of `crate::pixels`. Returns the conversions made (none for a
/// format that holds the image as it is: the file then reloads bit for bit).
pub fn save_pixels(
    image: &PixelImage,
    path: &Path,
    options: &SaveOptions,
) -> Result<Vec<SaveConversion>, SaveError> {
    check_save_target(path, options)?;
    let format = SaveFormat::of_path(path).ok_or_else(|| SaveError::UnsupportedFormat {
        path: path.to_path_buf(),
    })?;
    let (fitted, conversions) =
        fit_to_format(image, format, options.depth).map_err(|e| SaveError::Encode {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
    let quality = options
        .jpeg_quality
        .unwrap_or(DEFAULT_JPEG_QUALITY)
        .clamp(1, 100);
    write_atomically(path, |w| encode(&fitted, format, quality, w))?;
    Ok(conversions)
}

/// The image crate's name for a layout it encodes.
fn extended_type(image: &PixelImage) -> ExtendedColorType {
    match (image.sample_type(), image.channels()) {
        (SampleType::U8, 1) => ExtendedColorType::L8,
        (SampleType::U8, 3) => ExtendedColorType::Rgb8,
        (SampleType::U8, _) => ExtendedColorType::Rgba8,
        (SampleType::U16, 1) => ExtendedColorType::L16,
        (SampleType::U16, 3) => ExtendedColorType::Rgb16,
        (SampleType::U16, _) => ExtendedColorType::Rgba16,
        (SampleType::F32, 3) => ExtendedColorType::Rgb32F,
        (SampleType::F32, _) => ExtendedColorType::Rgba32F,
    }
}

fn encode_error(e: impl std::fmt::Display) -> image::ImageError {
    image::ImageError::Encoding(image::error::EncodingError::new(
        image::error::ImageFormatHint::Unknown,
        e.to_string(),
    ))
}

/// Encodes an image `format` holds as it is (see `fit_to_format`).
fn encode(
    image: &PixelImage,
    format: SaveFormat,
    quality: u8,
    w: &mut Writer<'_>,
) -> image::ImageResult<()> {
    let (width, height) = image.dimensions();
    let bytes: &[u8] = crate::with_pixels!(image, b => bytemuck::cast_slice(b.as_slice()));
    let color = extended_type(image);
    match format {
        SaveFormat::Png => {
            image::codecs::png::PngEncoder::new(w).write_image(bytes, width, height, color)
        }
        SaveFormat::Jpeg => image::codecs::jpeg::JpegEncoder::new_with_quality(w, quality)
            .write_image(bytes, width, height, color),
        SaveFormat::Bmp => {
            image::codecs::bmp::BmpEncoder::new(w).write_image(bytes, width, height, color)
        }
        SaveFormat::WebP => image::codecs::webp::WebPEncoder::new_lossless(w)
            .write_image(bytes, width, height, color),
        SaveFormat::Tiff => super::tiff_file::encode_tiff(image, w).map_err(encode_error),
        SaveFormat::Exr => match image {
            PixelImage::F32(b) => super::exr_file::encode_exr(b, w).map_err(encode_error),
            _ => Err(encode_error("EXR is written from float samples")),
        },
        SaveFormat::Pgm | SaveFormat::Ppm | SaveFormat::Pnm => {
            super::pnm::encode_pnm(image, w).map_err(image::ImageError::IoError)
        }
    }
}

/// Writes any image (e.g. 16-bit greyscale dwells) in the format its extension names.
pub fn save_dynamic(
    image: &image::DynamicImage,
    path: &Path,
    options: &SaveOptions,
) -> Result<(), SaveError> {
    let format = check_save_target(path, options)?;
    write_atomically(path, |w| image.write_to(w, format))
}

/// Writes `bytes` (e.g. a JSON report) to `path` atomically, replacing an existing file.
pub fn write_bytes_atomically(path: &Path, bytes: &[u8]) -> Result<(), SaveError> {
    check_output_path(path, true)?;
    write_atomically(path, |w| {
        std::io::Write::write_all(w, bytes).map_err(image::ImageError::IoError)
    })
}

pub type Writer<'a> = std::io::BufWriter<&'a mut std::fs::File>;

/// Encodes into a temporary file beside `path`, syncs it, then renames it over `path`:
/// a reader never sees a half-written file and a failure leaves the target untouched.
/// The temporary file is removed on any error, and by the signal handler if the process
/// is interrupted (`posix::install_interrupt_cleanup`).
pub(super) fn write_atomically(
    path: &Path,
    encode: impl FnOnce(&mut Writer<'_>) -> image::ImageResult<()>,
) -> Result<(), SaveError> {
    let p = path.to_path_buf();
    match write_file_atomically(path, encode)? {
        Ok(()) => Ok(()),
        Err(image::ImageError::IoError(e)) => Err(SaveError::Io {
            path: p,
            reason: describe(&e),
        }),
        Err(other) => Err(SaveError::Encode {
            path: p,
            reason: other.to_string(),
        }),
    }
}

/// [`write_atomically`] for writers with errors of their own (a poster rendered as it is
/// written): `write`'s error comes back as it is, inside `Ok`, the temporary file removed;
/// the outer error is the file's (create, flush, sync, rename).
pub fn write_file_atomically<E>(
    path: &Path,
    write: impl FnOnce(&mut Writer<'_>) -> Result<(), E>,
) -> Result<Result<(), E>, SaveError> {
    let p = path.to_path_buf();
    let io_error = |e: std::io::Error| SaveError::Io {
        path: p.clone(),
        reason: describe(&e),
    };
    let mut part = temporary_in(folder_of(path)).map_err(|e| SaveError::Target {
        path: p.clone(),
        reason: describe(&e),
    })?;
    let temp = &mut part.temp;
    {
        let mut writer = std::io::BufWriter::new(temp.as_file_mut());
        if let Err(e) = write(&mut writer) {
            return Ok(Err(e));
        }
        std::io::Write::flush(&mut writer).map_err(io_error)?;
    }
    // Temporary files are private (0600); a saved image gets the usual 0644.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        temp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .map_err(io_error)?;
    }
    temp.as_file().sync_all().map_err(io_error)?;
    let PartFile { temp, .. } = part;
    temp.persist(path).map_err(|e| io_error(e.error))?;
    Ok(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RgbaImage {
        RgbaImage::from_fn(5, 4, |x, y| {
            image::Rgba([x as u8 * 40, y as u8 * 50, 7, 200])
        })
    }

    #[test]
    fn round_trips_lossless_formats() {
        let dir = tempfile::tempdir().expect("tempdir");
        for ext in ["png", "tiff", "bmp", "webp"] {
            let path = dir.path().join(format!("out.{ext}"));
            save_image(&sample(), &path, &SaveOptions::default()).expect("saves");
            let back = image::open(&path).expect("reads").into_rgba8();
            assert_eq!(back, sample(), "{ext}");
        }
        let jpg = dir.path().join("out.jpg");
        save_image(&sample(), &jpg, &SaveOptions::default()).expect("saves jpeg");
        assert_eq!(image::open(&jpg).expect("reads").width(), 5);
    }

    #[test]
    fn never_overwrites_inputs_or_existing_files_without_force() {
        let dir = tempfile::tempdir().expect("tempdir");
        let input = dir.path().join("in.png");
        std::fs::write(&input, b"original").expect("write");
        let protect = SaveOptions {
            overwrite: true,
            protected: vec![input.clone()],
            ..Default::default()
        };
        assert!(matches!(
            save_image(&sample(), &input, &protect),
            Err(SaveError::WouldOverwriteInput { .. })
        ));
        let other = dir.path().join("other.png");
        std::fs::write(&other, b"keep").expect("write");
        assert!(matches!(
            save_image(&sample(), &other, &SaveOptions::default()),
            Err(SaveError::Exists { .. })
        ));
        assert_eq!(std::fs::read(&input).expect("read"), b"original");
        assert_eq!(std::fs::read(&other).expect("read"), b"keep");
        let overwrite = SaveOptions {
            overwrite: true,
            ..Default::default()
        };
        save_image(&sample(), &other, &overwrite).expect("overwrites with force");
        assert!(matches!(
            save_image(
                &sample(),
                &dir.path().join("x.gifx"),
                &SaveOptions::default()
            ),
            Err(SaveError::UnsupportedFormat { .. })
        ));
        // No temporary files are left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("ls")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }
}
