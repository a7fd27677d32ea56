//! NPP's nearest equivalent of each cudalens operation, as data: a [`Peer`] is a label,
//! what of its output equals the cudalens CPU reference ([`Compare`]), and two closures
//! (run on a source image into a destination; read the output back). One constructor per
//! operation; each filter descriptor names its own (`FilterDef::peer`), and the frame's
//! copy and histogram have theirs.

use super::ffi::{NppiPoint, NppiSize, BORDER_REPLICATE};
use super::{check, Npp, NppError, NppImage};
use cudalens::cuda::{check as check_cuda, CudaError};
use cudalens::ops::cpu::equalize_lut;
use cudalens::ops::HISTOGRAM_BINS;
use cudalens::pixels::PixelImage;
use cudarc::driver::sys::{self, CUdeviceptr, CU_MEMHOSTALLOC_DEVICEMAP, CU_MEMHOSTALLOC_PORTABLE};
use cudarc::driver::{CudaSlice, DevicePtr, PinnedHostSlice};
use image::RgbaImage;

/// What of a peer's output is the same operation as cudalens's, so it can be checked
/// against the cudalens CPU reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    /// R, G and B (NPP filters alpha too; cudalens passes it through).
    Rgb,
    /// All four channels.
    Rgba,
    /// The R, G and B histograms (NPP's fourth counts alpha, cudalens's luma).
    HistogramRgb,
    /// A different operation, timed for scale only; the text says how it differs.
    Different(&'static str),
}

/// A peer's result, read back to the host.
#[derive(Debug, Clone, PartialEq)]
pub enum PeerOutput {
    Image(RgbaImage),
    /// 4 × 256 counts, channel-major (the cudalens bin layout).
    Histogram(Vec<u32>),
    /// An image of 16-bit or float samples (the typed peers, `npp::typed`).
    Pixels(PixelImage),
}

pub(super) type RunFn = Box<dyn Fn(&Npp, &NppImage, &mut NppImage) -> Result<(), NppError>>;
pub(super) type ReadFn = Box<dyn Fn(&Npp, &NppImage) -> Result<PeerOutput, NppError>>;

/// NPP's nearest equivalent of one cudalens operation on one image size.
pub struct Peer {
    /// The NPP call(s) and parameters, for the table.
    pub label: String,
    pub compare: Compare,
    /// The destination is `height × width` (transpose).
    pub transposes: bool,
    run: RunFn,
    read: ReadFn,
}

impl Peer {
    /// Queues the NPP call(s) on the device's stream: `src` into `dst`.
    pub fn run(&self, npp: &Npp, src: &NppImage, dst: &mut NppImage) -> Result<(), NppError> {
        (self.run)(npp, src, dst)
    }

    /// The result of the last run (waits for the stream).
    pub fn output(&self, npp: &Npp, dst: &NppImage) -> Result<PeerOutput, NppError> {
        (self.read)(npp, dst)
    }

    fn image(label: String, compare: Compare, run: RunFn) -> Self {
        Self::with_reader(
            label,
            compare,
            run,
            Box::new(|npp, dst| Ok(PeerOutput::Image(dst.download(&npp.device)?))),
        )
    }

    /// A peer whose output `read` reads back (the typed peers read typed pixels).
    pub(super) fn with_reader(label: String, compare: Compare, run: RunFn, read: ReadFn) -> Self {
        Self {
            label,
            compare,
            transposes: false,
            run,
            read,
        }
    }
}

pub(super) fn origin() -> NppiPoint {
    NppiPoint { x: 0, y: 0 }
}

/// Device addresses as NPP's pointer types.
fn pointers(npp: &Npp, src: &NppImage, dst: &NppImage) -> (*const u8, *mut u8) {
    (
        src.device_address(&npp.device) as *const u8,
        dst.device_address(&npp.device) as *mut u8,
    )
}

/// [`pointers`] of a source and a destination of the same size.
fn same_size_pointers(
    npp: &Npp,
    src: &NppImage,
    dst: &NppImage,
) -> Result<(*const u8, *mut u8), NppError> {
    if (src.width, src.height) == (dst.width, dst.height) {
        Ok(pointers(npp, src, dst))
    } else {
        Err(NppError::Size {
            width: dst.width,
            height: dst.height,
            reason: format!("destination for a {}×{} source", src.width, src.height),
        })
    }
}

/// `nppiCopy_8u_C4R`: the no-filter frame's copy.
pub fn copy() -> Peer {
    Peer::image(
        "nppiCopy_8u_C4R".into(),
        Compare::Rgba,
        Box::new(|npp, src, dst| {
            let (s, d) = same_size_pointers(npp, src, dst)?;
            // SAFETY: both images are live device allocations of `src.size()` pixels with
            // the given steps, on the context's device.
            let code = unsafe {
                (npp.functions.copy)(s, src.step(), d, dst.step(), src.size(), npp.context)
            };
            check("nppiCopy_8u_C4R_Ctx", code)
        }),
    )
}

/// `nppiFilterSobelHorizBorder` + `nppiFilterSobelVertBorder` (8u C4R, replicate): NPP has
/// no luma gradient magnitude; its two directional passes read the image twice and write
/// it twice (the second result overwrites the first).
pub fn sobel() -> Peer {
    Peer::image(
        "nppiFilterSobelHorizBorder + VertBorder_8u_C4R".into(),
        Compare::Different("per-channel derivatives, no luma magnitude"),
        Box::new(|npp, src, dst| {
            let (s, d) = same_size_pointers(npp, src, dst)?;
            let f = &npp.functions;
            for (call, name) in [
                (
                    f.filter_sobel_horiz_border,
                    "nppiFilterSobelHorizBorder_8u_C4R_Ctx",
                ),
                (
                    f.filter_sobel_vert_border,
                    "nppiFilterSobelVertBorder_8u_C4R_Ctx",
                ),
            ] {
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
                check(name, code)?;
            }
            Ok(())
        }),
    )
}

/// `nppiFilterBoxBorder_8u_C4R` with a `(2R+1)²` mask centred on the pixel, replicate border.
pub fn box_filter(radius: u32) -> Peer {
    let side = 2 * radius as i32 + 1;
    Peer::image(
        format!("nppiFilterBoxBorder_8u_C4R {side}×{side}"),
        Compare::Rgb,
        Box::new(move |npp, src, dst| {
            let (s, d) = same_size_pointers(npp, src, dst)?;
            let mask = NppiSize {
                width: side,
                height: side,
            };
            let anchor = NppiPoint {
                x: radius as i32,
                y: radius as i32,
            };
            // SAFETY: as in `copy`.
            let code = unsafe {
                (npp.functions.filter_box_border)(
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
            check("nppiFilterBoxBorder_8u_C4R_Ctx", code)
        }),
    )
}

/// Page-locked host memory mapped into the device's address space at the same address, so
/// that NPP may read it from either side. Fails cleanly where the addresses differ.
pub(super) fn shared_floats(npp: &Npp, values: &[f32]) -> Result<PinnedHostSlice<f32>, NppError> {
    // SAFETY: the memory is written below before anything reads it.
    let mut pinned = unsafe {
        npp.device.ctx.alloc_pinned_with_flags::<f32>(
            values.len(),
            CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE,
        )
    }
    .map_err(CudaError::driver("cuMemHostAlloc"))?;
    pinned
        .as_mut_slice()
        .map_err(CudaError::driver("cuEventSynchronize"))?
        .copy_from_slice(values);
    let host = pinned
        .as_mut_ptr()
        .map_err(CudaError::driver("cuEventSynchronize"))?;
    let mut device: CUdeviceptr = 0;
    // SAFETY: `host` was allocated by cuMemHostAlloc with DEVICEMAP in this context.
    check_cuda("cuMemHostGetDevicePointer", unsafe {
        sys::cuMemHostGetDevicePointer_v2(&mut device, host.cast(), 0)
    })?;
    if device != host as CUdeviceptr {
        return Err(NppError::Size {
            width: values.len() as u32,
            height: 1,
            reason: "mapped host memory has a different device address (no unified addressing)"
                .into(),
        });
    }
    Ok(pinned)
}

/// `nppiFilterGaussAdvancedBorder_8u_C4R` with the very weights cudalens uses.
pub fn gaussian(npp: &Npp, weights: &[f32]) -> Result<Peer, NppError> {
    let taps = weights.len() as i32;
    let kernel = shared_floats(npp, weights)?;
    let address = kernel
        .as_ptr()
        .map_err(CudaError::driver("cuEventSynchronize"))?;
    Ok(Peer::image(
        format!("nppiFilterGaussAdvancedBorder_8u_C4R {taps} taps"),
        Compare::Rgb,
        Box::new(move |npp, src, dst| {
            let _keep = &kernel; // the weights live as long as the peer
            let (s, d) = same_size_pointers(npp, src, dst)?;
            // SAFETY: as in `copy`; `address` holds `taps` floats readable from host and
            // device (checked by `shared_floats`).
            let code = unsafe {
                (npp.functions.filter_gauss_advanced_border)(
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
            check("nppiFilterGaussAdvancedBorder_8u_C4R_Ctx", code)
        }),
    ))
}

/// `nppiTranspose_8u_C4R`: the destination is `height × width`.
pub fn transpose() -> Peer {
    let mut peer = Peer::image(
        "nppiTranspose_8u_C4R".into(),
        Compare::Rgba,
        Box::new(|npp, src, dst| {
            if (src.width, src.height) != (dst.height, dst.width) {
                return Err(NppError::Size {
                    width: dst.width,
                    height: dst.height,
                    reason: "transpose destination must be height × width".into(),
                });
            }
            let (s, d) = pointers(npp, src, dst);
            // SAFETY: as in `copy`, with `dst` of the transposed size.
            let code = unsafe {
                (npp.functions.transpose)(s, src.step(), d, dst.step(), src.size(), npp.context)
            };
            check("nppiTranspose_8u_C4R_Ctx", code)
        }),
    );
    peer.transposes = true;
    peer
}

/// The four channels' rows of a channel-major 4 × 256 `i32` device array at `base`.
fn channel_planes(base: CUdeviceptr) -> [*mut i32; 4] {
    std::array::from_fn(|c| (base + (c * HISTOGRAM_BINS * 4) as CUdeviceptr) as *mut i32)
}

/// `nppiHistogramEven_8u_C4R` with 257 levels from 0 to 256 (256 bins of width 1) per
/// channel over `width × height` sources: the bins and NPP's scratch, on the device.
struct NppHistogram {
    width: u32,
    height: u32,
    bins: CudaSlice<i32>,
    scratch: CudaSlice<u8>,
}

impl NppHistogram {
    fn new(npp: &Npp, width: u32, height: u32) -> Result<Self, NppError> {
        let roi = NppiSize {
            width: width as i32,
            height: height as i32,
        };
        let mut levels = [HISTOGRAM_BINS as i32 + 1; 4];
        let mut buffer_size: usize = 0;
        // SAFETY: `levels` holds 4 ints and `buffer_size` is a zeroed size_t-sized out-value
        // (older NPP wrote an int into its low half).
        let code = unsafe {
            (npp.functions.histogram_even_buffer_size)(
                roi,
                levels.as_mut_ptr(),
                &mut buffer_size,
                npp.context,
            )
        };
        check("nppiHistogramEvenGetBufferSize_8u_C4R_Ctx", code)?;
        let bins = npp
            .device
            .stream
            .alloc_zeros(4 * HISTOGRAM_BINS)
            .map_err(CudaError::driver("cuMemAlloc(NPP bins)"))?;
        let scratch = scratch(npp, buffer_size, "cuMemAlloc(NPP histogram buffer)")?;
        Ok(Self {
            width,
            height,
            bins,
            scratch,
        })
    }

    /// Queues the count of `src` (of the prepared size) into the bins.
    fn count(&self, npp: &Npp, src: &NppImage) -> Result<(), NppError> {
        let (width, height) = (self.width, self.height);
        if (src.width, src.height) != (width, height) {
            return Err(NppError::Size {
                width: src.width,
                height: src.height,
                reason: format!("histogram peer prepared for {width}×{height}"),
            });
        }
        let stream = &npp.device.stream;
        let mut hist = channel_planes(self.bins.device_ptr(stream).0);
        let mut levels = [HISTOGRAM_BINS as i32 + 1; 4];
        let mut lower = [0i32; 4];
        let mut upper = [HISTOGRAM_BINS as i32; 4];
        // SAFETY: `src` is a live image of the prepared size; `hist` holds 4 device pointers
        // of 256 i32 each and the scratch buffer has the size NPP asked for; both live in
        // `self`.
        let code = unsafe {
            (npp.functions.histogram_even)(
                src.device_address(&npp.device) as *const u8,
                src.step(),
                src.size(),
                hist.as_mut_ptr(),
                levels.as_mut_ptr(),
                lower.as_mut_ptr(),
                upper.as_mut_ptr(),
                self.scratch.device_ptr(stream).0 as *mut u8,
                npp.context,
            )
        };
        check("nppiHistogramEven_8u_C4R_Ctx", code)
    }

    /// The last count, 4 × 256 channel-major (waits for the stream).
    fn counts(&self, npp: &Npp) -> Result<Vec<u32>, NppError> {
        let counts = npp
            .device
            .stream
            .clone_dtoh(&self.bins)
            .map_err(CudaError::driver("cuMemcpyDtoH(NPP bins)"))?;
        Ok(counts.into_iter().map(|c| c as u32).collect())
    }
}

/// `nppiHistogramEven_8u_C4R` with 257 levels from 0 to 256 (256 bins of width 1) per
/// channel, for a `width × height` source.
pub fn histogram(npp: &Npp, width: u32, height: u32) -> Result<Peer, NppError> {
    let counter = std::rc::Rc::new(NppHistogram::new(npp, width, height)?);
    let reader = counter.clone();
    Ok(Peer {
        label: "nppiHistogramEven_8u_C4R 256 bins".into(),
        compare: Compare::HistogramRgb,
        transposes: false,
        run: Box::new(move |npp, src, _dst| counter.count(npp, src)),
        read: Box::new(move |npp, _dst| Ok(PeerOutput::Histogram(reader.counts(npp)?))),
    })
}

/// Histogram equalisation as NPP can do it: `nppiHistogramEven_8u_C4R`, the bins to the
/// host, cudalens's table per channel built there (`equalize_lut`; alpha mapped to itself),
/// then `nppiLUT_8u_C4R` with 256 mapping points a channel. The host round trip between
/// the two calls is part of the time, as it would be for a caller of NPP.
pub fn equalize(npp: &Npp, width: u32, height: u32) -> Result<Peer, NppError> {
    let lut = entry(&npp.functions.lut)?;
    let histogram = NppHistogram::new(npp, width, height)?;
    let stream = &npp.device.stream;
    let identity: Vec<i32> = (0..4).flat_map(|_| 0..HISTOGRAM_BINS as i32).collect();
    let levels = stream
        .clone_htod(&identity)
        .map_err(CudaError::driver("cuMemcpyHtoD(NPP LUT levels)"))?;
    let values = std::cell::RefCell::new(
        stream
            .clone_htod(&identity)
            .map_err(CudaError::driver("cuMemcpyHtoD(NPP LUT values)"))?,
    );
    let pixels = width * height;
    Ok(Peer::image(
        "nppiHistogramEven_8u_C4R + host LUTs + nppiLUT_8u_C4R".into(),
        Compare::Rgb,
        Box::new(move |npp, src, dst| {
            let (s, d) = same_size_pointers(npp, src, dst)?;
            histogram.count(npp, src)?;
            let counts = histogram.counts(npp)?;
            let mut table = identity.clone();
            for (c, chunk) in counts.chunks_exact(HISTOGRAM_BINS).take(3).enumerate() {
                let bins: [u32; 256] = std::array::from_fn(|v| chunk[v]);
                for (v, out) in equalize_lut(&bins, pixels).iter().enumerate() {
                    table[c * HISTOGRAM_BINS + v] = i32::from(*out);
                }
            }
            let mut values = values.borrow_mut();
            let stream = &npp.device.stream;
            stream
                .memcpy_htod(&table, &mut *values)
                .map_err(CudaError::driver("cuMemcpyHtoD(NPP LUT values)"))?;
            let value_ptrs = channel_planes(values.device_ptr(stream).0).map(|p| p.cast_const());
            let level_ptrs = channel_planes(levels.device_ptr(stream).0).map(|p| p.cast_const());
            let mut level_counts = [HISTOGRAM_BINS as i32; 4];
            // SAFETY: as in `copy`; the pointer arrays hold four device pointers of 256 i32
            // each into `values` and `levels`, which the closure keeps alive, and the host
            // copy into `values` is queued on the same stream before the call.
            let code = unsafe {
                lut(
                    s,
                    src.step(),
                    d,
                    dst.step(),
                    dst.size(),
                    value_ptrs.as_ptr(),
                    level_ptrs.as_ptr(),
                    level_counts.as_mut_ptr(),
                    npp.context,
                )
            };
            check("nppiLUT_8u_C4R_Ctx", code)
        }),
    ))
}

/// An optional entry point, or why the peer cannot run.
pub(super) fn entry<T: Copy>(f: &Result<T, String>) -> Result<T, NppError> {
    f.clone().map_err(NppError::NotFound)
}

/// Device scratch of `bytes` (at least one) that lives as long as the peer's closures.
pub(super) fn scratch(
    npp: &Npp,
    bytes: usize,
    what: &'static str,
) -> Result<CudaSlice<u8>, NppError> {
    Ok(npp
        .device
        .stream
        .alloc_zeros(bytes.max(1))
        .map_err(CudaError::driver(what))?)
}

/// The largest radius the median peer runs at. For a 15×15 mask NPP 13.0's
/// `nppiFilterMedianBorder_8u_C4R` writes megabytes past the scratch buffer of the size
/// `nppiFilterMedianBorderGetBufferSize_8u_C4R` returns (compute-sanitizer memcheck on the
/// H200), which leaves the context unusable; 3×3 and 5×5 ran clean.
pub(super) const MEDIAN_PEER_MAX_RADIUS: u32 = 2;

/// `nppiFilterMedianBorder_8u_C4R` with a `(2R+1)²` mask centred on the pixel, replicate
/// border, for a `width × height` source (its scratch buffer depends on the size). NPP also
/// filters alpha, which cudalens keeps: R, G and B are compared.
pub fn median(npp: &Npp, radius: u32, width: u32, height: u32) -> Result<Peer, NppError> {
    let side = 2 * radius as i32 + 1;
    if radius > MEDIAN_PEER_MAX_RADIUS {
        return Err(NppError::Refused(format!(
            "nppiFilterMedianBorder {side}×{side}: NPP 13.0's buffer size is too small above 5×5 (it writes past it)"
        )));
    }
    let call = entry(&npp.functions.filter_median_border)?;
    let buffer_size = entry(&npp.functions.filter_median_border_buffer_size)?;
    let mask = NppiSize {
        width: side,
        height: side,
    };
    let roi = NppiSize {
        width: width as i32,
        height: height as i32,
    };
    let mut bytes: u32 = 0;
    // SAFETY: `bytes` is a valid out-pointer for the Npp32u the declaration names.
    let code = unsafe { buffer_size(roi, mask, &mut bytes, BORDER_REPLICATE, npp.context) };
    check("nppiFilterMedianBorderGetBufferSize_8u_C4R_Ctx", code)?;
    let buffer = scratch(npp, bytes as usize, "cuMemAlloc(NPP median buffer)")?;
    let buffer_address = buffer.device_ptr(&npp.device.stream).0;
    Ok(Peer::image(
        format!("nppiFilterMedianBorder_8u_C4R {side}×{side}"),
        Compare::Rgb,
        Box::new(move |npp, src, dst| {
            let _keep = &buffer; // the scratch lives as long as the peer
            if src.size() != roi {
                return Err(NppError::Size {
                    width: src.width,
                    height: src.height,
                    reason: format!("median peer prepared for {width}×{height}"),
                });
            }
            let (s, d) = same_size_pointers(npp, src, dst)?;
            let anchor = NppiPoint {
                x: radius as i32,
                y: radius as i32,
            };
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
            check("nppiFilterMedianBorder_8u_C4R_Ctx", code)
        }),
    ))
}

/// `nppiFilterUnsharpBorder_8u_C4R` with cudalens's radius, σ and amount and threshold 0
/// (v + amount · (v − Gaussian(v)) everywhere), replicate border. NPP builds its own
/// Gaussian weights from radius and σ and filters alpha too: R, G and B are compared, and
/// the difference says how close its weights and rounding come.
pub fn unsharp(npp: &Npp, sigma: f32, radius: u32, amount: f32) -> Result<Peer, NppError> {
    let call = entry(&npp.functions.filter_unsharp_border)?;
    let buffer_size = entry(&npp.functions.filter_unsharp_buffer_size)?;
    let mut bytes: i32 = 0;
    // SAFETY: `bytes` is a valid out-pointer for the int the declaration names.
    let code = unsafe { buffer_size(radius as f32, sigma, &mut bytes) };
    check("nppiFilterUnsharpGetBufferSize_8u_C4R", code)?;
    let buffer = scratch(npp, bytes.max(0) as usize, "cuMemAlloc(NPP unsharp buffer)")?;
    let buffer_address = buffer.device_ptr(&npp.device.stream).0;
    Ok(Peer::image(
        format!("nppiFilterUnsharpBorder_8u_C4R r {radius}, σ {sigma}, weight {amount}"),
        Compare::Rgb,
        Box::new(move |npp, src, dst| {
            let _keep = &buffer; // the scratch lives as long as the peer
            let (s, d) = same_size_pointers(npp, src, dst)?;
            // SAFETY: as in `copy` (the source offset is 0, so the ROI is the whole source
            // and the border replicates its edges); the scratch buffer has the size NPP
            // asked for this radius and σ.
            let code = unsafe {
                call(
                    s,
                    src.step(),
                    origin(),
                    d,
                    dst.step(),
                    dst.size(),
                    radius as f32,
                    sigma,
                    amount,
                    0.0,
                    BORDER_REPLICATE,
                    buffer_address as *mut u8,
                    npp.context,
                )
            };
            check("nppiFilterUnsharpBorder_8u_C4R_Ctx", code)
        }),
    ))
}

/// The largest difference between a peer's output and the cudalens CPU reference over what
/// `compare` says is the same operation; `None` for a different operation or mismatched
/// shapes.
pub fn max_difference(
    output: &PeerOutput,
    reference: &PeerOutput,
    compare: Compare,
) -> Option<u32> {
    match (output, reference, compare) {
        (PeerOutput::Image(a), PeerOutput::Image(b), Compare::Rgb | Compare::Rgba)
            if a.dimensions() == b.dimensions() =>
        {
            let channels = if compare == Compare::Rgb { 3 } else { 4 };
            a.pixels()
                .zip(b.pixels())
                .flat_map(|(p, q)| (0..channels).map(move |c| p.0[c].abs_diff(q.0[c]) as u32))
                .max()
        }
        (PeerOutput::Histogram(a), PeerOutput::Histogram(b), Compare::HistogramRgb)
            if a.len() == b.len() && a.len() >= 3 * HISTOGRAM_BINS =>
        {
            a.iter()
                .zip(b)
                .take(3 * HISTOGRAM_BINS)
                .map(|(x, y)| x.abs_diff(*y))
                .max()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cudalens::ops::random_image;

    #[test]
    fn rgb_comparison_ignores_alpha_and_rgba_does_not() {
        let a = random_image(5, 4, 1);
        let mut b = a.clone();
        b.get_pixel_mut(2, 3).0[3] ^= 0x40;
        b.get_pixel_mut(1, 1).0[1] = a.get_pixel(1, 1).0[1].wrapping_add(2);
        let (a, b) = (PeerOutput::Image(a), PeerOutput::Image(b));
        assert_eq!(max_difference(&a, &b, Compare::Rgb), Some(2));
        assert_eq!(max_difference(&a, &b, Compare::Rgba), Some(0x40));
        assert_eq!(max_difference(&a, &b, Compare::Different("x")), None);
    }

    #[test]
    fn histogram_comparison_skips_the_fourth_channel() {
        let a: Vec<u32> = (0..4 * HISTOGRAM_BINS as u32).collect();
        let mut b = a.clone();
        b[4 * HISTOGRAM_BINS - 1] += 100; // alpha vs luma: not compared
        b[HISTOGRAM_BINS + 7] += 3;
        let (a, b) = (PeerOutput::Histogram(a), PeerOutput::Histogram(b));
        assert_eq!(max_difference(&a, &b, Compare::HistogramRgb), Some(3));
    }

    #[test]
    fn shapes_that_differ_are_not_compared() {
        let a = PeerOutput::Image(random_image(3, 2, 1));
        let b = PeerOutput::Image(random_image(2, 3, 1));
        assert_eq!(max_difference(&a, &b, Compare::Rgba), None);
    }
}
