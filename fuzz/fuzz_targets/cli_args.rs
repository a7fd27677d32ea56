//! The command line: any argument list (NUL-separated) parses or gives a one-line
//! error; the checks that run before any work (sizes, memory sizes, filter specs, paths
//! of the app's options) never panic.
#![no_main]

use clap::Parser;
use cudalens::cli::{clap_error_line, Cli};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let args = std::iter::once("cudalens").chain(text.split('\0'));
    match Cli::try_parse_from(args) {
        Ok(cli) => {
            let _ = format!("{cli:?}");
        }
        Err(e) => {
            let line = clap_error_line(&e);
            assert!(!line.contains('\n'), "{line:?}");
        }
    }
    for piece in text.split('\0') {
        let _ = cudalens::cli::parse_size(piece);
        let _ = cudalens::app::parse_window_size(piece);
        let _ = cudalens::image_io::budget::parse_memory_size(piece);
    }
});
