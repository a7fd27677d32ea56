//! Notes on stderr (the backend a run fell back to, conversions on load), printed only
//! under `--verbose`: without it a run prints its result, or its error in one line.

use std::sync::atomic::{AtomicBool, Ordering};

static VERBOSE: AtomicBool = AtomicBool::new(false);

/// Turns notes on or off for the rest of the process (`--verbose`).
pub fn set_verbose(on: bool) {
    VERBOSE.store(on, Ordering::Relaxed);
}

/// Prints `message` as a note under `--verbose`.
pub fn note(message: &str) {
    if VERBOSE.load(Ordering::Relaxed) {
        eprintln!("note: {message}");
    }
}
