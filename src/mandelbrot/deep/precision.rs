//! Which arithmetic renders a view: f32 → f64 → perturbation → perturbation with extended
//! exponents, by the size of a pixel.

use super::DeepLocation;
use crate::mandelbrot::Precision;

/// f32 while a pixel is at least 2⁻¹⁴ of the coordinates' magnitude (as `View` decides).
const F32_PIXEL_LOG2: f64 = -14.0;
/// f64 while a pixel is at least 2⁻⁴² of the magnitude: f64 then keeps ~10 bits below the
/// pixel, as f32 does at its threshold; below, the image turns to blocks.
const F64_PIXEL_LOG2: f64 = -42.0;
/// Perturbation in f64 while a pixel is at least 2⁻⁹⁶⁰ (absolute): below, the pixel offsets
/// δc approach f64's smallest normal numbers (2⁻¹⁰²²) and lose bits, so δ gets a separate
/// exponent.
const PERTURBATION_PIXEL_LOG2: f64 = -960.0;

/// The precision to render `location` at `width` pixels with, for a requested one. `Auto`
/// goes by the pixel size; an explicit perturbation request becomes `Extended` where f64
/// perturbation cannot hold the pixel offsets; f32 and f64 requests are kept.
pub fn choose_precision(requested: Precision, location: &DeepLocation, width: u32) -> Precision {
    let pixel = location.pixel_size(width).log2();
    let magnitude = location
        .re
        .to_f64()
        .abs()
        .max(location.im.to_f64().abs())
        .max(1.0)
        .log2();
    match requested {
        Precision::Auto if pixel >= magnitude + F32_PIXEL_LOG2 => Precision::F32,
        Precision::Auto if pixel >= magnitude + F64_PIXEL_LOG2 => Precision::F64,
        Precision::Auto | Precision::Perturbation if pixel >= PERTURBATION_PIXEL_LOG2 => {
            Precision::Perturbation
        }
        Precision::Auto | Precision::Perturbation => Precision::Extended,
        p => p,
    }
}

/// Whether a precision is one of the perturbation paths.
pub fn is_deep(p: Precision) -> bool {
    matches!(p, Precision::Perturbation | Precision::Extended)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(span: &str) -> Precision {
        let loc = DeepLocation::parse("-0.75,0.1", span).expect("location");
        choose_precision(Precision::Auto, &loc, 1000)
    }

    #[test]
    fn goes_deeper_step_by_step() {
        assert_eq!(at("3"), Precision::F32);
        assert_eq!(at("1e-6"), Precision::F64);
        assert_eq!(at("1e-9"), Precision::F64);
        assert_eq!(at("1e-12"), Precision::Perturbation);
        assert_eq!(at("1e-250"), Precision::Perturbation);
        assert_eq!(at("1e-285"), Precision::Perturbation);
        assert_eq!(at("1e-290"), Precision::Extended);
        assert_eq!(at("1e-1000"), Precision::Extended);
        let deep = DeepLocation::parse("0,0", "1e-300").expect("location");
        assert_eq!(
            choose_precision(Precision::Perturbation, &deep, 10),
            Precision::Extended
        );
        assert_eq!(choose_precision(Precision::F64, &deep, 10), Precision::F64);
        assert!(is_deep(Precision::Extended) && !is_deep(Precision::Auto));
    }

    #[test]
    fn agrees_with_the_view_on_f32_and_f64() {
        use crate::mandelbrot::View;
        for span in [3.0, 0.01, 1e-4, 1e-5, 1e-7, 1e-9] {
            let view = View {
                span,
                ..View::default()
            };
            let loc = DeepLocation::from_view(&view).expect("finite");
            assert_eq!(
                choose_precision(Precision::Auto, &loc, view.width),
                view.resolve_precision(Precision::Auto),
                "{span}"
            );
        }
    }
}
