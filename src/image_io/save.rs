//! Saving: format from the extension, never over an input, atomically (temp file + rename).

use image::{ImageFormat, RgbaImage};
use std::path::{Path, PathBuf};

/// Extensions that can be written, for file dialogs and messages.
pub const SAVE_EXTENSIONS: [&str; 7] = ["png", "jpg", "jpeg", "tif", "tiff", "bmp", "webp"];

/// What `save_image` may do.
#[derive(Debug, Clone, Default)]
pub struct SaveOptions {
    /// Replace an existing output file.
    pub overwrite: bool,
    /// Files that must never be written (the inputs), even with `overwrite`.
    pub protected: Vec<PathBuf>,
}

/// Why an image was not saved. The target is left as it was.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("{path}: cannot write this format (use one of: {})", SAVE_EXTENSIONS.join(", "))]
    UnsupportedFormat { path: PathBuf },
    #[error("{path}: refusing to overwrite the input file")]
    WouldOverwriteInput { path: PathBuf },
    #[error("{path}: already exists (use --force to replace it)")]
    Exists { path: PathBuf },
    #[error("{path}: cannot write: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: cannot encode: {reason}")]
    Encode { path: PathBuf, reason: String },
}

fn format_of(path: &Path) -> Option<ImageFormat> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    SAVE_EXTENSIONS
        .contains(&ext.as_str())
        .then(|| ImageFormat::from_extension(&ext))
        .flatten()
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Checks that `path` may be written under `options`; returns its format. Done before
/// any work so that a doomed save fails fast.
pub fn check_save_target(path: &Path, options: &SaveOptions) -> Result<ImageFormat, SaveError> {
    let p = path.to_path_buf();
    let format = format_of(path).ok_or_else(|| SaveError::UnsupportedFormat { path: p.clone() })?;
    if options.protected.iter().any(|input| same_file(input, path)) {
        return Err(SaveError::WouldOverwriteInput { path: p });
    }
    if path.exists() && !options.overwrite {
        return Err(SaveError::Exists { path: p });
    }
    Ok(format)
}

/// Writes `image` to `path` in the format its extension names. JPEG drops alpha (it has
/// none); the others keep it.
pub fn save_image(image: &RgbaImage, path: &Path, options: &SaveOptions) -> Result<(), SaveError> {
    let format = check_save_target(path, options)?;
    write_atomically(path, |w| {
        if format == ImageFormat::Jpeg {
            image::DynamicImage::ImageRgba8(image.clone())
                .into_rgb8()
                .write_to(w, format)
        } else {
            image.write_to(w, format)
        }
    })
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

type Writer<'a> = std::io::BufWriter<&'a mut std::fs::File>;

/// Encodes into a temporary file beside `path`, syncs it, then renames it over `path`:
/// a reader never sees a half-written file and a failure leaves the target untouched.
fn write_atomically(
    path: &Path,
    encode: impl FnOnce(&mut Writer<'_>) -> image::ImageResult<()>,
) -> Result<(), SaveError> {
    let p = path.to_path_buf();
    let io_error = |source| SaveError::Io {
        path: p.clone(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".cudalens-")
        .suffix(".part")
        .tempfile_in(dir)
        .map_err(io_error)?;
    {
        let mut writer = std::io::BufWriter::new(temp.as_file_mut());
        encode(&mut writer).map_err(|e| SaveError::Encode {
            path: p.clone(),
            reason: e.to_string(),
        })?;
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
    temp.persist(path).map_err(|e| io_error(e.error))?;
    Ok(())
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
