//! Rec. 709 luma, the one definition used by Sobel and the histogram everywhere.

/// Luma `Y = 0.2126 R + 0.7152 G + 0.0722 B` in f32 from 8-bit values.
///
/// The evaluation order is fixed (`(r·0.2126 + g·0.7152) + b·0.0722`, no fused
/// multiply-add) so that the CUDA kernels (`kernels/common.cuh`) reproduce it bit for bit.
#[inline]
pub fn luma(r: u8, g: u8, b: u8) -> f32 {
    (0.2126_f32 * f32::from(r) + 0.7152_f32 * f32::from(g)) + 0.0722_f32 * f32::from(b)
}

/// The histogram bin of a pixel's luma: `round(Y)` (half away from zero), 0..=255.
#[inline]
pub fn luma_bin(r: u8, g: u8, b: u8) -> usize {
    // Y is within [0, 255] because the weights sum to 1 (within f32 rounding).
    luma(r, g, b).round().clamp(0.0, 255.0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luma_of_grey_is_the_grey_value() {
        for v in [0u8, 1, 17, 128, 254, 255] {
            assert_eq!(luma_bin(v, v, v), usize::from(v));
        }
    }

    #[test]
    fn luma_weights_follow_rec709() {
        assert!((luma(255, 0, 0) - 54.213).abs() < 1e-3);
        assert!((luma(0, 255, 0) - 182.376).abs() < 1e-3);
        assert!((luma(0, 0, 255) - 18.411).abs() < 1e-3);
    }
}
