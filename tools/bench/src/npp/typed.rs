//! The typed peers (`cudalens-bench --peers --type u16|f32`): NPP's 16u and 32f C4R calls
//! beside cudalens's typed kernels on RGBA images of 16-bit or float samples (cudalens's
//! `u16x4` and `f32x4` layouts), and how each output is judged against cudalens's typed
//! CPU reference ([`rule`], [`check_typed`]).
//!
//! One constructor per operation, generic over the sample type ([`NppSample`]): the copy,
//! the box filter, the Gaussian with cudalens's weights, the median and (32f only) the
//! Sobel passes, all with the replicate border (cudalens's clamp-to-edge). NPP filters
//! alpha too, which cudalens keeps: the filters compare R, G and B.

use super::error::check_named;
use super::ffi::{NppSample, NppiPoint, NppiSize, BORDER_REPLICATE};
use super::peers::{
    entry, origin, scratch, shared_floats, Compare, Peer, PeerOutput, ReadFn, RunFn,
    MEDIAN_PEER_MAX_RADIUS,
};
use super::{Npp, NppError, NppImage};
use cudalens::cuda::CudaError;
use cudalens::pipeline::GpuPixelFormat;
use cudalens::pixels::{PixelImage, Sample, SampleType};
use cudarc::driver::DevicePtr;

/// The relative tolerance of float samples (cudalens's typed tests use the same).
pub const FLOAT_RELATIVE: f64 = 1e-5;
/// The absolute floor of the float tolerance, for references near 0 (as cudalens's typed
/// tests: `max(1e-5 · |reference|, 1e-6)`).
pub const FLOAT_FLOOR: f64 = 1e-6;

/// The operations with a typed peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypedOp {
    /// The no-filter frame's copy.
    Copy,
    Box,
    Gaussian,
    Median,
    /// 32f only: NPP has no 16u Sobel.
    Sobel,
}

/// How close a typed peer's output must come to cudalens's typed CPU reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    /// Integer samples within this many levels: a pass or a fail.
    Levels(u32),
    /// Float samples within `max(r · |reference|, FLOAT_FLOOR)`: a pass or a fail.
    Relative(f64),
    /// The same operation, but NPP's documentation does not say how it rounds: the largest
    /// difference is reported, not judged. The text says why.
    Measured(&'static str),
}

impl Tolerance {
    /// For the table and the JSON: "exact", "≤ 1 level", "relative 1e-5", "measured".
    pub fn describe(self) -> String {
        match self {
            Tolerance::Levels(0) => "exact".into(),
            Tolerance::Levels(1) => "≤ 1 level".into(),
            Tolerance::Levels(n) => format!("≤ {n} levels"),
            Tolerance::Relative(r) => format!("relative {r:e}"),
            Tolerance::Measured(_) => "measured".into(),
        }
    }

    /// Whether `got` passes against `want` (NaN passes only against NaN).
    fn admits(self, got: f64, want: f64) -> bool {
        let d = difference(got, want);
        match self {
            Tolerance::Levels(n) => d <= f64::from(n),
            Tolerance::Relative(r) => d <= (r * want.abs()).max(FLOAT_FLOOR),
            Tolerance::Measured(_) => true,
        }
    }
}

/// |got − want|: 0 for equal values (infinities and NaNs included), NaN where one is NaN.
fn difference(got: f64, want: f64) -> f64 {
    if got == want || (got.is_nan() && want.is_nan()) {
        0.0
    } else {
        (got - want).abs()
    }
}

/// What of a typed peer's output is compared and how closely, in `sample`. A copy and a
/// median select values, so they must be exact (floats: within the float tolerance); 16u
/// box and Gaussian results are rounded by a rule NPP does not state (no rounding-mode
/// argument), so their difference is measured only; in 32f there is nothing to round.
pub fn rule(op: TypedOp, sample: SampleType) -> (Compare, Tolerance) {
    let float = Tolerance::Relative(FLOAT_RELATIVE);
    let selection = if sample == SampleType::F32 {
        float
    } else {
        Tolerance::Levels(0)
    };
    let rounded = |why| {
        if sample == SampleType::F32 {
            float
        } else {
            Tolerance::Measured(why)
        }
    };
    match op {
        TypedOp::Copy => (Compare::Rgba, selection),
        TypedOp::Median => (Compare::Rgb, selection),
        TypedOp::Box => (
            Compare::Rgb,
            rounded("NPP does not document how nppiFilterBoxBorder_16u rounds the mean"),
        ),
        TypedOp::Gaussian => (
            Compare::Rgb,
            rounded("NPP does not document how nppiFilterGaussAdvancedBorder_16u rounds"),
        ),
        TypedOp::Sobel => (
            Compare::Different("per-channel derivatives, no luma magnitude"),
            Tolerance::Measured("a different operation"),
        ),
    }
}

/// A typed peer's output against the reference over the compared channels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TypedCheck {
    /// The largest absolute difference (in levels for 16-bit samples); infinite where one
    /// side is NaN.
    pub max_difference: f64,
    /// Every sample within the tolerance; `None` where it is only measured.
    pub pass: Option<bool>,
}

/// `output` against `reference` (both RGBA of one sample type and size) over what
/// `compare` says is the same operation; `None` for a different operation or mismatched
/// images.
pub fn check_typed(
    output: &PixelImage,
    reference: &PixelImage,
    compare: Compare,
    tolerance: Tolerance,
) -> Option<TypedCheck> {
    let channels = match compare {
        Compare::Rgb => 3,
        Compare::Rgba => 4,
        Compare::HistogramRgb | Compare::Different(_) => return None,
    };
    if output.dimensions() != reference.dimensions()
        || output.channels() != 4
        || reference.channels() != 4
    {
        return None;
    }
    let (max_difference, within) = match (output, reference) {
        (PixelImage::U16(a), PixelImage::U16(b)) => {
            fold_samples(a.as_slice(), b.as_slice(), channels, tolerance)
        }
        (PixelImage::F32(a), PixelImage::F32(b)) => {
            fold_samples(a.as_slice(), b.as_slice(), channels, tolerance)
        }
        _ => return None,
    };
    let pass = match tolerance {
        Tolerance::Measured(_) => None,
        _ => Some(within),
    };
    Some(TypedCheck {
        max_difference,
        pass,
    })
}

/// The largest difference over the first `channels` of each 4-sample pixel, and whether
/// every sample is within `tolerance`.
fn fold_samples<T: Sample>(
    got: &[T],
    want: &[T],
    channels: usize,
    tolerance: Tolerance,
) -> (f64, bool) {
    got.chunks_exact(4)
        .zip(want.chunks_exact(4))
        .flat_map(|(p, q)| p.iter().zip(q).take(channels))
        .fold((0.0_f64, true), |(max, ok), (g, w)| {
            let (g, w) = (g.to_f64(), w.to_f64());
            let d = difference(g, w);
            let d = if d.is_nan() { f64::INFINITY } else { d };
            (max.max(d), ok && tolerance.admits(g, w))
        })
}

/// A typed peer: NPP's call(s) and how its output is judged.
pub struct TypedPeer {
    pub peer: Peer,
    pub tolerance: Tolerance,
}

/// `image` as the rows an [`NppImage`] of its pixel size takes (RGBA, native byte order).
pub fn image_rows(image: &PixelImage) -> Result<Vec<u8>, NppError> {
    GpuPixelFormat::texels(image).map_err(|e| NppError::Size {
        width: image.width(),
        height: image.height(),
        reason: e.to_string(),
    })
}

/// Bytes of one RGBA pixel of `sample`.
pub fn pixel_bytes(sample: SampleType) -> usize {
    GpuPixelFormat::stored(sample, 4).bytes_per_pixel()
}

/// Reads a destination back as RGBA of `sample`.
fn read_pixels(sample: SampleType) -> ReadFn {
    Box::new(move |npp, dst| {
        let rows = dst.download_rows(&npp.device)?;
        GpuPixelFormat::stored(sample, 4)
            .image((dst.width, dst.height), 4, &rows)
            .map(PeerOutput::Pixels)
            .map_err(|e| NppError::Size {
                width: dst.width,
                height: dst.height,
                reason: e.to_string(),
            })
    })
}

/// The peer of `op` in `S` from its label and run closure, with [`rule`]'s comparison.
fn typed_peer<S: NppSample>(op: TypedOp, label: String, run: RunFn) -> TypedPeer {
    let (compare, tolerance) = rule(op, S::SAMPLE);
    TypedPeer {
        peer: Peer::with_reader(label, compare, run, read_pixels(S::SAMPLE)),
        tolerance,
    }
}

/// Device addresses of a source and a destination of one size, both RGBA of `S`, as NPP's
/// pointer types.
fn typed_pointers<S: NppSample>(
    npp: &Npp,
    src: &NppImage,
    dst: &NppImage,
) -> Result<(*const S, *mut S), NppError> {
    let pixel = 4 * std::mem::size_of::<S>();
    if (src.width, src.height) != (dst.width, dst.height)
        || src.pixel_bytes != pixel
        || dst.pixel_bytes != pixel
    {
        return Err(NppError::Size {
            width: dst.width,
            height: dst.height,
            reason: format!(
                "{}-byte destination for a {}×{} source of {}-byte pixels, {} C4R wants {pixel}",
                dst.pixel_bytes,
                src.width,
                src.height,
                src.pixel_bytes,
                S::NPP_NAME
            ),
        });
    }
    Ok((
        src.device_address(&npp.device) as *const S,
        dst.device_address(&npp.device) as *mut S,
    ))
}

/// The `(2R+1)²` mask and its centre.
fn square_mask(radius: u32) -> (NppiSize, NppiPoint) {
    let side = 2 * radius as i32 + 1;
    let r = radius as i32;
    (
        NppiSize {
            width: side,
            height: side,
        },
        NppiPoint { x: r, y: r },
    )
}

/// `nppiCopy_XX_C4R`: the no-filter frame's copy.
pub fn copy<S: NppSample>(npp: &Npp) -> Result<TypedPeer, NppError> {
    let call = entry(&S::functions(&npp.functions).copy)?;
    let name = format!("nppiCopy_{}_C4R_Ctx", S::NPP_NAME);
    Ok(typed_peer::<S>(
        TypedOp::Copy,
        format!("nppiCopy_{}_C4R", S::NPP_NAME),
        Box::new(move |npp, src, dst| {
            let (s, d) = typed_pointers::<S>(npp, src, dst)?;
            // SAFETY: both images are live device allocations of `src.size()` RGBA pixels
            // of `S` (checked) with the given steps, on the context's device; `call` has the
            // declaration quoted on `TypedFunctions::copy`.
            let code = unsafe { call(s, src.step(), d, dst.step(), src.size(), npp.context) };
            check_named(&name, code)
        }),
    ))
}

/// `nppiFilterBoxBorder_XX_C4R` with a `(2R+1)²` mask centred on the pixel, replicate border.
pub fn box_filter<S: NppSample>(npp: &Npp, radius: u32) -> Result<TypedPeer, NppError> {
    let call = entry(&S::functions(&npp.functions).filter_box_border)?;
    let name = format!("nppiFilterBoxBorder_{}_C4R_Ctx", S::NPP_NAME);
    let (mask, anchor) = square_mask(radius);
    Ok(typed_peer::<S>(
        TypedOp::Box,
        format!(
            "nppiFilterBoxBorder_{}_C4R {}×{}",
            S::NPP_NAME,
            mask.width,
            mask.height
        ),
        Box::new(move |npp, src, dst| {
            let (s, d) = typed_pointers::<S>(npp, src, dst)?;
            // SAFETY: as in `copy`; the source size covers the replicated border.
            let code = unsafe {
                call(
                    s,
                    src.step(),
                    src.size(),
                    origin(),
                    d,
                    dst.step(),
                    dst.size(),
                    mask,
                    anchor,
                    BORDER_REPLICATE,
                    npp.context,
                )
            };
            check_named(&name, code)
        }),
    ))
}

/// `nppiFilterGaussAdvancedBorder_XX_C4R` with the very weights cudalens uses, in memory
/// both host and device can read (as the 8u peer).
pub fn gaussian<S: NppSample>(npp: &Npp, weights: &[f32]) -> Result<TypedPeer, NppError> {
    let call = entry(&S::functions(&npp.functions).filter_gauss_advanced_border)?;
    let name = format!("nppiFilterGaussAdvancedBorder_{}_C4R_Ctx", S::NPP_NAME);
    let taps = weights.len() as i32;
    let kernel = shared_floats(npp, weights)?;
    let address = kernel
        .as_ptr()
        .map_err(CudaError::driver("cuEventSynchronize"))?;
    Ok(typed_peer::<S>(
        TypedOp::Gaussian,
        format!(
            "nppiFilterGaussAdvancedBorder_{}_C4R {taps} taps",
            S::NPP_NAME
        ),
        Box::new(move |npp, src, dst| {
            let _keep = &kernel; // the weights live as long as the peer
            let (s, d) = typed_pointers::<S>(npp, src, dst)?;
            // SAFETY: as in `copy`; `address` holds `taps` floats readable from host and
            // device (checked by `shared_floats`).
            let code = unsafe {
                call(
                    s,
                    src.step(),
                    src.size(),
                    origin(),
                    d,
                    dst.step(),
                    dst.size(),
                    taps,
                    address,
                    BORDER_REPLICATE,
                    npp.context,
                )
            };
            check_named(&name, code)
        }),
    ))
}

/// `nppiFilterMedianBorder_XX_C4R` with a `(2R+1)²` mask centred on the pixel, replicate
/// border, for a `width × height` source (its scratch buffer depends on the size). Refused
/// above the radius the 8u peer stops at: NPP 13.0's 8u call writes past its buffer there,
/// and the 16u and 32f calls have not been checked under compute-sanitizer.
pub fn median<S: NppSample>(
    npp: &Npp,
    radius: u32,
    width: u32,
    height: u32,
) -> Result<TypedPeer, NppError> {
    let (mask, anchor) = square_mask(radius);
    let label = format!(
        "nppiFilterMedianBorder_{}_C4R {}×{}",
        S::NPP_NAME,
        mask.width,
        mask.height
    );
    if radius > MEDIAN_PEER_MAX_RADIUS {
        return Err(NppError::Refused(format!(
            "{label}: NPP 13.0's 8u median writes past its buffer above 5×5; the {} call is unchecked there",
            S::NPP_NAME
        )));
    }
    let functions = S::functions(&npp.functions);
    let call = entry(&functions.filter_median_border)?;
    let buffer_size = entry(&functions.filter_median_border_buffer_size)?;
    let name = format!("nppiFilterMedianBorder_{}_C4R_Ctx", S::NPP_NAME);
    let roi = NppiSize {
        width: width as i32,
        height: height as i32,
    };
    let mut bytes: u32 = 0;
    // SAFETY: `bytes` is a valid out-pointer for the Npp32u the declaration names.
    let code = unsafe { buffer_size(roi, mask, &mut bytes, BORDER_REPLICATE, npp.context) };
    check_named(
        &format!(
            "nppiFilterMedianBorderGetBufferSize_{}_C4R_Ctx",
            S::NPP_NAME
        ),
        code,
    )?;
    let buffer = scratch(npp, bytes as usize, "cuMemAlloc(NPP median buffer)")?;
    let buffer_address = buffer.device_ptr(&npp.device.stream).0;
    Ok(typed_peer::<S>(
        TypedOp::Median,
        label,
        Box::new(move |npp, src, dst| {
            let _keep = &buffer; // the scratch lives as long as the peer
            if src.size() != roi {
                return Err(NppError::Size {
                    width: src.width,
                    height: src.height,
                    reason: format!("median peer prepared for {width}×{height}"),
                });
            }
            let (s, d) = typed_pointers::<S>(npp, src, dst)?;
            // SAFETY: as in `copy`; the scratch buffer has the size NPP asked for this ROI
            // and mask.
            let code = unsafe {
                call(
                    s,
                    src.step(),
                    src.size(),
                    origin(),
                    d,
                    dst.step(),
                    dst.size(),
                    mask,
                    anchor,
                    buffer_address as *mut u8,
                    BORDER_REPLICATE,
                    npp.context,
                )
            };
            check_named(&name, code)
        }),
    ))
}

/// `nppiFilterSobelHorizBorder` + `nppiFilterSobelVertBorder` (32f C4R, replicate): NPP has
/// no luma gradient magnitude; its two directional passes read the image twice and write
/// it twice (the second result overwrites the first), as the 8u peer.
pub fn sobel<S: NppSample>(npp: &Npp) -> Result<TypedPeer, NppError> {
    let functions = S::functions(&npp.functions);
    let passes = [
        (
            entry(&functions.filter_sobel_horiz_border)?,
            format!("nppiFilterSobelHorizBorder_{}_C4R_Ctx", S::NPP_NAME),
        ),
        (
            entry(&functions.filter_sobel_vert_border)?,
            format!("nppiFilterSobelVertBorder_{}_C4R_Ctx", S::NPP_NAME),
        ),
    ];
    Ok(typed_peer::<S>(
        TypedOp::Sobel,
        format!(
            "nppiFilterSobelHorizBorder + VertBorder_{}_C4R",
            S::NPP_NAME
        ),
        Box::new(move |npp, src, dst| {
            let (s, d) = typed_pointers::<S>(npp, src, dst)?;
            for (call, name) in &passes {
                // SAFETY: as in `copy`; the source size covers the replicated border.
                let code = unsafe {
                    call(
                        s,
                        src.step(),
                        src.size(),
                        origin(),
                        d,
                        dst.step(),
                        dst.size(),
                        BORDER_REPLICATE,
                        npp.context,
                    )
                };
                check_named(name, code)?;
            }
            Ok(())
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cudalens::pixels::ImageBuf;

    fn u16_image(samples: Vec<u16>) -> PixelImage {
        PixelImage::U16(ImageBuf::from_vec(2, 1, 4, samples).expect("size"))
    }

    fn f32_image(samples: Vec<f32>) -> PixelImage {
        PixelImage::F32(ImageBuf::from_vec(2, 1, 4, samples).expect("size"))
    }

    #[test]
    fn each_type_states_its_tolerance() {
        use SampleType::{F32, U16};
        for op in [TypedOp::Copy, TypedOp::Median] {
            assert_eq!(
                rule(op, U16).1,
                Tolerance::Levels(0),
                "{op:?} selects values"
            );
            assert_eq!(rule(op, F32).1, Tolerance::Relative(1e-5), "{op:?}");
        }
        assert_eq!(rule(TypedOp::Copy, U16).0, Compare::Rgba);
        for op in [TypedOp::Box, TypedOp::Gaussian] {
            assert_eq!(
                rule(op, U16).0,
                Compare::Rgb,
                "NPP filters alpha, cudalens keeps it"
            );
            assert!(
                matches!(rule(op, U16).1, Tolerance::Measured(_)),
                "16u rounding unknown"
            );
            assert_eq!(rule(op, F32).1, Tolerance::Relative(1e-5));
        }
        assert!(matches!(rule(TypedOp::Sobel, F32).0, Compare::Different(_)));
    }

    #[test]
    fn integers_are_judged_in_levels_and_alpha_is_left_out_of_rgb() {
        let want = u16_image(vec![10, 20, 30, 40, 50, 60, 70, 80]);
        let got = u16_image(vec![10, 21, 30, 9000, 50, 60, 70, 80]);
        let exact = Tolerance::Levels(0);
        let rgb = check_typed(&got, &want, Compare::Rgb, exact).expect("same shape");
        assert_eq!(rgb.max_difference, 1.0);
        assert_eq!(rgb.pass, Some(false));
        let within_one = check_typed(&got, &want, Compare::Rgb, Tolerance::Levels(1));
        assert_eq!(within_one.and_then(|c| c.pass), Some(true));
        let rgba = check_typed(&got, &want, Compare::Rgba, exact).expect("same shape");
        assert_eq!(rgba.max_difference, 8960.0);
        let measured = check_typed(&got, &want, Compare::Rgb, Tolerance::Measured("x"));
        assert_eq!(
            measured.map(|c| (c.max_difference, c.pass)),
            Some((1.0, None))
        );
        assert_eq!(
            check_typed(&got, &want, Compare::Different("x"), exact),
            None
        );
    }

    #[test]
    fn floats_are_judged_relative_to_the_reference() {
        let want = f32_image(vec![1.0, 0.5, 0.0, 1.0, 100.0, 0.25, 0.75, 1.0]);
        let close = f32_image(vec![1.000_005, 0.5, 5e-7, 0.0, 100.0009, 0.25, 0.75, 1.0]);
        let rel = Tolerance::Relative(FLOAT_RELATIVE);
        let c = check_typed(&close, &want, Compare::Rgb, rel).expect("same shape");
        assert_eq!(c.pass, Some(true), "{c:?}");
        let far = f32_image(vec![1.0001, 0.5, 0.0, 1.0, 100.0, 0.25, 0.75, 1.0]);
        let c = check_typed(&far, &want, Compare::Rgb, rel).expect("same shape");
        assert_eq!(c.pass, Some(false));
        assert!((c.max_difference - 1e-4).abs() < 1e-6, "{c:?}");
        let nan = f32_image(vec![f32::NAN, 0.5, 0.0, 1.0, 100.0, 0.25, 0.75, 1.0]);
        let c = check_typed(&nan, &want, Compare::Rgb, rel).expect("same shape");
        assert_eq!((c.max_difference, c.pass), (f64::INFINITY, Some(false)));
    }

    #[test]
    fn types_and_sizes_that_differ_are_not_compared() {
        let a = u16_image(vec![0; 8]);
        let b = f32_image(vec![0.0; 8]);
        assert_eq!(
            check_typed(&a, &b, Compare::Rgba, Tolerance::Levels(0)),
            None
        );
        let c = PixelImage::U16(ImageBuf::from_vec(1, 2, 4, vec![0; 8]).expect("size"));
        assert_eq!(
            check_typed(&a, &c, Compare::Rgba, Tolerance::Levels(0)),
            None
        );
    }

    #[test]
    fn rows_hold_four_samples_a_pixel_in_native_order() {
        let img = u16_image(vec![1, 2, 3, 4, 5, 6, 7, 0xABCD]);
        let rows = image_rows(&img).expect("RGBA");
        assert_eq!(rows.len(), 2 * pixel_bytes(SampleType::U16));
        assert_eq!(&rows[14..], &0xABCD_u16.to_ne_bytes());
        assert_eq!(pixel_bytes(SampleType::F32), 16);
    }
}
