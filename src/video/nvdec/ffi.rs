//! Raw FFI for NVDEC (`libnvcuvid.so.1`, shipped with NVIDIA's driver), loaded at run
//! time: the parser, the decoder, frame mapping and the context lock. The Video Codec
//! SDK's headers are not installed with the driver, so the few structs used here are
//! declared from its documented layout (x86-64 Linux: `unsigned long` is 64 bits).
//! Picture parameters (`CUVIDPICPARAMS`) pass from the parser to the decoder untouched
//! and stay opaque.

use cudarc::driver::sys::{CUcontext, CUstream};
use std::ffi::{c_int, c_uint, c_ulong, c_void};
use std::sync::OnceLock;

pub type Parser = *mut c_void;
pub type Decoder = *mut c_void;
pub type CtxLock = *mut c_void;

/// `cudaVideoCodec`.
pub const CODEC_H264: c_uint = 4;
pub const CODEC_HEVC: c_uint = 8;
pub const CODEC_VP9: c_uint = 10;
/// `cudaVideoChromaFormat_420`.
pub const CHROMA_420: c_uint = 1;
/// `cudaVideoSurfaceFormat`: 8-bit NV12, or 16-bit P016 (the value in the high bits).
pub const SURFACE_NV12: c_uint = 0;
pub const SURFACE_P016: c_uint = 1;
/// `cudaVideoDeinterlaceMode_Weave` (progressive content).
pub const DEINTERLACE_WEAVE: c_uint = 0;
/// `cudaVideoCreate_PreferCUVID`: decode on the NVDEC engines.
pub const CREATE_PREFER_CUVID: c_ulong = 4;
/// `CUvideopacketflags`.
pub const PKT_ENDOFSTREAM: c_ulong = 0x01;
pub const PKT_TIMESTAMP: c_ulong = 0x02;
/// `cuvidDecodeStatus`: done with an error, concealed or not.
pub const DECODE_STATUS_ERROR: c_int = 8;
pub const DECODE_STATUS_ERROR_CONCEALED: c_int = 9;

/// `CUVIDEOFORMAT` (64 bytes), the sequence callback's argument.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct VideoFormat {
    pub codec: c_uint,
    pub frame_rate: [c_uint; 2],
    pub progressive_sequence: u8,
    pub bit_depth_luma_minus8: u8,
    pub bit_depth_chroma_minus8: u8,
    pub min_num_decode_surfaces: u8,
    pub coded_width: c_uint,
    pub coded_height: c_uint,
    /// left, top, right, bottom.
    pub display_area: [c_int; 4],
    pub chroma_format: c_uint,
    pub bitrate: c_uint,
    pub display_aspect_ratio: [c_int; 2],
    /// Bits 0–2 video_format, bit 3 video_full_range_flag.
    pub video_signal_flags: u8,
    pub color_primaries: u8,
    pub transfer_characteristics: u8,
    pub matrix_coefficients: u8,
    pub seqhdr_data_length: c_uint,
}

/// `CUVIDPARSERDISPINFO`, the display callback's argument.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ParserDispInfo {
    pub picture_index: c_int,
    pub progressive_frame: c_int,
    pub top_field_first: c_int,
    pub repeat_first_field: c_int,
    pub timestamp: i64,
}

pub type SequenceCallback = unsafe extern "C" fn(*mut c_void, *mut VideoFormat) -> c_int;
pub type DecodeCallback = unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int;
pub type DisplayCallback = unsafe extern "C" fn(*mut c_void, *mut ParserDispInfo) -> c_int;

/// `CUVIDPARSERPARAMS`.
#[repr(C)]
pub struct ParserParams {
    pub codec: c_uint,
    pub max_num_decode_surfaces: c_uint,
    pub clock_rate: c_uint,
    pub error_threshold: c_uint,
    pub max_display_delay: c_uint,
    pub flags: c_uint,
    pub reserved1: [c_uint; 4],
    pub user_data: *mut c_void,
    pub sequence: Option<SequenceCallback>,
    pub decode: Option<DecodeCallback>,
    pub display: Option<DisplayCallback>,
    pub operating_point: Option<unsafe extern "C" fn()>,
    pub sei_message: Option<unsafe extern "C" fn()>,
    pub reserved2: [*mut c_void; 5],
    pub ext_video_info: *mut c_void,
}

/// `CUVIDSOURCEDATAPACKET`.
#[repr(C)]
pub struct SourceDataPacket {
    pub flags: c_ulong,
    pub payload_size: c_ulong,
    pub payload: *const u8,
    pub timestamp: i64,
}

/// `CUVIDDECODECREATEINFO`.
#[repr(C)]
pub struct DecodeCreateInfo {
    pub width: c_ulong,
    pub height: c_ulong,
    pub num_decode_surfaces: c_ulong,
    pub codec: c_uint,
    pub chroma_format: c_uint,
    pub creation_flags: c_ulong,
    pub bit_depth_minus8: c_ulong,
    pub intra_decode_only: c_ulong,
    pub max_width: c_ulong,
    pub max_height: c_ulong,
    pub reserved1: c_ulong,
    /// left, top, right, bottom.
    pub display_area: [i16; 4],
    pub output_format: c_uint,
    pub deinterlace_mode: c_uint,
    pub target_width: c_ulong,
    pub target_height: c_ulong,
    pub num_output_surfaces: c_ulong,
    pub ctx_lock: CtxLock,
    pub target_rect: [i16; 4],
    pub enable_histogram: c_ulong,
    pub reserved2: [c_ulong; 4],
}

/// `CUVIDRECONFIGUREDECODERINFO`: a live decoder's new stream size (at most the
/// create-time maximum), output size and surfaces.
#[repr(C)]
pub struct ReconfigureInfo {
    pub width: c_uint,
    pub height: c_uint,
    pub target_width: c_uint,
    pub target_height: c_uint,
    pub num_decode_surfaces: c_uint,
    pub reserved1: [c_uint; 12],
    /// left, top, right, bottom.
    pub display_area: [i16; 4],
    pub target_rect: [i16; 4],
    pub reserved2: [c_uint; 11],
}

/// `CUVIDPROCPARAMS`.
#[repr(C)]
pub struct ProcParams {
    pub progressive_frame: c_int,
    pub second_field: c_int,
    pub top_field_first: c_int,
    pub unpaired_field: c_int,
    pub reserved_flags: c_uint,
    pub reserved_zero: c_uint,
    pub raw_input_dptr: u64,
    pub raw_input_pitch: c_uint,
    pub raw_input_format: c_uint,
    pub raw_output_dptr: u64,
    pub raw_output_pitch: c_uint,
    pub reserved1: c_uint,
    pub output_stream: CUstream,
    pub reserved: [c_uint; 46],
    pub histogram_dptr: *mut u64,
    pub reserved2: [*mut c_void; 1],
}

/// `CUVIDDECODECAPS`: what the device decodes for a codec, chroma format and depth.
#[repr(C)]
#[derive(Default)]
pub struct DecodeCaps {
    pub codec: c_uint,
    pub chroma_format: c_uint,
    pub bit_depth_minus8: c_uint,
    pub reserved1: [c_uint; 3],
    pub is_supported: u8,
    pub num_nvdecs: u8,
    pub output_format_mask: u16,
    pub max_width: c_uint,
    pub max_height: c_uint,
    pub max_mb_count: c_uint,
    pub min_width: u16,
    pub min_height: u16,
    pub is_histogram_supported: u8,
    pub counter_bit_depth: u8,
    pub max_histogram_bins: u16,
    pub reserved3: [c_uint; 10],
}

/// `CUVIDGETDECODESTATUS`.
#[repr(C)]
pub struct DecodeStatus {
    pub status: c_int,
    pub reserved: [c_uint; 31],
    pub reserved2: [*mut c_void; 8],
}

/// The NVDEC entry points (status codes as c_int: an unknown code in a Rust enum is UB).
pub struct Nvcuvid {
    pub decoder_caps: unsafe extern "C" fn(*mut DecodeCaps) -> c_int,
    pub create_parser: unsafe extern "C" fn(*mut Parser, *mut ParserParams) -> c_int,
    pub parse: unsafe extern "C" fn(Parser, *mut SourceDataPacket) -> c_int,
    pub destroy_parser: unsafe extern "C" fn(Parser) -> c_int,
    pub create_decoder: unsafe extern "C" fn(*mut Decoder, *mut DecodeCreateInfo) -> c_int,
    pub destroy_decoder: unsafe extern "C" fn(Decoder) -> c_int,
    pub reconfigure_decoder: unsafe extern "C" fn(Decoder, *mut ReconfigureInfo) -> c_int,
    pub decode_picture: unsafe extern "C" fn(Decoder, *mut c_void) -> c_int,
    pub decode_status: unsafe extern "C" fn(Decoder, c_int, *mut DecodeStatus) -> c_int,
    pub map_frame:
        unsafe extern "C" fn(Decoder, c_int, *mut u64, *mut c_uint, *mut ProcParams) -> c_int,
    pub unmap_frame: unsafe extern "C" fn(Decoder, u64) -> c_int,
    pub ctx_lock_create: unsafe extern "C" fn(*mut CtxLock, CUcontext) -> c_int,
    pub ctx_lock_destroy: unsafe extern "C" fn(CtxLock) -> c_int,
    _lib: libloading::Library,
}

fn load() -> Result<Nvcuvid, String> {
    // SAFETY: loading NVIDIA's decode library runs no initialiser with preconditions.
    let lib = unsafe { libloading::Library::new("libnvcuvid.so.1") }.map_err(|e| e.to_string())?;
    // SAFETY: every symbol is looked up by its documented name and given the signature of
    // nvcuvid.h / cuviddec.h, with the structs declared above.
    unsafe {
        macro_rules! sym {
            ($name:literal) => {
                *lib.get(concat!($name, "\0").as_bytes())
                    .map_err(|e| format!("{}: {e}", $name))?
            };
        }
        Ok(Nvcuvid {
            decoder_caps: sym!("cuvidGetDecoderCaps"),
            create_parser: sym!("cuvidCreateVideoParser"),
            parse: sym!("cuvidParseVideoData"),
            destroy_parser: sym!("cuvidDestroyVideoParser"),
            create_decoder: sym!("cuvidCreateDecoder"),
            destroy_decoder: sym!("cuvidDestroyDecoder"),
            reconfigure_decoder: sym!("cuvidReconfigureDecoder"),
            decode_picture: sym!("cuvidDecodePicture"),
            decode_status: sym!("cuvidGetDecodeStatus"),
            map_frame: sym!("cuvidMapVideoFrame64"),
            unmap_frame: sym!("cuvidUnmapVideoFrame64"),
            ctx_lock_create: sym!("cuvidCtxLockCreate"),
            ctx_lock_destroy: sym!("cuvidCtxLockDestroy"),
            _lib: lib,
        })
    }
}

/// The loaded library, or why it cannot be loaded (kept: it is loaded once).
pub fn nvcuvid() -> Result<&'static Nvcuvid, &'static str> {
    static LIB: OnceLock<Result<Nvcuvid, String>> = OnceLock::new();
    LIB.get_or_init(load).as_ref().map_err(|e| e.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structs_have_the_sdk_sizes() {
        assert_eq!(std::mem::size_of::<VideoFormat>(), 64);
        assert_eq!(std::mem::size_of::<ParserDispInfo>(), 24);
        assert_eq!(std::mem::size_of::<ParserParams>(), 136);
        assert_eq!(std::mem::size_of::<SourceDataPacket>(), 32);
        assert_eq!(std::mem::size_of::<DecodeCreateInfo>(), 176);
        assert_eq!(std::mem::size_of::<ReconfigureInfo>(), 128);
        assert_eq!(std::mem::size_of::<ProcParams>(), 264);
        assert_eq!(std::mem::size_of::<DecodeStatus>(), 192);
        assert_eq!(std::mem::size_of::<DecodeCaps>(), 88);
    }
}
