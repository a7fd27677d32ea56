//! FFmpeg's decode of the test clips (`tests/data/video/ffmpeg_frames.txt`, written by
//! `scripts/fidelity/make_video_clips.sh`), against which other decoders' samples are
//! checked.

use cudalens::video::yuv::Yuv420;

/// FFmpeg's decode of a clip: its name, first frame's size, bit depth and each frame's
/// Adler-32 and size.
pub type ClipFrames = (String, (u32, u32), u8, Vec<(u32, (u32, u32))>);

pub fn ffmpeg_frames() -> Vec<ClipFrames> {
    let text = std::fs::read_to_string(super::data("video/ffmpeg_frames.txt")).expect("reference");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let num = |s: &str| s.parse::<u32>().expect("number");
            let size = (num(w[1]), num(w[2]));
            // "0xADLER", or "0xADLER@WxH" for a frame of another size than the first.
            let frames = w[4..]
                .iter()
                .map(|token| {
                    let (crc, own) = token.split_once('@').map_or((*token, size), |(c, s)| {
                        let (fw, fh) = s.split_once('x').expect("WxH");
                        (c, (num(fw), num(fh)))
                    });
                    let crc = u32::from_str_radix(crc.trim_start_matches("0x"), 16).expect("hex");
                    (crc, own)
                })
                .collect();
            (w[0].to_string(), size, num(w[3]) as u8, frames)
        })
        .collect()
}

/// Adler-32 of a frame's planes as FFmpeg's rawvideo lays them out (Y, Cb, Cr; bytes, or
/// little-endian words past 8 bits), started from 0 as FFmpeg's framecrc starts it.
pub fn planar_adler(yuv: &Yuv420, depth: u8) -> u32 {
    let mut a = adler2::Adler32::from_checksum(0);
    for plane in [&yuv.y, &yuv.cb, &yuv.cr] {
        let bytes: Vec<u8> = if depth > 8 {
            plane.iter().flat_map(|v| v.to_le_bytes()).collect()
        } else {
            plane.iter().map(|&v| v as u8).collect()
        };
        a.write_slice(&bytes);
    }
    a.checksum()
}
