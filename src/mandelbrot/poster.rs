//! Posters: views larger than one render can hold (the texture limit, device memory), cut
//! into bands of whole rows, each band into tiles. Every tile is a view of its own whose
//! pixels are the whole view's: its centre is the whole centre moved exactly (in decimals)
//! to the tile's middle, its span the whole span cut to the tile's width, and its precision
//! the one the whole view resolves to, so no tile changes arithmetic at a seam.

use super::deep::{choose_precision, DeepError, FloatExp};
use super::MandelbrotSettings;

/// Widest tile: 16384 × [`POSTER_BAND_ROWS`] is 8 Mpx a launch, enough to fill a GPU.
pub const POSTER_TILE_WIDTH: u32 = 16384;
/// Rows per band: a 65536-wide band is 128 MiB of RGBA.
pub const POSTER_BAND_ROWS: u32 = 512;
/// Sides up to this render in one piece; posters go up to [`MAX_POSTER_SIDE`].
pub const MAX_POSTER_SIDE: u32 = 1 << 20;

/// How a W×H poster is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PosterPlan {
    pub width: u32,
    pub height: u32,
    pub tile_width: u32,
    pub band_rows: u32,
}

/// A tile: `width × height` pixels at (`x0`, `y0`) of the poster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PosterTile {
    pub x0: u32,
    pub y0: u32,
    pub width: u32,
    pub height: u32,
}

impl PosterPlan {
    /// The usual cut of a W×H poster.
    pub fn new(width: u32, height: u32) -> Self {
        Self::with_tiles(width, height, POSTER_TILE_WIDTH, POSTER_BAND_ROWS)
    }

    /// A cut into tiles at most `tile_width` wide and bands of `band_rows` rows (tests cut
    /// small views finely).
    pub fn with_tiles(width: u32, height: u32, tile_width: u32, band_rows: u32) -> Self {
        Self {
            width,
            height,
            tile_width: tile_width.max(1),
            band_rows: band_rows.max(1),
        }
    }

    pub fn bands(&self) -> u32 {
        self.height.div_ceil(self.band_rows)
    }

    /// The first row and the rows of band `band`.
    pub fn band(&self, band: u32) -> (u32, u32) {
        let y0 = band * self.band_rows;
        (y0, self.band_rows.min(self.height.saturating_sub(y0)))
    }

    /// The tiles of band `band`, left to right.
    pub fn tiles(&self, band: u32) -> impl Iterator<Item = PosterTile> + '_ {
        let (y0, height) = self.band(band);
        (0..self.width.div_ceil(self.tile_width)).map(move |i| {
            let x0 = i * self.tile_width;
            PosterTile {
                x0,
                y0,
                width: self.tile_width.min(self.width - x0),
                height,
            }
        })
    }
}

/// The settings that render `tile` of the poster `whole` (whose view holds the poster's
/// size): the same fractal, dwell limit and colouring, the precision pinned to the whole
/// view's, the location moved to the tile's middle.
pub fn tile_settings(
    whole: &MandelbrotSettings,
    tile: &PosterTile,
) -> Result<MandelbrotSettings, DeepError> {
    let (w, h) = (whole.view.width, whole.view.height);
    let location = whole.location()?;
    let precision = choose_precision(whole.precision, &location, w);
    let mut moved = location;
    // The tile's middle, in pixels right of and below the whole view's.
    let dx = f64::from(tile.x0) + f64::from(tile.width) * 0.5 - f64::from(w) * 0.5;
    let dy = f64::from(tile.y0) + f64::from(tile.height) * 0.5 - f64::from(h) * 0.5;
    moved.pan_pixels(w, -dx, -dy)?;
    if tile.width != w {
        let span = FloatExp::from_decimal(&location.span)
            .mul_f64(f64::from(tile.width))
            .div_f64(f64::from(w));
        // 20 digits below the span's leading one: the pixel size to f64's last bits.
        let quantum = (span.log2() / std::f64::consts::LOG2_10).floor() as i64 - 20;
        moved.span = span.to_decimal(quantum);
    }
    let mut s = whole.clone();
    s.view.width = tile.width;
    s.view.height = tile.height;
    s.precision = precision;
    s.overlay = false;
    s.tuning = None;
    s.set_location(moved);
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mandelbrot::deep::DeepLocation;
    use crate::mandelbrot::Precision;

    fn whole(width: u32, height: u32, center: &str, span: &str) -> MandelbrotSettings {
        let mut s = MandelbrotSettings::default();
        s.view.width = width;
        s.view.height = height;
        s.set_location(DeepLocation::parse(center, span).expect("location"));
        s
    }

    #[test]
    fn the_tiles_cover_every_pixel_once() {
        let plan = PosterPlan::with_tiles(1000, 700, 300, 256);
        assert_eq!(plan.bands(), 3);
        let mut covered = vec![0u8; 1000 * 700];
        for band in 0..plan.bands() {
            for t in plan.tiles(band) {
                for y in t.y0..t.y0 + t.height {
                    for x in t.x0..t.x0 + t.width {
                        covered[(y * 1000 + x) as usize] += 1;
                    }
                }
            }
        }
        assert!(covered.iter().all(|&c| c == 1));
        assert_eq!(plan.band(2), (512, 188));
        assert_eq!(plan.tiles(0).last().map(|t| t.width), Some(100));
    }

    /// Every pixel of every tile maps to the whole view's point of that pixel, to within
    /// a millionth of a pixel or a few of f64's last bits of the point.
    #[test]
    fn a_tiles_pixels_are_the_whole_views() {
        for (center, span) in [
            ("-0.5,0", "3"),
            ("-0.743643887037158,0.131825904205311", "1e-7"),
        ] {
            let s = whole(1001, 613, center, span);
            let plan = PosterPlan::with_tiles(1001, 613, 256, 100);
            let step = s.view.pixel_size();
            for band in [0, 3, 6] {
                for t in plan.tiles(band) {
                    let ts = tile_settings(&s, &t).expect("tile");
                    assert_eq!((ts.view.width, ts.view.height), (t.width, t.height));
                    for (x, y) in [(0, 0), (t.width - 1, t.height - 1), (t.width / 2, 1)] {
                        let got = ts.view.point(x, y);
                        let want = s.view.point(t.x0 + x, t.y0 + y);
                        let off = ((got.0 - want.0).abs().max((got.1 - want.1).abs())) / step;
                        let ulps = 4.0 * f64::EPSILON * want.0.abs().max(want.1.abs()) / step;
                        assert!(
                            off < ulps.max(1e-6),
                            "{center} tile {t:?} pixel ({x},{y}): {off} px off"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn tiles_keep_the_whole_views_precision_and_exact_depth() {
        // A deep whole view: every tile perturbs, at the same pixel size.
        let s = whole(40_000, 30_000, "-1.7490812690237,0.0000000000001", "1e-30");
        let tile = |x0, y0| PosterTile {
            x0,
            y0,
            width: 16384,
            height: 512,
        };
        let t = tile(16384, 512);
        let ts = tile_settings(&s, &t).expect("tile");
        assert_eq!(ts.deep_precision(), Some(Precision::Perturbation));
        let whole_pixel = s.location().expect("loc").pixel_size(40_000).log2();
        let tile_pixel = ts.location().expect("loc").pixel_size(16384).log2();
        assert!((whole_pixel - tile_pixel).abs() < 1e-12);
        // An f64 whole view whose tiles alone would pick f32 keeps f64.
        let s = whole(65_536, 65_536, "-0.5,0", "3");
        let ts = tile_settings(&s, &tile(0, 0)).expect("tile");
        assert_eq!(ts.precision, Precision::F64);
        assert_eq!(ts.deep_precision(), None);
    }
}
