//! Reading images into RGBA8 with decoder limits and a memory budget, and writing them
//! atomically (PNGs with text chunks too).

mod admission;
pub mod budget;
mod colour;
mod decoded;
mod input;
mod jpeg;
mod load;
mod png_text;
#[cfg(unix)]
mod posix;
mod save;

pub use admission::{default_admit, Admission, Declared, LoadError, MAX_IMAGE_SIDE};
pub use decoded::LoadedImage;
pub use load::{load_image, load_image_from_bytes, load_image_with};
pub use png_text::{read_png_text, save_png_with_text, PngTextError, MAX_TEXT_BYTES, VIEW_KEYWORD};
#[cfg(unix)]
pub use posix::install_interrupt_cleanup;
pub use save::{
    check_output_path, check_save_target, drops_alpha, save_dynamic, save_image,
    write_bytes_atomically, SaveError, SaveOptions, DEFAULT_JPEG_QUALITY, SAVE_EXTENSIONS,
};
