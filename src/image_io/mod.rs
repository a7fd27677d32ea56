//! Reading images into RGBA8 with decoder limits, and writing them atomically.

mod load;
mod save;

pub use load::{load_image, LoadError, LoadedImage, MAX_IMAGE_SIDE};
pub use save::{
    check_save_target, save_dynamic, save_image, SaveError, SaveOptions, SAVE_EXTENSIONS,
};
