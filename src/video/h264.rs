//! What an H.264 sequence parameter set says about the samples: chroma format, bit depth,
//! frame or field coding, and the colour its VUI signals (H.273 `matrix_coefficients`,
//! `video_full_range_flag`). A bounded Exp-Golomb reader: damaged or hostile bytes give an
//! error, never a panic or a long loop.

use super::error::SpsError;

/// The fields of an SPS that decide who decodes the stream and how its samples convert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sps {
    pub profile_idc: u8,
    /// 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    pub chroma_format_idc: u32,
    pub bit_depth_luma: u8,
    pub bit_depth_chroma: u8,
    /// Every picture a frame (no field or MBAFF coding).
    pub frame_mbs_only: bool,
    /// H.273 code; 2 (unspecified) where the VUI does not say.
    pub matrix_coefficients: u8,
    pub full_range: bool,
}

impl Sps {
    /// Whether the samples are 8-bit 4:2:0 frames.
    pub fn is_8bit_420_frames(&self) -> bool {
        self.chroma_format_idc == 1
            && self.bit_depth_luma == 8
            && self.bit_depth_chroma == 8
            && self.frame_mbs_only
    }

    /// What sets the stream apart from 8-bit 4:2:0 frames ("10-bit", "4:2:2", "interlaced"),
    /// for a line that names it.
    pub fn layout(&self) -> String {
        let mut parts = Vec::new();
        if self.bit_depth_luma != 8 || self.bit_depth_chroma != 8 {
            parts.push(format!(
                "{}-bit",
                self.bit_depth_luma.max(self.bit_depth_chroma)
            ));
        }
        match self.chroma_format_idc {
            0 => parts.push("monochrome".into()),
            1 => {}
            2 => parts.push("4:2:2".into()),
            _ => parts.push("4:4:4".into()),
        }
        if !self.frame_mbs_only {
            parts.push("interlaced".into());
        }
        parts.join(" ")
    }
}

/// The profiles whose SPS carries chroma format, bit depths and scaling matrices.
const HIGH_PROFILES: [u8; 13] = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135];

/// The NAL units of an Annex B byte stream (start codes of three or four bytes), each
/// without its start code.
pub fn annex_b_units(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = data;
    std::iter::from_fn(move || loop {
        let start = rest.windows(3).position(|w| w == [0, 0, 1])?;
        let body = &rest[start + 3..];
        let end = body.windows(3).position(|w| w == [0, 0, 1]);
        let unit = match end {
            Some(e) => {
                rest = &body[e..];
                // Zeros before a start code (a four-byte one's first, trailing zero
                // bytes) are no part of the unit.
                let mut unit = &body[..e];
                while let Some(shorter) = unit.strip_suffix(&[0]) {
                    unit = shorter;
                }
                unit
            }
            None => {
                rest = &[];
                body
            }
        };
        if !unit.is_empty() {
            return Some(unit);
        }
    })
}

/// Whether a NAL unit (header first) is a slice of a picture (types 1 to 5).
pub fn is_slice(unit: &[u8]) -> bool {
    unit.first().is_some_and(|h| (1..=5).contains(&(h & 0x1f)))
}

/// Whether a NAL unit (header first) is an SPS.
pub fn is_sps(unit: &[u8]) -> bool {
    unit.first().is_some_and(|h| h & 0x1f == 7)
}

/// The first SPS of an Annex B stream, read; None where it holds none.
pub fn first_sps(annex_b: &[u8]) -> Option<Result<Sps, SpsError>> {
    annex_b_units(annex_b).find(|u| is_sps(u)).map(parse_sps)
}

/// Reads an SPS NAL unit (its one-byte header first).
pub fn parse_sps(unit: &[u8]) -> Result<Sps, SpsError> {
    if !is_sps(unit) {
        return Err(SpsError::NotSps);
    }
    let rbsp = unescape(&unit[1..]);
    let mut r = Bits::new(&rbsp);
    let profile_idc = r.bits(8)? as u8;
    r.bits(16)?; // constraint flags, level
    r.ue_max("seq_parameter_set_id", 31)?;
    let (mut chroma_format_idc, mut depth_luma, mut depth_chroma) = (1, 8, 8);
    if HIGH_PROFILES.contains(&profile_idc) {
        chroma_format_idc = r.ue_max("chroma_format_idc", 3)?;
        if chroma_format_idc == 3 {
            r.bit()?; // separate_colour_plane_flag
        }
        depth_luma = 8 + r.ue_max("bit_depth_luma_minus8", 6)? as u8;
        depth_chroma = 8 + r.ue_max("bit_depth_chroma_minus8", 6)? as u8;
        r.bit()?; // qpprime_y_zero_transform_bypass_flag
        if r.bit()? {
            let lists = if chroma_format_idc == 3 { 12 } else { 8 };
            for i in 0..lists {
                if r.bit()? {
                    skip_scaling_list(&mut r, if i < 6 { 16 } else { 64 })?;
                }
            }
        }
    }
    r.ue_max("log2_max_frame_num_minus4", 12)?;
    match r.ue_max("pic_order_cnt_type", 2)? {
        0 => {
            r.ue_max("log2_max_pic_order_cnt_lsb_minus4", 12)?;
        }
        1 => {
            r.bit()?; // delta_pic_order_always_zero_flag
            r.se()?; // offset_for_non_ref_pic
            r.se()?; // offset_for_top_to_bottom_field
            for _ in 0..r.ue_max("num_ref_frames_in_pic_order_cnt_cycle", 255)? {
                r.se()?;
            }
        }
        _ => {}
    }
    r.ue()?; // max_num_ref_frames
    r.bit()?; // gaps_in_frame_num_value_allowed_flag
    r.ue()?; // pic_width_in_mbs_minus1
    r.ue()?; // pic_height_in_map_units_minus1
    let frame_mbs_only = r.bit()?;
    if !frame_mbs_only {
        r.bit()?; // mb_adaptive_frame_field_flag
    }
    r.bit()?; // direct_8x8_inference_flag
    if r.bit()? {
        for _ in 0..4 {
            r.ue()?; // frame_crop offsets
        }
    }
    let (mut matrix_coefficients, mut full_range) = (2, false);
    // The VUI up to the colour description; a stream cut inside it keeps the defaults.
    if r.bit().unwrap_or(false) {
        if let Ok(Some((matrix, full))) = vui_colour(&mut r) {
            matrix_coefficients = matrix;
            full_range = full;
        }
    }
    Ok(Sps {
        profile_idc,
        chroma_format_idc,
        bit_depth_luma: depth_luma,
        bit_depth_chroma: depth_chroma,
        frame_mbs_only,
        matrix_coefficients,
        full_range,
    })
}

/// The VUI's video signal type: the matrix (2 when the colour description is absent) and
/// the range; None where the VUI has no signal type.
fn vui_colour(r: &mut Bits<'_>) -> Result<Option<(u8, bool)>, SpsError> {
    if r.bit()? {
        // aspect_ratio_info_present_flag: aspect_ratio_idc, 255 = extended (sar width, height).
        if r.bits(8)? == 255 {
            r.bits(32)?;
        }
    }
    if r.bit()? {
        r.bit()?; // overscan_appropriate_flag
    }
    if !r.bit()? {
        return Ok(None);
    }
    r.bits(3)?; // video_format
    let full_range = r.bit()?;
    let matrix = if r.bit()? {
        r.bits(16)?; // colour_primaries, transfer_characteristics
        r.bits(8)? as u8
    } else {
        2
    };
    Ok(Some((matrix, full_range)))
}

/// Passes over a scaling list of `size` entries (delta-coded; a zero next scale ends it).
fn skip_scaling_list(r: &mut Bits<'_>, size: usize) -> Result<(), SpsError> {
    let (mut last, mut next) = (8i64, 8i64);
    for _ in 0..size {
        if next != 0 {
            let delta = r.se()?;
            if !(-128..=127).contains(&delta) {
                return Err(SpsError::Range("delta_scale"));
            }
            next = (last + delta + 256).rem_euclid(256);
        }
        if next != 0 {
            last = next;
        }
    }
    Ok(())
}

/// The payload without its emulation prevention bytes (00 00 03 → 00 00).
fn unescape(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len());
    let mut zeros = 0;
    for &b in payload {
        if zeros >= 2 && b == 3 {
            zeros = 0;
            continue;
        }
        zeros = if b == 0 { zeros + 1 } else { 0 };
        out.push(b);
    }
    out
}

/// A big-endian bit reader over an RBSP.
struct Bits<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u8]) -> Self {
        Self { data, at: 0 }
    }

    fn bit(&mut self) -> Result<bool, SpsError> {
        let byte = self.data.get(self.at / 8).ok_or(SpsError::Short)?;
        let bit = (byte >> (7 - self.at % 8)) & 1;
        self.at += 1;
        Ok(bit == 1)
    }

    /// `n` bits (at most 32) as a number.
    fn bits(&mut self, n: u32) -> Result<u32, SpsError> {
        let mut v = 0u32;
        for _ in 0..n.min(32) {
            v = (v << 1) | u32::from(self.bit()?);
        }
        Ok(v)
    }

    /// An unsigned Exp-Golomb code (at most 32 bits of value).
    fn ue(&mut self) -> Result<u32, SpsError> {
        let mut zeros = 0;
        while !self.bit()? {
            zeros += 1;
            if zeros > 31 {
                return Err(SpsError::LongCode);
            }
        }
        let tail = u64::from(self.bits(zeros)?);
        u32::try_from((1u64 << zeros) - 1 + tail).map_err(|_| SpsError::LongCode)
    }

    /// [`Bits::ue`] no larger than `max`.
    fn ue_max(&mut self, field: &'static str, max: u32) -> Result<u32, SpsError> {
        match self.ue()? {
            v if v <= max => Ok(v),
            _ => Err(SpsError::Range(field)),
        }
    }

    /// A signed Exp-Golomb code.
    fn se(&mut self) -> Result<i64, SpsError> {
        let k = i64::from(self.ue()?);
        Ok(if k % 2 == 1 { (k + 1) / 2 } else { -(k / 2) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes bits MSB first, for SPS made by hand.
    #[derive(Default)]
    struct Writer {
        bits: Vec<bool>,
    }

    impl Writer {
        fn u(&mut self, n: u32, v: u64) -> &mut Self {
            for i in (0..n).rev() {
                self.bits.push((v >> i) & 1 == 1);
            }
            self
        }
        fn ue(&mut self, v: u64) -> &mut Self {
            let n = 64 - (v + 1).leading_zeros();
            self.u(n - 1, 0).u(n, v + 1)
        }
        fn se(&mut self, v: i64) -> &mut Self {
            self.ue(if v > 0 {
                2 * v as u64 - 1
            } else {
                (-2 * v) as u64
            })
        }
        /// The SPS NAL unit: header, the bits with a stop bit, emulation prevention.
        fn unit(&self) -> Vec<u8> {
            let mut bits = self.bits.clone();
            bits.push(true);
            while !bits.len().is_multiple_of(8) {
                bits.push(false);
            }
            let bytes: Vec<u8> = bits
                .chunks(8)
                .map(|c| c.iter().fold(0u8, |a, &b| (a << 1) | u8::from(b)))
                .collect();
            let mut out = vec![0x67];
            let mut zeros = 0;
            for b in bytes {
                if zeros >= 2 && b <= 3 {
                    out.push(3);
                    zeros = 0;
                }
                zeros = if b == 0 { zeros + 1 } else { 0 };
                out.push(b);
            }
            out
        }
    }

    /// A High-profile SPS: `depth`, `chroma`, with scaling lists and POC type 1, then a
    /// VUI with the signal type `colour` (matrix, full range) where given.
    fn high_sps(depth: u64, chroma: u64, colour: Option<(u64, bool)>, frames: bool) -> Vec<u8> {
        let mut w = Writer::default();
        w.u(8, 100).u(8, 0).u(8, 40).ue(0);
        w.ue(chroma);
        if chroma == 3 {
            w.u(1, 0);
        }
        w.ue(depth - 8).ue(depth - 8).u(1, 0);
        // Scaling matrices: list 0 present (ends early with a zero next scale), list 6
        // present in full, the others absent (4:4:4 has 12).
        w.u(1, 1);
        for i in 0..if chroma == 3 { 12 } else { 8 } {
            match i {
                0 => {
                    w.u(1, 1).se(-8);
                }
                6 => {
                    w.u(1, 1);
                    for j in 0..64 {
                        w.se(if j % 2 == 0 { 3 } else { -2 });
                    }
                }
                _ => {
                    w.u(1, 0);
                }
            }
        }
        w.ue(0)
            .ue(1)
            .u(1, 0)
            .se(-1)
            .se(2)
            .ue(3)
            .se(1)
            .se(-7)
            .se(100);
        w.ue(4).u(1, 0).ue(119).ue(67).u(1, u64::from(frames));
        if !frames {
            w.u(1, 0);
        }
        w.u(1, 1).u(1, 1).ue(0).ue(0).ue(0).ue(4);
        match colour {
            None => {
                w.u(1, 0);
            }
            Some((matrix, full)) => {
                w.u(1, 1); // vui
                w.u(1, 1).u(8, 255).u(16, 4).u(16, 3); // extended SAR
                w.u(1, 1).u(1, 0); // overscan
                w.u(1, 1).u(3, 5).u(1, u64::from(full)).u(1, 1);
                w.u(8, 1).u(8, 1).u(8, matrix);
                w.u(1, 0).u(1, 0).u(1, 0); // timing, NAL HRD, VCL HRD
            }
        }
        w.unit()
    }

    #[test]
    fn high_profile_fields_and_the_vui_colour_are_read() {
        let sps = parse_sps(&high_sps(8, 1, Some((6, true)), true)).expect("sps");
        assert_eq!(
            (
                sps.profile_idc,
                sps.chroma_format_idc,
                sps.matrix_coefficients
            ),
            (100, 1, 6)
        );
        assert!(sps.full_range && sps.is_8bit_420_frames());
        let sps = parse_sps(&high_sps(10, 2, Some((1, false)), true)).expect("sps");
        assert_eq!((sps.bit_depth_luma, sps.matrix_coefficients), (10, 1));
        assert!(!sps.full_range && !sps.is_8bit_420_frames());
        assert_eq!(sps.layout(), "10-bit 4:2:2");
        let sps = parse_sps(&high_sps(8, 3, None, false)).expect("sps");
        assert_eq!((sps.matrix_coefficients, sps.full_range), (2, false));
        assert_eq!(sps.layout(), "4:4:4 interlaced");
    }

    #[test]
    fn a_baseline_sps_without_vui_takes_the_defaults() {
        let mut w = Writer::default();
        w.u(8, 66)
            .u(8, 0xc0)
            .u(8, 30)
            .ue(0)
            .ue(0)
            .ue(2)
            .ue(1)
            .u(1, 0);
        w.ue(3).ue(2).u(1, 1).u(1, 1).u(1, 0).u(1, 0);
        let sps = parse_sps(&w.unit()).expect("sps");
        assert_eq!((sps.chroma_format_idc, sps.bit_depth_luma), (1, 8));
        assert_eq!((sps.matrix_coefficients, sps.full_range), (2, false));
    }

    #[test]
    fn annex_b_units_are_split_at_start_codes() {
        let stream = [
            0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 0, 0, 1,
        ];
        let units: Vec<&[u8]> = annex_b_units(&stream).collect();
        assert_eq!(units, [&[0x67, 1, 2][..], &[0x68, 3], &[0x65]]);
        assert!(annex_b_units(&[0, 0, 1]).next().is_none());
        assert!(first_sps(&stream[10..]).is_none());
    }

    /// Every SPS cut short at every length and with every byte flipped: an error or an SPS,
    /// never a panic; nothing reads past the end.
    #[test]
    fn damaged_sps_are_errors_or_defaults() {
        let whole = high_sps(8, 1, Some((1, true)), true);
        for cut in 0..whole.len() {
            let _ = parse_sps(&whole[..cut]);
        }
        for at in 1..whole.len() {
            for bit in 0..8 {
                let mut bytes = whole.clone();
                bytes[at] ^= 1 << bit;
                let _ = parse_sps(&bytes);
            }
        }
        // All zeros: an Exp-Golomb code that never ends.
        assert!(matches!(
            parse_sps(&[0x67, 100, 0, 40, 0, 0, 0, 0, 0, 0, 0, 0]),
            Err(SpsError::LongCode | SpsError::Short)
        ));
        assert!(matches!(parse_sps(&[0x68, 1]), Err(SpsError::NotSps)));
        assert!(matches!(parse_sps(&[]), Err(SpsError::NotSps)));
    }
}
