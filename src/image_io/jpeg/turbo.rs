//! The one FFI file of JPEG decoding: a TurboJPEG 3 decompressor (libjpeg-turbo, built
//! from source and linked statically by `turbojpeg-sys`) behind a safe handle.

use std::ffi::CStr;
use turbojpeg_sys as tj;

/// Why libjpeg-turbo refused: its own one-line message.
#[derive(Debug, thiserror::Error)]
pub enum TurboError {
    #[error("cannot start the JPEG decoder")]
    Init,
    #[error("{0}")]
    Library(String),
    #[error("{0} does not fit the decoder's integer types")]
    TooBig(&'static str),
    #[error("output buffer of {got} samples, {want} needed")]
    OutputSize { got: usize, want: u64 },
}

/// The colour space of the components as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JpegColour {
    Grey,
    YCbCr,
    /// Adobe transform 0 with three components: RGB stored as is.
    Rgb,
    Cmyk,
    /// Adobe transform 2 with four components.
    Ycck,
}

/// What the frame header declares.
#[derive(Debug, Clone, Copy)]
pub struct JpegHeader {
    pub width: u32,
    pub height: u32,
    /// Bits per sample: 8 or 12 (lossy), 2 to 16 (lossless).
    pub precision: u8,
    pub colour: JpegColour,
    pub progressive: bool,
    pub arithmetic: bool,
    pub lossless: bool,
}

/// Output layouts: libjpeg-turbo's packed pixel formats we ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PixelLayout {
    Grey,
    Rgb,
    Cmyk,
}

impl PixelLayout {
    pub fn channels(self) -> u8 {
        match self {
            PixelLayout::Grey => 1,
            PixelLayout::Rgb => 3,
            PixelLayout::Cmyk => 4,
        }
    }
    fn format(self) -> libc::c_int {
        let format = match self {
            PixelLayout::Grey => tj::TJPF_TJPF_GRAY,
            PixelLayout::Rgb => tj::TJPF_TJPF_RGB,
            PixelLayout::Cmyk => tj::TJPF_TJPF_CMYK,
        };
        format as libc::c_int
    }
}

/// A TurboJPEG decompression instance; destroyed on drop.
pub struct Decompressor {
    handle: tj::tjhandle,
}

/// Scans allowed in one image: real progressive files use about ten; a file of thousands
/// of tiny scans takes minutes (libjpeg-turbo's own fuzzers use the same limit).
const SCAN_LIMIT: libc::c_int = 500;

/// libjpeg-turbo's parameters for a strict decoder.
const STRICT: [(tj::TJPARAM, libc::c_int); 3] = [
    // A warning (premature end of data, bad Huffman code, extraneous bytes) is an error.
    (tj::TJPARAM_TJPARAM_STOPONWARNING, 1),
    (tj::TJPARAM_TJPARAM_SCANLIMIT, SCAN_LIMIT),
    // Keep the ICC profile (APP2) for tj3GetICCProfile.
    (tj::TJPARAM_TJPARAM_SAVEMARKERS, 4),
];

impl Decompressor {
    /// A decompressor that stops at the first warning.
    pub fn new() -> Result<Self, TurboError> {
        // SAFETY: tj3Init has no preconditions; a null result is checked.
        let handle = unsafe { tj::tj3Init(tj::TJINIT_TJINIT_DECOMPRESS as libc::c_int) };
        if handle.is_null() {
            return Err(TurboError::Init);
        }
        let mut this = Self { handle };
        for (param, value) in STRICT {
            this.set(param, value)?;
        }
        Ok(this)
    }

    fn error(&self) -> TurboError {
        // SAFETY: the handle is live; the string is libjpeg-turbo's, NUL-terminated and
        // valid until the next call on the handle, and is copied at once.
        let text = unsafe { CStr::from_ptr(tj::tj3GetErrorStr(self.handle)) };
        TurboError::Library(text.to_string_lossy().trim().to_owned())
    }

    fn check(&self, status: libc::c_int) -> Result<(), TurboError> {
        if status == 0 {
            Ok(())
        } else {
            Err(self.error())
        }
    }

    fn set(&mut self, param: tj::TJPARAM, value: libc::c_int) -> Result<(), TurboError> {
        // SAFETY: the handle is live; unknown parameters are reported, not undefined.
        let status = unsafe { tj::tj3Set(self.handle, param as libc::c_int, value) };
        self.check(status)
    }

    fn get(&self, param: tj::TJPARAM) -> libc::c_int {
        // SAFETY: the handle is live.
        unsafe { tj::tj3Get(self.handle, param as libc::c_int) }
    }

    /// Reads the headers up to the first scan (and the ICC profile) of `jpeg`.
    pub fn read_header(&mut self, jpeg: &[u8]) -> Result<JpegHeader, TurboError> {
        // SAFETY: the pointer and length describe `jpeg`, which outlives the call.
        let status =
            unsafe { tj::tj3DecompressHeader(self.handle, jpeg.as_ptr(), jpeg.len() as _) };
        self.check(status)?;
        let colour = match self.get(tj::TJPARAM_TJPARAM_COLORSPACE) as tj::TJCS {
            tj::TJCS_TJCS_GRAY => JpegColour::Grey,
            tj::TJCS_TJCS_RGB => JpegColour::Rgb,
            tj::TJCS_TJCS_CMYK => JpegColour::Cmyk,
            tj::TJCS_TJCS_YCCK => JpegColour::Ycck,
            _ => JpegColour::YCbCr,
        };
        let side = |param| u32::try_from(self.get(param)).map_err(|_| TurboError::TooBig("size"));
        Ok(JpegHeader {
            width: side(tj::TJPARAM_TJPARAM_JPEGWIDTH)?,
            height: side(tj::TJPARAM_TJPARAM_JPEGHEIGHT)?,
            precision: u8::try_from(self.get(tj::TJPARAM_TJPARAM_PRECISION)).unwrap_or(0),
            colour,
            progressive: self.get(tj::TJPARAM_TJPARAM_PROGRESSIVE) != 0,
            arithmetic: self.get(tj::TJPARAM_TJPARAM_ARITHMETIC) != 0,
            lossless: self.get(tj::TJPARAM_TJPARAM_LOSSLESS) != 0,
        })
    }

    /// The ICC profile [`Self::read_header`] found, if any (libjpeg-turbo reports "none" as
    /// an error; metadata never refuses an image, so any failure is none).
    pub fn icc_profile(&mut self) -> Option<Vec<u8>> {
        let mut buf: *mut libc::c_uchar = std::ptr::null_mut();
        let mut size: tj::size_t = 0;
        // SAFETY: both out-pointers point at live locals.
        let status = unsafe { tj::tj3GetICCProfile(self.handle, &mut buf, &mut size) };
        if status != 0 || buf.is_null() {
            return None;
        }
        // SAFETY: libjpeg-turbo allocated `size` bytes at `buf`; they are copied, then
        // freed with its own allocator once.
        let profile = unsafe {
            let bytes = std::slice::from_raw_parts(buf, size as usize).to_vec();
            tj::tj3Free(buf.cast());
            bytes
        };
        Some(profile)
    }

    /// Rows of `width` pixels of `layout` as an `int` pitch for libjpeg-turbo.
    fn pitch(width: u32, layout: PixelLayout) -> Result<libc::c_int, TurboError> {
        let samples = u64::from(width) * u64::from(layout.channels());
        libc::c_int::try_from(samples).map_err(|_| TurboError::TooBig("row"))
    }

    /// Decodes a JPEG of 2 to 8 bits a sample into `out` (`width × height × channels`).
    pub fn decompress8(
        &mut self,
        jpeg: &[u8],
        header: &JpegHeader,
        layout: PixelLayout,
        out: &mut [u8],
    ) -> Result<(), TurboError> {
        let pitch = Self::pitch(header.width, layout)?;
        Self::check_len(out.len(), header, layout)?;
        // SAFETY: `out` holds height rows of `pitch` samples (checked above); the input
        // pointer and length describe `jpeg`.
        let status = unsafe {
            tj::tj3Decompress8(
                self.handle,
                jpeg.as_ptr(),
                jpeg.len() as _,
                out.as_mut_ptr(),
                pitch,
                layout.format(),
            )
        };
        self.check(status)
    }

    /// Decodes a JPEG of 9 to 16 bits a sample into `out`, values as stored
    /// (`0 ..= 2^precision − 1`).
    pub fn decompress16(
        &mut self,
        jpeg: &[u8],
        header: &JpegHeader,
        layout: PixelLayout,
        out: &mut [u16],
    ) -> Result<(), TurboError> {
        let pitch = Self::pitch(header.width, layout)?;
        Self::check_len(out.len(), header, layout)?;
        let (data, len, dst) = (jpeg.as_ptr(), jpeg.len() as _, out.as_mut_ptr());
        let format = layout.format();
        // SAFETY: as in decompress8. tj3Decompress12 writes `short`s of 0..=4095, which
        // have the size, alignment and (being non-negative) the value of the `u16`s.
        let status = unsafe {
            if header.precision <= 12 {
                tj::tj3Decompress12(self.handle, data, len, dst.cast(), pitch, format)
            } else {
                tj::tj3Decompress16(self.handle, data, len, dst, pitch, format)
            }
        };
        self.check(status)
    }

    fn check_len(len: usize, header: &JpegHeader, layout: PixelLayout) -> Result<(), TurboError> {
        let want =
            u64::from(header.width) * u64::from(header.height) * u64::from(layout.channels());
        if len as u64 == want {
            Ok(())
        } else {
            Err(TurboError::OutputSize { got: len, want })
        }
    }
}

impl Drop for Decompressor {
    fn drop(&mut self) {
        // SAFETY: the handle came from tj3Init and is destroyed once.
        unsafe { tj::tj3Destroy(self.handle) };
    }
}
