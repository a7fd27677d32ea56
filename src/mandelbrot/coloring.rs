//! How dwells become colours, the same on the CPU and in `mandel_colorize*`:
//! position = √v · density / 8 + offset along the palette's cycle, where v is the integer
//! dwell (a lookup table per dwell, built here and indexed by the kernel: exact) or, with
//! `smooth`, the continuous escape value (a gradient table of [`GRADIENT_STEPS`] entries,
//! interpolated per pixel in f32 with the kernel's operation order: within 1 per channel).
//! Points that never escaped (dwell = max dwell) take the interior colour. With `distance`,
//! pixels nearer the set than that many pixels (by the distance estimate) blend toward the
//! interior colour ([`shade`]): the boundary and its filaments drawn as lines.

#[cfg(test)]
use super::Palette;
use super::{Dwells, PaletteChoice};

/// Entries of the gradient table over one cycle of the palette.
pub const GRADIENT_STEPS: usize = 1024;
/// Range of the density slider (cycles per √dwell / 8).
pub const DENSITY_RANGE: std::ops::RangeInclusive<f32> = 0.05..=20.0;

/// Palette and its mapping; `Default` is the classic look. `Clone`, not `Copy`: a user
/// palette's stops are shared data (see [`super::Gradient`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Coloring {
    pub palette: PaletteChoice,
    /// Cycles of the palette per unit of √v / 8.
    pub density: f32,
    /// Shift along the cycle, 0..1.
    pub offset: f32,
    pub interior: [u8; 4],
    /// Colour by the continuous escape value instead of the integer dwell.
    pub smooth: bool,
    /// Distance shading: the width in pixels of the band along the set's boundary that
    /// blends toward the interior colour (needs the distance estimates).
    pub distance: Option<f32>,
}

/// Range of the distance shading's width in pixels.
pub const DISTANCE_WIDTH_RANGE: std::ops::RangeInclusive<f32> = 0.1..=64.0;

/// `colour` blended toward `interior` for a pixel `de` pixels from the set: the share
/// s = de / width of the colour (clamped to 0..1; an unknown, NaN, distance leaves the
/// colour), per channel interior + (colour − interior)·s in f32, rounded as
/// [`Coloring::smooth_color`] rounds: the kernels' `shade_distance` operation for operation.
pub fn shade(colour: [u8; 4], interior: [u8; 4], de: f32, width: f32) -> [u8; 4] {
    let s = de / width;
    if s >= 1.0 || s.is_nan() {
        return colour;
    }
    let s = if s > 0.0 { s } else { 0.0 };
    [0, 1, 2, 3].map(|c| {
        let (i, v) = (f32::from(interior[c]), f32::from(colour[c]));
        (f64::from(i + (v - i) * s) + 0.5) as u8
    })
}

impl Default for Coloring {
    fn default() -> Self {
        Self {
            palette: PaletteChoice::default(),
            density: 1.0,
            offset: 0.0,
            interior: [0, 0, 0, 255],
            smooth: false,
            distance: None,
        }
    }
}

impl Coloring {
    /// Whether values computed for `kept` hold all this colouring reads: continuous values
    /// for smooth colouring, distance estimates for distance shading.
    pub fn is_served_by(&self, kept: &Coloring) -> bool {
        (kept.smooth || !self.smooth) && (kept.distance.is_some() || self.distance.is_none())
    }

    /// Table of colours per integer dwell: entry n < max_dwell at √n · density / 8 + offset,
    /// entry max_dwell the interior colour.
    pub fn lut(&self, max_dwell: u32) -> Vec<[u8; 4]> {
        let (density, offset) = (f64::from(self.density), f64::from(self.offset));
        (0..=max_dwell)
            .map(|n| {
                if n == max_dwell {
                    self.interior
                } else {
                    let [r, g, b] = self
                        .palette
                        .at(f64::from(n).sqrt() * density / 8.0 + offset);
                    [r, g, b, 255]
                }
            })
            .collect()
    }

    /// One cycle of the palette in [`GRADIENT_STEPS`] entries (smooth colouring).
    pub fn gradient(&self) -> Vec<[u8; 4]> {
        (0..GRADIENT_STEPS)
            .map(|i| {
                let [r, g, b] = self.palette.at(i as f64 / GRADIENT_STEPS as f64);
                [r, g, b, 255]
            })
            .collect()
    }

    /// The smooth colour of continuous value `v` (not interior), as the kernel computes it.
    ///
    /// Written without calls into libm (the CPU recolours a 1080p view within a UI frame):
    /// for 0 ≤ `pos` < 2^23 its floor is a truncation (from 2^23 on every f32 is whole); a
    /// blend lies in 0..=255, so rounding half away from zero is truncating x + 0.5, exact
    /// in f64. The bytes are those of `f32::floor` and `f32::round`.
    pub fn smooth_color(&self, gradient: &[[u8; 4]], v: f32) -> [u8; 4] {
        const WHOLE_FROM: f32 = 8_388_608.0; // 2^23
        let v = if v >= 0.0 { v } else { 0.0 };
        let pos = v.sqrt() * self.density * 0.125 + self.offset;
        let floor = if (0.0..WHOLE_FROM).contains(&pos) {
            (pos as u32) as f32
        } else {
            pos.floor()
        };
        let t = pos - floor;
        let steps = gradient.len();
        let g = t * steps as f32;
        let i0 = (g as u32 as usize).min(steps - 1);
        let f = g - i0 as f32;
        let next = if i0 + 1 == steps { 0 } else { i0 + 1 };
        let (a, b) = (gradient[i0], gradient[next]);
        [0, 1, 2, 3].map(|c| {
            let (a, b) = (f32::from(a[c]), f32::from(b[c]));
            (f64::from(a + (b - a) * f) + 0.5) as u8
        })
    }

    /// Colours a view's dwells (CPU backend; the GPU runs `mandel_colorize*`). Dwells are
    /// clamped to 0..=max_dwell, as in the kernel; distance shading applies where both it
    /// and the dwells' distance estimates are there.
    pub fn colorize(&self, dwells: &Dwells, max_dwell: u32) -> image::RgbaImage {
        use rayon::prelude::*;
        // Pixels a task colours (the explorer recolours a 1080p view within a UI frame).
        const CHUNK: usize = 1 << 14;
        let clamp = |d: u32| d.min(max_dwell);
        let mut pixels = vec![0u8; dwells.values.len() * 4];
        let outs = pixels.par_chunks_mut(4 * CHUNK);
        match (&dwells.smooth, self.smooth) {
            (Some(values), true) => {
                let gradient = self.gradient();
                outs.zip(
                    dwells
                        .values
                        .par_chunks(CHUNK)
                        .zip(values.par_chunks(CHUNK)),
                )
                .for_each(|(out, (d, v))| {
                    for ((o, &d), &v) in out.chunks_exact_mut(4).zip(d).zip(v) {
                        o.copy_from_slice(&if clamp(d) == max_dwell {
                            self.interior
                        } else {
                            self.smooth_color(&gradient, v)
                        });
                    }
                });
            }
            _ => {
                let lut = self.lut(max_dwell);
                outs.zip(dwells.values.par_chunks(CHUNK))
                    .for_each(|(out, d)| {
                        for (o, &d) in out.chunks_exact_mut(4).zip(d) {
                            o.copy_from_slice(&lut[clamp(d) as usize]);
                        }
                    });
            }
        }
        if let (Some(width), Some(de)) = (self.distance, &dwells.distance) {
            pixels
                .par_chunks_mut(4 * CHUNK)
                .zip(de.par_chunks(CHUNK))
                .for_each(|(out, de)| {
                    for (o, &e) in out.chunks_exact_mut(4).zip(de) {
                        let c = [o[0], o[1], o[2], o[3]];
                        o.copy_from_slice(&shade(c, self.interior, e, width));
                    }
                });
        }
        image::RgbaImage::from_raw(dwells.width, dwells.height, pixels)
            .unwrap_or_else(|| image::RgbaImage::new(dwells.width, dwells.height))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `smooth_color` as first written, with libm's floor and round: the reference.
    fn smooth_color_libm(c: &Coloring, gradient: &[[u8; 4]], v: f32) -> [u8; 4] {
        let v = if v >= 0.0 { v } else { 0.0 };
        let pos = v.sqrt() * c.density * 0.125 + c.offset;
        let t = pos - pos.floor();
        let steps = gradient.len();
        let g = t * steps as f32;
        let i0 = (g as usize).min(steps - 1);
        let f = g - i0 as f32;
        let (a, b) = (gradient[i0], gradient[(i0 + 1) % steps]);
        [0, 1, 2, 3].map(|k| {
            let (a, b) = (f32::from(a[k]), f32::from(b[k]));
            (a + (b - a) * f).round() as u8
        })
    }

    #[test]
    fn smooth_colours_equal_libm_floor_and_round() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for palette in Palette::ALL {
            for _ in 0..20 {
                let c = Coloring {
                    palette: palette.into(),
                    density: rng.random_range(0.05..64.0),
                    offset: rng.random_range(0.0..1.0),
                    smooth: true,
                    ..Coloring::default()
                };
                let gradient = c.gradient();
                for _ in 0..5000 {
                    let v = match rng.random_range(0..4) {
                        0 => rng.random_range(-2.0..4.0),
                        1 => rng.random_range(0.0..1e6),
                        2 => f32::from_bits(rng.random::<u32>() & 0x7fff_ffff),
                        _ => rng.random_range(0u32..100_000) as f32,
                    };
                    assert_eq!(
                        c.smooth_color(&gradient, v),
                        smooth_color_libm(&c, &gradient, v),
                        "{palette:?} density {} offset {} v {v:e}",
                        c.density,
                        c.offset
                    );
                }
            }
        }
    }

    #[test]
    fn lut_has_an_entry_per_dwell_and_the_interior_last() {
        for palette in Palette::ALL {
            let c = Coloring {
                palette: palette.into(),
                interior: [1, 2, 3, 255],
                ..Coloring::default()
            };
            let lut = c.lut(100);
            assert_eq!(lut.len(), 101);
            assert_eq!(lut[100], [1, 2, 3, 255]);
            assert!(lut[..100].iter().all(|c| c[3] == 255));
        }
    }

    #[test]
    fn offset_shifts_and_density_stretches_the_cycle() {
        let base = Coloring::default();
        let shifted = Coloring {
            offset: 0.25,
            ..base.clone()
        };
        let dense = Coloring {
            density: 2.0,
            ..base.clone()
        };
        // √64 / 8 = 1: one full cycle, so offset 0.25 at 64 is the base colour at 0.25.
        let [r, g, b] = base.palette.at(0.25);
        assert_eq!(shifted.lut(100)[64], [r, g, b, 255]);
        assert_eq!(dense.lut(100)[16], base.lut(100)[64]);
    }

    #[test]
    fn smooth_colours_follow_the_lut_at_integer_values() {
        let c = Coloring::default();
        let (lut, gradient) = (c.lut(1000), c.gradient());
        for n in [0u32, 1, 5, 37, 400, 999] {
            let s = c.smooth_color(&gradient, n as f32);
            for ch in 0..3 {
                assert!(
                    s[ch].abs_diff(lut[n as usize][ch]) <= 2,
                    "n={n}: {s:?} vs {:?}",
                    lut[n as usize]
                );
            }
        }
    }

    #[test]
    fn colorize_clamps_dwells_and_uses_the_interior_colour() {
        let c = Coloring {
            interior: [9, 8, 7, 255],
            ..Coloring::default()
        };
        let d = Dwells {
            width: 3,
            height: 1,
            values: vec![0, 50, 1_000_000],
            smooth: Some(vec![0.0, 49.5, 50.0]),
            distance: None,
        };
        for smooth in [false, true] {
            let img = Coloring {
                smooth,
                ..c.clone()
            }
            .colorize(&d, 50);
            assert_eq!(img.get_pixel(1, 0).0, [9, 8, 7, 255]);
            assert_eq!(img.get_pixel(2, 0).0, [9, 8, 7, 255]);
        }
    }

    #[test]
    fn distance_shading_blends_toward_the_interior_within_its_width() {
        let (c, interior) = ([200, 100, 50, 255], [0, 0, 0, 255]);
        assert_eq!(shade(c, interior, 2.0, 2.0), c, "at the width: the colour");
        assert_eq!(shade(c, interior, 1e9, 2.0), c);
        assert_eq!(shade(c, interior, f32::NAN, 2.0), c, "unknown: left");
        assert_eq!(shade(c, interior, 0.0, 2.0), interior, "on the set");
        assert_eq!(shade(c, interior, -1.0, 2.0), interior);
        assert_eq!(shade(c, interior, 1.0, 2.0), [100, 50, 25, 255]);
        assert_eq!(shade(c, [10, 20, 30, 255], 0.5, 2.0), [58, 40, 35, 255]);
        // colorize shades only with both the setting and the estimates.
        let d = Dwells {
            width: 3,
            height: 1,
            values: vec![3, 4, 50],
            smooth: None,
            distance: Some(vec![0.25, 5.0, 0.0]),
        };
        let plain = Coloring::default();
        let shaded = Coloring {
            distance: Some(1.0),
            ..plain.clone()
        };
        let (a, b) = (plain.colorize(&d, 50), shaded.colorize(&d, 50));
        let lut = plain.lut(50);
        assert_eq!(
            b.get_pixel(0, 0).0,
            shade(lut[3], plain.interior, 0.25, 1.0)
        );
        assert_ne!(b.get_pixel(0, 0), a.get_pixel(0, 0));
        assert_eq!(b.get_pixel(1, 0), a.get_pixel(1, 0));
        assert_eq!(b.get_pixel(2, 0), a.get_pixel(2, 0));
        let without = Dwells {
            distance: None,
            ..d
        };
        assert_eq!(shaded.colorize(&without, 50), a);
    }

    /// A Fractint map's colours come out of the table exactly where the cycle puts them:
    /// dwell m² lies at m/8 of the cycle, shifted by offset j/256: entry 32m + j.
    #[test]
    fn lut_colours_equal_a_map_files_colours_at_their_positions() {
        let colours: Vec<[u8; 3]> = (0..256)
            .map(|i: usize| [i as u8, (i * 37 % 256) as u8, (255 - i) as u8])
            .collect();
        let text: String = colours
            .iter()
            .map(|[r, g, b]| format!("{r} {g} {b} colour\r\n"))
            .collect();
        let map = crate::mandelbrot::parse_map("t.map", "t", text.as_bytes()).expect("parses");
        for j in 0..32u32 {
            let c = Coloring {
                palette: PaletteChoice::User(map.clone()),
                offset: j as f32 / 256.0,
                ..Coloring::default()
            };
            let lut = c.lut(100);
            if j == 0 {
                // The smooth colouring's table: entry 4k of 1024 is colour k.
                let gradient = c.gradient();
                for (k, [r, g, b]) in colours.iter().enumerate() {
                    assert_eq!(gradient[4 * k], [*r, *g, *b, 255], "gradient {k}");
                }
            }
            for m in 0..8u32 {
                let [r, g, b] = colours[(32 * m + j) as usize];
                assert_eq!(lut[(m * m) as usize], [r, g, b, 255], "m {m} j {j}");
            }
        }
    }
}
