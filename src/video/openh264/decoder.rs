//! OpenH264's decoder behind safe calls: an access unit in (Annex B, with a tag), a picture
//! out when one is ready, copied from the decoder and carrying the tag of the access unit
//! it was decoded from (OpenH264 keeps the tag through its reorder buffer). The crate makes,
//! configures and frees the decoder; the decode and flush calls go through its raw API,
//! which takes the tag (its safe `decode` sends none).

use crate::video::error::OpenH264Error;
use crate::video::info::MAX_VIDEO_SIDE;
use crate::video::yuv::{chroma_size, Yuv420};
use ::openh264::decoder::{Decoder, DecoderConfig};
use ::openh264::OpenH264API;
use openh264_sys2::{
    dsBitstreamError, dsDataErrorConcealed, dsDepLayerLost, dsErrorFree, dsFramePending,
    dsNoParamSets, dsOutOfMemory, dsRefListNullPtrs, dsRefLost, videoFormatI420, SBufferInfo,
    DECODER_OPTION_NUM_OF_FRAMES_REMAINING_IN_BUFFER, DECODING_STATE,
};
use std::ffi::{c_int, c_void};

/// A picture out of the decoder: its access unit's tag and its samples.
pub struct Picture {
    pub tag: u64,
    pub yuv: Yuv420,
}

/// One OpenH264 decoder (single-threaded; error concealment off, so a damaged picture is
/// an error, never a concealed guess).
pub struct H264Decoder {
    decoder: Decoder,
}

impl H264Decoder {
    pub fn new() -> Result<Self, OpenH264Error> {
        let decoder = Decoder::with_api_config(OpenH264API::from_source(), DecoderConfig::new())
            .map_err(|e| OpenH264Error::Create(e.to_string()))?;
        Ok(Self { decoder })
    }

    /// Decodes `unit`, one whole access unit, sent with `tag`: the picture that is ready to
    /// show next, if any (possibly an earlier unit's).
    pub fn decode(&mut self, unit: &[u8], tag: u64) -> Result<Option<Picture>, OpenH264Error> {
        let len = c_int::try_from(unit.len()).map_err(|_| OpenH264Error::HugeUnit(unit.len()))?;
        let mut planes = [std::ptr::null_mut::<u8>(); 3];
        let mut info = SBufferInfo {
            uiInBsTimeStamp: tag,
            ..SBufferInfo::default()
        };
        // SAFETY: the decoder is live (made by the crate, freed when it drops); `unit` is
        // `len` readable bytes for the call; `planes` and `info` are valid out-pointers.
        let state = unsafe {
            self.decoder.raw_api().decode_frame_no_delay(
                unit.as_ptr(),
                len,
                planes.as_mut_ptr(),
                &raw mut info,
            )
        };
        check(state)?;
        picture(&planes, &info)
    }

    /// After the last unit: the next picture still held for reordering, None when none is.
    pub fn flush(&mut self) -> Result<Option<Picture>, OpenH264Error> {
        let mut held: c_int = 0;
        // SAFETY: the decoder is live; this option writes one int through the pointer.
        let asked = unsafe {
            self.decoder.raw_api().get_option(
                DECODER_OPTION_NUM_OF_FRAMES_REMAINING_IN_BUFFER,
                (&raw mut held).cast::<c_void>(),
            )
        };
        if asked != 0 || held <= 0 {
            return Ok(None);
        }
        let mut planes = [std::ptr::null_mut::<u8>(); 3];
        let mut info = SBufferInfo::default();
        // SAFETY: as in `decode`, without input.
        let state = unsafe {
            self.decoder
                .raw_api()
                .flush_frame(planes.as_mut_ptr(), &raw mut info)
        };
        check(state)?;
        picture(&planes, &info)
    }
}

/// A decoding state other than error-free as an error naming its flags.
fn check(state: DECODING_STATE) -> Result<(), OpenH264Error> {
    if state == dsErrorFree {
        return Ok(());
    }
    let names = [
        (dsFramePending, "a picture left incomplete"),
        (dsRefLost, "a reference picture lost"),
        (dsBitstreamError, "bitstream error"),
        (dsDepLayerLost, "a layer lost"),
        (dsNoParamSets, "no parameter sets"),
        (dsDataErrorConcealed, "concealed"),
        (dsRefListNullPtrs, "empty reference list"),
        (dsOutOfMemory, "out of memory"),
    ];
    let said: Vec<&str> = names
        .iter()
        .filter(|(flag, _)| state & flag != 0)
        .map(|&(_, name)| name)
        .collect();
    Err(OpenH264Error::Damaged(if said.is_empty() {
        format!("state {state:#x}")
    } else {
        said.join(", ")
    }))
}

/// The picture the decoder wrote into `planes` and `info`, copied out (the decoder reuses
/// its buffers at the next call); None when it wrote none.
fn picture(planes: &[*mut u8; 3], info: &SBufferInfo) -> Result<Option<Picture>, OpenH264Error> {
    if info.iBufferStatus != 1 || planes.iter().any(|p| p.is_null()) {
        return Ok(None);
    }
    // SAFETY: with a picture ready (status 1) the decoder wrote the system buffer member of
    // the union.
    let buffer = unsafe { info.UsrData.sSystemBuffer };
    let bad = |what: String| Err(OpenH264Error::Picture(what));
    if buffer.iFormat != videoFormatI420 {
        return bad(format!("format {}", buffer.iFormat));
    }
    let side = |v: c_int| {
        u32::try_from(v)
            .ok()
            .filter(|v| (1..=MAX_VIDEO_SIDE).contains(v))
    };
    let (Some(width), Some(height)) = (side(buffer.iWidth), side(buffer.iHeight)) else {
        return bad(format!("{}×{}", buffer.iWidth, buffer.iHeight));
    };
    let (cw, ch) = chroma_size(width, height);
    let stride = |v: c_int, w: u32| usize::try_from(v).ok().filter(|&s| s >= w as usize);
    let (Some(luma), Some(chroma)) = (
        stride(buffer.iStride[0], width),
        stride(buffer.iStride[1], cw),
    ) else {
        return bad(format!(
            "rows {} and {} bytes apart at {width}×{height}",
            buffer.iStride[0], buffer.iStride[1]
        ));
    };
    // The bytes from a plane's first sample to the end of its last row.
    let span = |stride: usize, (w, h): (u32, u32)| stride * (h as usize - 1) + w as usize;
    // SAFETY: each plane pointer is the first sample of a picture the decoder holds
    // (cropped), of `height` rows (chroma ⌈height/2⌉) `stride` bytes apart, at least
    // `width` (chroma ⌈width/2⌉) samples each; it stays until the decoder's next call, and
    // the slices are dropped before this function returns.
    let (y, cb, cr) = unsafe {
        (
            std::slice::from_raw_parts(planes[0], span(luma, (width, height))),
            std::slice::from_raw_parts(planes[1], span(chroma, (cw, ch))),
            std::slice::from_raw_parts(planes[2], span(chroma, (cw, ch))),
        )
    };
    let yuv = Yuv420::from_strided([y, cb, cr], [luma, chroma, chroma], (width, height))
        .ok_or_else(|| OpenH264Error::Picture("planes shorter than their rows".into()))?;
    Ok(Some(Picture {
        tag: info.uiOutYuvTimeStamp,
        yuv,
    }))
}
