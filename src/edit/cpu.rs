//! The CPU reference of every edit, on RGBA8 images. Rotation, flips, crops and
//! nearest-neighbour resizing move pixels; the other resizes are Pillow's two separable
//! passes (horizontal, then vertical) on premultiplied alpha, as `Image.resize` does for
//! RGBA.

use super::resample::{nearest_table, premultiply, unpremultiply, AxisWeights};
use super::{EditError, FlipAxis, ImageEdit, ResizeFilter, Rotation};
use image::RgbaImage;
use rayon::prelude::*;

/// Builds a `width × height` image whose pixel `(x, y)` is `source(x, y)`, rows in parallel.
fn from_fn_par(width: u32, height: u32, source: impl Fn(u32, u32) -> [u8; 4] + Sync) -> RgbaImage {
    let mut out = vec![0u8; width as usize * height as usize * 4];
    out.par_chunks_exact_mut(width as usize * 4)
        .enumerate()
        .for_each(|(y, row)| {
            for (x, px) in row.chunks_exact_mut(4).enumerate() {
                px.copy_from_slice(&source(x as u32, y as u32));
            }
        });
    RgbaImage::from_raw(width, height, out).unwrap_or_default()
}

fn pixel(image: &RgbaImage, x: u32, y: u32) -> [u8; 4] {
    image.get_pixel(x, y).0
}

/// The input pixel an output pixel `(x, y)` of a pure pixel move reads, for an input of
/// `w × h`. Shared with the CUDA launcher, which passes the same mapping as an integer
/// matrix ([`move_matrix`]).
fn rotate_source(rotation: Rotation, w: u32, h: u32, x: u32, y: u32) -> (u32, u32) {
    match rotation {
        // Output is h × w: its column x is the input's row h-1-x.
        Rotation::Cw90 => (y, h - 1 - x),
        Rotation::Cw180 => (w - 1 - x, h - 1 - y),
        Rotation::Cw270 => (w - 1 - y, x),
    }
}

/// The integer matrix `[a, b, c, d, e, f]` of a pixel move: the output pixel `(x, y)`
/// reads input `(a·x + b·y + c, d·x + e·y + f)`. `None` for a resize.
pub fn move_matrix(edit: &ImageEdit, w: u32, h: u32) -> Option<[i32; 6]> {
    let (w, h) = (w as i32, h as i32);
    Some(match *edit {
        ImageEdit::Rotate(Rotation::Cw90) => [0, 1, 0, -1, 0, h - 1],
        ImageEdit::Rotate(Rotation::Cw180) => [-1, 0, w - 1, 0, -1, h - 1],
        ImageEdit::Rotate(Rotation::Cw270) => [0, -1, w - 1, 1, 0, 0],
        ImageEdit::Flip(FlipAxis::Horizontal) => [-1, 0, w - 1, 0, 1, 0],
        ImageEdit::Flip(FlipAxis::Vertical) => [1, 0, 0, 0, -1, h - 1],
        ImageEdit::Crop { x, y, .. } => [1, 0, x as i32, 0, 1, y as i32],
        ImageEdit::Resize { .. } => return None,
    })
}

/// Applies `edit` to `image`.
pub fn apply_edit(image: &RgbaImage, edit: &ImageEdit) -> Result<RgbaImage, EditError> {
    let (w, h) = image.dimensions();
    let (ow, oh) = edit.output_size(w, h)?;
    Ok(match *edit {
        ImageEdit::Rotate(r) => from_fn_par(ow, oh, |x, y| {
            let (sx, sy) = rotate_source(r, w, h, x, y);
            pixel(image, sx, sy)
        }),
        ImageEdit::Flip(FlipAxis::Horizontal) => {
            from_fn_par(ow, oh, |x, y| pixel(image, w - 1 - x, y))
        }
        ImageEdit::Flip(FlipAxis::Vertical) => {
            from_fn_par(ow, oh, |x, y| pixel(image, x, h - 1 - y))
        }
        ImageEdit::Crop { x: cx, y: cy, .. } => {
            from_fn_par(ow, oh, |x, y| pixel(image, cx + x, cy + y))
        }
        ImageEdit::Resize { filter, .. } => resize(image, ow, oh, filter),
    })
}

/// Applies `edits` in order.
pub fn apply_edits(image: &RgbaImage, edits: &[ImageEdit]) -> Result<RgbaImage, EditError> {
    let mut current = std::borrow::Cow::Borrowed(image);
    for edit in edits {
        current = std::borrow::Cow::Owned(apply_edit(&current, edit)?);
    }
    Ok(current.into_owned())
}

/// Pillow's `Image.resize(size, filter)` of an RGBA image.
pub fn resize(image: &RgbaImage, width: u32, height: u32, filter: ResizeFilter) -> RgbaImage {
    let (w, h) = image.dimensions();
    if (w, h) == (width, height) {
        return image.clone();
    }
    if filter == ResizeFilter::Nearest {
        let xs = nearest_table(w, width);
        let ys = nearest_table(h, height);
        return from_fn_par(width, height, |x, y| {
            pixel(image, xs[x as usize] as u32, ys[y as usize] as u32)
        });
    }
    let premultiplied = from_fn_par(w, h, |x, y| premultiply(pixel(image, x, y)));
    let horizontal = match (w != width)
        .then(|| AxisWeights::new(w, width, filter))
        .flatten()
    {
        Some(weights) => from_fn_par(width, h, |x, y| {
            let start = weights.start[x as usize] as u32;
            let mut out = [0u8; 4];
            for (c, v) in out.iter_mut().enumerate() {
                *v = weights.apply(x as usize, |k| {
                    premultiplied.get_pixel(start + k as u32, y).0[c]
                });
            }
            out
        }),
        None => premultiplied,
    };
    let vertical = match (h != height)
        .then(|| AxisWeights::new(h, height, filter))
        .flatten()
    {
        Some(weights) => from_fn_par(width, height, |x, y| {
            let start = weights.start[y as usize] as u32;
            let mut out = [0u8; 4];
            for (c, v) in out.iter_mut().enumerate() {
                *v = weights.apply(y as usize, |k| {
                    horizontal.get_pixel(x, start + k as u32).0[c]
                });
            }
            out
        }),
        None => horizontal,
    };
    from_fn_par(width, height, |x, y| unpremultiply(pixel(&vertical, x, y)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn random_image(w: u32, h: u32, seed: u64) -> RgbaImage {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let data: Vec<u8> = (0..w * h * 4).map(|_| rng.random()).collect();
        RgbaImage::from_raw(w, h, data).unwrap()
    }

    fn run(image: &RgbaImage, specs: &[&str]) -> RgbaImage {
        let edits: Vec<ImageEdit> = specs.iter().map(|s| s.parse().unwrap()).collect();
        apply_edits(image, &edits).unwrap()
    }

    #[test]
    fn rotations_and_flips_compose_to_identity() {
        let image = random_image(37, 23, 1);
        assert_eq!(run(&image, &["rotate:90"; 4]), image);
        assert_eq!(run(&image, &["rotate:90", "rotate:270"]), image);
        assert_eq!(run(&image, &["rotate:270", "rotate:90"]), image);
        assert_eq!(run(&image, &["rotate:180", "rotate:180"]), image);
        assert_eq!(run(&image, &["flip:h", "flip:h"]), image);
        assert_eq!(run(&image, &["flip:v", "flip:v"]), image);
        assert_eq!(
            run(&image, &["rotate:180"]),
            run(&image, &["flip:h", "flip:v"])
        );
        assert_ne!(run(&image, &["rotate:90", "rotate:90"]), image);
    }

    #[test]
    fn rotate_90_moves_the_top_left_corner_to_the_top_right() {
        let image = random_image(5, 3, 2);
        let out = run(&image, &["rotate:90"]);
        assert_eq!(out.dimensions(), (3, 5));
        assert_eq!(out.get_pixel(2, 0), image.get_pixel(0, 0));
        assert_eq!(out.get_pixel(0, 0), image.get_pixel(0, 2));
        let out = run(&image, &["rotate:270"]);
        assert_eq!(out.get_pixel(0, 4), image.get_pixel(0, 0));
    }

    #[test]
    fn the_move_matrix_agrees_with_the_reference() {
        let image = random_image(7, 4, 3);
        for spec in [
            "rotate:90",
            "rotate:180",
            "rotate:270",
            "flip:h",
            "flip:v",
            "crop:2,1,3,2",
        ] {
            let edit: ImageEdit = spec.parse().unwrap();
            let out = apply_edit(&image, &edit).unwrap();
            let [a, b, c, d, e, f] = move_matrix(&edit, 7, 4).unwrap();
            for (x, y, p) in out.enumerate_pixels() {
                let (x, y) = (x as i32, y as i32);
                let (sx, sy) = (a * x + b * y + c, d * x + e * y + f);
                assert_eq!(p, image.get_pixel(sx as u32, sy as u32), "{spec}");
            }
        }
    }

    #[test]
    fn crop_copies_the_rectangle() {
        let image = random_image(20, 10, 4);
        let out = run(&image, &["crop:3,4,5,6"]);
        assert_eq!(out.dimensions(), (5, 6));
        assert_eq!(out.get_pixel(0, 0), image.get_pixel(3, 4));
        assert_eq!(out.get_pixel(4, 5), image.get_pixel(7, 9));
        let outside: ImageEdit = "crop:16,0,5,1".parse().unwrap();
        assert!(apply_edit(&image, &outside).is_err());
    }

    #[test]
    fn opaque_constant_images_stay_constant() {
        for filter in ResizeFilter::ALL {
            let image = RgbaImage::from_pixel(31, 17, image::Rgba([200, 10, 99, 255]));
            for (w, h) in [(10, 5), (77, 40), (31, 3), (2, 17)] {
                let out = resize(&image, w, h, filter);
                assert_eq!(out.dimensions(), (w, h));
                assert!(
                    out.pixels().all(|p| p.0 == [200, 10, 99, 255]),
                    "{filter:?}"
                );
            }
        }
    }
}
