//! Video containers: any bytes either open as an MP4/MOV or Matroska/WebM stream and give
//! packets until the end or an error, or are refused; every error is one line, and nothing
//! panics or loops (the container parsers run behind the demuxer's read guard). An H.264
//! stream is then decoded by OpenH264 too: frames until the end or a one-line error. A
//! panic inside a container parser is the parser crate's, caught by the demuxer: this
//! target's panic hook lets those pass and keeps libFuzzer's abort for every other.
#![no_main]

use cudalens::video::demux::{in_container_parser, Codec, Demuxer, Input};
use cudalens::video::openh264::OpenH264Reader;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fn quiet_caught_parser_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let abort = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !in_container_parser() {
                abort(info);
            }
        }));
    });
}

/// The demuxer of `data`, if it opens.
fn demuxer(data: &[u8]) -> Result<Demuxer, cudalens::video::VideoError> {
    let input: Box<dyn Input> = Box::new(std::io::Cursor::new(data.to_vec()));
    Demuxer::from_input(Path::new("fuzz.mp4"), input)
}

/// Decodes at most 64 frames of an H.264 stream by OpenH264.
fn openh264(d: Demuxer) {
    match OpenH264Reader::with_demuxer(Path::new("fuzz.mp4"), d) {
        Ok(mut reader) => {
            for _ in 0..64 {
                match reader.next_frame() {
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(e) => {
                        assert!(!e.to_string().contains('\n'));
                        break;
                    }
                }
            }
        }
        Err(e) => assert!(!e.to_string().contains('\n')),
    }
}

fuzz_target!(|data: &[u8]| {
    quiet_caught_parser_panics();
    match demuxer(data) {
        Ok(mut d) => {
            if d.codec() == Codec::H264 {
                if let Ok(again) = demuxer(data) {
                    openh264(again);
                }
            }
            let info = d.info().clone();
            assert!(info.width >= 1 && info.height >= 1);
            for _ in 0..100_000 {
                match d.next_packet() {
                    Ok(Some(p)) => assert!(p.data.len() <= 256 << 20),
                    Ok(None) => break,
                    Err(e) => {
                        assert!(!e.to_string().contains('\n'));
                        break;
                    }
                }
            }
        }
        Err(e) => assert!(!e.to_string().contains('\n')),
    }
});
