//! The Mariani–Silver rectangles drawn into an image (`cudalens mandelbrot --overlay`); the
//! explorer draws the same outlines with egui.

use super::{MsRecord, RectKind};
use image::RgbaImage;

/// Outline colour of a rectangle kind (RGBA, alpha for blending).
pub fn kind_color(kind: RectKind) -> [u8; 4] {
    match kind {
        RectKind::Fill => [80, 220, 120, 200],
        RectKind::Split => [250, 210, 60, 150],
        RectKind::Leaf => [240, 80, 80, 170],
    }
}

fn blend(pixel: &mut image::Rgba<u8>, [r, g, b, a]: [u8; 4]) {
    let a = u16::from(a);
    for (c, v) in pixel.0.iter_mut().zip([r, g, b]) {
        *c = ((u16::from(*c) * (255 - a) + u16::from(v) * a) / 255) as u8;
    }
}

/// Draws each record's border lines (splits first, so fills and leaves stay on top).
pub fn draw_overlay(image: &mut RgbaImage, records: &[MsRecord]) {
    let mut sorted: Vec<&MsRecord> = records.iter().collect();
    sorted.sort_by_key(|r| (r.kind != RectKind::Split, r.level));
    let (w, h) = image.dimensions();
    for r in sorted {
        let c = kind_color(r.kind);
        for (x, y) in r.rect.border() {
            if x < w && y < h {
                blend(image.get_pixel_mut(x, y), c);
            }
        }
    }
}
