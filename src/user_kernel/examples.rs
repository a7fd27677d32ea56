//! The example kernels shipped in `assets/kernels/`: the editor's "open example" list,
//! the tutorial's files, and the compile tests' inputs.

/// One shipped example.
pub struct Example {
    /// The file name in `assets/kernels/`.
    pub file: &'static str,
    /// What it shows, for a menu.
    pub summary: &'static str,
    pub source: &'static str,
}

macro_rules! example {
    ($file:literal, $summary:literal) => {
        Example {
            file: $file,
            summary: $summary,
            source: include_str!(concat!("../../assets/kernels/", $file)),
        }
    };
}

pub const EXAMPLES: &[Example] = &[
    example!("invert.cu", "per pixel: the smallest kernel"),
    example!(
        "vignette.cu",
        "per pixel: a parameter and normalised coordinates"
    ),
    example!("pixelate.cu", "per pixel: reading another pixel"),
    example!(
        "chroma_key.cu",
        "per pixel: colour distance, bool and float parameters"
    ),
    example!(
        "bilateral.cu",
        "per pixel: a neighbourhood loop with weights"
    ),
    example!(
        "sobel_tiles.cu",
        "full kernel: shared-memory tiles, matches the built-in sobel"
    ),
    example!(
        "canny_nms.cu",
        "full kernel: gradient and non-maximum suppression in one tile"
    ),
];

/// The example named `file`.
pub fn example(file: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.file == file)
}
