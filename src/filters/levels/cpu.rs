//! The levels filter's table and its CPU reference. The table is computed once per
//! parameter set in f64 and the CUDA kernel looks the same table up, so both backends are
//! bit-exact.

use image::RgbaImage;
use rayon::prelude::*;

/// Bytes of RGBA8 a rayon task maps (whole pixels).
const CHUNK_BYTES: usize = 4 << 14;

/// The 256-entry table: for every input value `v`, with `t = clamp((v − black) /
/// (white − black), 0, 1)`, `out_black + (out_white − out_black) · t^(1/gamma)` in f64,
/// rounded to nearest with ties away from zero (`f64::round`), then clamped to 0..=255;
/// `input` is `(black, white)`, `output` is `(out_black, out_white)`.
pub fn levels_lut(input: (u32, u32), gamma: f32, output: (u32, u32)) -> [u8; 256] {
    let black = f64::from(input.0);
    // Validation keeps white above black; the floor keeps the table finite regardless.
    let span = (f64::from(input.1) - black).max(1.0);
    let exponent = 1.0 / f64::from(gamma);
    let (out_black, out_white) = (f64::from(output.0), f64::from(output.1));
    std::array::from_fn(|v| {
        let t = ((v as f64 - black) / span).clamp(0.0, 1.0);
        let out = out_black + (out_white - out_black) * t.powf(exponent);
        out.round().clamp(0.0, 255.0) as u8
    })
}

/// `image` with R, G and B mapped through `lut`; alpha unchanged.
pub fn apply_lut(image: &RgbaImage, lut: &[u8; 256]) -> RgbaImage {
    let mut out = image.clone();
    out.par_chunks_mut(CHUNK_BYTES).for_each(|chunk| {
        for p in chunk.chunks_exact_mut(4) {
            for v in &mut p[..3] {
                *v = lut[usize::from(*v)];
            }
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::super::{levels_lut as lut_of, LevelsParams};
    use super::*;
    use crate::ops::random_image;

    fn params(black: u32, white: u32, gamma: f32, out_black: u32, out_white: u32) -> LevelsParams {
        LevelsParams {
            black,
            white,
            gamma,
            out_black,
            out_white,
        }
    }

    /// The contract per value, written out without the table.
    fn plain(v: u8, p: &LevelsParams) -> u8 {
        let x = f64::from(v);
        let t = if x <= f64::from(p.black) {
            0.0
        } else if x >= f64::from(p.white) {
            1.0
        } else {
            (x - f64::from(p.black)) / f64::from(p.white - p.black)
        };
        let lo = f64::from(p.out_black);
        let hi = f64::from(p.out_white);
        (lo + (hi - lo) * t.powf(1.0 / f64::from(p.gamma))).round() as u8
    }

    fn photo(name: &str) -> RgbaImage {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name);
        image::open(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .into_rgba8()
    }

    const CASES: [(u32, u32, f32, u32, u32); 7] = [
        (0, 255, 1.0, 0, 255),
        (16, 235, 2.2, 0, 255),
        (50, 200, 0.5, 10, 250),
        (0, 1, 10.0, 0, 255),
        (254, 255, 0.011, 255, 0),
        (30, 90, 1.0, 200, 20),
        (100, 101, 3.0, 7, 7),
    ];

    #[test]
    fn hand_computed_values() {
        // t = (v − 50) / 150, out = 10 + 240 √t.
        let lut = lut_of(&params(50, 200, 2.0, 10, 250));
        for (v, want) in [(0, 10), (50, 10), (51, 30), (125, 180), (199, 249), (200, 250)] {
            assert_eq!(lut[v], want, "v = {v}");
        }
        assert_eq!(lut[255], 250);
        // 1/2 · 255 = 127.5 exactly: ties round away from zero.
        let lut = lut_of(&params(0, 2, 1.0, 0, 255));
        assert_eq!(lut[..4], [0, 128, 255, 255]);
    }

    #[test]
    fn the_defaults_are_the_identity() {
        let lut = lut_of(&params(0, 255, 1.0, 0, 255));
        assert!(lut.iter().enumerate().all(|(v, &o)| usize::from(o) == v));
        let img = random_image(37, 23, 11);
        assert_eq!(apply_lut(&img, &lut), img);
    }

    #[test]
    fn table_follows_the_plain_formula() {
        for (b, w, g, ob, ow) in CASES {
            let p = params(b, w, g, ob, ow);
            let lut = lut_of(&p);
            for v in 0..=255u8 {
                assert_eq!(lut[usize::from(v)], plain(v, &p), "{p:?} at {v}");
            }
            // Monotone, towards out_white.
            let rising = ow >= ob;
            assert!(
                lut.windows(2).all(|s| (s[1] >= s[0]) == rising || s[0] == s[1]),
                "{p:?}"
            );
        }
    }

    #[test]
    fn images_map_every_channel_but_alpha() {
        let images = [
            random_image(1, 1, 3),
            random_image(61, 37, 4),
            photo("coffee.png"),
            photo("camera.png"),
        ];
        for img in &images {
            for (b, w, g, ob, ow) in CASES {
                let p = params(b, w, g, ob, ow);
                let out = apply_lut(img, &lut_of(&p));
                assert_eq!(out.dimensions(), img.dimensions());
                for (q, o) in img.pixels().zip(out.pixels()) {
                    for c in 0..3 {
                        assert_eq!(o.0[c], plain(q.0[c], &p), "{p:?}");
                    }
                    assert_eq!(o.0[3], q.0[3], "alpha");
                }
            }
        }
    }
}
