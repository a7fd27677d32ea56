//! Videos decoded by NVDEC in the app's CUDA context: the demuxer's packets go to NVDEC's
//! parser, whose callbacks create the decoder, decode pictures and queue them in display
//! order. Where the stream's size changes the decoder is reconfigured (made again only
//! where the new size outgrows it), the pictures still waiting copied out first, and
//! frames keep the first frame's size, scaled by the decoder. A decoded frame is mapped as a view
//! ([`MappedFrame`], unmapped when dropped) and converted to RGBA8 by a kernel straight
//! into the frame's source surface: no frame passes through the host.
//!
//! Parsing runs on the caller's thread; the callbacks run inside `cuvidParseVideoData`
//! and write only the state boxed beside the parser.

mod device_frames;
mod ffi;

pub use device_frames::{DeviceFrame, FramePool};

use super::demux::{Codec, Demuxer, Packet};
use super::error::{NvdecError, VideoError};
use super::info::{VideoInfo, MAX_VIDEO_SIDE};
use super::presentation::{Presentation, Presenting};
use super::yuv::{Matrix, Yuv420, YuvFormat, YuvToRgb};
use crate::cuda::{load_function, load_module, ArrayRef, CudaDevice, CudaError, SurfaceObject};
use cudarc::driver::{
    sys, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg,
};
use std::collections::VecDeque;
use std::ffi::{c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The loaded library, or why it does not load.
fn library() -> Result<&'static ffi::Nvcuvid, NvdecError> {
    ffi::nvcuvid().map_err(NvdecError::Library)
}

/// What the device whose context is current decodes of `codec` at `depth` bits, 4:2:0.
fn decoder_caps(
    lib: &ffi::Nvcuvid,
    codec: Codec,
    depth: u8,
) -> Result<ffi::DecodeCaps, NvdecError> {
    let mut caps = ffi::DecodeCaps {
        codec: nvdec_codec(codec),
        chroma_format: ffi::CHROMA_420,
        bit_depth_minus8: u32::from(depth.saturating_sub(8)),
        ..Default::default()
    };
    // SAFETY: `caps` is initialised and a valid in/out pointer; a context is current.
    status("cuvidGetDecoderCaps", unsafe {
        (lib.decoder_caps)(&mut caps)
    })?;
    Ok(caps)
}

/// What `device` decodes, one entry per codec and depth this reader takes: "hevc 10-bit up
/// to 8192×8192", or "… no"; for `doctor`.
pub fn decoder_summary(device: &CudaDevice) -> Result<Vec<String>, NvdecError> {
    let lib = library()?;
    device.bind()?;
    let mut lines = Vec::new();
    for (codec, depth) in [
        (Codec::H264, 8),
        (Codec::Hevc, 8),
        (Codec::Hevc, 10),
        (Codec::Vp9, 8),
        (Codec::Vp9, 10),
    ] {
        let caps = decoder_caps(lib, codec, depth)?;
        let what = format!("{} {depth}-bit", codec.name());
        lines.push(if caps.is_supported == 0 {
            format!("{what} no")
        } else {
            format!("{what} up to {}×{}", caps.max_width, caps.max_height)
        });
    }
    Ok(lines)
}

fn status(call: &'static str, code: c_int) -> Result<(), CudaError> {
    if code == 0 {
        Ok(())
    } else {
        Err(CudaError::raw(call, code))
    }
}

/// What the callbacks share with the reader.
struct ParserState {
    lib: &'static ffi::Nvcuvid,
    lock: ffi::CtxLock,
    decoder: ffi::Decoder,
    /// The stream NVDEC readies mapped frames on: the one their conversion runs on.
    stream: Arc<CudaStream>,
    /// The stream's format as the last sequence callback gave it.
    format: Option<ffi::VideoFormat>,
    /// The largest coded size the decoder takes (past it, a new decoder).
    max_coded: (u32, u32),
    /// The size the decoder writes frames at (its target).
    target: (u32, u32),
    /// Frames keep their own size when the stream's size changes; else they are scaled to
    /// the first frame's size, as ffmpeg's frames are.
    native_sizes: bool,
    /// Pictures ready to show, in display order.
    ready: VecDeque<Shown>,
    /// Decoders made and reconfigured since the reader opened.
    changes: DecoderChanges,
    /// The first failure inside a callback (the parse call then fails too).
    failure: Option<NvdecError>,
}

/// How often a reader's decoder was made and reconfigured for a new stream size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecoderChanges {
    pub created: u32,
    pub reconfigured: u32,
}

/// A picture the parser readied for display.
pub(super) enum Shown {
    /// Still in the decoder's surface `picture_index`.
    Decoded(ffi::ParserDispInfo),
    /// Copied out before the decoder changed for a new stream size.
    Held(HeldFrame),
}

impl Shown {
    fn timestamp(&self) -> i64 {
        match self {
            Shown::Decoded(info) => info.timestamp,
            Shown::Held(held) => held.timestamp,
        }
    }
}

/// A frame's samples in device memory of the reader's own.
pub(super) struct HeldFrame {
    samples: SemiPlanar,
    timestamp: i64,
    buffer: CudaSlice<u8>,
}

/// Where a frame of `format` written at `target` lies once mapped at `ptr` with `pitch`.
fn samples_of(format: &ffi::VideoFormat, target: (u32, u32), ptr: u64, pitch: u32) -> SemiPlanar {
    let [_, top, _, bottom] = format.display_area;
    let depth = 8 + format.bit_depth_luma_minus8;
    SemiPlanar {
        ptr,
        pitch: pitch as usize,
        chroma_row: ((target.1 + 1) & !1) as usize,
        size: target,
        sixteen: depth > 8,
        yuv: YuvFormat {
            depth,
            matrix: Matrix::from_h273(format.matrix_coefficients, (bottom - top) as u32),
            full_range: format.video_signal_flags & 0x08 != 0,
        },
    }
}

/// The post-processing parameters that map a picture the parser showed, on `stream`.
fn proc_params(shown: &ffi::ParserDispInfo, stream: &CudaStream) -> ffi::ProcParams {
    ffi::ProcParams {
        progressive_frame: shown.progressive_frame,
        second_field: 0,
        top_field_first: shown.top_field_first,
        unpaired_field: c_int::from(shown.repeat_first_field < 0),
        reserved_flags: 0,
        reserved_zero: 0,
        raw_input_dptr: 0,
        raw_input_pitch: 0,
        raw_input_format: 0,
        raw_output_dptr: 0,
        raw_output_pitch: 0,
        reserved1: 0,
        output_stream: stream.cu_stream(),
        reserved: [0; 46],
        histogram_dptr: std::ptr::null_mut(),
        reserved2: [std::ptr::null_mut(); 1],
    }
}

impl ParserState {
    fn destroy_decoder(&mut self) {
        if !self.decoder.is_null() {
            // SAFETY: created by cuvidCreateDecoder, destroyed once; no frame is mapped
            // (mapped frames borrow the reader).
            let code = unsafe { (self.lib.destroy_decoder)(self.decoder) };
            if code != 0 {
                log::warn!("cuvidDestroyDecoder failed ({code})");
            }
            self.decoder = std::ptr::null_mut();
        }
    }

    /// Maps picture `shown` of the decoder: the samples' address and pitch.
    fn map(&self, shown: &ffi::ParserDispInfo) -> Result<(u64, u32), CudaError> {
        let mut params = proc_params(shown, &self.stream);
        let (mut ptr, mut pitch) = (0u64, 0u32);
        // SAFETY: the decoder is live and `picture_index` one of its surfaces that the
        // parser reported for display; out-pointers valid; `params` initialised.
        let code = unsafe {
            (self.lib.map_frame)(
                self.decoder,
                shown.picture_index,
                &mut ptr,
                &mut pitch,
                &mut params,
            )
        };
        status("cuvidMapVideoFrame64", code)?;
        Ok((ptr, pitch))
    }

    fn unmap(&self, ptr: u64) {
        // SAFETY: mapped by `map` on this decoder, unmapped once; work reading it was
        // waited for.
        let code = unsafe { (self.lib.unmap_frame)(self.decoder, ptr) };
        if code != 0 {
            log::warn!("cuvidUnmapVideoFrame64 failed ({code})");
        }
    }

    /// Copies the pictures waiting for display out of the decoder (of `format`), which is
    /// about to change: its surfaces do not outlive that.
    fn hold_ready(&mut self, format: &ffi::VideoFormat) -> Result<(), CudaError> {
        for i in 0..self.ready.len() {
            let Shown::Decoded(shown) = self.ready[i] else {
                continue;
            };
            let (ptr, pitch) = self.map(&shown)?;
            let samples = samples_of(format, self.target, ptr, pitch);
            let copied = self.copy_out(&samples);
            self.unmap(ptr);
            let buffer = copied?;
            let (held, _) = buffer.device_ptr(&self.stream);
            self.ready[i] = Shown::Held(HeldFrame {
                samples: SemiPlanar {
                    ptr: held,
                    ..samples
                },
                timestamp: shown.timestamp,
                buffer,
            });
        }
        Ok(())
    }

    /// A copy of mapped `samples` in memory of the reader's, the copy waited for.
    fn copy_out(&self, samples: &SemiPlanar) -> Result<CudaSlice<u8>, CudaError> {
        let bytes = samples.bytes();
        let mut buffer = self
            .stream
            .alloc_zeros::<u8>(bytes)
            .map_err(CudaError::driver("cuMemAlloc(held video frame)"))?;
        let (dst, _) = buffer.device_ptr_mut(&self.stream);
        // SAFETY: `samples` are mapped (`bytes` from `ptr`) and `dst` holds `bytes`; the
        // copy is waited for before either goes.
        crate::cuda::check("cuMemcpyDtoDAsync(held video frame)", unsafe {
            sys::cuMemcpyDtoDAsync_v2(dst, samples.ptr, bytes, self.stream.cu_stream())
        })?;
        self.stream
            .synchronize()
            .map_err(CudaError::driver("cuStreamSynchronize(held video frame)"))?;
        Ok(buffer)
    }

    /// Readies the decoder for `format`: made at the first sequence; at a new size
    /// reconfigured where it fits the decoder (else made again), the pictures still to
    /// show copied out first. The number of surfaces the parser is to use.
    fn sequence(&mut self, format: &ffi::VideoFormat) -> Result<c_int, NvdecError> {
        if format.chroma_format != ffi::CHROMA_420 {
            return Err(NvdecError::Chroma(format.chroma_format));
        }
        let depth = 8 + u32::from(format.bit_depth_luma_minus8);
        if depth > 12 {
            return Err(NvdecError::Depth(depth));
        }
        let [left, top, right, bottom] = format.display_area;
        let (w, h) = (right - left, bottom - top);
        if w <= 0 || h <= 0 || w > MAX_VIDEO_SIDE as i32 || h > MAX_VIDEO_SIDE as i32 {
            return Err(NvdecError::FrameSize(w, h));
        }
        let surfaces = c_int::from(format.min_num_decode_surfaces).max(1) + 4;
        let shown = (w as u32, h as u32);
        let coded = (format.coded_width, format.coded_height);
        let target = match self.format {
            Some(_) if !self.native_sizes => self.target,
            _ => shown,
        };
        let Some(old) = self.format.filter(|_| !self.decoder.is_null()) else {
            self.create(format, surfaces, coded, target)?;
            return Ok(surfaces);
        };
        let key = |f: &ffi::VideoFormat| {
            (
                f.coded_width,
                f.coded_height,
                f.display_area,
                f.bit_depth_luma_minus8,
            )
        };
        if key(&old) == key(format) {
            return Ok(surfaces);
        }
        self.hold_ready(&old)?;
        let fits = coded.0 <= self.max_coded.0 && coded.1 <= self.max_coded.1;
        if fits && old.bit_depth_luma_minus8 == format.bit_depth_luma_minus8 {
            let mut info = ffi::ReconfigureInfo {
                width: coded.0,
                height: coded.1,
                target_width: target.0,
                target_height: target.1,
                num_decode_surfaces: surfaces as _,
                reserved1: [0; 12],
                display_area: [left, top, right, bottom].map(|v| v as i16),
                target_rect: [0; 4],
                reserved2: [0; 11],
            };
            // SAFETY: the decoder is live with no frame mapped (the waiting ones were
            // copied out); `info` is fully initialised within the create-time maximum.
            let code = unsafe { (self.lib.reconfigure_decoder)(self.decoder, &mut info) };
            if code != 0 {
                return Err(CudaError::raw("cuvidReconfigureDecoder", code).into());
            }
            self.changes.reconfigured += 1;
            self.target = target;
            self.format = Some(*format);
            return Ok(surfaces);
        }
        self.destroy_decoder();
        let max = (coded.0.max(self.max_coded.0), coded.1.max(self.max_coded.1));
        self.create(format, surfaces, max, target)?;
        Ok(surfaces)
    }

    /// Makes the decoder for `format` with room for streams up to `max` coded pixels,
    /// writing frames at `target`.
    fn create(
        &mut self,
        format: &ffi::VideoFormat,
        surfaces: c_int,
        max: (u32, u32),
        target: (u32, u32),
    ) -> Result<(), NvdecError> {
        let depth = 8 + u32::from(format.bit_depth_luma_minus8);
        let mut info = ffi::DecodeCreateInfo {
            width: format.coded_width.into(),
            height: format.coded_height.into(),
            num_decode_surfaces: surfaces as _,
            codec: format.codec,
            chroma_format: format.chroma_format,
            creation_flags: ffi::CREATE_PREFER_CUVID,
            bit_depth_minus8: format.bit_depth_luma_minus8.into(),
            intra_decode_only: 0,
            max_width: max.0.into(),
            max_height: max.1.into(),
            reserved1: 0,
            display_area: format.display_area.map(|v| v as i16),
            output_format: if depth > 8 {
                ffi::SURFACE_P016
            } else {
                ffi::SURFACE_NV12
            },
            deinterlace_mode: ffi::DEINTERLACE_WEAVE,
            target_width: target.0.into(),
            target_height: target.1.into(),
            num_output_surfaces: 2,
            ctx_lock: self.lock,
            target_rect: [0; 4],
            enable_histogram: 0,
            reserved2: [0; 4],
        };
        let mut decoder = std::ptr::null_mut();
        // SAFETY: `info` is fully initialised; `decoder` is a valid out-pointer; the app's
        // context is current (the reader binds it before parsing).
        let code = unsafe { (self.lib.create_decoder)(&mut decoder, &mut info) };
        if code != 0 {
            return Err(CudaError::raw("cuvidCreateDecoder", code).into());
        }
        self.decoder = decoder;
        self.changes.created += 1;
        self.max_coded = max;
        self.target = target;
        self.format = Some(*format);
        Ok(())
    }
}

unsafe extern "C" fn on_sequence(user: *mut c_void, format: *mut ffi::VideoFormat) -> c_int {
    // SAFETY: `user` is the reader's boxed state, alive while its parser is; the parser
    // passes a valid format for the duration of the call.
    let (state, format) = unsafe { (&mut *user.cast::<ParserState>(), &*format) };
    match state.sequence(format) {
        Ok(surfaces) => surfaces,
        Err(e) => {
            state.failure.get_or_insert(e);
            0
        }
    }
}

unsafe extern "C" fn on_decode(user: *mut c_void, picture: *mut c_void) -> c_int {
    // SAFETY: as in `on_sequence`; `picture` is the parser's picture parameters, passed on.
    let state = unsafe { &mut *user.cast::<ParserState>() };
    if state.decoder.is_null() {
        state.failure.get_or_insert(NvdecError::NoSequence);
        return 0;
    }
    // SAFETY: the decoder is live; the parameters are the parser's, valid for this call.
    let code = unsafe { (state.lib.decode_picture)(state.decoder, picture) };
    if code != 0 {
        state
            .failure
            .get_or_insert(CudaError::raw("cuvidDecodePicture", code).into());
        return 0;
    }
    1
}

unsafe extern "C" fn on_display(user: *mut c_void, info: *mut ffi::ParserDispInfo) -> c_int {
    // SAFETY: as in `on_sequence`; a null `info` marks the end of the stream.
    let state = unsafe { &mut *user.cast::<ParserState>() };
    if let Some(info) = unsafe { info.as_ref() } {
        state.ready.push_back(Shown::Decoded(*info));
    }
    1
}

/// NVDEC's codec for a demuxed stream.
fn nvdec_codec(codec: Codec) -> std::ffi::c_uint {
    match codec {
        Codec::H264 => ffi::CODEC_H264,
        Codec::Hevc => ffi::CODEC_HEVC,
        Codec::Vp9 => ffi::CODEC_VP9,
    }
}

/// Whether the device decodes `demux`'s stream at its size, or why not (the app's context
/// must be current).
fn check_caps(lib: &ffi::Nvcuvid, demux: &Demuxer) -> Result<(), NvdecError> {
    let depth = demux.bit_depth();
    let caps = decoder_caps(lib, demux.codec(), depth)?;
    let what = format!("{} {depth}-bit", demux.codec().name());
    if caps.is_supported == 0 {
        return Err(NvdecError::NoDecoder(what));
    }
    let (width, height) = (demux.info().width, demux.info().height);
    let (min_width, min_height) = (u32::from(caps.min_width), u32::from(caps.min_height));
    if width < min_width
        || height < min_height
        || width > caps.max_width
        || height > caps.max_height
    {
        return Err(NvdecError::Size {
            width,
            height,
            what,
            min_width,
            min_height,
            max_width: caps.max_width,
            max_height: caps.max_height,
        });
    }
    Ok(())
}

/// A video file decoded by NVDEC, frame by frame in presentation order.
pub struct NvdecReader {
    demux: Demuxer,
    parser: ffi::Parser,
    state: Box<ParserState>,
    device: CudaDevice,
    kernels: YuvKernels,
    path: PathBuf,
    /// The number of the next frame handed out (presentation order).
    frame: u64,
    presentation: Presentation,
}

/// Makes a parser for `codec` whose callbacks write `state`.
fn create_parser(
    lib: &'static ffi::Nvcuvid,
    codec: Codec,
    state: &mut ParserState,
) -> Result<ffi::Parser, CudaError> {
    let mut params = ffi::ParserParams {
        codec: nvdec_codec(codec),
        max_num_decode_surfaces: 1,
        clock_rate: 0,
        error_threshold: 0,
        max_display_delay: 0,
        flags: 0,
        reserved1: [0; 4],
        user_data: std::ptr::from_mut(state).cast(),
        sequence: Some(on_sequence),
        decode: Some(on_decode),
        display: Some(on_display),
        operating_point: None,
        sei_message: None,
        reserved2: [std::ptr::null_mut(); 5],
        ext_video_info: std::ptr::null_mut(),
    };
    let mut parser = std::ptr::null_mut();
    // SAFETY: `params` is fully initialised; its user data is the reader's boxed state,
    // which stays at a fixed address for as long as the parser lives (both belong to the
    // reader, and the parser is destroyed first).
    status("cuvidCreateVideoParser", unsafe {
        (lib.create_parser)(&mut parser, &mut params)
    })?;
    Ok(parser)
}

impl NvdecReader {
    /// Opens `path` for NVDEC on `device` (its context must be the app's): the container
    /// and codec are checked now, the decoder is made at the first sequence header.
    pub fn open(path: &Path, device: &CudaDevice) -> Result<Self, VideoError> {
        Self::with_demuxer(path, Demuxer::open(path)?, device)
    }

    /// [`NvdecReader::open`] with `demux`, the file's demuxer (the index already read).
    pub fn with_demuxer(
        path: &Path,
        demux: Demuxer,
        device: &CudaDevice,
    ) -> Result<Self, VideoError> {
        let refused = |reason: NvdecError| VideoError::NoNvdec {
            path: path.to_path_buf(),
            reason,
        };
        let lib = library().map_err(refused)?;
        let cuda = |e: CudaError| refused(e.into());
        device.bind().map_err(cuda)?;
        let kernels = YuvKernels::load(device).map_err(cuda)?;
        check_caps(lib, &demux).map_err(refused)?;
        let mut lock = std::ptr::null_mut();
        // SAFETY: `lock` is a valid out-pointer; the context is live (the device holds it).
        status("cuvidCtxLockCreate", unsafe {
            (lib.ctx_lock_create)(&mut lock, device.ctx.cu_ctx())
        })
        .map_err(cuda)?;
        let mut state = Box::new(ParserState {
            lib,
            lock,
            decoder: std::ptr::null_mut(),
            stream: device.stream.clone(),
            format: None,
            max_coded: (0, 0),
            target: (0, 0),
            native_sizes: false,
            ready: VecDeque::new(),
            changes: DecoderChanges::default(),
            failure: None,
        });
        let created = create_parser(lib, demux.codec(), &mut state);
        let (parser, created) = match created {
            Ok(parser) => (parser, Ok(())),
            Err(e) => (std::ptr::null_mut(), Err(e)),
        };
        let reader = Self {
            demux,
            parser,
            state,
            device: device.clone(),
            kernels,
            path: path.to_path_buf(),
            frame: 0,
            presentation: Presentation::default(),
        };
        created.map_err(cuda)?;
        Ok(reader)
    }

    pub fn info(&self) -> &VideoInfo {
        self.demux.info()
    }

    /// [`NvdecReader::open`] on a stream of its own (frames mapped and converted there),
    /// for a reader on another thread than the device's stream.
    pub fn open_on_own_stream(path: &Path, device: &CudaDevice) -> Result<Self, VideoError> {
        let stream = device.ctx.new_stream().map_err(|e| VideoError::Nvdec {
            path: path.to_path_buf(),
            frame: 0,
            reason: CudaError::driver("cuStreamCreate")(e).into(),
        })?;
        let mut reader = Self::open(path, device)?;
        reader.state.stream = stream;
        Ok(reader)
    }

    /// Frames keep their own size where the stream's size changes (before the first
    /// frame). By default they are scaled on the decoder to the first frame's size, as
    /// ffmpeg scales them, so that a video's frames share one size.
    pub fn keep_native_sizes(&mut self) {
        self.state.native_sizes = true;
    }

    /// How often the decoder was made and reconfigured for the stream's sizes.
    pub fn decoder_changes(&self) -> DecoderChanges {
        self.state.changes
    }

    /// The demuxer (what the container says of the stream).
    pub fn demuxer(&self) -> &Demuxer {
        &self.demux
    }

    /// `reason` as the error of the frame being decoded.
    fn failed(&self, reason: impl Into<NvdecError>) -> VideoError {
        VideoError::Nvdec {
            path: self.path.clone(),
            frame: self.frame,
            reason: reason.into(),
        }
    }

    /// Sends one packet (or the end of the stream) to the parser.
    fn parse(&mut self, packet: Option<&Packet>) -> Result<(), VideoError> {
        if self.parser.is_null() {
            return Err(self.failed(CudaError::Missing("NVDEC parser")));
        }
        self.device.bind().map_err(|e| self.failed(e))?;
        let mut source = match packet {
            Some(p) => ffi::SourceDataPacket {
                flags: ffi::PKT_TIMESTAMP,
                payload_size: p.data.len() as _,
                payload: p.data.as_ptr(),
                timestamp: p.pts,
            },
            None => ffi::SourceDataPacket {
                flags: ffi::PKT_ENDOFSTREAM,
                payload_size: 0,
                payload: std::ptr::null(),
                timestamp: 0,
            },
        };
        // SAFETY: the parser is live; the payload outlives the call (the parser copies
        // what it keeps); the callbacks touch only the boxed state.
        let code = unsafe { (self.state.lib.parse)(self.parser, &mut source) };
        if let Some(reason) = self.state.failure.take() {
            return Err(self.failed(reason));
        }
        status("cuvidParseVideoData", code).map_err(|e| self.failed(e))
    }

    /// Makes frame `index` (presentation order) the next one [`NvdecReader::next_frame`]
    /// hands out: decoding starts again at the keyframe before it (a new parser; the
    /// decoder stays while the stream's format does) and the frames before it are dropped
    /// unmapped. Past the last frame, the reader is at its end.
    pub fn seek(&mut self, index: u64) -> Result<(), VideoError> {
        self.destroy_parser();
        self.state.ready.clear();
        self.state.failure = None;
        let start = self.demux.seek_frame(index)?;
        self.presentation.seek(start);
        self.frame = index;
        self.device.bind().map_err(|e| self.failed(e))?;
        let lib = self.state.lib;
        self.parser =
            create_parser(lib, self.demux.codec(), &mut self.state).map_err(|e| self.failed(e))?;
        Ok(())
    }

    fn destroy_parser(&mut self) {
        if self.parser.is_null() {
            return;
        }
        if let Err(e) = self.device.bind() {
            log::warn!("NVDEC parser teardown: {e}");
        }
        // SAFETY: created by cuvidCreateVideoParser, destroyed once (the handle is cleared).
        let code = unsafe { (self.state.lib.destroy_parser)(self.parser) };
        if code != 0 {
            log::warn!("cuvidDestroyVideoParser failed ({code})");
        }
        self.parser = std::ptr::null_mut();
    }

    /// The next frame in presentation order, mapped; None after the last.
    pub fn next_frame(&mut self) -> Result<Option<MappedFrame<'_>>, VideoError> {
        let Some(shown) = self.next_shown()? else {
            return Ok(None);
        };
        let frame = self.frame;
        self.frame += 1;
        let shown = match shown {
            Shown::Held(held) => {
                return Ok(Some(MappedFrame {
                    reader: self,
                    samples: held.samples,
                    index: frame,
                    held: Some(held.buffer),
                }))
            }
            Shown::Decoded(shown) => shown,
        };
        let Some(format) = self.state.format else {
            return Err(self.failed(NvdecError::FrameBeforeSequence));
        };
        let mut status_out = ffi::DecodeStatus {
            status: 0,
            reserved: [0; 31],
            reserved2: [std::ptr::null_mut(); 8],
        };
        // SAFETY: the decoder is live; `status_out` is a valid out-pointer. Codecs
        // without decode status (VP9) answer "not supported", which is no error here.
        let asked = unsafe {
            (self.state.lib.decode_status)(self.state.decoder, shown.picture_index, &mut status_out)
        };
        if asked == 0
            && matches!(
                status_out.status,
                ffi::DECODE_STATUS_ERROR | ffi::DECODE_STATUS_ERROR_CONCEALED
            )
        {
            return Err(VideoError::Nvdec {
                path: self.path.clone(),
                frame,
                reason: NvdecError::Damaged,
            });
        }
        self.device.bind().map_err(|e| self.failed(e))?;
        let (ptr, pitch) = self.state.map(&shown).map_err(|e| self.failed(e))?;
        Ok(Some(MappedFrame {
            reader: self,
            samples: samples_of(&format, self.state.target, ptr, pitch),
            index: frame,
            held: None,
        }))
    }
}

/// Pictures the parser readied for display, in its display order.
impl Presenting for NvdecReader {
    type Frame = Shown;

    fn presentation(&mut self) -> &mut Presentation {
        &mut self.presentation
    }

    fn ready(&mut self, _ended: bool) -> Option<(i64, Shown)> {
        let shown = self.state.ready.pop_front()?;
        Some((shown.timestamp(), shown))
    }

    fn packet(&mut self) -> Result<Option<Packet>, VideoError> {
        self.demux.next_packet()
    }

    fn send(&mut self, packet: Option<&Packet>) -> Result<(), VideoError> {
        self.parse(packet)
    }

    fn no_frame(&self) -> VideoError {
        self.failed(NvdecError::NoFrame)
    }
}

// SAFETY: the parser, decoder and context lock are driver handles usable from any thread
// of the context; the reader is used by one thread at a time (every call takes `&mut self`
// or a frame borrowing it), binds the context before each call, and the decoder works
// under its context lock.
unsafe impl Send for NvdecReader {}

impl Drop for NvdecReader {
    fn drop(&mut self) {
        let lib = self.state.lib;
        self.destroy_parser();
        if let Err(e) = self.device.bind() {
            log::warn!("NVDEC teardown: {e}");
        }
        self.state.destroy_decoder();
        // SAFETY: created by cuvidCtxLockCreate; the decoder that used it is gone.
        let code = unsafe { (lib.ctx_lock_destroy)(self.state.lock) };
        if code != 0 {
            log::warn!("cuvidCtxLockDestroy failed ({code})");
        }
    }
}

/// The conversion kernels of `kernels/video/yuv_to_rgba.cu`, loaded in a device's context.
pub struct YuvKernels {
    nv12: CudaFunction,
    p016: CudaFunction,
}

/// 4:2:0 samples in device memory as NVDEC maps them: `pitch`-byte rows of luma from `ptr`,
/// then interleaved chroma from row `chroma_row`; 16-bit words (P016) when `sixteen`.
#[derive(Debug, Clone, Copy)]
pub struct SemiPlanar {
    pub ptr: u64,
    pub pitch: usize,
    pub chroma_row: usize,
    /// The displayed size.
    pub size: (u32, u32),
    pub sixteen: bool,
    pub yuv: YuvFormat,
}

impl SemiPlanar {
    /// Bytes from `ptr` to the end of the last chroma row.
    pub fn bytes(&self) -> usize {
        let (_, ch) = super::yuv::chroma_size(self.size.0, self.size.1);
        self.pitch * (self.chroma_row + ch as usize)
    }
}

impl YuvKernels {
    pub fn load(device: &CudaDevice) -> Result<Self, CudaError> {
        device.bind()?;
        let module = load_module(device, "yuv_to_rgba")?;
        Ok(Self {
            nv12: load_function(&module, "nv12_to_rgba")?,
            p016: load_function(&module, "p016_to_rgba")?,
        })
    }

    /// Queues the conversion of `src` to RGBA8 through `dst` (a surface over an array of at
    /// least `src`'s size) on `stream`; nothing waits for it.
    ///
    /// # Safety
    /// `src` must describe live device memory of `stream`'s context (its
    /// [`SemiPlanar::bytes`] from `ptr`) that stays as it is until the stream has run the
    /// launch.
    pub unsafe fn launch(
        &self,
        src: &SemiPlanar,
        dst: &SurfaceObject<'_>,
        stream: &Arc<CudaStream>,
    ) -> Result<(), CudaError> {
        let k = YuvToRgb::new(src.yuv);
        let (w, h) = (src.size.0 as i32, src.size.1 as i32);
        let (pitch, chroma_row) = (src.pitch as i32, src.chroma_row as i32);
        let handle = dst.handle();
        let shift = 16 - i32::from(src.yuv.depth);
        let cfg = LaunchConfig {
            grid_dim: (src.size.0.div_ceil(32), src.size.1.div_ceil(8), 1),
            block_dim: (32, 8, 1),
            shared_mem_bytes: 0,
        };
        let (function, kernel) = if src.sixteen {
            (&self.p016, "p016_to_rgba")
        } else {
            (&self.nv12, "nv12_to_rgba")
        };
        let mut b = stream.launch_builder(function);
        b.arg(&src.ptr).arg(&pitch).arg(&chroma_row).arg(&w).arg(&h);
        if src.sixteen {
            b.arg(&shift);
        }
        b.arg(&k).arg(&handle);
        // SAFETY: matches `nv12_to_rgba(const uchar*, int, int, int, int, YuvToRgb,
        // surface)` / `p016_to_rgba(…, int shift, YuvToRgb, surface)`; the caller keeps
        // the samples (`chroma_row + ⌈h/2⌉` rows of `pitch` bytes) until the launch ran;
        // writes stay inside w × h of the surface's array.
        unsafe { b.launch(cfg) }.map_err(CudaError::launch(kernel))?;
        Ok(())
    }
}

/// A decoded frame mapped for CUDA, unmapped when dropped (or, copied out of a decoder
/// since changed, its copy).
pub struct MappedFrame<'a> {
    reader: &'a NvdecReader,
    samples: SemiPlanar,
    index: u64,
    held: Option<CudaSlice<u8>>,
}

impl MappedFrame<'_> {
    /// The displayed size.
    pub fn size(&self) -> (u32, u32) {
        self.samples.size
    }

    pub fn yuv_format(&self) -> YuvFormat {
        self.samples.yuv
    }

    /// The frame's number in presentation order, from 0.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Where the frame's samples lie (valid while the frame is mapped).
    pub fn samples(&self) -> SemiPlanar {
        self.samples
    }

    /// Converts the frame to RGBA8 into `dst` (an array of the app's context with surface
    /// load/store, at least the frame's size) and waits for it (the frame is unmapped
    /// after). It runs on the reader's stream, on which NVDEC readied the mapped frame.
    pub fn write_rgba(&self, dst: ArrayRef<'_>) -> Result<(), CudaError> {
        let reader = self.reader;
        let stream = &reader.state.stream;
        let surface = SurfaceObject::from_array(&reader.device.ctx, dst)?;
        // SAFETY: the frame stays mapped (or held) while `self` lives, past the wait below.
        unsafe { reader.kernels.launch(&self.samples, &surface, stream)? };
        stream
            .synchronize()
            .map_err(CudaError::driver("cuStreamSynchronize(video frame)"))
    }

    /// The frame's samples on the host (tests compare them with another decoder's).
    pub fn read_yuv(&self) -> Result<Yuv420, CudaError> {
        let s = &self.samples;
        let bytes = s.bytes();
        let mut host = vec![0u8; bytes];
        self.reader.device.bind()?;
        // SAFETY: the frame is mapped; `bytes` lie within its luma and chroma rows; `host`
        // holds them.
        crate::cuda::check("cuMemcpyDtoH(video frame)", unsafe {
            sys::cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), s.ptr, bytes)
        })?;
        Yuv420::from_semiplanar(&host, s.size, s.pitch, s.chroma_row, s.sixteen, s.yuv.depth)
            .ok_or(CudaError::Missing("video frame's rows"))
    }
}

impl Drop for MappedFrame<'_> {
    fn drop(&mut self) {
        if self.held.is_some() {
            return;
        }
        if let Err(e) = self.reader.device.bind() {
            log::warn!("unmapping a video frame: {e}");
        }
        self.reader.state.unmap(self.samples.ptr);
    }
}
