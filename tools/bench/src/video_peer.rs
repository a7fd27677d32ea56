//! `--video-peer CLIP`: the conversion of NVDEC's frames against NPP's, on the first frame
//! NVDEC decodes of CLIP (8-bit 4:2:0), copied once into memory of its own so that both
//! read the same samples. cudalens's `nv12_to_rgba` (chroma bilinear and sited as the
//! codecs place it, the stream's matrix and range in 16.16 fixed point, RGBA8 into a CUDA
//! array through a surface, as the window and `apply` use it) against
//! `nppiNV12ToRGB_709CSC_8u_P2C3R_Ctx` (BT.709 limited range, RGB into pitched memory).
//! CUDA events, the median of 50 runs after a warm-up, each as a share of the device's
//! measured copy rate for the bytes it moves (NV12 read, RGBA or RGB written). NPP's output
//! differs in layout and chroma, so its largest difference from ours is shown, not
//! required.

use crate::npp::{check, Npp, NppError, NppImage};
use crate::peer_bench::event_times;
use cudalens::bench_stats::median;
use cudalens::cli::CliError;
use cudalens::cuda::{
    copy_bandwidth_samples, gb_per_s, CudaArray2d, CudaDevice, CudaError, SurfaceObject,
};
use cudalens::video::nvdec::{NvdecReader, SemiPlanar, YuvKernels};
use cudarc::driver::{sys, DevicePtr};
use serde_json::{json, Value};
use std::path::Path;

/// Runs of each conversion after the warm-up.
const RUNS: usize = 50;

fn npp(e: impl Into<NppError>) -> CliError {
    CliError::internal(e.into())
}

/// The median milliseconds of `RUNS` back-to-back runs of `queue` (CUDA events), after one.
fn timed(
    device: &CudaDevice,
    mut queue: impl FnMut() -> Result<(), NppError>,
) -> Result<f64, NppError> {
    queue()?;
    Ok(median(event_times(device, RUNS, queue)?))
}

/// Times both conversions on `clip`'s first frame (see the module).
pub fn run(clip: &Path) -> Result<Value, CliError> {
    let device = CudaDevice::new(0).map_err(npp)?;
    let npp_lib = Npp::load(&device).map_err(npp)?;
    let convert = npp_lib
        .functions
        .nv12_to_rgb_709csc
        .clone()
        .map_err(|e| npp(NppError::NotFound(e)))?;
    let mut reader = NvdecReader::open(clip, &device)?;
    let frame = reader
        .next_frame()?
        .ok_or_else(|| CliError::usage("no frame decoded"))?;
    let mapped = frame.samples();
    if mapped.sixteen {
        return Err(CliError::usage("NPP's peer takes 8-bit NV12 only"));
    }
    // The samples, copied out of NVDEC's surface into memory that stays.
    let bytes = mapped.bytes();
    let owned = device
        .stream
        .alloc_zeros::<u8>(bytes)
        .map_err(|e| npp(CudaError::driver("cuMemAlloc(NV12 frame)")(e)))?;
    let (ptr, _sync) = owned.device_ptr(&device.stream);
    device.bind().map_err(npp)?;
    // NVDEC readies the mapped frame on the device's stream; the copy runs on the legacy
    // stream: wait for the one before and the other after.
    device
        .stream
        .synchronize()
        .map_err(|e| npp(CudaError::driver("cuStreamSynchronize")(e)))?;
    // SAFETY: both ranges are `bytes` long: the mapped frame's rows and the new buffer.
    cudalens::cuda::check("cuMemcpyDtoD(NV12 frame)", unsafe {
        sys::cuMemcpyDtoD_v2(ptr, mapped.ptr, bytes)
    })
    .map_err(npp)?;
    device
        .ctx
        .synchronize()
        .map_err(|e| npp(CudaError::driver("cuCtxSynchronize")(e)))?;
    drop(frame);
    let src = SemiPlanar { ptr, ..mapped };
    let (w, h) = src.size;
    let kernels = YuvKernels::load(&device).map_err(npp)?;
    let array = CudaArray2d::new(&device.ctx, w, h).map_err(npp)?;
    let surface = SurfaceObject::from_array(&device.ctx, array.view()).map_err(npp)?;
    let ours_ms = timed(&device, || {
        // SAFETY: `owned` holds the samples until this function returns, past the waits.
        unsafe { kernels.launch(&src, &surface, &device.stream)? };
        Ok(())
    })
    .map_err(npp)?;
    let dst = NppImage::new(&device, w, h).map_err(npp)?;
    let chroma = ptr + (src.pitch * src.chroma_row) as u64;
    let planes = [ptr as *const u8, chroma as *const u8];
    let out = dst.device_address(&device) as *mut u8;
    let npp_ms = timed(&device, || {
        // SAFETY: both planes lie in `owned` (`pitch`-byte rows: h of luma, ⌈h/2⌉ of
        // chroma); `out` holds h rows of `step` ≥ 3w bytes; the context is the device's.
        let code = unsafe {
            convert(
                planes.as_ptr(),
                src.pitch as i32,
                out,
                dst.step(),
                dst.size(),
                npp_lib.context,
            )
        };
        check("nppiNV12ToRGB_709CSC_8u_P2C3R_Ctx", code)
    })
    .map_err(npp)?;
    // The largest difference in R, G or B (NPP's RGB triplets sit in rows laid out for
    // four bytes a pixel, so the download's row holds pixel x at byte 3x).
    let mut ours = vec![0u8; w as usize * h as usize * 4];
    // SAFETY: the array is w × h RGBA8 and alive here.
    unsafe {
        cudalens::cuda::memory::read_array(array.view().raw(), w, h, &mut ours, &device.stream)
    }
    .map_err(npp)?;
    let theirs = dst.download(&device).map_err(npp)?;
    let differences = compare(&ours, theirs.as_raw(), w as usize);
    let copy_rate = median(copy_bandwidth_samples(&device).map_err(npp)?);
    let pixels = f64::from(w) * f64::from(h);
    let ours_share = gb_per_s(pixels * (1.5 + 4.0), ours_ms) / copy_rate;
    let npp_share = gb_per_s(pixels * (1.5 + 3.0), npp_ms) / copy_rate;
    println!(
        "NV12 → RGB {w}×{h} ({}): cudalens {ours_ms:.3} ms ({:.0} % of copy), NPP 709CSC \
         {npp_ms:.3} ms ({:.0} % of copy): {:.2}× NPP; NPP's RGB against ours: {differences}",
        clip.display(),
        100.0 * ours_share,
        100.0 * npp_share,
        npp_ms / ours_ms
    );
    Ok(json!({
        "clip": clip.display().to_string(),
        "size": [w, h],
        "cudalens_ms": ours_ms,
        "npp_ms": npp_ms,
        "cudalens_share_of_copy": ours_share,
        "npp_share_of_copy": npp_share,
        "differences": differences.to_string(),
    }))
}

/// How NPP's RGB differs from our RGBA: the largest and mean difference of R, G and B read
/// in RGB and in BGR order, and where the largest lies. NPP's triplets sit in rows laid
/// out for four bytes a pixel, so pixel x of a row is at byte 3x.
struct Differences {
    rgb: (u8, f64),
    bgr: (u8, f64),
    at: (usize, usize, [u8; 3], [u8; 3]),
}

impl std::fmt::Display for Differences {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (x, y, o, t) = self.at;
        write!(
            f,
            "as RGB largest {} mean {:.2}, as BGR largest {} mean {:.2}; largest at ({x}, {y}): ours {o:?}, NPP {t:?}",
            self.rgb.0, self.rgb.1, self.bgr.0, self.bgr.1
        )
    }
}

fn compare(ours: &[u8], theirs: &[u8], width: usize) -> Differences {
    let row = width * 4;
    let (mut rgb, mut bgr) = ((0u8, 0u64), (0u8, 0u64));
    let mut at = (0, 0, [0; 3], [0; 3]);
    for (y, (o_row, t_row)) in ours
        .chunks_exact(row)
        .zip(theirs.chunks_exact(row))
        .enumerate()
    {
        for (x, (o, t)) in o_row.chunks_exact(4).zip(t_row.chunks_exact(3)).enumerate() {
            for c in 0..3 {
                let d = o[c].abs_diff(t[c]);
                if d > rgb.0 {
                    at = (x, y, [o[0], o[1], o[2]], [t[0], t[1], t[2]]);
                }
                rgb = (rgb.0.max(d), rgb.1 + u64::from(d));
                let d = o[c].abs_diff(t[2 - c]);
                bgr = (bgr.0.max(d), bgr.1 + u64::from(d));
            }
        }
    }
    let n = (ours.len() / 4 * 3).max(1) as f64;
    Differences {
        rgb: (rgb.0, rgb.1 as f64 / n),
        bgr: (bgr.0, bgr.1 as f64 / n),
        at,
    }
}
