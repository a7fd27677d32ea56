//! Reading images in their own sample type and channels (8-bit, 16-bit, float; grey, RGB,
//! RGBA) with decoder limits and a memory budget, and writing them atomically in the type
//! and channels the format holds (PNGs with text chunks too).

mod admission;
pub mod budget;
mod colour;
mod decoded;
mod exr_file;
mod input;
mod jpeg;
mod load;
mod orient;
mod png_stream;
mod png_text;
mod pnm;
#[cfg(unix)]
mod posix;
mod save;
mod save_plan;
mod tiff_file;

pub use admission::{default_admit, Admission, Declared, LoadError, MAX_IMAGE_SIDE};
pub use decoded::{rgba8_note, LoadedImage};
pub use load::{load_image, load_image_from_bytes, load_image_with};
pub use png_stream::{PngStream, PngStreamKind};
pub use png_text::{read_png_text, save_png_with_text, PngTextError, MAX_TEXT_BYTES, VIEW_KEYWORD};
#[cfg(unix)]
pub use posix::install_interrupt_cleanup;
pub use save::{
    check_output_path, check_save_target, drops_alpha, save_dynamic, save_image, save_pixels,
    write_bytes_atomically, write_file_atomically, SaveError, SaveOptions, DEFAULT_JPEG_QUALITY,
    SAVE_EXTENSIONS,
};
pub use save_plan::{SaveConversion, SaveFormat};
