//! Reading images into RGBA8 with decoder limits and a memory budget, and writing them
//! atomically.

pub mod budget;
mod colour;
mod input;
mod jpeg;
mod jpeg_scan;
mod load;
#[cfg(unix)]
mod posix;
mod save;

pub use load::{
    default_admit, load_image, load_image_from_bytes, load_image_with, Admission, Declared,
    LoadError, LoadedImage, MAX_IMAGE_SIDE,
};
#[cfg(unix)]
pub use posix::install_interrupt_cleanup;
pub use save::{
    check_output_path, check_save_target, save_dynamic, save_image, write_bytes_atomically,
    SaveError, SaveOptions, SAVE_EXTENSIONS,
};
