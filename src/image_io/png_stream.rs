//! A PNG written as its rows arrive, compressed on every core: for pictures too large to
//! hold (the explorer's posters). Rows are filtered with Sub (no dependence between rows),
//! cut into chunks of about [`CHUNK_BYTES`], and each chunk deflated on its own with a sync
//! flush, so the pieces join into one zlib stream (as pigz does); their Adler-32 sums are
//! combined. Memory: the rows of one call and their compressed form.

use flate2::{Compress, Compression, FlushCompress};
use rayon::prelude::*;
use std::io::Write;

/// Raw bytes per independently compressed chunk (whole rows, at least one): a 1080p
/// frame is eight of them.
const CHUNK_BYTES: usize = 1 << 20;
const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];
/// The zlib header of a deflate stream with a 32 KiB window at the fastest level.
const ZLIB_HEADER: [u8; 2] = [0x78, 0x01];
/// Adler-32's modulus.
const ADLER_MOD: u64 = 65_521;
/// PNG's Sub filter.
const FILTER_SUB: u8 = 1;

/// The pixel layout of a streamed PNG.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PngStreamKind {
    /// 8-bit RGB, 3 bytes a pixel.
    Rgb8,
    /// 8-bit RGBA, 4 bytes a pixel.
    Rgba8,
    /// 16-bit grey, 2 bytes a pixel, big-endian.
    Gray16,
}

impl PngStreamKind {
    pub fn bytes_per_pixel(self) -> usize {
        match self {
            PngStreamKind::Rgb8 => 3,
            PngStreamKind::Rgba8 => 4,
            PngStreamKind::Gray16 => 2,
        }
    }

    /// IHDR's bit depth and colour type.
    fn depth_and_colour(self) -> (u8, u8) {
        match self {
            PngStreamKind::Rgb8 => (8, 2),
            PngStreamKind::Rgba8 => (8, 6),
            PngStreamKind::Gray16 => (16, 0),
        }
    }
}

/// A PNG being written row by row to `W`: [`PngStream::write_rows`] in order, then
/// [`PngStream::finish`].
pub struct PngStream<W: Write> {
    out: W,
    kind: PngStreamKind,
    width: u32,
    height: u32,
    rows_written: u32,
    /// Adler-32 of the filtered bytes so far.
    adler: u32,
    level: Compression,
}

fn chunk<W: Write>(out: &mut W, kind: &[u8; 4], data: &[u8]) -> std::io::Result<()> {
    let len =
        u32::try_from(data.len()).map_err(|_| std::io::Error::other("PNG chunk over 4 GiB"))?;
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    out.write_all(&len.to_be_bytes())?;
    out.write_all(kind)?;
    out.write_all(data)?;
    out.write_all(&crc.finalize().to_be_bytes())
}

/// A text chunk: tEXt for Latin-1 text, else iTXt (UTF-8).
fn text_chunk<W: Write>(out: &mut W, keyword: &str, text: &str) -> std::io::Result<()> {
    let keyword_ok =
        (1..=79).contains(&keyword.len()) && keyword.bytes().all(|b| (32..=126).contains(&b));
    if !keyword_ok {
        return Err(std::io::Error::other(format!(
            "PNG text keyword {keyword:?}: 1–79 printable ASCII characters"
        )));
    }
    let mut data = keyword.as_bytes().to_vec();
    data.push(0);
    if text.chars().all(|c| (c as u32) < 256 && c != '\0') {
        data.extend(text.chars().map(|c| c as u8));
        chunk(out, b"tEXt", &data)
    } else {
        // No compression, no language tag, no translated keyword.
        data.extend_from_slice(&[0, 0, 0, 0]);
        data.extend_from_slice(text.as_bytes());
        chunk(out, b"iTXt", &data)
    }
}

/// Adler-32 of `bytes` (starting from 1).
fn adler32(bytes: &[u8]) -> u32 {
    let mut a = adler2::Adler32::new();
    a.write_slice(bytes);
    a.checksum()
}

/// The Adler-32 of X‖Y from those of X and Y and Y's length: A = A_X + A_Y − 1,
/// B = B_X + B_Y + |Y|·(A_X − 1), both modulo 65521.
fn adler32_combine(x: u32, y: u32, y_len: usize) -> u32 {
    let (ax, bx) = (u64::from(x & 0xffff), u64::from(x >> 16));
    let (ay, by) = (u64::from(y & 0xffff), u64::from(y >> 16));
    let n = y_len as u64 % ADLER_MOD;
    let a = (ax + ay + ADLER_MOD - 1) % ADLER_MOD;
    let b = (bx + by + n * ((ax + ADLER_MOD - 1) % ADLER_MOD)) % ADLER_MOD;
    ((b << 16) | a) as u32
}

/// Raw deflate of `input` ending on a byte boundary (a sync flush, or the final block
/// with `last`).
fn deflate(input: &[u8], level: Compression, last: bool) -> std::io::Result<Vec<u8>> {
    let mut c = Compress::new(level, false);
    let flush = if last {
        FlushCompress::Finish
    } else {
        FlushCompress::Sync
    };
    let mut out = Vec::with_capacity(input.len() / 4 + 64);
    loop {
        if out.capacity() - out.len() < 64 {
            out.reserve(out.capacity().max(4096));
        }
        let done_in = c.total_in() as usize;
        let status = c
            .compress_vec(&input[done_in..], &mut out, flush)
            .map_err(std::io::Error::other)?;
        let all_in = c.total_in() as usize == input.len();
        // The flush is complete once all input is in and the output had room to spare.
        if matches!(status, flate2::Status::StreamEnd)
            || (!last && all_in && out.len() < out.capacity())
        {
            return Ok(out);
        }
    }
}

/// Rows with the Sub filter: a filter byte, then each byte less the one a pixel before.
fn filter_sub(rows: &[u8], row_bytes: usize, bpp: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(rows.len() + rows.len() / row_bytes.max(1));
    for row in rows.chunks_exact(row_bytes) {
        out.push(FILTER_SUB);
        out.extend_from_slice(&row[..bpp.min(row.len())]);
        out.extend(
            row[bpp..]
                .iter()
                .zip(row)
                .map(|(&v, &left)| v.wrapping_sub(left)),
        );
    }
    out
}

impl<W: Write> PngStream<W> {
    /// Writes the signature, the header and `texts` as (keyword, text) chunks.
    pub fn new(
        mut out: W,
        width: u32,
        height: u32,
        kind: PngStreamKind,
        texts: &[(&str, &str)],
    ) -> std::io::Result<Self> {
        if width == 0 || height == 0 || width > i32::MAX as u32 || height > i32::MAX as u32 {
            return Err(std::io::Error::other(format!(
                "a PNG of {width}×{height}: sides must be 1..=2³¹−1"
            )));
        }
        out.write_all(&SIGNATURE)?;
        let (depth, colour) = kind.depth_and_colour();
        let mut ihdr = Vec::with_capacity(13);
        ihdr.extend_from_slice(&width.to_be_bytes());
        ihdr.extend_from_slice(&height.to_be_bytes());
        ihdr.extend_from_slice(&[depth, colour, 0, 0, 0]);
        chunk(&mut out, b"IHDR", &ihdr)?;
        for (keyword, text) in texts {
            text_chunk(&mut out, keyword, text)?;
        }
        chunk(&mut out, b"IDAT", &ZLIB_HEADER)?;
        Ok(Self {
            out,
            kind,
            width,
            height,
            rows_written: 0,
            adler: 1,
            level: Compression::fast(),
        })
    }

    /// Bytes of one row of pixels (without the filter byte).
    pub fn row_bytes(&self) -> usize {
        self.width as usize * self.kind.bytes_per_pixel()
    }

    /// Appends whole rows (`rows.len()` a multiple of [`Self::row_bytes`]), compressed in
    /// parallel.
    pub fn write_rows(&mut self, rows: &[u8]) -> std::io::Result<()> {
        let row_bytes = self.row_bytes();
        let count = rows.len() / row_bytes;
        if !rows.len().is_multiple_of(row_bytes)
            || count as u64 + u64::from(self.rows_written) > u64::from(self.height)
        {
            return Err(std::io::Error::other(format!(
                "{} bytes of rows: not whole rows of {row_bytes} bytes within the {} rows left",
                rows.len(),
                self.height - self.rows_written
            )));
        }
        let rows_per_chunk = (CHUNK_BYTES / row_bytes).max(1);
        let (bpp, level) = (self.kind.bytes_per_pixel(), self.level);
        let pieces: Vec<std::io::Result<(Vec<u8>, u32, usize)>> = rows
            .par_chunks(rows_per_chunk * row_bytes)
            .map(|part| {
                let filtered = filter_sub(part, row_bytes, bpp);
                let packed = deflate(&filtered, level, false)?;
                Ok((packed, adler32(&filtered), filtered.len()))
            })
            .collect();
        for piece in pieces {
            let (packed, adler, len) = piece?;
            chunk(&mut self.out, b"IDAT", &packed)?;
            self.adler = adler32_combine(self.adler, adler, len);
        }
        self.rows_written += count as u32;
        Ok(())
    }

    /// Ends the stream (every row must have been written) and returns the writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        if self.rows_written != self.height {
            return Err(std::io::Error::other(format!(
                "{} of {} rows written",
                self.rows_written, self.height
            )));
        }
        let mut tail = deflate(&[], self.level, true)?;
        tail.extend_from_slice(&self.adler.to_be_bytes());
        chunk(&mut self.out, b"IDAT", &tail)?;
        chunk(&mut self.out, b"IEND", &[])?;
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Decodes with the `png` crate: (width, height, colour type, bit depth, bytes).
    fn decode(bytes: &[u8]) -> (u32, u32, png::ColorType, png::BitDepth, Vec<u8>) {
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .expect("header");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("pixels");
        buf.truncate(info.buffer_size());
        (
            info.width,
            info.height,
            info.color_type,
            info.bit_depth,
            buf,
        )
    }

    /// Rows with flat runs and noise: both kinds of content deflate meets in a picture.
    fn picture(len: usize, seed: u64) -> Vec<u8> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..len)
            .map(|i| {
                if (i / 97) % 3 == 0 {
                    rng.random()
                } else {
                    (i / 1000) as u8
                }
            })
            .collect()
    }

    #[test]
    fn adler_sums_combine_as_one_sum_of_the_whole() {
        let data = picture(300_000, 1);
        for cut in [0, 1, 5551, 65_521, 200_000, 300_000] {
            let (x, y) = data.split_at(cut);
            assert_eq!(
                adler32_combine(adler32(x), adler32(y), y.len()),
                adler32(&data),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn rows_in_uneven_calls_decode_to_themselves() {
        // 1500×(3 calls) RGB: several chunks per call (a chunk is 4 MiB).
        let (w, h) = (1500u32, 1400u32);
        let rows = picture(w as usize * h as usize * 3, 2);
        let mut png = PngStream::new(Vec::new(), w, h, PngStreamKind::Rgb8, &[]).expect("new");
        let row = png.row_bytes();
        for part in [&rows[..row], &rows[row..row * 1000], &rows[row * 1000..]] {
            png.write_rows(part).expect("rows");
        }
        let bytes = png.finish().expect("finish");
        let (dw, dh, colour, depth, pixels) = decode(&bytes);
        assert_eq!(
            (dw, dh, colour, depth),
            (w, h, png::ColorType::Rgb, png::BitDepth::Eight)
        );
        assert!(pixels == rows, "the decoded pixels differ");
    }

    #[test]
    fn sixteen_bit_grey_and_text_chunks_come_back() {
        let (w, h) = (7u32, 5u32);
        let rows = picture(w as usize * h as usize * 2, 3);
        let texts = [
            ("cudalens-view", "re=-0.5, im=0, span=3"),
            ("Comment", "σ ünïcode"),
        ];
        let mut png = PngStream::new(Vec::new(), w, h, PngStreamKind::Gray16, &texts).expect("new");
        png.write_rows(&rows).expect("rows");
        let bytes = png.finish().expect("finish");
        let (_, _, colour, depth, pixels) = decode(&bytes);
        assert_eq!(
            (colour, depth),
            (png::ColorType::Grayscale, png::BitDepth::Sixteen)
        );
        assert_eq!(pixels, rows);
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("t.png");
        std::fs::write(&path, &bytes).expect("write");
        let read = crate::image_io::read_png_text(&path, "cudalens-view").expect("read");
        assert_eq!(read.as_deref(), Some("re=-0.5, im=0, span=3"));
        let read = crate::image_io::read_png_text(&path, "Comment").expect("read");
        assert_eq!(read.as_deref(), Some("σ ünïcode"));
    }

    #[test]
    fn a_short_or_ragged_stream_is_refused() {
        let mut png = PngStream::new(Vec::new(), 4, 2, PngStreamKind::Rgb8, &[]).expect("new");
        assert!(png.write_rows(&[0; 5]).is_err(), "not whole rows");
        png.write_rows(&[0; 12]).expect("one row");
        assert!(png.write_rows(&[0; 24]).is_err(), "past the last row");
        assert!(png.finish().is_err(), "one row missing");
        assert!(PngStream::new(Vec::new(), 0, 2, PngStreamKind::Rgb8, &[]).is_err());
        assert!(PngStream::new(Vec::new(), 1, 1, PngStreamKind::Rgb8, &[("", "x")]).is_err());
    }
}
