//! Raw FFI for the few NPP (NVIDIA Performance Primitives, CUDA 13) entry points that the
//! benchmark runs as peers, loaded from `libnpp*.so.13` at run time: nothing links against
//! NPP, and a machine without it only loses the peer column.
//!
//! CUDA 13's NPP has only the `_Ctx` forms and no longer declares `nppGetStreamContext`,
//! so [`NppStreamContext`] is filled by the caller (`context.rs`). Every status is a C
//! `int` (`NppStatus`: 0 success, negative errors, positive warnings). Enumerations are
//! passed as `c_int`.
//!
//! The filter and copy signatures are generic over the sample type `S` of the pointers:
//! NPP declares the 8u, 16u and 32f forms alike but for `Npp8u`, `Npp16u` and `Npp32f`
//! (`u8`, `u16`, `f32`). Each alias quotes the 8u declaration; the 16u and 32f ones the
//! typed peers use are quoted in [`TypedFunctions`].

use cudalens::pixels::SampleType;
use std::ffi::{c_int, c_uint, c_void};

/// `NppiSize`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NppiSize {
    pub width: c_int,
    pub height: c_int,
}

/// `NppiPoint`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NppiPoint {
    pub x: c_int,
    pub y: c_int,
}

/// `NppStreamContext` (48 bytes; field offsets 0, 8, 12, 16, 20, 24, 32, 36, 40, 44).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct NppStreamContext {
    pub stream: *mut c_void,
    pub device_id: c_int,
    pub multiprocessor_count: c_int,
    pub max_threads_per_multiprocessor: c_int,
    pub max_threads_per_block: c_int,
    pub shared_mem_per_block: usize,
    pub compute_capability_major: c_int,
    pub compute_capability_minor: c_int,
    pub stream_flags: c_uint,
    pub reserved0: c_int,
}

const _: () = assert!(std::mem::size_of::<NppStreamContext>() == 48);
const _: () = assert!(std::mem::offset_of!(NppStreamContext, shared_mem_per_block) == 24);
const _: () = assert!(std::mem::offset_of!(NppStreamContext, stream_flags) == 40);

/// `NppLibraryVersion`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct NppLibraryVersion {
    pub major: c_int,
    pub minor: c_int,
    pub build: c_int,
}

/// `NPP_BORDER_REPLICATE`: the clamp-to-edge border of the cudalens contract.
pub const BORDER_REPLICATE: c_int = 2;

pub type GetLibVersionFn = unsafe extern "C" fn() -> *const NppLibraryVersion;

/// `nppiFilterBoxBorder_8u_C4R_Ctx(pSrc, nSrcStep, oSrcSize, oSrcOffset, pDst, nDstStep,
/// oSizeROI, oMaskSize, oAnchor, eBorderType, ctx)`.
pub type FilterBoxBorderFn<S> = unsafe extern "C" fn(
    *const S,
    c_int,
    NppiSize,
    NppiPoint,
    *mut S,
    c_int,
    NppiSize,
    NppiSize,
    NppiPoint,
    c_int,
    NppStreamContext,
) -> c_int;

/// `nppiFilterGaussAdvancedBorder_8u_C4R_Ctx(pSrc, nSrcStep, oSrcSize, oSrcOffset, pDst,
/// nDstStep, oSizeROI, nFilterTaps, pKernel, eBorderType, ctx)`.
pub type FilterGaussAdvancedBorderFn<S> = unsafe extern "C" fn(
    *const S,
    c_int,
    NppiSize,
    NppiPoint,
    *mut S,
    c_int,
    NppiSize,
    c_int,
    *const f32,
    c_int,
    NppStreamContext,
) -> c_int;

/// `nppiFilterSobelHorizBorder_8u_C4R_Ctx` and `...VertBorder...`: (pSrc, nSrcStep, oSrcSize,
/// oSrcOffset, pDst, nDstStep, oSizeROI, eBorderType, ctx).
pub type FilterSobelBorderFn<S> = unsafe extern "C" fn(
    *const S,
    c_int,
    NppiSize,
    NppiPoint,
    *mut S,
    c_int,
    NppiSize,
    c_int,
    NppStreamContext,
) -> c_int;

/// `nppiTranspose_8u_C4R_Ctx` and `nppiCopy_8u_C4R_Ctx`: (pSrc, nSrcStep, pDst, nDstStep,
/// oSrcROI, ctx).
pub type CopyLikeFn<S> =
    unsafe extern "C" fn(*const S, c_int, *mut S, c_int, NppiSize, NppStreamContext) -> c_int;

/// `nppiHistogramEvenGetBufferSize_8u_C4R_Ctx(oSizeROI, nLevels[4], hpBufferSize, ctx)`.
/// The size is a `size_t` in CUDA 12+ (an `int` before): the caller zeroes a `usize`.
pub type HistogramEvenBufferSizeFn =
    unsafe extern "C" fn(NppiSize, *mut c_int, *mut usize, NppStreamContext) -> c_int;

/// `nppiHistogramEven_8u_C4R_Ctx(pSrc, nSrcStep, oSizeROI, pHist[4], nLevels[4],
/// nLowerLevel[4], nUpperLevel[4], pBuffer, ctx)`; `pHist` is a host array of four device
/// pointers of `nLevels − 1` counts each.
pub type HistogramEvenFn = unsafe extern "C" fn(
    *const u8,
    c_int,
    NppiSize,
    *mut *mut i32,
    *mut c_int,
    *mut c_int,
    *mut c_int,
    *mut u8,
    NppStreamContext,
) -> c_int;

/// `nppiFilterMedianBorder_8u_C4R_Ctx(pSrc, nSrcStep, oSrcSize, oSrcOffset, pDst, nDstStep,
/// oSizeROI, oMaskSize, oAnchor, pBuffer, eBorderType, ctx)`.
pub type FilterMedianBorderFn<S> = unsafe extern "C" fn(
    *const S,
    c_int,
    NppiSize,
    NppiPoint,
    *mut S,
    c_int,
    NppiSize,
    NppiSize,
    NppiPoint,
    *mut u8,
    c_int,
    NppStreamContext,
) -> c_int;

/// `nppiFilterMedianBorderGetBufferSize_8u_C4R_Ctx(oSizeROI, oMaskSize, nBufferSize (Npp32u),
/// eBorderType, ctx)` (the 16u and 32f forms take the same arguments).
pub type FilterMedianBorderBufferSizeFn =
    unsafe extern "C" fn(NppiSize, NppiSize, *mut c_uint, c_int, NppStreamContext) -> c_int;

/// `nppiFilterUnsharpBorder_8u_C4R_Ctx(pSrc, nSrcStep, oSrcOffset, pDst, nDstStep, oSizeROI,
/// nRadius, nSigma, nWeight, nThreshold, eBorderType, pDeviceBuffer, ctx)`.
pub type FilterUnsharpBorderFn = unsafe extern "C" fn(
    *const u8,
    c_int,
    NppiPoint,
    *mut u8,
    c_int,
    NppiSize,
    f32,
    f32,
    f32,
    f32,
    c_int,
    *mut u8,
    NppStreamContext,
) -> c_int;

/// `nppiFilterUnsharpGetBufferSize_8u_C4R(nRadius, nSigma, hpBufferSize (int))`: no `_Ctx`
/// form.
pub type FilterUnsharpBufferSizeFn = unsafe extern "C" fn(f32, f32, *mut c_int) -> c_int;

/// `nppiLUT_8u_C4R_Ctx(pSrc, nSrcStep, pDst, nDstStep, oSizeROI, pValues[4], pLevels[4],
/// nLevels[4], ctx)`: `pValues` and `pLevels` are host arrays of four device pointers (the
/// outputs and the inputs of each channel's mapping points, no interpolation between them).
pub type LutFn = unsafe extern "C" fn(
    *const u8,
    c_int,
    *mut u8,
    c_int,
    NppiSize,
    *const *const i32,
    *const *const i32,
    *mut c_int,
    NppStreamContext,
) -> c_int;

/// `nppiNV12ToRGB_709CSC_8u_P2C3R_Ctx(pSrc[2], rSrcStep, pDst, nDstStep, oSizeROI, ctx)`:
/// the luma and chroma planes of NV12 (one row step for both) to RGB, BT.709 limited range.
pub type Nv12ToRgbFn = unsafe extern "C" fn(
    *const *const u8,
    c_int,
    *mut u8,
    c_int,
    NppiSize,
    NppStreamContext,
) -> c_int;

/// The libraries, in load order (the core first: the others need it).
pub const LIBRARIES: [&str; 5] = [
    "libnppc.so.13",
    "libnppial.so.13",
    "libnppif.so.13",
    "libnppist.so.13",
    "libnppidei.so.13",
];

/// Libraries that only some peers need (colour conversion: the LUT of the equalisation
/// peer, NV12 to RGB); loaded when present.
pub const OPTIONAL_LIBRARIES: [&str; 1] = ["libnppicc.so.13"];

/// Where the libraries are looked for when the dynamic linker's path lacks them.
pub const FALLBACK_DIRS: [&str; 3] = [
    "/usr/local/cuda/lib64",
    "/usr/local/cuda/targets/x86_64-linux/lib",
    "/usr/local/cuda-13.0/targets/x86_64-linux/lib",
];

/// The NPP entry points the peers use, with the libraries kept loaded.
pub struct NppFunctions {
    pub version: GetLibVersionFn,
    pub filter_box_border: FilterBoxBorderFn<u8>,
    pub filter_gauss_advanced_border: FilterGaussAdvancedBorderFn<u8>,
    pub filter_sobel_horiz_border: FilterSobelBorderFn<u8>,
    pub filter_sobel_vert_border: FilterSobelBorderFn<u8>,
    pub transpose: CopyLikeFn<u8>,
    pub copy: CopyLikeFn<u8>,
    pub histogram_even_buffer_size: HistogramEvenBufferSizeFn,
    pub histogram_even: HistogramEvenFn,
    /// Entry points a peer needs that older NPP builds may lack: a missing one costs that
    /// peer only (its row says which symbol), not the whole column.
    pub filter_median_border: Result<FilterMedianBorderFn<u8>, String>,
    pub filter_median_border_buffer_size: Result<FilterMedianBorderBufferSizeFn, String>,
    pub filter_unsharp_border: Result<FilterUnsharpBorderFn, String>,
    pub filter_unsharp_buffer_size: Result<FilterUnsharpBufferSizeFn, String>,
    pub lut: Result<LutFn, String>,
    pub nv12_to_rgb_709csc: Result<Nv12ToRgbFn, String>,
    /// The 16u and 32f C4R entry points of the typed peers (`--type u16|f32`).
    pub u16: TypedFunctions<u16>,
    pub f32: TypedFunctions<f32>,
    _libraries: Vec<libloading::Library>,
}

/// A sample type NPP has 4-channel entry points for, tied to the name those entry points
/// carry, so that a symbol is only ever looked up with the pointer type of its declaration.
pub trait NppSample: Copy + 'static {
    /// The type in NPP's entry point names: `16u` (`Npp16u`), `32f` (`Npp32f`).
    const NPP_NAME: &'static str;
    /// The same type among cudalens's sample types.
    const SAMPLE: SampleType;
    /// This type's entry points in `functions`.
    fn functions(functions: &NppFunctions) -> &TypedFunctions<Self>;
}

impl NppSample for u16 {
    const NPP_NAME: &'static str = "16u";
    const SAMPLE: SampleType = SampleType::U16;
    fn functions(functions: &NppFunctions) -> &TypedFunctions<Self> {
        &functions.u16
    }
}

impl NppSample for f32 {
    const NPP_NAME: &'static str = "32f";
    const SAMPLE: SampleType = SampleType::F32;
    fn functions(functions: &NppFunctions) -> &TypedFunctions<Self> {
        &functions.f32
    }
}

/// The C4R entry points of one sample type `S` (`Npp16u` or `Npp32f` for `S` = `u16`,
/// `f32`), as the CUDA 13.0 headers declare them (NPP 13.0.0, `nppi_filtering_functions.h`
/// and `nppi_data_exchange_and_initialization.h`; `XX` is `16u` or `32f`, `T` is `Npp16u`
/// or `Npp32f`). Every one is optional: a symbol this NPP lacks costs that peer only.
pub struct TypedFunctions<S> {
    /// `NppStatus nppiCopy_XX_C4R_Ctx(const T * pSrc, int nSrcStep, T * pDst, int nDstStep,
    /// NppiSize oSizeROI, NppStreamContext nppStreamCtx);`
    pub copy: Result<CopyLikeFn<S>, String>,
    /// `NppStatus nppiFilterBoxBorder_XX_C4R_Ctx(const T * pSrc, Npp32s nSrcStep, NppiSize
    /// oSrcSize, NppiPoint oSrcOffset, T * pDst, Npp32s nDstStep, NppiSize oSizeROI,
    /// NppiSize oMaskSize, NppiPoint oAnchor, NppiBorderType eBorderType, NppStreamContext
    /// nppStreamCtx);`
    pub filter_box_border: Result<FilterBoxBorderFn<S>, String>,
    /// `NppStatus nppiFilterGaussAdvancedBorder_XX_C4R_Ctx(const T * pSrc, Npp32s nSrcStep,
    /// NppiSize oSrcSize, NppiPoint oSrcOffset, T * pDst, Npp32s nDstStep, NppiSize
    /// oSizeROI, const int nFilterTaps, const Npp32f * pKernel, NppiBorderType eBorderType,
    /// NppStreamContext nppStreamCtx);`
    pub filter_gauss_advanced_border: Result<FilterGaussAdvancedBorderFn<S>, String>,
    /// `NppStatus nppiFilterMedianBorder_XX_C4R_Ctx(const T * pSrc, Npp32s nSrcStep, NppiSize
    /// oSrcSize, NppiPoint oSrcOffset, T * pDst, Npp32s nDstStep, NppiSize oSizeROI,
    /// NppiSize oMaskSize, NppiPoint oAnchor, Npp8u * pBuffer, NppiBorderType eBorderType,
    /// NppStreamContext nppStreamCtx);`
    pub filter_median_border: Result<FilterMedianBorderFn<S>, String>,
    /// `NppStatus nppiFilterMedianBorderGetBufferSize_XX_C4R_Ctx(NppiSize oSizeROI, NppiSize
    /// oMaskSize, Npp32u * nBufferSize, NppiBorderType eBorderType, NppStreamContext
    /// nppStreamCtx);`
    pub filter_median_border_buffer_size: Result<FilterMedianBorderBufferSizeFn, String>,
    /// `NppStatus nppiFilterSobelHorizBorder_32f_C4R_Ctx(const Npp32f * pSrc, Npp32s
    /// nSrcStep, NppiSize oSrcSize, NppiPoint oSrcOffset, Npp32f * pDst, Npp32s nDstStep,
    /// NppiSize oSizeROI, NppiBorderType eBorderType, NppStreamContext nppStreamCtx);` and
    /// `...VertBorder...` alike. 32f only: NPP declares no 16u Sobel (8u, 16s and 32f).
    pub filter_sobel_horiz_border: Result<FilterSobelBorderFn<S>, String>,
    pub filter_sobel_vert_border: Result<FilterSobelBorderFn<S>, String>,
}

/// The typed entry points of `S` in `l`, each `Err` (naming the symbol) where missing.
fn load_typed<S: NppSample>(l: &[libloading::Library]) -> TypedFunctions<S> {
    let name = |call: &str| format!("nppi{call}_{}_C4R_Ctx", S::NPP_NAME);
    let sobel = |direction: &str| match S::NPP_NAME {
        "32f" => {
            // SAFETY: the 32f Sobel declarations quoted on `TypedFunctions`, with `S` = f32.
            unsafe { symbol(l, &name(&format!("FilterSobel{direction}Border"))) }
        }
        other => Err(format!(
            "NPP has no {other} Sobel (its Sobel takes 8u, 16s and 32f)"
        )),
    };
    // SAFETY: every alias is the declaration quoted on `TypedFunctions` for the name built
    // from `S::NPP_NAME`, which `NppSample` ties to the pointer type `S`.
    unsafe {
        TypedFunctions {
            copy: symbol(l, &name("Copy")),
            filter_box_border: symbol(l, &name("FilterBoxBorder")),
            filter_gauss_advanced_border: symbol(l, &name("FilterGaussAdvancedBorder")),
            filter_median_border: symbol(l, &name("FilterMedianBorder")),
            filter_median_border_buffer_size: symbol(l, &name("FilterMedianBorderGetBufferSize")),
            filter_sobel_horiz_border: sobel("Horiz"),
            filter_sobel_vert_border: sobel("Vert"),
        }
    }
}

fn open(name: &str) -> Result<libloading::Library, String> {
    let mut tried = Vec::new();
    let candidates = std::iter::once(name.to_string()).chain(
        std::env::var("CUDA_PATH")
            .ok()
            .map(|root| format!("{root}/lib64/{name}"))
            .into_iter()
            .chain(FALLBACK_DIRS.iter().map(|d| format!("{d}/{name}"))),
    );
    for candidate in candidates {
        // SAFETY: NPP's libraries run no initialisers that need anything from us.
        match unsafe { libloading::Library::new(&candidate) } {
            Ok(lib) => return Ok(lib),
            Err(e) => tried.push(format!("{candidate}: {e}")),
        }
    }
    Err(format!("{name} not found ({})", tried.join("; ")))
}

/// Looks `name` up in the loaded libraries, with the type the caller names.
///
/// # Safety
/// `T` must be the function-pointer type of the C declaration of `name`.
unsafe fn symbol<T: Copy>(libraries: &[libloading::Library], name: &str) -> Result<T, String> {
    let c_name = format!("{name}\0");
    for lib in libraries {
        // SAFETY: the caller guarantees that `T` matches the symbol's declaration.
        if let Ok(f) = unsafe { lib.get::<T>(c_name.as_bytes()) } {
            return Ok(*f);
        }
    }
    Err(format!("symbol {name} not found in NPP"))
}

/// Loads the five libraries (and the optional ones present) and resolves the entry points.
pub fn load() -> Result<NppFunctions, String> {
    let mut libraries = LIBRARIES
        .iter()
        .map(|name| open(name))
        .collect::<Result<Vec<_>, _>>()?;
    libraries.extend(OPTIONAL_LIBRARIES.iter().filter_map(|name| open(name).ok()));
    let l = &libraries;
    // SAFETY: each type alias above transcribes the CUDA 13 `nppi_*.h` declaration of the
    // symbol it is used with.
    unsafe {
        Ok(NppFunctions {
            version: symbol(l, "nppGetLibVersion")?,
            filter_box_border: symbol(l, "nppiFilterBoxBorder_8u_C4R_Ctx")?,
            filter_gauss_advanced_border: symbol(l, "nppiFilterGaussAdvancedBorder_8u_C4R_Ctx")?,
            filter_sobel_horiz_border: symbol(l, "nppiFilterSobelHorizBorder_8u_C4R_Ctx")?,
            filter_sobel_vert_border: symbol(l, "nppiFilterSobelVertBorder_8u_C4R_Ctx")?,
            transpose: symbol(l, "nppiTranspose_8u_C4R_Ctx")?,
            copy: symbol(l, "nppiCopy_8u_C4R_Ctx")?,
            histogram_even_buffer_size: symbol(l, "nppiHistogramEvenGetBufferSize_8u_C4R_Ctx")?,
            histogram_even: symbol(l, "nppiHistogramEven_8u_C4R_Ctx")?,
            filter_median_border: symbol(l, "nppiFilterMedianBorder_8u_C4R_Ctx"),
            filter_median_border_buffer_size: symbol(
                l,
                "nppiFilterMedianBorderGetBufferSize_8u_C4R_Ctx",
            ),
            filter_unsharp_border: symbol(l, "nppiFilterUnsharpBorder_8u_C4R_Ctx"),
            filter_unsharp_buffer_size: symbol(l, "nppiFilterUnsharpGetBufferSize_8u_C4R"),
            lut: symbol(l, "nppiLUT_8u_C4R_Ctx"),
            nv12_to_rgb_709csc: symbol(l, "nppiNV12ToRGB_709CSC_8u_P2C3R_Ctx"),
            u16: load_typed(l),
            f32: load_typed(l),
            _libraries: libraries,
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_machine_without_npp_gets_a_reason_not_a_crash() {
        // Where NPP is installed this loads it; elsewhere the error names the library.
        match super::load() {
            Err(reason) => assert!(reason.contains("libnpp"), "{reason}"),
            // CUDA 13's NPP has every peer's entry point.
            Ok(f) => {
                assert!(f.filter_median_border.is_ok());
                assert!(f.filter_median_border_buffer_size.is_ok());
                assert!(f.filter_unsharp_border.is_ok());
                assert!(f.filter_unsharp_buffer_size.is_ok());
                assert!(f.lut.is_ok());
                assert!(f.nv12_to_rgb_709csc.is_ok());
                // The typed peers' entry points, both types (Sobel in 32f only).
                for ok in [
                    f.u16.copy.is_ok(),
                    f.u16.filter_box_border.is_ok(),
                    f.u16.filter_gauss_advanced_border.is_ok(),
                    f.u16.filter_median_border.is_ok(),
                    f.u16.filter_median_border_buffer_size.is_ok(),
                    f.f32.copy.is_ok(),
                    f.f32.filter_box_border.is_ok(),
                    f.f32.filter_gauss_advanced_border.is_ok(),
                    f.f32.filter_median_border.is_ok(),
                    f.f32.filter_median_border_buffer_size.is_ok(),
                    f.f32.filter_sobel_horiz_border.is_ok(),
                    f.f32.filter_sobel_vert_border.is_ok(),
                ] {
                    assert!(ok);
                }
                assert!(f.u16.filter_sobel_horiz_border.is_err());
            }
        }
    }

    #[test]
    fn a_missing_symbol_is_a_reason_naming_it() {
        // No library loaded: every look-up fails with the symbol's name, not a crash.
        // SAFETY: nothing is resolved, so the type is never called.
        let missing =
            unsafe { super::symbol::<super::CopyLikeFn<u16>>(&[], "nppiCopy_16u_C4R_Ctx") };
        assert_eq!(
            missing.err().as_deref(),
            Some("symbol nppiCopy_16u_C4R_Ctx not found in NPP")
        );
        let typed = super::load_typed::<f32>(&[]);
        assert!(
            matches!(&typed.filter_median_border, Err(e) if e.contains("nppiFilterMedianBorder_32f_C4R_Ctx"))
        );
        assert!(
            matches!(&typed.filter_sobel_vert_border, Err(e) if e.contains("nppiFilterSobelVertBorder_32f_C4R_Ctx"))
        );
        let typed = super::load_typed::<u16>(&[]);
        assert!(
            matches!(&typed.filter_box_border, Err(e) if e.contains("nppiFilterBoxBorder_16u_C4R_Ctx"))
        );
        assert!(matches!(&typed.filter_sobel_horiz_border, Err(e) if e.contains("no 16u Sobel")));
    }

    #[test]
    fn the_unsharp_buffer_size_is_asked_on_the_host() {
        // Where NPP is installed: the only peer call that needs no device, through the
        // declared signature.
        let Ok(f) = super::load() else { return };
        let size = f.filter_unsharp_buffer_size.expect("CUDA 13 NPP");
        let mut bytes = -1;
        // SAFETY: `bytes` is a valid out-pointer for an int.
        let code = unsafe { size(6.0, 2.0, &mut bytes) };
        assert_eq!(code, 0);
        assert!(bytes >= 0, "{bytes}");
    }
}
