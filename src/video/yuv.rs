//! Y'CbCr 4:2:0 to RGBA8, the CPU reference of `kernels/video/yuv_to_rgba.cu` and the same
//! integer arithmetic, so that both give the same bytes.
//!
//! Chroma is sited as MPEG-2, H.264, HEVC and VP9 place it by default: horizontally on the
//! even luma columns, vertically between two luma rows. A pixel's chroma is the bilinear
//! mix of its neighbours in eighths (x: ½ ½ on odd columns, y: ¾ ¼), edges clamped. The
//! matrix (BT.601, BT.709 or BT.2020 non-constant luminance) and the range (limited or
//! full) fold into six integer coefficients in 16.16 fixed point; results round to nearest
//! and saturate to 0..=255. Alpha is 255.

use image::RgbaImage;

/// The matrix that turns R′G′B′ into Y′CbCr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matrix {
    Bt601,
    Bt709,
    Bt2020,
}

impl Matrix {
    /// The matrix a stream signals (H.273 `matrix_coefficients`); unspecified or unknown
    /// values take BT.709 at HD sizes and BT.601 below, as players do.
    pub fn from_h273(code: u8, height: u32) -> Self {
        match code {
            1 => Matrix::Bt709,
            5 | 6 => Matrix::Bt601,
            9 | 10 => Matrix::Bt2020,
            _ if height >= 720 => Matrix::Bt709,
            _ => Matrix::Bt601,
        }
    }

    /// Kr and Kb.
    fn weights(self) -> (f64, f64) {
        match self {
            Matrix::Bt601 => (0.299, 0.114),
            Matrix::Bt709 => (0.2126, 0.0722),
            Matrix::Bt2020 => (0.2627, 0.0593),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Matrix::Bt601 => "BT.601",
            Matrix::Bt709 => "BT.709",
            Matrix::Bt2020 => "BT.2020",
        }
    }
}

/// How a stream's samples are coded: bit depth, matrix and range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YuvFormat {
    /// 8 to 12.
    pub depth: u8,
    pub matrix: Matrix,
    pub full_range: bool,
}

/// The fixed-point coefficients the kernel takes (`YuvToRgb` in yuv_to_rgba.cu).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YuvToRgb {
    pub y_offset: i32,
    /// The chroma zero, times 8 (chroma arrives as a sum of eight weights).
    pub c_offset8: i32,
    pub y_gain: i32,
    pub r_cr: i32,
    pub g_cb: i32,
    pub g_cr: i32,
    pub b_cb: i32,
}

/// Bits after the point of [`YuvToRgb`]'s coefficients.
const FRACTION_BITS: u32 = 16;

// SAFETY: plain i32s, no padding; passed to the kernel by value.
unsafe impl cudarc::driver::DeviceRepr for YuvToRgb {}

impl YuvToRgb {
    pub fn new(format: YuvFormat) -> Self {
        let d = i32::from(format.depth.clamp(8, 12));
        let scale = f64::from(1u32 << (d - 8));
        let (kr, kb) = format.matrix.weights();
        let kg = 1.0 - kr - kb;
        let (y_offset, y_scale, c_scale) = if format.full_range {
            let max = f64::from((1u32 << d) - 1);
            (0, 255.0 / max, 255.0 / max)
        } else {
            (
                16 << (d - 8),
                255.0 / (219.0 * scale),
                255.0 / (224.0 * scale),
            )
        };
        let one = f64::from(1u32 << FRACTION_BITS);
        let fixed = |v: f64| (v * one).round() as i32;
        // Chroma comes as eight times its value.
        let c = c_scale / 8.0;
        Self {
            y_offset,
            c_offset8: 8 * (128 << (d - 8)),
            y_gain: fixed(y_scale),
            r_cr: fixed(2.0 * (1.0 - kr) * c),
            g_cb: fixed(2.0 * kb * (1.0 - kb) / kg * c),
            g_cr: fixed(2.0 * kr * (1.0 - kr) / kg * c),
            b_cb: fixed(2.0 * (1.0 - kb) * c),
        }
    }

    /// R, G and B of luma `y` and eight times the chroma (`cb8`, `cr8`), as the kernel's
    /// `yuv_pixel` computes them.
    pub fn rgb(&self, y: i32, cb8: i32, cr8: i32) -> [u8; 3] {
        let yy = self.y_gain * (y - self.y_offset) + (1 << (FRACTION_BITS - 1));
        let (cb, cr) = (cb8 - self.c_offset8, cr8 - self.c_offset8);
        let to_u8 = |v: i32| (v >> FRACTION_BITS).clamp(0, 255) as u8;
        [
            to_u8(yy + self.r_cr * cr),
            to_u8(yy - self.g_cb * cb - self.g_cr * cr),
            to_u8(yy + self.b_cb * cb),
        ]
    }
}

/// A 4:2:0 picture with samples in their bit depth: luma `width × height`, each chroma
/// plane ⌈width/2⌉ × ⌈height/2⌉.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Yuv420 {
    pub width: u32,
    pub height: u32,
    pub y: Vec<u16>,
    pub cb: Vec<u16>,
    pub cr: Vec<u16>,
}

/// Chroma plane size of a `width × height` 4:2:0 picture.
pub fn chroma_size(width: u32, height: u32) -> (u32, u32) {
    (width.div_ceil(2), height.div_ceil(2))
}

impl Yuv420 {
    /// From NVDEC's layout (`pitch`-byte rows of luma, then `chroma_row` rows later the
    /// interleaved Cb Cr rows): bytes (NV12) or 16-bit words holding the value in their
    /// high bits (P016).
    pub fn from_semiplanar(
        bytes: &[u8],
        (width, height): (u32, u32),
        pitch: usize,
        chroma_row: usize,
        sixteen: bool,
        depth: u8,
    ) -> Option<Self> {
        let bytes_per = if sixteen { 2 } else { 1 };
        let at = |offset: usize| -> Option<u16> {
            if sixteen {
                let b = bytes.get(offset..offset + 2)?;
                Some(u16::from_le_bytes([b[0], b[1]]) >> (16 - u32::from(depth)))
            } else {
                bytes.get(offset).map(|&v| u16::from(v))
            }
        };
        let (cw, ch) = chroma_size(width, height);
        let mut y = Vec::with_capacity(width as usize * height as usize);
        for row in 0..height as usize {
            for x in 0..width as usize {
                y.push(at(row * pitch + x * bytes_per)?);
            }
        }
        let (mut cb, mut cr) = (Vec::new(), Vec::new());
        for row in 0..ch as usize {
            for x in 0..cw as usize {
                let o = (chroma_row + row) * pitch + 2 * x * bytes_per;
                cb.push(at(o)?);
                cr.push(at(o + bytes_per)?);
            }
        }
        Some(Self {
            width,
            height,
            y,
            cb,
            cr,
        })
    }

    /// From three packed planes as FFmpeg's `yuv420p` (bytes) or `yuv420p10le` and kin
    /// (little-endian words) write them.
    pub fn from_planar(bytes: &[u8], (width, height): (u32, u32), sixteen: bool) -> Option<Self> {
        let (cw, ch) = chroma_size(width, height);
        let luma = width as usize * height as usize;
        let chroma = cw as usize * ch as usize;
        let samples: Vec<u16> = if sixteen {
            bytes
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .collect()
        } else {
            bytes.iter().map(|&b| u16::from(b)).collect()
        };
        if samples.len() != luma + 2 * chroma {
            return None;
        }
        Some(Self {
            width,
            height,
            y: samples[..luma].to_vec(),
            cb: samples[luma..luma + chroma].to_vec(),
            cr: samples[luma + chroma..].to_vec(),
        })
    }

    /// From three 8-bit planes with rows `strides` bytes apart (Y, Cb, Cr), as a software
    /// decoder keeps them; None where a plane is too short for its rows.
    pub fn from_strided(
        planes: [&[u8]; 3],
        strides: [usize; 3],
        (width, height): (u32, u32),
    ) -> Option<Self> {
        let (cw, ch) = chroma_size(width, height);
        let plane = |i: usize, (w, h): (u32, u32)| -> Option<Vec<u16>> {
            let (w, h) = (w as usize, h as usize);
            let mut out = Vec::with_capacity(w * h);
            for row in 0..h {
                let start = row.checked_mul(strides[i])?;
                let samples = planes[i].get(start..start.checked_add(w)?)?;
                out.extend(samples.iter().map(|&v| u16::from(v)));
            }
            Some(out)
        };
        Some(Self {
            width,
            height,
            y: plane(0, (width, height))?,
            cb: plane(1, (cw, ch))?,
            cr: plane(2, (cw, ch))?,
        })
    }

    /// Eight times the chroma of plane `c` at luma pixel (x, y) (see the module's siting):
    /// the definition [`Yuv420::to_rgba`] computes a row at a time.
    #[cfg(test)]
    fn chroma8(&self, c: &[u16], x: u32, y: u32) -> i32 {
        let (cw, ch) = chroma_size(self.width, self.height);
        let at = |cx: u32, cy: u32| i32::from(c[(cy.min(ch - 1) * cw + cx.min(cw - 1)) as usize]);
        let (cx, cy) = (x / 2, y / 2);
        let near = if y.is_multiple_of(2) {
            cy.saturating_sub(1)
        } else {
            cy + 1
        };
        let column = |row: u32| {
            if x.is_multiple_of(2) {
                2 * at(cx, row)
            } else {
                at(cx, row) + at(cx + 1, row)
            }
        };
        3 * column(cy) + column(near)
    }

    /// The picture as RGBA8 by `coefficients`, rows in parallel. A row's chroma is mixed
    /// vertically once per chroma column (¾ its own chroma row, ¼ the nearer other), then
    /// horizontally per pixel: the module's siting, in the same integers.
    pub fn to_rgba(&self, coefficients: &YuvToRgb) -> RgbaImage {
        use rayon::prelude::*;
        let (w, h) = (self.width as usize, self.height as usize);
        let (cw, ch) = chroma_size(self.width, self.height);
        let (cw, ch) = (cw as usize, ch as usize);
        let mut out = vec![0u8; w * h * 4];
        out.par_chunks_mut((w * 4).max(1))
            .enumerate()
            .for_each(|(y, row)| {
                let cy = y / 2;
                let near = if y.is_multiple_of(2) {
                    cy.saturating_sub(1)
                } else {
                    (cy + 1).min(ch - 1)
                };
                let mix = |c: &[u16]| -> Vec<i32> {
                    (0..cw)
                        .map(|x| 3 * i32::from(c[cy * cw + x]) + i32::from(c[near * cw + x]))
                        .collect()
                };
                let (cb, cr) = (mix(&self.cb), mix(&self.cr));
                let luma = &self.y[y * w..(y + 1) * w];
                for (x, (px, &l)) in row.chunks_exact_mut(4).zip(luma).enumerate() {
                    let cx = x / 2;
                    let at = |v: &[i32]| {
                        if x.is_multiple_of(2) {
                            2 * v[cx]
                        } else {
                            v[cx] + v[(cx + 1).min(cw - 1)]
                        }
                    };
                    let [r, g, b] = coefficients.rgb(i32::from(l), at(&cb), at(&cr));
                    px.copy_from_slice(&[r, g, b, 255]);
                }
            });
        RgbaImage::from_raw(self.width, self.height, out).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BT601: YuvFormat = YuvFormat {
        depth: 8,
        matrix: Matrix::Bt601,
        full_range: false,
    };

    #[test]
    fn limited_range_black_white_and_primaries() {
        let c = YuvToRgb::new(BT601);
        let eight = |v: i32| 8 * v;
        assert_eq!(c.rgb(16, eight(128), eight(128)), [0, 0, 0]);
        assert_eq!(c.rgb(235, eight(128), eight(128)), [255, 255, 255]);
        // BT.601 red: Y 81, Cb 90, Cr 240.
        let [r, g, b] = c.rgb(81, eight(90), eight(240));
        assert!(r >= 254 && g <= 1 && b <= 1, "{r} {g} {b}");
        // The same grey in 10 bits.
        let ten = YuvToRgb::new(YuvFormat { depth: 10, ..BT601 });
        assert_eq!(ten.rgb(940, eight(512), eight(512)), [255, 255, 255]);
        assert_eq!(ten.rgb(64, eight(512), eight(512)), [0, 0, 0]);
        let full = YuvToRgb::new(YuvFormat {
            full_range: true,
            matrix: Matrix::Bt709,
            depth: 8,
        });
        assert_eq!(full.rgb(200, eight(128), eight(128)), [200, 200, 200]);
    }

    #[test]
    fn the_fixed_point_matches_the_matrix_in_f64() {
        for format in [
            BT601,
            YuvFormat {
                depth: 10,
                matrix: Matrix::Bt2020,
                full_range: false,
            },
            YuvFormat {
                depth: 8,
                matrix: Matrix::Bt709,
                full_range: true,
            },
        ] {
            let c = YuvToRgb::new(format);
            let (kr, kb) = format.matrix.weights();
            let kg = 1.0 - kr - kb;
            let s = f64::from(1u32 << (format.depth - 8));
            let max = f64::from((1u32 << format.depth) - 1);
            let mut seed = 7u32;
            for _ in 0..5000 {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let y = (seed >> 8) as f64 % (max + 1.0);
                let cb = (seed >> 4) as f64 % (max + 1.0);
                let cr = (seed >> 12) as f64 % (max + 1.0);
                let (yn, cbn, crn) = if format.full_range {
                    (y / max, (cb - 128.0 * s) / max, (cr - 128.0 * s) / max)
                } else {
                    (
                        (y - 16.0 * s) / (219.0 * s),
                        (cb - 128.0 * s) / (224.0 * s),
                        (cr - 128.0 * s) / (224.0 * s),
                    )
                };
                let want = [
                    yn + 2.0 * (1.0 - kr) * crn,
                    yn - 2.0 * kb * (1.0 - kb) / kg * cbn - 2.0 * kr * (1.0 - kr) / kg * crn,
                    yn + 2.0 * (1.0 - kb) * cbn,
                ]
                .map(|v| (v * 255.0).round().clamp(0.0, 255.0));
                let got = c.rgb(y as i32, 8 * cb as i32, 8 * cr as i32);
                for i in 0..3 {
                    assert!(
                        (f64::from(got[i]) - want[i]).abs() <= 1.0,
                        "{format:?} {y} {cb} {cr}: {got:?} vs {want:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn chroma_is_sited_between_rows_on_even_columns() {
        // 4×4 luma, 2×2 chroma: Cb 0, 80 / 160, 240.
        let pic = Yuv420 {
            width: 4,
            height: 4,
            y: vec![128; 16],
            cb: vec![0, 80, 160, 240],
            cr: vec![0; 4],
        };
        // Even column, row 0: ¾ row 0 + ¼ row 0 (clamped) = 0.
        assert_eq!(pic.chroma8(&pic.cb, 0, 0), 0);
        // Odd column 1, row 1: ¾ (0 + 80)/2 + ¼ (160 + 240)/2 = 30 + 50 = 80.
        assert_eq!(pic.chroma8(&pic.cb, 1, 1), 8 * 80);
        // Column 3 clamps to the last chroma column: row 2: ¾·240 + ¼·80 = 200.
        assert_eq!(pic.chroma8(&pic.cb, 3, 2), 8 * 200);
    }

    /// The row-at-a-time conversion equals the per-pixel definition, on pictures of odd
    /// and even sizes with random samples.
    #[test]
    fn rows_convert_as_the_pixels_define() {
        let k = YuvToRgb::new(BT601);
        let mut seed = 12345u32;
        let mut sample = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 24) as u16
        };
        for (w, h) in [(1, 1), (2, 2), (3, 5), (7, 4), (16, 9), (33, 17)] {
            let (cw, ch) = chroma_size(w, h);
            let pic = Yuv420 {
                width: w,
                height: h,
                y: (0..w * h).map(|_| sample()).collect(),
                cb: (0..cw * ch).map(|_| sample()).collect(),
                cr: (0..cw * ch).map(|_| sample()).collect(),
            };
            let want = RgbaImage::from_fn(w, h, |x, y| {
                let luma = i32::from(pic.y[(y * w + x) as usize]);
                let [r, g, b] = k.rgb(luma, pic.chroma8(&pic.cb, x, y), pic.chroma8(&pic.cr, x, y));
                image::Rgba([r, g, b, 255])
            });
            assert!(pic.to_rgba(&k) == want, "{w}×{h}");
        }
    }

    #[test]
    fn layouts_read_alike() {
        // 2×2 NV12 with a 4-byte pitch, chroma one row below the luma's two.
        let nv12 = [10, 20, 0, 0, 30, 40, 0, 0, 100, 200, 0, 0];
        let a = Yuv420::from_semiplanar(&nv12, (2, 2), 4, 2, false, 8).expect("nv12");
        let planar = [10, 20, 30, 40, 100, 200];
        let b = Yuv420::from_planar(&planar, (2, 2), false).expect("i420");
        assert_eq!(a, b);
        // P016 holds 10-bit 1023 as 0xFFC0.
        let p016 = [
            0xC0, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0,
        ];
        let c = Yuv420::from_semiplanar(&p016, (1, 1), 4, 4, true, 10).expect("p016");
        assert_eq!((c.y[0], c.cb[0], c.cr[0]), (1023, 1, 2));
        assert!(Yuv420::from_planar(&planar[..5], (2, 2), false).is_none());
        // The same 2×2 picture in rows 3 bytes apart (chroma 2 apart), and planes too short.
        let luma = [10, 20, 0, 30, 40];
        let c = Yuv420::from_strided([&luma, &[100], &[200]], [3, 2, 2], (2, 2)).expect("rows");
        assert_eq!(c, b);
        assert!(Yuv420::from_strided([&luma[..4], &[100], &[200]], [3, 2, 2], (2, 2)).is_none());
    }
}
