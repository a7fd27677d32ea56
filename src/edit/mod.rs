//! Image edits: rotate, flip, resize, crop. The spec syntax of the command line
//! (`rotate:90`, `flip:h`, `resize:800x600,filter=lanczos3`, `resize:50%`, `crop:X,Y,W,H`),
//! the registry that `--help`, the window's menu and the tests iterate, a CPU reference
//! ([`cpu`]) and a CUDA launcher ([`cuda`]). Resizing follows Pillow's `Image.resize`
//! ([`resample`]).

pub mod cpu;
pub mod cuda;
pub mod resample;
pub mod typed;

use crate::image_io::MAX_IMAGE_SIDE;
use image::RgbaImage;
use std::fmt;
use std::str::FromStr;

/// A clockwise rotation by a multiple of 90°.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rotation {
    Cw90,
    Cw180,
    Cw270,
}

impl Rotation {
    pub const ALL: [Rotation; 3] = [Rotation::Cw90, Rotation::Cw180, Rotation::Cw270];

    /// Clockwise degrees.
    pub fn degrees(self) -> u32 {
        match self {
            Rotation::Cw90 => 90,
            Rotation::Cw180 => 180,
            Rotation::Cw270 => 270,
        }
    }

    pub fn from_degrees(degrees: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.degrees() == degrees)
    }
}

/// Which way a flip mirrors the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlipAxis {
    /// Left and right swapped.
    Horizontal,
    /// Top and bottom swapped.
    Vertical,
}

impl FlipAxis {
    pub const ALL: [FlipAxis; 2] = [FlipAxis::Horizontal, FlipAxis::Vertical];

    pub fn letter(self) -> &'static str {
        match self {
            FlipAxis::Horizontal => "h",
            FlipAxis::Vertical => "v",
        }
    }
}

/// A resampling filter, as Pillow defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ResizeFilter {
    Nearest,
    Bilinear,
    Bicubic,
    #[default]
    Lanczos3,
}

impl ResizeFilter {
    pub const ALL: [ResizeFilter; 4] = [
        ResizeFilter::Nearest,
        ResizeFilter::Bilinear,
        ResizeFilter::Bicubic,
        ResizeFilter::Lanczos3,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ResizeFilter::Nearest => "nearest",
            ResizeFilter::Bilinear => "bilinear",
            ResizeFilter::Bicubic => "bicubic",
            ResizeFilter::Lanczos3 => "lanczos3",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// The size a resize asks for: pixels, or a percentage of the image's size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ResizeSize {
    Pixels {
        width: u32,
        height: u32,
    },
    /// Both sides scaled by this percentage (rounded, at least 1 pixel).
    Percent(f64),
}

/// One image edit. Each maps an RGBA8 image to a new one (of a new size, perhaps).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ImageEdit {
    Rotate(Rotation),
    Flip(FlipAxis),
    Resize {
        size: ResizeSize,
        filter: ResizeFilter,
    },
    Crop {
        x: u32,
        y: u32,
        width: u32,
        height: u32,
    },
}

/// One kind of edit in the registry: its spec name, syntax and what it does.
#[derive(Debug, Clone, Copy)]
pub struct EditKind {
    pub name: &'static str,
    pub syntax: &'static str,
    pub summary: &'static str,
    /// A valid spec, for the help text and the tests.
    pub example: &'static str,
}

/// Every kind of edit: `--help`, the window's menu and the tests iterate this.
pub const EDIT_KINDS: [EditKind; 4] = [
    EditKind {
        name: "rotate",
        syntax: "rotate:90|180|270",
        summary: "rotate clockwise by 90°, 180° or 270°",
        example: "rotate:90",
    },
    EditKind {
        name: "flip",
        syntax: "flip:h|v",
        summary: "mirror left–right (h) or top–bottom (v)",
        example: "flip:h",
    },
    EditKind {
        name: "resize",
        syntax: "resize:WxH|P%[,filter=F]",
        summary: "resample to W×H pixels or P percent; F: nearest, bilinear, bicubic or \
                  lanczos3 (Pillow's filters; default lanczos3)",
        example: "resize:800x600,filter=bicubic",
    },
    EditKind {
        name: "crop",
        syntax: "crop:X,Y,W,H",
        summary: "keep the W×H rectangle whose top-left pixel is (X, Y)",
        example: "crop:10,20,300,200",
    },
];

/// The edits a window menu offers without parameters (label, edit).
pub const QUICK_EDITS: [(&str, ImageEdit); 5] = [
    ("Rotate 90° right", ImageEdit::Rotate(Rotation::Cw90)),
    ("Rotate 90° left", ImageEdit::Rotate(Rotation::Cw270)),
    ("Rotate 180°", ImageEdit::Rotate(Rotation::Cw180)),
    ("Flip horizontal", ImageEdit::Flip(FlipAxis::Horizontal)),
    ("Flip vertical", ImageEdit::Flip(FlipAxis::Vertical)),
];

/// The `--edit` help: every kind's syntax and summary.
/// Copies `source`'s pixels outside the rectangle (x, y, width, height) into `result`
/// (both the same size): the filters' result inside a selection only. Another size: nothing.
pub fn keep_outside(
    result: &mut RgbaImage,
    source: &RgbaImage,
    (x, y, width, height): (u32, u32, u32, u32),
) {
    if result.dimensions() != source.dimensions() {
        return;
    }
    let (xs, ys) = (x..x.saturating_add(width), y..y.saturating_add(height));
    for (px, py, p) in result.enumerate_pixels_mut() {
        if !xs.contains(&px) || !ys.contains(&py) {
            *p = *source.get_pixel(px, py);
        }
    }
}

pub fn spec_help() -> String {
    let mut text = String::from(
        "An image edit, repeatable; edits run in order, before the filters, on the chosen backend.",
    );
    for kind in EDIT_KINDS {
        text.push_str(&format!("\n  {:<28} {}", kind.syntax, kind.summary));
    }
    text
}

/// Why an edit spec cannot be parsed or an edit cannot apply to an image. One line each.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EditError {
    #[error("'{spec}': unknown edit (expected rotate, flip, resize or crop)")]
    UnknownKind { spec: String },
    #[error("'{spec}': {reason} (syntax: {syntax})")]
    BadSpec {
        spec: String,
        reason: String,
        syntax: &'static str,
    },
    #[error(
        "crop {x},{y},{width}×{height} reaches outside the {image_width}×{image_height} image"
    )]
    CropOutside {
        x: u32,
        y: u32,
        width: u32,
        height: u32,
        image_width: u32,
        image_height: u32,
    },
    #[error("resize to {width}×{height}: larger than the {max}×{max} limit")]
    TooLarge { width: u64, height: u64, max: u32 },
    #[error("{0}")]
    OverBudget(String),
    #[error("the image is empty")]
    EmptyImage,
    #[error("{0}")]
    Device(String),
}

fn kind(name: &str) -> &'static EditKind {
    EDIT_KINDS
        .iter()
        .find(|k| k.name == name)
        .unwrap_or(&EDIT_KINDS[0])
}

fn bad(spec: &str, name: &str, reason: impl Into<String>) -> EditError {
    EditError::BadSpec {
        spec: spec.to_string(),
        reason: reason.into(),
        syntax: kind(name).syntax,
    }
}

/// A side of 1 to [`MAX_IMAGE_SIDE`] pixels.
fn parse_side(spec: &str, name: &str, what: &str, text: &str) -> Result<u32, EditError> {
    let v: u64 = text
        .trim()
        .parse()
        .map_err(|_| bad(spec, name, format!("{what} '{text}' is not a whole number")))?;
    if v == 0 {
        return Err(bad(spec, name, format!("{what} must be at least 1")));
    }
    if v > u64::from(MAX_IMAGE_SIDE) {
        return Err(bad(
            spec,
            name,
            format!("{what} {v} is over the {MAX_IMAGE_SIDE}-pixel limit"),
        ));
    }
    Ok(v as u32)
}

fn parse_offset(spec: &str, name: &str, what: &str, text: &str) -> Result<u32, EditError> {
    let v: u64 = text.trim().parse().map_err(|_| {
        bad(
            spec,
            name,
            format!("{what} '{text}' is not a whole number ≥ 0"),
        )
    })?;
    if v >= u64::from(MAX_IMAGE_SIDE) {
        return Err(bad(
            spec,
            name,
            format!("{what} {v} is beyond the {MAX_IMAGE_SIDE}-pixel limit"),
        ));
    }
    Ok(v as u32)
}

/// Largest percentage a resize accepts.
pub const MAX_PERCENT: f64 = 10_000.0;

fn parse_resize(spec: &str, args: &str) -> Result<ImageEdit, EditError> {
    let mut parts = args.split(',');
    let size_text = parts.next().unwrap_or("").trim();
    let mut filter = ResizeFilter::default();
    for option in parts {
        let option = option.trim();
        let value = option
            .strip_prefix("filter=")
            .ok_or_else(|| bad(spec, "resize", format!("unknown option '{option}'")))?;
        filter = ResizeFilter::from_name(value.trim()).ok_or_else(|| {
            bad(
                spec,
                "resize",
                format!("unknown filter '{value}' (nearest, bilinear, bicubic, lanczos3)"),
            )
        })?;
    }
    let size = if let Some(p) = size_text.strip_suffix('%') {
        let percent: f64 = p
            .trim()
            .parse()
            .map_err(|_| bad(spec, "resize", format!("'{p}' is not a percentage")))?;
        if !(percent.is_finite() && percent > 0.0 && percent <= MAX_PERCENT) {
            return Err(bad(
                spec,
                "resize",
                format!("the percentage must be over 0 and at most {MAX_PERCENT}"),
            ));
        }
        ResizeSize::Percent(percent)
    } else {
        let (w, h) = size_text
            .split_once(['x', 'X', '×'])
            .ok_or_else(|| bad(spec, "resize", "expected WxH or P%"))?;
        ResizeSize::Pixels {
            width: parse_side(spec, "resize", "width", w)?,
            height: parse_side(spec, "resize", "height", h)?,
        }
    };
    Ok(ImageEdit::Resize { size, filter })
}

impl FromStr for ImageEdit {
    type Err = EditError;

    fn from_str(text: &str) -> Result<Self, EditError> {
        let spec = text.trim();
        let (name, args) = spec.split_once(':').unwrap_or((spec, ""));
        let name = name.trim().to_ascii_lowercase();
        let args = args.trim();
        match name.as_str() {
            "rotate" => {
                let degrees: u32 = args
                    .trim_end_matches('°')
                    .parse()
                    .map_err(|_| bad(spec, "rotate", format!("'{args}' is not 90, 180 or 270")))?;
                Rotation::from_degrees(degrees)
                    .map(ImageEdit::Rotate)
                    .ok_or_else(|| bad(spec, "rotate", format!("{degrees}° is not 90, 180 or 270")))
            }
            "flip" => match args.to_ascii_lowercase().as_str() {
                "h" | "horizontal" => Ok(ImageEdit::Flip(FlipAxis::Horizontal)),
                "v" | "vertical" => Ok(ImageEdit::Flip(FlipAxis::Vertical)),
                _ => Err(bad(spec, "flip", format!("'{args}' is not h or v"))),
            },
            "resize" => parse_resize(spec, args),
            "crop" => {
                let fields: Vec<&str> = args.split(',').collect();
                let [x, y, w, h] = fields[..] else {
                    return Err(bad(spec, "crop", "expected four numbers X,Y,W,H"));
                };
                Ok(ImageEdit::Crop {
                    x: parse_offset(spec, "crop", "X", x)?,
                    y: parse_offset(spec, "crop", "Y", y)?,
                    width: parse_side(spec, "crop", "width", w)?,
                    height: parse_side(spec, "crop", "height", h)?,
                })
            }
            _ => Err(EditError::UnknownKind {
                spec: spec.to_string(),
            }),
        }
    }
}

impl fmt::Display for ImageEdit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageEdit::Rotate(r) => write!(f, "rotate:{}", r.degrees()),
            ImageEdit::Flip(a) => write!(f, "flip:{}", a.letter()),
            ImageEdit::Resize { size, filter } => {
                match size {
                    ResizeSize::Pixels { width, height } => write!(f, "resize:{width}x{height}")?,
                    ResizeSize::Percent(p) => write!(f, "resize:{p}%")?,
                }
                write!(f, ",filter={}", filter.name())
            }
            ImageEdit::Crop {
                x,
                y,
                width,
                height,
            } => write!(f, "crop:{x},{y},{width},{height}"),
        }
    }
}

impl ImageEdit {
    /// The registry entry of this edit's kind.
    pub fn kind(&self) -> &'static EditKind {
        kind(match self {
            ImageEdit::Rotate(_) => "rotate",
            ImageEdit::Flip(_) => "flip",
            ImageEdit::Resize { .. } => "resize",
            ImageEdit::Crop { .. } => "crop",
        })
    }

    /// The size of the result on a `width × height` image, or why the edit cannot apply
    /// (an empty image, a crop outside it, a resize over the side limit or the memory
    /// budget).
    pub fn output_size(&self, width: u32, height: u32) -> Result<(u32, u32), EditError> {
        if width == 0 || height == 0 {
            return Err(EditError::EmptyImage);
        }
        let size = match *self {
            ImageEdit::Rotate(Rotation::Cw180) | ImageEdit::Flip(_) => (width, height),
            ImageEdit::Rotate(_) => (height, width),
            ImageEdit::Crop {
                x,
                y,
                width: w,
                height: h,
            } => {
                let inside = u64::from(x) + u64::from(w) <= u64::from(width)
                    && u64::from(y) + u64::from(h) <= u64::from(height);
                if !inside || w == 0 || h == 0 {
                    return Err(EditError::CropOutside {
                        x,
                        y,
                        width: w,
                        height: h,
                        image_width: width,
                        image_height: height,
                    });
                }
                (w, h)
            }
            ImageEdit::Resize { size, .. } => {
                let (w, h) = match size {
                    ResizeSize::Pixels { width, height } => (u64::from(width), u64::from(height)),
                    ResizeSize::Percent(p) => {
                        let scale =
                            |side: u32| ((f64::from(side) * p / 100.0).round() as u64).max(1);
                        (scale(width), scale(height))
                    }
                };
                let max = u64::from(MAX_IMAGE_SIDE);
                if w == 0 || h == 0 || w > max || h > max {
                    return Err(EditError::TooLarge {
                        width: w,
                        height: h,
                        max: MAX_IMAGE_SIDE,
                    });
                }
                let bytes = (w * h * 4).saturating_mul(2) + width as u64 * height as u64 * 8;
                crate::image_io::budget::check_host(&format!("a resize to {w}×{h}"), bytes)
                    .map_err(EditError::OverBudget)?;
                (w as u32, h as u32)
            }
        };
        Ok(size)
    }

    /// The size after every edit of `edits` in order, or the first one's error.
    pub fn chain_size(
        edits: &[ImageEdit],
        width: u32,
        height: u32,
    ) -> Result<(u32, u32), EditError> {
        edits
            .iter()
            .try_fold((width, height), |(w, h), e| e.output_size(w, h))
    }

    /// Whether the edit is exact on every backend (no resampling arithmetic).
    pub fn is_exact(&self) -> bool {
        match self {
            ImageEdit::Resize { filter, .. } => *filter == ResizeFilter::Nearest,
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registry_example_parses_and_round_trips() {
        for kind in EDIT_KINDS {
            let edit: ImageEdit = kind.example.parse().expect(kind.example);
            assert_eq!(edit.kind().name, kind.name);
            let again: ImageEdit = edit.to_string().parse().expect("round trip");
            assert_eq!(again, edit);
        }
        for (_, edit) in QUICK_EDITS {
            assert_eq!(edit.to_string().parse::<ImageEdit>(), Ok(edit));
        }
    }

    #[test]
    fn specs_round_trip() {
        for spec in [
            "rotate:90",
            "rotate:180",
            "rotate:270",
            "flip:h",
            "flip:v",
            "resize:800x600,filter=lanczos3",
            "resize:1x1,filter=nearest",
            "resize:50%,filter=bilinear",
            "resize:12.5%,filter=bicubic",
            "crop:0,0,1,1",
            "crop:10,20,30,40",
        ] {
            let edit: ImageEdit = spec.parse().expect(spec);
            assert_eq!(edit.to_string(), spec);
        }
        assert_eq!(
            "resize:800x600".parse::<ImageEdit>().map(|e| e.to_string()),
            Ok("resize:800x600,filter=lanczos3".to_string())
        );
        assert_eq!(
            "flip:horizontal".parse::<ImageEdit>(),
            Ok(ImageEdit::Flip(FlipAxis::Horizontal))
        );
    }

    #[test]
    fn bad_specs_are_one_line_errors() {
        for spec in [
            "",
            "rotate",
            "rotate:45",
            "rotate:-90",
            "flip:x",
            "resize:",
            "resize:0x10",
            "resize:10x0",
            "resize:40000x10",
            "resize:10x10,filter=box",
            "resize:10x10,scale=2",
            "resize:0%",
            "resize:-5%",
            "resize:nan%",
            "resize:20000%",
            "crop:1,2,3",
            "crop:1,2,3,0",
            "crop:-1,0,5,5",
            "crop:a,b,c,d",
            "spin:90",
        ] {
            let e = spec.parse::<ImageEdit>().expect_err(spec).to_string();
            assert!(!e.contains('\n') && !e.is_empty(), "{spec}: {e}");
        }
    }

    #[test]
    fn output_sizes() {
        let size = |s: &str| s.parse::<ImageEdit>().unwrap().output_size(97, 61);
        assert_eq!(size("rotate:90"), Ok((61, 97)));
        assert_eq!(size("rotate:180"), Ok((97, 61)));
        assert_eq!(size("rotate:270"), Ok((61, 97)));
        assert_eq!(size("flip:v"), Ok((97, 61)));
        assert_eq!(size("resize:50%"), Ok((49, 31)));
        assert_eq!(size("resize:0.1%"), Ok((1, 1)));
        assert_eq!(size("resize:10x20"), Ok((10, 20)));
        assert_eq!(size("crop:0,0,97,61"), Ok((97, 61)));
        assert_eq!(size("crop:96,60,1,1"), Ok((1, 1)));
        assert!(matches!(
            size("crop:96,60,2,1"),
            Err(EditError::CropOutside { .. })
        ));
        assert!(matches!(
            size("crop:97,0,1,1"),
            Err(EditError::CropOutside { .. })
        ));
        let big: ImageEdit = "resize:1000%".parse().unwrap();
        assert!(matches!(
            big.output_size(4000, 10),
            Err(EditError::TooLarge { .. })
        ));
        let chain: Vec<ImageEdit> = ["rotate:90", "crop:0,0,61,10"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        assert_eq!(ImageEdit::chain_size(&chain, 97, 61), Ok((61, 10)));
    }

    #[test]
    fn help_lists_every_kind() {
        let help = spec_help();
        for kind in EDIT_KINDS {
            assert!(help.contains(kind.syntax), "{}", kind.name);
        }
    }
}
