//! Mandelbrot on CUDA: dwell kernels (per-pixel or Mariani–Silver with dynamic
//! parallelism) → dwell (and continuous value) buffers → colour kernel → the picture: on
//! the external-memory path straight into the display texture, shared with GL
//! (`shared_display.rs`); on the map/unmap path into a mapped pixel buffer, then
//! `glTexSubImage2D` into the renderer's texture on the GL side (`mandelbrot_pbo.rs`). No
//! host round-trip for the picture. Deep views iterate by perturbation around a reference orbit (`deep_zoom.rs`),
//! per pixel or refined by the same Mariani–Silver kernels, coloured by integer dwell.

use super::deep_zoom::CudaDeep;
use super::explorer_backend::ExplorerBackend;
use super::mandelbrot_frame::MandelbrotFrame;
use super::mandelbrot_kernels::{
    ColourOut, DwellTargets, FrameValues, MandelbrotKernels, MsReadout, MsRecordBuffer,
};
use super::mandelbrot_pbo::MandelbrotPbo;
use crate::cuda::{CudaDevice, CudaError, GpuTimeline};
use crate::gl::GlTexture;
use crate::mandelbrot::{
    pan_offset, Coloring, Dwells, MandelbrotSettings, Mode, PaletteChoice, Precision,
};
use crate::pipeline::interop::with_cuda_access;
use crate::pipeline::interop::ExternalInterop;
use crate::pipeline::interop::SharedDisplay;
use crate::pipeline::interop::{CudaShare, InteropStatus};
use crate::pipeline::report::{stages_from, StageTime};
use crate::pipeline::{BackendKind, PipelineError};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, PinnedHostSlice};
use image::RgbaImage;
use std::sync::Arc;

/// Overlay records allocated at first; the buffer grows to each view's bound.
const RECORD_CAPACITY: usize = 1 << 16;
/// Overlay records kept per frame at most (16 bytes each: 256 MiB).
const RECORD_LIMIT: usize = 1 << 24;
/// Written into the dwell buffer before a read-back, so that a pixel no kernel wrote shows.
const POISON_DWELL: u32 = 0xDEAD_BEEF;

/// A colour table on the device, with what it was built for.
struct Table<K> {
    key: K,
    bytes: CudaSlice<u8>,
}

/// Uploads `rgba` unless `slot` already holds the table for `key`.
fn ensure_table<K: PartialEq>(
    slot: &mut Option<Table<K>>,
    stream: &Arc<CudaStream>,
    key: K,
    rgba: impl FnOnce() -> Vec<[u8; 4]>,
) -> Result<(), CudaError> {
    if slot.as_ref().is_some_and(|t| t.key == key) {
        return Ok(());
    }
    let bytes: Vec<u8> = rgba().into_iter().flatten().collect();
    let bytes = stream
        .clone_htod(&bytes)
        .map_err(CudaError::driver("cuMemcpyHtoD(colour table)"))?;
    *slot = Some(Table { key, bytes });
    Ok(())
}

/// Grows `slot` to at least `n` elements.
fn ensure_len<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
    slot: &mut Option<CudaSlice<T>>,
    stream: &Arc<CudaStream>,
    n: usize,
) -> Result<(), CudaError> {
    if slot.as_ref().map_or(0, |d| d.len()) < n {
        *slot = None;
        *slot = Some(
            stream
                .alloc_zeros::<T>(n)
                .map_err(CudaError::driver("cuMemAlloc(dwells)"))?,
        );
    }
    Ok(())
}

/// `slot` made at least `n` long ([`ensure_len`]) with its first `n` values set to `value`,
/// so that a pixel no kernel wrote shows.
fn poison<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits + Clone>(
    slot: &mut Option<CudaSlice<T>>,
    stream: &Arc<CudaStream>,
    n: usize,
    value: T,
) -> Result<(), CudaError> {
    ensure_len(slot, stream, n)?;
    if let Some(buffer) = slot.as_mut() {
        let mut view = buffer.slice_mut(0..n);
        stream
            .memcpy_htod(&vec![value; n], &mut view)
            .map_err(CudaError::driver("cuMemcpyHtoD(poison)"))?;
    }
    Ok(())
}

/// Buffers a pan moves the kept values into.
#[derive(Default)]
struct SpareValues {
    dwells: Option<CudaSlice<i32>>,
    smooth: Option<CudaSlice<f32>>,
    distance: Option<CudaSlice<f32>>,
}

/// The dwell buffer to read and the distance buffer to write, both made.
fn dwells_and_distance<'a>(
    dwells: &'a Option<CudaSlice<i32>>,
    distance: &'a mut Option<CudaSlice<f32>>,
) -> Result<(&'a CudaSlice<i32>, &'a mut CudaSlice<f32>), CudaError> {
    Ok((
        dwells.as_ref().ok_or(CudaError::Missing("dwell buffer"))?,
        distance
            .as_mut()
            .ok_or(CudaError::Missing("distance buffer"))?,
    ))
}

type LutKey = (PaletteChoice, u32, [u8; 4], u32, u32);

pub struct CudaMandelbrot {
    pub device: CudaDevice,
    /// How the pixel buffer reaches CUDA, and why.
    pub interop: InteropStatus,
    external: Option<ExternalInterop>,
    kernels: MandelbrotKernels,
    dwells: Option<CudaSlice<i32>>,
    smooth: Option<CudaSlice<f32>>,
    distance: Option<CudaSlice<f32>>,
    /// What a pan moves the kept values into (then swapped with them).
    spare: SpareValues,
    /// The settings whose dwells (continuous values, distance estimates and overlay
    /// records too, where they asked for them) the buffers hold, and the precision they took: a change of colour
    /// alone recolours them without dwell work.
    dwells_of: Option<(MandelbrotSettings, Precision)>,
    lut: Option<Table<LutKey>>,
    gradient: Option<Table<PaletteChoice>>,
    /// Made at the first frame after a trim (None until then, so that a trim frees it
    /// before anything new is placed in the memory pool).
    records: Option<MsRecordBuffer>,
    /// The picture on the map/unmap path (copied into the renderer's texture).
    pbo: Option<MandelbrotPbo>,
    /// The display texture on the external-memory path (the picture itself).
    display: Option<SharedDisplay>,
    /// Perturbation for deep views (loaded on the first one).
    deep: Option<CudaDeep>,
    /// The picture in device memory where there is no GL (posters, frames spread over
    /// devices), and the page-locked host memory it is copied back into.
    picture: Option<CudaSlice<u8>>,
    picture_host: Option<PinnedHostSlice<u8>>,
}

impl CudaMandelbrot {
    /// Loads the kernels on `share`'s device; the pixel buffer takes `share`'s interop path.
    pub fn new(share: CudaShare) -> Result<Self, CudaError> {
        let CudaShare {
            device,
            external,
            interop,
        } = share;
        device.bind()?;
        let kernels = MandelbrotKernels::load(&device)?;
        Ok(Self {
            device,
            interop,
            external,
            kernels,
            dwells: None,
            smooth: None,
            distance: None,
            spare: SpareValues::default(),
            dwells_of: None,
            lut: None,
            gradient: None,
            records: None,
            pbo: None,
            display: None,
            deep: None,
            picture: None,
            picture_host: None,
        })
    }

    /// The picture of a view on the host, with no GL: dwells, colours into device memory
    /// (zeroed first: a pixel no kernel wrote has alpha 0), one copy back into page-locked
    /// memory, which `use_rgba` reads (W·H·4 bytes).
    pub fn picture_with<R>(
        &mut self,
        s: &MandelbrotSettings,
        use_rgba: impl FnOnce(&[u8]) -> R,
    ) -> Result<(R, MandelbrotFrame), PipelineError> {
        self.device.bind()?;
        self.ensure_tables(&s.coloring, s.view.max_dwell)?;
        let bytes = s.view.width as usize * s.view.height as usize * 4;
        let stream = self.device.stream.clone();
        ensure_len(&mut self.picture, &stream, bytes)?;
        if self.picture_host.as_ref().map_or(0, |h| h.len()) < bytes {
            self.picture_host = None;
            // SAFETY: the memory is written by the copy below before anything reads it;
            // flags 0: cached, so that the CPU reads it at full speed.
            let host = unsafe { self.device.ctx.alloc_pinned_with_flags::<u8>(bytes, 0) }
                .map_err(CudaError::driver("cuMemHostAlloc(picture)"))?;
            self.picture_host = Some(host);
        }
        let (mut picture, mut host) = match (self.picture.take(), self.picture_host.take()) {
            (Some(p), Some(h)) => (p, h),
            (p, h) => {
                (self.picture, self.picture_host) = (p, h);
                return Err(CudaError::Missing("picture buffers").into());
            }
        };
        let result = (|| {
            let mut view = picture.slice_mut(0..bytes);
            stream
                .memset_zeros(&mut view)
                .map_err(CudaError::driver("cuMemsetD8(picture)"))?;
            let mut timeline = GpuTimeline::start(&self.device.ctx, &stream)?;
            let ptr = view.device_ptr(&stream).0;
            // SAFETY: `ptr` is W·H·4 bytes of device memory owned by this renderer, kept
            // until the copy below on the same stream has run.
            let precision = unsafe { self.colour_frame(s, ColourOut::Buffer(ptr), &mut timeline) }?;
            let frame = self.frame(s, precision, timeline.stage_times()?)?;
            stream
                .memcpy_dtoh(&view, &mut host)
                .map_err(CudaError::driver("cuMemcpyDtoH(picture)"))?;
            let rgba = host
                .as_slice()
                .map_err(CudaError::driver("cuEventSynchronize(picture)"))?;
            Ok((use_rgba(&rgba[..bytes]), frame))
        })();
        (self.picture, self.picture_host) = (Some(picture), Some(host));
        result
    }

    /// [`Self::picture_with`] as an image.
    pub fn picture(
        &mut self,
        s: &MandelbrotSettings,
    ) -> Result<(RgbaImage, MandelbrotFrame), PipelineError> {
        let (w, h) = (s.view.width, s.view.height);
        let (image, frame) =
            self.picture_with(s, |rgba| RgbaImage::from_raw(w, h, rgba.to_vec()))?;
        let image = image.ok_or(CudaError::Missing("picture of the view's size"))?;
        Ok((image, frame))
    }

    fn ensure_tables(&mut self, c: &Coloring, max_dwell: u32) -> Result<(), CudaError> {
        let stream = &self.device.stream;
        if c.smooth {
            ensure_table(&mut self.gradient, stream, c.palette.clone(), || {
                c.gradient()
            })
        } else {
            let key = (
                c.palette.clone(),
                max_dwell,
                c.interior,
                c.density.to_bits(),
                c.offset.to_bits(),
            );
            ensure_table(&mut self.lut, stream, key, || c.lut(max_dwell))
        }
    }

    /// Computes the dwells of the view on the device (left in the buffers).
    /// Computes the dwells of `s` into the buffers and remembers whose they are.
    fn compute_dwells(
        &mut self,
        s: &MandelbrotSettings,
        timeline: &mut GpuTimeline,
    ) -> Result<Precision, CudaError> {
        self.dwells_of = None;
        let precision = self.compute_dwells_now(s, timeline)?;
        self.dwells_of = Some((s.clone(), precision));
        Ok(precision)
    }

    fn compute_dwells_now(
        &mut self,
        s: &MandelbrotSettings,
        timeline: &mut GpuTimeline,
    ) -> Result<Precision, CudaError> {
        let pixels = s.view.width as usize * s.view.height as usize;
        let stream = self.device.stream.clone();
        ensure_len(&mut self.dwells, &stream, pixels)?;
        let tuning = s.tuning();
        let record = s.overlay && s.mode == Mode::MarianiSilver;
        let records = match &mut self.records {
            Some(r) => r,
            None => self
                .records
                .insert(MsRecordBuffer::new(&stream, RECORD_CAPACITY)?),
        };
        if record {
            let bound = tuning.record_bound(s.view.width, s.view.height);
            records.ensure_capacity(&stream, bound.min(RECORD_LIMIT))?;
        }
        if s.coloring.smooth {
            ensure_len(&mut self.smooth, &stream, pixels)?;
        }
        let targets = DwellTargets {
            dwells: self
                .dwells
                .as_mut()
                .ok_or(CudaError::Missing("dwell buffer"))?,
            smooth: if s.coloring.smooth {
                self.smooth.as_mut()
            } else {
                None
            },
        };
        if let Some(precision) = s.deep_precision() {
            let deep = match &mut self.deep {
                Some(d) => d,
                None => self.deep.insert(CudaDeep::new(&self.device)?),
            };
            let view = deep.prepare_orbit(&stream, s, precision, timeline)?;
            if s.mode == Mode::MarianiSilver {
                self.kernels.refine_deep(
                    &stream,
                    &view,
                    deep.device_orbit()?,
                    &tuning,
                    targets,
                    records,
                    record,
                )?;
            } else {
                // The counters are reset as the other kernels do (the colour kernels read
                // the failure count).
                records.clear(&stream)?;
                deep.per_pixel(&stream, &view, targets.dwells, targets.smooth)?;
            }
            timeline.mark("dwell", &stream)?;
            if s.coloring.distance.is_some() {
                ensure_len(&mut self.distance, &stream, pixels)?;
                let (dwells, out) = dwells_and_distance(&self.dwells, &mut self.distance)?;
                deep.distance(&stream, &view, dwells, out)?;
                timeline.mark("distance", &stream)?;
            }
            return Ok(precision);
        }
        let used = self.kernels.dwells(
            &stream,
            &s.view,
            s.mode,
            s.precision,
            &tuning,
            targets,
            records,
            record,
        )?;
        timeline.mark("dwell", &stream)?;
        if s.coloring.distance.is_some() {
            ensure_len(&mut self.distance, &stream, pixels)?;
            let (dwells, out) = dwells_and_distance(&self.dwells, &mut self.distance)?;
            self.kernels.distance(&stream, &s.view, dwells, out)?;
            timeline.mark("distance", &stream)?;
        }
        Ok(used)
    }

    /// After a frame: fails if the refinement was incomplete; the records and statistics
    /// with `overlay`.
    fn readout(&self, s: &MandelbrotSettings) -> Result<Option<MsReadout>, CudaError> {
        let stream = &self.device.stream;
        let records = self.records()?;
        if s.overlay && s.mode == Mode::MarianiSilver {
            Ok(Some(records.read(stream, &s.view, &s.tuning())?))
        } else {
            records.counters(stream).map(|_| None)
        }
    }

    fn frame(
        &self,
        s: &MandelbrotSettings,
        precision: Precision,
        stages: Vec<(String, f64)>,
    ) -> Result<MandelbrotFrame, CudaError> {
        let readout = self.readout(s)?;
        Ok(MandelbrotFrame {
            backend: BackendKind::Cuda,
            precision,
            stages: stages_from(stages),
            stats: readout.as_ref().map(|r| r.stats),
            records: readout.map(|r| r.records).unwrap_or_default(),
        })
    }

    /// Whether the picture goes straight into a display texture shared with CUDA (the
    /// external-memory path) rather than through a pixel buffer into the caller's.
    pub fn shares_display(&self) -> bool {
        self.external.is_some()
    }

    /// The texture showing the last picture on the external-memory path (None on the
    /// map/unmap path, which draws into the renderer's texture).
    pub fn display_texture(&self) -> Option<&GlTexture> {
        self.display.as_ref().map(SharedDisplay::texture)
    }

    /// Keeps the external path's display texture at `width × height` (its picture re-made
    /// on a change of size, its semaphores kept; GL sees a new texture name then). None on
    /// the map/unmap path.
    pub fn ensure_display(
        &mut self,
        gl: &glow::Context,
        width: u32,
        height: u32,
    ) -> Result<Option<&GlTexture>, PipelineError> {
        let Some(interop) = self.external.as_ref() else {
            return Ok(None);
        };
        let fits = |d: &SharedDisplay| (d.texture().width, d.texture().height) == (width, height);
        self.display = Some(match self.display.take() {
            Some(display) if fits(&display) => display,
            Some(display) => display.resized(gl, width, height)?,
            None => SharedDisplay::new(interop, gl, width, height)?,
        });
        Ok(self.display_texture())
    }

    /// The dwells of the view, then their colours into `out`, marking "colour".
    ///
    /// # Safety
    /// `out` must cover the view's W×H pixels and stay CUDA's until the stream has run the
    /// launches.
    unsafe fn colour_frame(
        &mut self,
        s: &MandelbrotSettings,
        out: ColourOut,
        timeline: &mut GpuTimeline,
    ) -> Result<Precision, CudaError> {
        let precision = match self.kept_precision(s) {
            Some(p) => p,
            None => match self.pan_kept(s, timeline)? {
                Some(p) => p,
                None => self.compute_dwells(s, timeline)?,
            },
        };
        // SAFETY: `out` covers W·H pixels until the stream has run the launch (this
        // function's contract).
        unsafe { self.colour_into(s, out) }?;
        timeline.mark("colour", &self.device.stream)?;
        Ok(precision)
    }

    /// The dwells of `s` as a pan of the kept ones (XaoS's reuse), when `s` is their view
    /// moved by whole pixels (`pan_offset`; no overlay, whose rectangles are a whole
    /// render's) and they hold the values `s` colours with: the kept values moved on the
    /// device (`mandel_shift`), then only the exposed pixels computed (`mandel_fill_*`; a
    /// deep view's around the reference orbit kept on the device, `perturb_fill_*`: no new
    /// orbit). The stage is "pan". None when `s` is not such a pan.
    fn pan_kept(
        &mut self,
        s: &MandelbrotSettings,
        timeline: &mut GpuTimeline,
    ) -> Result<Option<Precision>, CudaError> {
        let Some((kept, precision)) = &self.dwells_of else {
            return Ok(None);
        };
        let precision = *precision;
        let serves = !s.overlay && s.coloring.is_served_by(&kept.coloring);
        let Some(offset) = pan_offset(kept, s).filter(|_| serves) else {
            return Ok(None);
        };
        let deep = match s.deep_precision() {
            Some(p) if p != precision => return Ok(None),
            Some(p) => match self.deep.as_ref().and_then(|d| d.kept_orbit_offset(s, p)) {
                Some(o) => Some(o),
                None => return Ok(None),
            },
            None if s.view.resolve_precision(s.precision) != precision => return Ok(None),
            None => None,
        };
        let stream = self.device.stream.clone();
        let pixels = s.view.width as usize * s.view.height as usize;
        let (smooth, distance) = (s.coloring.smooth, s.coloring.distance.is_some());
        ensure_len(&mut self.spare.dwells, &stream, pixels)?;
        if smooth {
            ensure_len(&mut self.spare.smooth, &stream, pixels)?;
        }
        if distance {
            ensure_len(&mut self.spare.distance, &stream, pixels)?;
        }
        self.dwells_of = None;
        {
            let missing = || CudaError::Missing("kept values");
            let from = FrameValues {
                dwells: self.dwells.as_ref().ok_or_else(missing)?,
                smooth: self.smooth.as_ref().filter(|_| smooth),
                distance: self.distance.as_ref().filter(|_| distance),
            };
            let to = &mut self.spare;
            self.kernels.shift(
                &stream,
                &s.view,
                &from,
                to.dwells.as_mut().ok_or_else(missing)?,
                to.smooth.as_mut().filter(|_| smooth),
                to.distance.as_mut().filter(|_| distance),
                offset,
            )?;
        }
        std::mem::swap(&mut self.dwells, &mut self.spare.dwells);
        if smooth {
            std::mem::swap(&mut self.smooth, &mut self.spare.smooth);
        }
        if distance {
            std::mem::swap(&mut self.distance, &mut self.spare.distance);
        }
        let missing = || CudaError::Missing("dwell buffer");
        let dwells = self.dwells.as_mut().ok_or_else(missing)?;
        let smooth = self.smooth.as_mut().filter(|_| smooth);
        let distance = self.distance.as_mut().filter(|_| distance);
        match (deep, &self.deep) {
            (Some(at), Some(d)) => d.fill(&stream, s, at, dwells, smooth, distance)?,
            _ => {
                let targets = FrameValues {
                    dwells,
                    smooth: smooth.map(|b| &*b),
                    distance: distance.map(|b| &*b),
                };
                self.kernels.fill(&stream, &s.view, precision, targets)?
            }
        }
        // The colour kernels read the counters' failure count.
        match &mut self.records {
            Some(r) => r.clear(&stream)?,
            None => self.records = Some(MsRecordBuffer::new(&stream, RECORD_CAPACITY)?),
        }
        timeline.mark("pan", &stream)?;
        self.dwells_of = Some((s.clone(), precision));
        Ok(Some(precision))
    }

    /// Forgets whose dwells the buffers hold: the next render computes them (benchmarks
    /// time the dwell work of a repeated view).
    pub fn forget_dwells(&mut self) {
        self.dwells_of = None;
    }

    /// The dwell at pixel (x, y) of the last frame, when it was of `s`'s dwells (one
    /// 4-byte read back: the status bar's readout under the pointer).
    pub fn dwell_at(&self, s: &MandelbrotSettings, x: u32, y: u32) -> Option<u32> {
        let (kept, _) = self.dwells_of.as_ref()?;
        let (w, h) = (s.view.width, s.view.height);
        if !kept.same_dwells(s) || x >= w || y >= h {
            return None;
        }
        let i = y as usize * w as usize + x as usize;
        let dwells = self.dwells.as_ref()?;
        self.device.bind().ok()?;
        let one = self
            .device
            .stream
            .clone_dtoh(&dwells.slice(i..i + 1))
            .map_err(|e| log::warn!("reading a dwell back: {e}"))
            .ok()?;
        one.first().and_then(|&d| u32::try_from(d).ok())
    }

    /// The precision of the kept dwells when they serve `s`: the same dwells, with the
    /// continuous values and overlay records `s` needs.
    fn kept_precision(&self, s: &MandelbrotSettings) -> Option<Precision> {
        let (kept, precision) = self.dwells_of.as_ref()?;
        let serves = kept.same_dwells(s)
            && s.coloring.is_served_by(&kept.coloring)
            && (kept.overlay || !s.overlay);
        serves.then_some(*precision)
    }

    /// Colours the dwells of the last computation into `out`.
    ///
    /// # Safety
    /// `out` must cover W×H pixels (W·H·4 bytes, or a surface over a W×H array) that stay
    /// CUDA's until the stream has run the launch.
    unsafe fn colour_into(&self, s: &MandelbrotSettings, out: ColourOut) -> Result<(), CudaError> {
        let (stream, view) = (&self.device.stream, &s.view);
        let dwells = self
            .dwells
            .as_ref()
            .ok_or(CudaError::Missing("dwell buffer"))?;
        let (kernels, records) = (&self.kernels, self.records()?);
        // Estimates only where the kept dwells were computed with them.
        let with_distance = self
            .dwells_of
            .as_ref()
            .is_some_and(|(kept, _)| kept.coloring.distance.is_some());
        let distance = self.distance.as_ref().filter(|_| with_distance);
        // SAFETY (both launches): `out` covers W·H pixels (this function's contract).
        match (&s.coloring, &self.smooth, &self.gradient, &self.lut) {
            (c, Some(smooth), Some(g), _) if c.smooth => unsafe {
                kernels.colorize_smooth(
                    stream, dwells, smooth, distance, &g.bytes, records, out, view, c,
                )
            },
            (c, _, _, Some(lut)) if !c.smooth => unsafe {
                kernels.colorize(stream, dwells, distance, &lut.bytes, records, out, view, c)
            },
            _ => Err(CudaError::Missing("colour table")),
        }
    }

    /// The overlay records and counters of the last frame.
    fn records(&self) -> Result<&MsRecordBuffer, CudaError> {
        self.records.as_ref().ok_or_else(|| CudaError::Launch {
            kernel: "mandelbrot",
            reason: "internal: no frame since the last trim".into(),
        })
    }
}

impl ExplorerBackend for CudaMandelbrot {
    /// Renders the view: on the external-memory path into the shared display texture
    /// (`display_texture`), on the map/unmap path through the pixel buffer into `texture`
    /// (already the view's size). The picture is handed to CUDA before the dwell kernels,
    /// not behind them: queued behind them, the hand-over added 0.32 ms to the GPU timeline
    /// and to the wall-clock frame on the H200 (cause not established).
    fn render(
        &mut self,
        gl: &glow::Context,
        texture: &mut GlTexture,
        s: &MandelbrotSettings,
    ) -> Result<MandelbrotFrame, PipelineError> {
        self.device.bind()?;
        self.ensure_tables(&s.coloring, s.view.max_dwell)?;
        let (w, h) = (s.view.width, s.view.height);
        let stream = self.device.stream.clone();
        let mut timeline = GpuTimeline::start(&self.device.ctx, &stream)?;
        let precision = if self.ensure_display(gl, w, h)?.is_some() {
            let mut display = self
                .display
                .take()
                .ok_or(CudaError::Missing("shared display"))?;
            let out = ColourOut::Surface(display.surface());
            let written = with_cuda_access(&mut display, gl, &stream, &mut timeline, |_, t| {
                // SAFETY: the surface covers the display's W×H array (made for this view's
                // size above), CUDA's until the hand-back queued after this closure.
                unsafe { self.colour_frame(s, out, t) }
            });
            self.display = Some(display);
            written?
        } else {
            let bytes = w as usize * h as usize * 4;
            MandelbrotPbo::ensure(&mut self.pbo, gl, &self.device.ctx, bytes)?;
            let mut pbo = self.pbo.take().ok_or(CudaError::Missing("pixel buffer"))?;
            let written = pbo.write(gl, &stream, &mut timeline, |ptr, size, t| {
                if size < bytes {
                    return Err(CudaError::Launch {
                        kernel: "mandel_colorize",
                        reason: format!("PBO of {size} B"),
                    });
                }
                // SAFETY: `ptr` is CUDA's view of the mapped PBO, checked above to hold
                // W·H·4 bytes; it is unmapped only after this closure, on the same stream.
                unsafe { self.colour_frame(s, ColourOut::Buffer(ptr), t) }
            });
            self.pbo = Some(pbo);
            written?
        };
        let frame = self.frame(s, precision, timeline.stage_times()?)?;
        if let Some(pbo) = &self.pbo {
            pbo.upload_to(gl, texture)?;
        }
        Ok(frame)
    }

    /// The dwells (and continuous values) of a view, copied to the host (`--dwell`
    /// output, tests). The buffers are poisoned first, so a pixel no kernel wrote shows.
    fn dwells(
        &mut self,
        s: &MandelbrotSettings,
    ) -> Result<(Dwells, MandelbrotFrame), PipelineError> {
        self.device.bind()?;
        let stream = self.device.stream.clone();
        let n = s.view.width as usize * s.view.height as usize;
        self.dwells_of = None; // poisoned below
        poison(&mut self.dwells, &stream, n, POISON_DWELL as i32)?;
        if s.coloring.smooth {
            poison(&mut self.smooth, &stream, n, f32::NAN)?;
        }
        if s.coloring.distance.is_some() {
            poison(&mut self.distance, &stream, n, f32::NAN)?;
        }
        let mut timeline = GpuTimeline::start(&self.device.ctx, &stream)?;
        let precision = self.compute_dwells(s, &mut timeline)?;
        let frame = self.frame(s, precision, timeline.stage_times()?)?;
        let dwells = self
            .dwells
            .as_ref()
            .ok_or(CudaError::Missing("dwell buffer"))?;
        let host = stream
            .clone_dtoh(&dwells.slice(0..n))
            .map_err(CudaError::driver("cuMemcpyDtoH(dwells)"))?;
        let smooth = match (s.coloring.smooth, &self.smooth) {
            (true, Some(v)) => Some(
                stream
                    .clone_dtoh(&v.slice(0..n))
                    .map_err(CudaError::driver("cuMemcpyDtoH(smooth)"))?,
            ),
            _ => None,
        };
        let distance = match (s.coloring.distance, &self.distance) {
            (Some(_), Some(v)) => Some(
                stream
                    .clone_dtoh(&v.slice(0..n))
                    .map_err(CudaError::driver("cuMemcpyDtoH(distance)"))?,
            ),
            _ => None,
        };
        let dwells = Dwells {
            width: s.view.width,
            height: s.view.height,
            values: host.into_iter().map(|d| d as u32).collect(),
            smooth,
            distance,
        };
        Ok((dwells, frame))
    }

    /// Times the dwell computation alone (benchmarks): no colouring, no copy back.
    fn time_dwells(&mut self, s: &MandelbrotSettings) -> Result<Vec<StageTime>, PipelineError> {
        self.device.bind()?;
        let stream = self.device.stream.clone();
        let mut timeline = GpuTimeline::start(&self.device.ctx, &stream)?;
        self.compute_dwells(s, &mut timeline)?;
        let stages = timeline.stage_times()?;
        self.records()?.counters(&stream)?; // fails if a child launch failed
        Ok(stages_from(stages))
    }

    /// Frees what grew with the views drawn so far (dwell and continuous-value buffers,
    /// colour tables, overlay records, the pixel buffer, the deep-zoom orbit) and gives
    /// the memory pool's unused chunks back: memory follows the next view, not the largest
    /// one seen. The display texture stays: it shows the current
    /// view.
    fn trim(&mut self, gl: &glow::Context) -> Result<(), PipelineError> {
        self.dwells = None;
        self.dwells_of = None;
        self.smooth = None;
        self.distance = None;
        self.spare = SpareValues::default();
        self.deep = None;
        self.lut = None;
        self.gradient = None;
        self.records = None;
        self.picture = None;
        self.picture_host = None;
        if let Some(pbo) = self.pbo.take() {
            pbo.destroy(gl);
        }
        // Nothing of this renderer's is left in the memory pool: a small table placed in
        // a second chunk while a large view filled the first kept that chunk (+32 MiB at
        // some of the soak's checkpoints).
        Ok(self.device.release_pool()?)
    }

    /// Releases the PBO (registration first) and the display texture.
    fn destroy(mut self, gl: &glow::Context) {
        if let Some(pbo) = self.pbo.take() {
            pbo.destroy(gl);
        }
        if let Some(display) = self.display.take() {
            display.destroy(gl);
        }
    }
}
