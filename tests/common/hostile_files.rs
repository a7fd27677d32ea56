//! Small malformed files that declare huge images, as a hostile user would send them.

/// A 37-byte GIF whose screen and first frame declare `side × side`.
pub fn gif_declaring(side: u16) -> Vec<u8> {
    let s = side.to_le_bytes();
    let mut out = b"GIF89a".to_vec();
    out.extend_from_slice(&[s[0], s[1], s[0], s[1], 0x00, 0x00, 0x00]);
    out.extend_from_slice(&[0x2C, 0, 0, 0, 0, s[0], s[1], s[0], s[1], 0x80]);
    out.extend_from_slice(&[0, 0, 0, 255, 255, 255]); // local colour table, 2 entries
    out.extend_from_slice(&[0x02, 0x02, 0x44, 0x01, 0x00, 0x3B]);
    out
}

/// An RLE8 BMP (about 1 KiB: header and palette) declaring `side × side`, whose pixel
/// data is just "end of bitmap".
pub fn bmp_rle_declaring(side: i32) -> Vec<u8> {
    let offset: u32 = 14 + 40 + 256 * 4;
    let data = [0u8, 1];
    let mut out = b"BM".to_vec();
    out.extend_from_slice(&(offset + data.len() as u32).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&offset.to_le_bytes());
    for v in [40i32, side, side] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&8u16.to_le_bytes());
    for v in [1u32, data.len() as u32, 2835, 2835, 256, 0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for i in 0..=255u8 {
        out.extend_from_slice(&[i, i, i, 0]);
    }
    out.extend_from_slice(&data);
    out
}

/// A real JPEG of `image`.
pub fn jpeg_of(image: &image::RgbaImage) -> Vec<u8> {
    let rgb = image::DynamicImage::ImageRgba8(image.clone()).into_rgb8();
    let mut buf = std::io::Cursor::new(Vec::new());
    rgb.write_to(&mut buf, image::ImageFormat::Jpeg)
        .expect("encode JPEG");
    buf.into_inner()
}

/// Offset of the first start-of-scan marker's data in a baseline JPEG.
pub fn scan_start(jpeg: &[u8]) -> usize {
    let sos = jpeg
        .windows(2)
        .position(|w| w == [0xFF, 0xDA])
        .expect("SOS marker");
    let len = usize::from(u16::from_be_bytes([jpeg[sos + 2], jpeg[sos + 3]]));
    sos + 2 + len
}

/// `jpeg` with its frame header declaring `side × side`.
pub fn jpeg_declaring(jpeg: &[u8], side: u16) -> Vec<u8> {
    let mut out = jpeg.to_vec();
    let sof = out
        .windows(2)
        .position(|w| w == [0xFF, 0xC0])
        .expect("SOF0 marker");
    out[sof + 5..sof + 7].copy_from_slice(&side.to_be_bytes());
    out[sof + 7..sof + 9].copy_from_slice(&side.to_be_bytes());
    out
}
