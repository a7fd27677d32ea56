//! Transpose in every sample type: `out(x, y) = in(y, x)`, every channel (alpha moves with
//! its pixel); exact.

use crate::pixels::{ImageBuf, Sample};

/// The H×W transpose of a W×H image.
pub fn transpose_typed<T: Sample>(image: &ImageBuf<T>) -> ImageBuf<T> {
    let (w, h, c) = (image.width(), image.height(), image.channels());
    ImageBuf::from_fn(h, w, c, |x, y, ch| image.pixel(y, x)[usize::from(ch)])
        .unwrap_or_else(|_| unreachable!("the transposed size holds as many samples"))
}
