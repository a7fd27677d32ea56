//! Video containers: any bytes either open as an MP4/MOV or Matroska/WebM stream and give
//! packets until the end or an error, or are refused; every error is one line, and nothing
//! panics or loops (the container parsers run behind the demuxer's read guard). A panic
//! inside a container parser is the parser crate's, caught by the demuxer: this target's
//! panic hook lets those pass and keeps libFuzzer's abort for every other.
#![no_main]

use cudalens::video::demux::{in_container_parser, Demuxer, Input};
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

fuzz_target!(|data: &[u8]| {
    quiet_caught_parser_panics();
    let input: Box<dyn Input> = Box::new(std::io::Cursor::new(data.to_vec()));
    match Demuxer::from_input(Path::new("fuzz.mp4"), input) {
        Ok(mut d) => {
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
