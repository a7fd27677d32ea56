//! Mandelbrot views: any centre text parses to finite numbers or an error; any text parses
//! to an exact decimal location (deep zoom's `--center`/`--span`) or an error, and a parsed
//! decimal prints to text that parses back to itself; any finite view maps pixels, zooms,
//! pans, picks a precision and renders (tiny) without panicking, every dwell within the
//! maximum.
#![no_main]

use cudalens::mandelbrot::deep::{Decimal, DeepLocation};
use cudalens::mandelbrot::{parse_center_arg as parse_center, render_per_pixel, Fractal, View};
use libfuzzer_sys::fuzz_target;

fn f64_at(data: &[u8], i: usize) -> f64 {
    let mut b = [0u8; 8];
    for (k, v) in b.iter_mut().enumerate() {
        *v = data.get(i * 8 + k).copied().unwrap_or(0);
    }
    f64::from_le_bytes(b)
}

fuzz_target!(|data: &[u8]| {
    let (numbers, text) = data.split_at(data.len().min(40));
    if let Ok(text) = std::str::from_utf8(text) {
        if let Ok((re, im)) = parse_center(text) {
            assert!(re.is_finite() && im.is_finite());
        }
        let (center_text, span_text) = text.split_once('/').unwrap_or((text, "1e-50"));
        let _ = DeepLocation::parse(center_text, span_text);
        if let Ok(d) = text.parse::<Decimal>() {
            let again: Decimal = d.scientific().parse().expect("printed decimal parses");
            assert_eq!(again, d, "{text:?}");
        }
    }
    let span = f64_at(numbers, 2).abs();
    if !(span.is_finite() && span > 0.0) {
        return;
    }
    let center = (f64_at(numbers, 0), f64_at(numbers, 1));
    if !(center.0.is_finite() && center.1.is_finite()) {
        return;
    }
    let mut view = View {
        center,
        span,
        width: 1 + u32::from(numbers.get(24).copied().unwrap_or(0) % 16),
        height: 1 + u32::from(numbers.get(25).copied().unwrap_or(0) % 16),
        max_dwell: 1 + u32::from(numbers.get(26).copied().unwrap_or(0)),
        fractal: Fractal::Mandelbrot,
    };
    let _ = view.point(view.width - 1, view.height - 1);
    for p in [
        cudalens::mandelbrot::Precision::Auto,
        cudalens::mandelbrot::Precision::F32,
    ] {
        let _ = view.resolve_precision(p);
    }
    let dwells = render_per_pixel(&view, false);
    assert_eq!(dwells.values.len(), (view.width * view.height) as usize);
    assert!(dwells.values.iter().all(|&d| d <= view.max_dwell));
    let factor = f64_at(numbers, 4);
    if factor.is_finite() && factor > 0.0 {
        view.zoom_at(f64_at(numbers, 3), 0.5, factor);
        view.pan_pixels(1.0, -1.0);
    }
});
