//! A check that every Huffman-coded scan of a JPEG is whole: each block decodes with valid
//! codes, each restart interval ends at its RSTn marker and each scan ends exactly where
//! its data does (libjpeg's "extraneous bytes before marker" and "premature end of data
//! segment"). Corrupt scan data usually decodes to garbage without any marker saying so;
//! zune-jpeg's strict mode only catches the cases where it runs out of data. Only the
//! entropy coding is walked: no coefficient is dequantised or transformed.

use std::fmt;

/// Why the scan data is corrupt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanError(pub String);

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(what: impl Into<String>) -> Result<T, ScanError> {
    Err(ScanError(what.into()))
}

/// A canonical Huffman table: per code length, the largest code and the symbol offset.
#[derive(Clone)]
struct Huffman {
    max_code: [i32; 17],
    offset: [i32; 17],
    symbols: Vec<u8>,
}

impl Huffman {
    fn new(counts: &[u8; 16], symbols: &[u8]) -> Self {
        let mut max_code = [-1; 17];
        let mut offset = [0; 17];
        let (mut code, mut k) = (0i32, 0i32);
        for len in 1..=16 {
            let n = i32::from(counts[len - 1]);
            offset[len] = k - code;
            code += n;
            k += n;
            max_code[len] = if n > 0 { code - 1 } else { -1 };
            code <<= 1;
        }
        Self {
            max_code,
            offset,
            symbols: symbols.to_vec(),
        }
    }
}

#[derive(Clone, Copy)]
struct Component {
    id: u8,
    h: usize,
    v: usize,
    /// Blocks across and down the component (without MCU padding).
    blocks_w: usize,
    blocks_h: usize,
}

/// Reads entropy-coded bits, unstuffing 0xFF00 and stopping at any marker.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    byte: u8,
    left: u8,
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u8], pos: usize) -> Self {
        Self {
            data,
            pos,
            byte: 0,
            left: 0,
        }
    }

    fn bit(&mut self) -> Result<u32, ScanError> {
        if self.left == 0 {
            match (self.data.get(self.pos), self.data.get(self.pos + 1)) {
                (Some(0xFF), Some(0x00)) => {
                    self.byte = 0xFF;
                    self.pos += 2;
                }
                (Some(0xFF), _) | (None, _) => {
                    return err("premature end of the scan data");
                }
                (Some(&b), _) => {
                    self.byte = b;
                    self.pos += 1;
                }
            }
            self.left = 8;
        }
        self.left -= 1;
        Ok(u32::from((self.byte >> self.left) & 1))
    }

    fn bits(&mut self, n: u8) -> Result<u32, ScanError> {
        let mut v = 0;
        for _ in 0..n {
            v = (v << 1) | self.bit()?;
        }
        Ok(v)
    }

    fn symbol(&mut self, table: &Huffman) -> Result<u8, ScanError> {
        let mut code = 0i32;
        for len in 1..=16 {
            code = (code << 1) | self.bit()? as i32;
            if code <= table.max_code[len] {
                let i = (code + table.offset[len]) as usize;
                return table
                    .symbols
                    .get(i)
                    .copied()
                    .ok_or_else(|| ScanError("bad Huffman table".into()));
            }
        }
        err("invalid Huffman code in the scan data")
    }

    /// Drops the padding bits of the current byte; the data must now be at a marker.
    fn expect_marker(&mut self) -> Result<u8, ScanError> {
        self.left = 0;
        let start = self.pos;
        let mut at = self.pos;
        while at + 1 < self.data.len() {
            if self.data[at] == 0xFF && self.data[at + 1] != 0x00 {
                // Fill bytes 0xFF may precede a marker.
                let mut m = at + 1;
                while m < self.data.len() && self.data[m] == 0xFF {
                    m += 1;
                }
                if at > start {
                    return err(format!(
                        "{} extraneous bytes of scan data (the decoding went astray)",
                        at - start
                    ));
                }
                self.pos = m + 1;
                return self
                    .data
                    .get(m)
                    .copied()
                    .ok_or_else(|| ScanError("no marker after the scan".into()));
            }
            at += 1;
        }
        err("no marker after the scan")
    }
}

struct Scan {
    comps: Vec<(usize, usize, usize)>, // (component index, DC table, AC table)
    ss: usize,
    se: usize,
    ah: u8,
}

/// The decoder state shared by all scans.
struct Walker<'a> {
    data: &'a [u8],
    progressive: bool,
    /// Largest DC difference size: the sample precision plus 3.
    dc_max: u8,
    comps: Vec<Component>,
    h_max: usize,
    v_max: usize,
    width: usize,
    height: usize,
    dc: [Option<Huffman>; 4],
    ac: [Option<Huffman>; 4],
    restart: usize,
    /// Progressive only: per component and block, the zig-zag positions already non-zero.
    nonzero: Vec<Vec<u64>>,
    eob_run: u32,
}

fn read_u16(data: &[u8], at: usize) -> Result<usize, ScanError> {
    match data.get(at..at + 2) {
        Some(b) => Ok(usize::from(u16::from_be_bytes([b[0], b[1]]))),
        None => err("truncated marker segment"),
    }
}

/// Checks every scan of `data`. Formats this walker does not know (arithmetic coding,
/// lossless, hierarchical) are left to the decoder.
pub fn check_scans(data: &[u8]) -> Result<(), ScanError> {
    let mut w = Walker {
        data,
        progressive: false,
        dc_max: 11,
        comps: Vec::new(),
        h_max: 1,
        v_max: 1,
        width: 0,
        height: 0,
        dc: Default::default(),
        ac: Default::default(),
        restart: 0,
        nonzero: Vec::new(),
        eob_run: 0,
    };
    if data.get(..2) != Some(&[0xFF, 0xD8]) {
        return err("not a JPEG");
    }
    let mut pos = 2;
    loop {
        // Find the next marker (skipping fill bytes).
        if data.get(pos) != Some(&0xFF) {
            return err("expected a marker");
        }
        while data.get(pos) == Some(&0xFF) {
            pos += 1;
        }
        let Some(&marker) = data.get(pos) else {
            return err("no end-of-image marker");
        };
        pos += 1;
        match marker {
            0xD9 => return Ok(()),
            0xD0..=0xD7 | 0x01 => continue,
            _ => {}
        }
        let len = read_u16(data, pos)?;
        let body = data
            .get(pos + 2..pos + len)
            .ok_or_else(|| ScanError("truncated marker segment".into()))?;
        match marker {
            0xC0..=0xC2 => w.frame(body, marker == 0xC2)?,
            0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF => return Ok(()),
            0xC4 => w.tables(body)?,
            0xDD => w.restart = read_u16(body, 0)?,
            0xDA => {
                let scan = w.scan_header(body)?;
                let next = w.walk(&scan, pos + len)?;
                pos = next;
                continue;
            }
            _ => {}
        }
        pos += len;
    }
}

impl Walker<'_> {
    fn frame(&mut self, body: &[u8], progressive: bool) -> Result<(), ScanError> {
        if body.len() < 6 {
            return err("short frame header");
        }
        self.progressive = progressive;
        self.dc_max = body[0].saturating_add(3);
        self.height = read_u16(body, 1)?;
        self.width = read_u16(body, 3)?;
        let n = usize::from(body[5]);
        let spec = body
            .get(6..6 + 3 * n)
            .ok_or_else(|| ScanError("short frame header".into()))?;
        self.comps = spec
            .chunks_exact(3)
            .map(|c| Component {
                id: c[0],
                h: usize::from(c[1] >> 4).max(1),
                v: usize::from(c[1] & 15).max(1),
                blocks_w: 0,
                blocks_h: 0,
            })
            .collect();
        self.h_max = self.comps.iter().map(|c| c.h).max().unwrap_or(1);
        self.v_max = self.comps.iter().map(|c| c.v).max().unwrap_or(1);
        let (w, h, hm, vm) = (self.width, self.height, self.h_max, self.v_max);
        for c in &mut self.comps {
            c.blocks_w = (w * c.h).div_ceil(hm).div_ceil(8);
            c.blocks_h = (h * c.v).div_ceil(vm).div_ceil(8);
        }
        if progressive {
            self.nonzero = self
                .comps
                .iter()
                .map(|c| vec![0u64; c.blocks_w * c.blocks_h])
                .collect();
        }
        Ok(())
    }

    fn tables(&mut self, mut body: &[u8]) -> Result<(), ScanError> {
        while !body.is_empty() {
            if body.len() < 17 {
                return err("short Huffman table");
            }
            let (class, id) = (body[0] >> 4, usize::from(body[0] & 15));
            let counts: [u8; 16] = body[1..17].try_into().unwrap_or([0; 16]);
            let total: usize = counts.iter().map(|&c| usize::from(c)).sum();
            let symbols = body
                .get(17..17 + total)
                .ok_or_else(|| ScanError("short Huffman table".into()))?;
            if id > 3 {
                return err("bad Huffman table id");
            }
            let table = Some(Huffman::new(&counts, symbols));
            if class == 0 {
                self.dc[id] = table;
            } else {
                self.ac[id] = table;
            }
            body = &body[17 + total..];
        }
        Ok(())
    }

    fn scan_header(&self, body: &[u8]) -> Result<Scan, ScanError> {
        let n = usize::from(*body.first().unwrap_or(&0));
        let spec = body
            .get(1..1 + 2 * n)
            .ok_or_else(|| ScanError("short scan header".into()))?;
        let tail = body
            .get(1 + 2 * n..4 + 2 * n)
            .ok_or_else(|| ScanError("short scan header".into()))?;
        let mut comps = Vec::with_capacity(n);
        for c in spec.chunks_exact(2) {
            let index = self
                .comps
                .iter()
                .position(|k| k.id == c[0])
                .ok_or_else(|| ScanError("scan names an unknown component".into()))?;
            comps.push((index, usize::from(c[1] >> 4), usize::from(c[1] & 15)));
        }
        Ok(Scan {
            comps,
            ss: usize::from(tail[0]),
            se: usize::from(tail[1]),
            ah: tail[2] >> 4,
        })
    }

    fn table(tables: &[Option<Huffman>; 4], id: usize) -> Result<&Huffman, ScanError> {
        tables
            .get(id)
            .and_then(Option::as_ref)
            .ok_or_else(|| ScanError("scan uses an undefined Huffman table".into()))
    }

    /// Walks one scan starting at `start`; returns the offset of the marker after it.
    fn walk(&mut self, scan: &Scan, start: usize) -> Result<usize, ScanError> {
        if self.comps.is_empty() || scan.comps.is_empty() {
            return err("scan before the frame header");
        }
        if scan.se > 63 || scan.ss > scan.se {
            return err("bad spectral selection");
        }
        let mut bits = Bits::new(self.data, start);
        self.eob_run = 0;
        // The blocks of one MCU: (component index, block column, block row) per unit.
        let single = scan.comps.len() == 1;
        let (mcus_w, mcus_h) = if single {
            let c = self.comps[scan.comps[0].0];
            (c.blocks_w, c.blocks_h)
        } else {
            (
                self.width.div_ceil(8 * self.h_max),
                self.height.div_ceil(8 * self.v_max),
            )
        };
        let total = mcus_w * mcus_h;
        let mut rst = 0u8;
        for mcu in 0..total {
            if self.restart > 0 && mcu > 0 && mcu % self.restart == 0 {
                let m = bits.expect_marker()?;
                if m != 0xD0 + rst {
                    return err("restart marker missing or out of order");
                }
                rst = (rst + 1) % 8;
                self.eob_run = 0;
            }
            let (mx, my) = (mcu % mcus_w, mcu / mcus_w);
            for &(ci, dc, ac) in &scan.comps {
                let c = self.comps[ci];
                let (bw, bh) = if single { (1, 1) } else { (c.h, c.v) };
                for by in 0..bh {
                    for bx in 0..bw {
                        let (col, row) = (mx * bw + bx, my * bh + by);
                        self.block(&mut bits, scan, ci, dc, ac, col, row)?;
                    }
                }
            }
        }
        bits.expect_marker()?;
        // Point at the marker itself for the caller's marker loop.
        let mut at = bits.pos - 1;
        while at > start && self.data[at - 1] == 0xFF {
            at -= 1;
        }
        Ok(at)
    }

    #[allow(clippy::too_many_arguments)]
    fn block(
        &mut self,
        bits: &mut Bits<'_>,
        scan: &Scan,
        ci: usize,
        dc: usize,
        ac: usize,
        col: usize,
        row: usize,
    ) -> Result<(), ScanError> {
        if !self.progressive {
            let s = bits.symbol(Self::table(&self.dc, dc)?)?;
            if s > self.dc_max {
                return err("bad DC coefficient size");
            }
            bits.bits(s)?;
            return Self::ac_first(bits, Self::table(&self.ac, ac)?, 1, 63, &mut 0, None);
        }
        if scan.ss == 0 {
            if scan.ah == 0 {
                let s = bits.symbol(Self::table(&self.dc, dc)?)?;
                if s > self.dc_max {
                    return err("bad DC coefficient size");
                }
                bits.bits(s)?;
            } else {
                bits.bit()?;
            }
            return Ok(());
        }
        let c = self.comps[ci];
        // Padding blocks outside the component are never coded in AC scans.
        let index = row * c.blocks_w + col;
        let table = Self::table(&self.ac, ac)?;
        let nz = &mut self.nonzero[ci][index];
        if scan.ah == 0 {
            Self::ac_first(bits, table, scan.ss, scan.se, &mut self.eob_run, Some(nz))
        } else {
            Self::ac_refine(bits, table, scan.ss, scan.se, &mut self.eob_run, nz)
        }
    }

    /// A sequential block's AC part, or a progressive first AC scan's band.
    fn ac_first(
        bits: &mut Bits<'_>,
        table: &Huffman,
        ss: usize,
        se: usize,
        eob_run: &mut u32,
        mut nonzero: Option<&mut u64>,
    ) -> Result<(), ScanError> {
        if *eob_run > 0 {
            *eob_run -= 1;
            return Ok(());
        }
        let mut k = ss;
        while k <= se {
            let rs = bits.symbol(table)?;
            let (r, s) = (usize::from(rs >> 4), rs & 15);
            if s == 0 {
                if r < 15 {
                    if nonzero.is_some() {
                        *eob_run = (1u32 << r) + bits.bits(r as u8)? - 1;
                    }
                    return Ok(());
                }
                k += 16;
                continue;
            }
            k += r;
            if k > se {
                return err("coefficient past the end of the block");
            }
            bits.bits(s)?;
            if let Some(nz) = nonzero.as_deref_mut() {
                *nz |= 1u64 << k;
            }
            k += 1;
        }
        if k > se + 1 {
            return err("coefficient past the end of the block");
        }
        Ok(())
    }

    /// A progressive refinement AC scan's band (libjpeg's decode_mcu_AC_refine).
    fn ac_refine(
        bits: &mut Bits<'_>,
        table: &Huffman,
        ss: usize,
        se: usize,
        eob_run: &mut u32,
        nz: &mut u64,
    ) -> Result<(), ScanError> {
        let mut k = ss;
        if *eob_run == 0 {
            while k <= se {
                let rs = bits.symbol(table)?;
                let (mut r, s) = (i32::from(rs >> 4), rs & 15);
                if s != 0 {
                    bits.bit()?;
                } else if r != 15 {
                    *eob_run = (1u32 << r) + bits.bits(r as u8)?;
                    break;
                }
                while k <= se {
                    if *nz & (1u64 << k) != 0 {
                        bits.bit()?;
                    } else {
                        r -= 1;
                        if r < 0 {
                            break;
                        }
                    }
                    k += 1;
                }
                if s != 0 {
                    if k > se {
                        return err("coefficient past the end of the block");
                    }
                    *nz |= 1u64 << k;
                }
                k += 1;
            }
        }
        if *eob_run > 0 {
            while k <= se {
                if *nz & (1u64 << k) != 0 {
                    bits.bit()?;
                }
                k += 1;
            }
            *eob_run -= 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jpeg(width: u32, height: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(width, height, |x, y| {
            image::Rgb([(x * 7 + y) as u8, (y * 5) as u8, (x ^ y) as u8])
        });
        let mut buf = std::io::Cursor::new(Vec::new());
        img.write_to(&mut buf, image::ImageFormat::Jpeg)
            .expect("encode");
        buf.into_inner()
    }

    fn scan_start(data: &[u8]) -> usize {
        let sos = data
            .windows(2)
            .position(|w| w == [0xFF, 0xDA])
            .expect("SOS");
        sos + 2 + usize::from(u16::from_be_bytes([data[sos + 2], data[sos + 3]]))
    }

    #[test]
    fn whole_files_pass_and_damaged_scans_fail() {
        let good = jpeg(123, 77);
        check_scans(&good).expect("a whole file passes");
        let start = scan_start(&good);
        // Extra bytes before EOI: the data does not end where the coding does.
        let mut extra = good[..good.len() - 2].to_vec();
        extra.extend_from_slice(&[0x12, 0x34, 0x56, 0xFF, 0xD9]);
        assert!(check_scans(&extra).is_err());
        // Cut short.
        let mut cut = good[..start + (good.len() - start) / 2].to_vec();
        cut.extend_from_slice(&[0xFF, 0xD9]);
        assert!(check_scans(&cut).is_err());
        // Overwritten in the middle with one-bits: a code the standard tables never assign.
        let mut bad = good.clone();
        let mid = start + (good.len() - start) / 2;
        bad[mid..mid + 8].fill(0xFE);
        assert!(check_scans(&bad).is_err());
    }

    /// The walk's cost against zune's decoding on a 12 MP photograph-like JPEG (run with
    /// `--ignored --nocapture`).
    #[test]
    #[ignore]
    fn time_the_walk_on_12_mp() {
        let img = image::RgbImage::from_fn(4000, 3000, |x, y| {
            let n = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)) >> 27;
            image::Rgb([(x / 16 + n) as u8, (y / 12 + n) as u8, ((x + y) / 28) as u8])
        });
        let mut buf = std::io::Cursor::new(Vec::new());
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut buf, 90)
            .encode_image(&img)
            .expect("encode");
        let data = buf.into_inner();
        let start = std::time::Instant::now();
        check_scans(&data).expect("whole");
        let walk = start.elapsed();
        let start = std::time::Instant::now();
        let options = zune_core::options::DecoderOptions::default()
            .jpeg_set_out_colorspace(zune_core::colorspace::ColorSpace::RGBA);
        zune_jpeg::JpegDecoder::new_with_options(
            zune_core::bytestream::ZCursor::new(&data),
            options,
        )
        .decode()
        .expect("decodes");
        let decode = start.elapsed();
        println!(
            "12 MP JPEG ({} KB): scan walk {walk:.1?}, zune decode {decode:.1?}",
            data.len() / 1024
        );
    }

    #[test]
    fn never_panics_on_cut_or_garbage_input() {
        let good = jpeg(40, 24);
        for n in 0..good.len() {
            let _ = check_scans(&good[..n]);
        }
        let _ = check_scans(b"\xFF\xD8\xFF\xDA\x00");
        let _ = check_scans(b"");
    }
}
