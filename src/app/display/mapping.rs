//! Window/level with gamma and a LUT: typed samples to the screen's 8 bits.
//!
//! For a sample `v` and a range `min..max` (image units) with `gamma`:
//! `t = clamp((v − min) / (max − min), 0, 1)`, `level = ⌊255 · t^(1/gamma) + 0.5⌋` (round
//! half up; `t ≥ 0`). NaN shows as 0, +∞ as 255, −∞ as 0; with `max ≤ min` the window is a
//! step (`v > min` gives 255). A grey image shows `lut[level]`; colour channels show `level`
//! each; alpha follows the depth rules (`PixelImage::into_rgba8`), never the window.
//! ImageJ for reference: 8-bit and float images scale by `255/(max − min)` and round,
//! 16-bit ones by `256/(max − min + 1)` (truncating in older versions): within one level of
//! this.

use super::lut_tables::{FIRE, VIRIDIS};
use crate::pixels::{ImageBuf, PixelImage, Sample, SampleType};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The displayed window of one channel, in the image's units, and its gamma (1 = linear;
/// above 1 brightens the darks).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DisplayRange {
    pub min: f64,
    pub max: f64,
    pub gamma: f64,
}

impl DisplayRange {
    /// A linear window `min..max`.
    pub fn new(min: f64, max: f64) -> Self {
        Self {
            min,
            max,
            gamma: 1.0,
        }
    }

    /// The screen level (0..=255) of sample value `v`.
    pub fn level(&self, v: f64) -> u8 {
        let t = self.unit(v);
        let t = if self.gamma == 1.0 || t <= 0.0 {
            t
        } else {
            t.powf(1.0 / self.gamma)
        };
        (255.0 * t + 0.5).floor().clamp(0.0, 255.0) as u8
    }

    /// `v`'s place in the window, clamped to 0..1 (NaN: 0).
    fn unit(&self, v: f64) -> f64 {
        if v.is_nan() {
            return 0.0;
        }
        if self.max <= self.min {
            return if v > self.min { 1.0 } else { 0.0 };
        }
        ((v - self.min) / (self.max - self.min)).clamp(0.0, 1.0)
    }
}

/// The colour table a grey image is shown through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Lut {
    #[default]
    Grey,
    Fire,
    Viridis,
}

impl Lut {
    pub const ALL: [Lut; 3] = [Lut::Grey, Lut::Fire, Lut::Viridis];

    pub fn name(self) -> &'static str {
        match self {
            Lut::Grey => "grey",
            Lut::Fire => "fire",
            Lut::Viridis => "viridis",
        }
    }

    /// The colour of `level`.
    pub fn colour(self, level: u8) -> [u8; 3] {
        match self {
            Lut::Grey => [level; 3],
            Lut::Fire => FIRE[usize::from(level)],
            Lut::Viridis => VIRIDIS[usize::from(level)],
        }
    }

    /// The table as 256 RGBA8 texels (a GL LUT texture).
    pub fn rgba_table(self) -> Vec<u8> {
        (0..=255u8)
            .flat_map(|l| {
                let [r, g, b] = self.colour(l);
                [r, g, b, 255]
            })
            .collect()
    }
}

/// How an image is shown: a range per colour channel (grey uses the first), whether they
/// move together, and the LUT of grey images.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DisplaySettings {
    pub ranges: [DisplayRange; 3],
    pub linked: bool,
    pub lut: Lut,
}

impl DisplaySettings {
    /// One linked range for every channel, grey LUT.
    pub fn linked(range: DisplayRange) -> Self {
        Self {
            ranges: [range; 3],
            linked: true,
            lut: Lut::Grey,
        }
    }
}

/// The image as the screen shows it: window/level, gamma, LUT (grey) and alpha.
pub fn display_rgba8(image: &PixelImage, settings: &DisplaySettings) -> image::RgbaImage {
    let (w, h) = image.dimensions();
    let mut out = image::RgbaImage::new(w, h);
    let row_bytes = w as usize * 4;
    if row_bytes == 0 {
        return out;
    }
    match image {
        PixelImage::U8(b) => map_rows(b, &mut out, &TableMap::new(settings, 256)),
        PixelImage::U16(b) => map_rows(b, &mut out, &TableMap::new(settings, 65536)),
        PixelImage::F32(b) => map_rows(b, &mut out, &DirectMap(settings)),
    }
    out
}

/// Sample → screen level of one channel.
trait LevelMap<T>: Sync {
    fn level(&self, channel: usize, v: T) -> u8;
    fn lut(&self) -> Lut;
}

/// Integer samples: one table per colour channel, indexed by the raw value.
struct TableMap {
    tables: Vec<Vec<u8>>,
    lut: Lut,
}

impl TableMap {
    fn new(settings: &DisplaySettings, len: usize) -> Self {
        let tables = settings
            .ranges
            .iter()
            .map(|r| (0..len).map(|v| r.level(v as f64)).collect())
            .collect();
        Self {
            tables,
            lut: settings.lut,
        }
    }
}

impl<T: Sample + Into<u32>> LevelMap<T> for TableMap {
    fn level(&self, channel: usize, v: T) -> u8 {
        self.tables[channel][v.into() as usize]
    }
    fn lut(&self) -> Lut {
        self.lut
    }
}

/// Float samples: the formula per sample.
struct DirectMap<'a>(&'a DisplaySettings);

impl LevelMap<f32> for DirectMap<'_> {
    fn level(&self, channel: usize, v: f32) -> u8 {
        self.0.ranges[channel].level(f64::from(v))
    }
    fn lut(&self) -> Lut {
        self.0.lut
    }
}

/// Maps every row of `src` into `out` (one rayon task per row).
fn map_rows<T: Sample, M: LevelMap<T>>(src: &ImageBuf<T>, out: &mut image::RgbaImage, map: &M) {
    let c = usize::from(src.channels());
    let row_bytes = src.width() as usize * 4;
    out.par_chunks_mut(row_bytes)
        .enumerate()
        .for_each(|(y, row)| {
            let samples = src.row(y as u32);
            for (px, s) in row.chunks_exact_mut(4).zip(samples.chunks_exact(c)) {
                px.copy_from_slice(&map_pixel(s, map));
            }
        });
}

fn map_pixel<T: Sample, M: LevelMap<T>>(s: &[T], map: &M) -> [u8; 4] {
    match s.len() {
        1 => {
            let [r, g, b] = map.lut().colour(map.level(0, s[0]));
            [r, g, b, 255]
        }
        n => [
            map.level(0, s[0]),
            map.level(1, s[1]),
            map.level(2, s[2]),
            if n == 4 { alpha_u8(s[3]) } else { 255 },
        ],
    }
}

/// Alpha in 8 bits by the depth rules.
fn alpha_u8<T: Sample>(a: T) -> u8 {
    match T::TYPE {
        SampleType::U8 => a.to_f64() as u8,
        SampleType::U16 => ((a.to_f64() as u32 + 128) / 257) as u8,
        SampleType::F32 => {
            let a = a.to_f64();
            if a.is_nan() {
                0
            } else {
                (a.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grey16(values: &[u16]) -> PixelImage {
        PixelImage::U16(
            ImageBuf::from_vec(values.len() as u32, 1, 1, values.to_vec()).expect("size"),
        )
    }

    #[test]
    fn levels_by_hand() {
        let r = DisplayRange::new(1000.0, 3000.0);
        // (v − 1000) / 2000 · 255: 0, 63.75 → 64, 127.5 → 128, 255, clamped below and above.
        for (v, want) in [
            (1000.0, 0),
            (1500.0, 64),
            (2000.0, 128),
            (3000.0, 255),
            (0.0, 0),
            (9e9, 255),
        ] {
            assert_eq!(r.level(v), want, "{v}");
        }
        assert_eq!(r.level(f64::NAN), 0);
        assert_eq!(r.level(f64::INFINITY), 255);
        assert_eq!(r.level(f64::NEG_INFINITY), 0);
        // Gamma 2: 255 · 0.25^(1/2) = 127.5 → 128.
        let g = DisplayRange {
            gamma: 2.0,
            ..DisplayRange::new(0.0, 1.0)
        };
        assert_eq!(g.level(0.25), 128);
        assert_eq!(g.level(0.0), 0);
        // A zero-width window is a step.
        let step = DisplayRange::new(10.0, 10.0);
        assert_eq!((step.level(10.0), step.level(10.5)), (0, 255));
    }

    #[test]
    fn grey16_through_the_window_and_a_lut() {
        let image = grey16(&[1000, 1500, 2000, 3000, 40000]);
        let mut s = DisplaySettings::linked(DisplayRange::new(1000.0, 3000.0));
        let out = display_rgba8(&image, &s);
        let greys: Vec<u8> = out.pixels().map(|p| p.0[0]).collect();
        assert_eq!(greys, [0, 64, 128, 255, 255]);
        assert!(out
            .pixels()
            .all(|p| p.0[0] == p.0[1] && p.0[1] == p.0[2] && p.0[3] == 255));
        s.lut = Lut::Fire;
        let out = display_rgba8(&image, &s);
        assert_eq!(
            out.get_pixel(1, 0).0,
            [FIRE[64][0], FIRE[64][1], FIRE[64][2], 255]
        );
        assert_eq!(
            out.get_pixel(4, 0).0,
            [255, 255, 255, 255],
            "fire ends white"
        );
        s.lut = Lut::Viridis;
        assert_eq!(
            display_rgba8(&image, &s).get_pixel(0, 0).0,
            [68, 1, 84, 255]
        );
    }

    #[test]
    fn colour_channels_take_their_own_ranges_and_keep_alpha() {
        let b = ImageBuf::<f32>::from_vec(1, 1, 4, vec![0.5, -1.0, 2.0, 0.5]).expect("size");
        let s = DisplaySettings {
            ranges: [
                DisplayRange::new(0.0, 1.0),
                DisplayRange::new(-2.0, 0.0),
                DisplayRange::new(0.0, 4.0),
            ],
            linked: false,
            lut: Lut::Fire, // ignored: colour images take no LUT
        };
        let out = display_rgba8(&PixelImage::F32(b), &s);
        assert_eq!(out.get_pixel(0, 0).0, [128, 128, 128, 128]);
        let rgba16 = ImageBuf::<u16>::from_vec(1, 1, 4, vec![0, 65535, 300, 32896]).expect("size");
        let out = display_rgba8(
            &PixelImage::U16(rgba16),
            &DisplaySettings::linked(DisplayRange::new(0.0, 600.0)),
        );
        assert_eq!(out.get_pixel(0, 0).0, [0, 255, 128, 128]);
    }

    #[test]
    fn eight_bit_full_range_is_the_identity() {
        let rgb = crate::ops::random_image(37, 11, 3);
        let image = PixelImage::from_rgba8(rgb.clone());
        let out = display_rgba8(
            &image,
            &DisplaySettings::linked(DisplayRange::new(0.0, 255.0)),
        );
        assert_eq!(out, rgb);
    }

    #[test]
    fn random_images_match_the_formula_per_sample() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let b16 = ImageBuf::<u16>::from_fn(61, 17, 3, |_, _, _| next() as u16).expect("size");
        let bf =
            ImageBuf::<f32>::from_fn(23, 19, 1, |_, _, _| (next() % 20001) as f32 / 1000.0 - 10.0)
                .expect("size");
        let r16 = DisplayRange {
            gamma: 0.6,
            ..DisplayRange::new(5000.0, 50000.0)
        };
        let out = display_rgba8(&PixelImage::U16(b16.clone()), &DisplaySettings::linked(r16));
        for (px, s) in out.pixels().zip(b16.as_slice().chunks_exact(3)) {
            let want: Vec<u8> = s.iter().map(|&v| r16.level(f64::from(v))).collect();
            assert_eq!(&px.0[..3], want.as_slice());
        }
        let rf = DisplayRange {
            gamma: 1.8,
            ..DisplayRange::new(-3.0, 7.5)
        };
        let out = display_rgba8(&PixelImage::F32(bf.clone()), &DisplaySettings::linked(rf));
        for (px, &v) in out.pixels().zip(bf.as_slice()) {
            // Independent of `level`: the formula written out once more.
            let t = ((f64::from(v) + 3.0) / 10.5)
                .clamp(0.0, 1.0)
                .powf(1.0 / 1.8);
            assert_eq!(px.0[0], (t * 255.0).round() as u8, "{v}");
        }
    }
}
