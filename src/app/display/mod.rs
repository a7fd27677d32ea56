//! How typed pixels (8-bit, 16-bit, float) reach the 8-bit screen, as ImageJ's
//! Brightness/Contrast shows them: a window (min..max) with gamma per colour channel or
//! linked, a LUT for grey images, Auto / Reset / Set and ImageJ's sliders, the CPU
//! reference of the mapping and its GPU path, the panel, and pixel values in their own
//! units for the inspector. All but `panel.rs` is free of egui.

mod adjuster;
mod gpu;
mod lut_tables;
mod mapping;
mod panel;
mod pixel_text;
mod sliders;
mod stats;

pub use adjuster::{BrightnessContrast, ChannelChoice, Slider};
pub use gpu::{display_uniforms, render_display, reupload_pixels, upload_pixels};
pub use mapping::{display_rgba8, DisplayRange, DisplaySettings, Lut};
pub use panel::{brightness_contrast_ui, brightness_contrast_window, BrightnessContrastPanel};
pub use pixel_text::{pixel_values_text, sample_text, samples_text};
pub use sliders::{Positions, Sliders};
pub use stats::{
    auto_adjust, enhance_contrast_range, saturated_range, AutoOutcome, DisplayHistogram,
    AUTO_THRESHOLD,
};

/// Why a display setting was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DisplayError {
    #[error("the maximum {max} is below the minimum {min}")]
    Inverted { min: f64, max: f64 },
    #[error("the display range must be finite numbers")]
    NotFinite,
    #[error("gamma must be a positive number (got {0})")]
    Gamma(f64),
    #[error("'{0}' is not a number")]
    Number(String),
}
