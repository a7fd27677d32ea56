//! The CPU reference path of the Mandelbrot renderer: deep views by perturbation
//! (`deep_zoom.rs`), every other view in f64 (`mandelbrot_frame.rs`); the picture they
//! colour, for the renderer's CPU backend and the app's background frames.

use super::deep_zoom::{cpu_deep_dwells_cancellable, cpu_deep_panned};
use super::explorer_backend::ExplorerBackend;
use super::mandelbrot_frame::{cpu_render, Cancellable, MandelbrotFrame, RenderControl};
use crate::gl::GlTexture;
use crate::mandelbrot::{panned_dwells, Dwells, MandelbrotSettings, Precision};
use crate::pipeline::report::StageTime;
use crate::pipeline::{BackendKind, PipelineError};
use image::RgbaImage;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The CPU reference: dwells (and continuous values, records) on the host.
pub fn cpu_dwells(s: &MandelbrotSettings) -> (Dwells, MandelbrotFrame) {
    cpu_dwells_cancellable(s, RenderControl::cancel_only(&AtomicBool::new(false)))
}

/// [`cpu_dwells`] that stops early once cancelled (the result is then garbage, to be
/// dropped), reporting its progress.
pub fn cpu_dwells_cancellable(
    s: &MandelbrotSettings,
    control: RenderControl<'_>,
) -> (Dwells, MandelbrotFrame) {
    // Deep views by perturbation (`deep_zoom.rs`); a location the perturbation path cannot
    // take falls through to f64.
    if let Some(result) = s
        .deep_precision()
        .and_then(|p| cpu_deep_dwells_cancellable(s, p, control).ok())
    {
        return result;
    }
    let start = Instant::now();
    let source = Cancellable::new(&s.view, control);
    let (dwells, records, stats) = cpu_render(&source, s);
    let frame = MandelbrotFrame {
        backend: BackendKind::Cpu,
        precision: Precision::F64,
        stages: vec![StageTime::since("dwell", start)],
        records,
        stats,
    };
    (dwells, frame)
}

/// The view `s` as a pan of `kept`, the dwells of the view `offset` whole pixels away
/// (`mandelbrot::pan_offset`): the kept pixels moved, the exposed ones computed (by
/// perturbation around `s`'s own reference orbit for a deep view). Returns the dwells, the
/// frame (no colour stage) and how many pixels were computed.
pub fn cpu_panned_dwells(
    s: &MandelbrotSettings,
    kept: &Dwells,
    offset: (i64, i64),
) -> (Dwells, MandelbrotFrame, u64) {
    if let Some(result) = s
        .deep_precision()
        .and_then(|p| cpu_deep_panned(s, p, kept, offset).ok())
    {
        return result;
    }
    let start = Instant::now();
    let (dwells, computed) = panned_dwells(kept, offset, &s.view);
    let frame = MandelbrotFrame {
        backend: BackendKind::Cpu,
        precision: Precision::F64,
        stages: vec![StageTime::since("dwell", start)],
        records: Vec::new(),
        stats: None,
    };
    (dwells, frame, computed)
}

/// The CPU picture of a view: its dwells, then their colours (the stage "colour"). Stops
/// early once `cancelled` is set (the picture is then garbage, to be dropped).
pub fn cpu_picture(
    s: &MandelbrotSettings,
    control: RenderControl<'_>,
) -> (RgbaImage, MandelbrotFrame) {
    let (dwells, frame) = cpu_dwells_cancellable(s, control);
    let (image, frame) = coloured(s, &dwells, frame);
    (image, frame)
}

/// [`cpu_picture`], and the dwells it coloured, with their continuous values whatever the
/// colouring (they cost a few steps past escape and leave the dwells as they are), so that
/// any later colouring of the same view needs no dwell work.
pub fn cpu_picture_keeping_dwells(
    s: &MandelbrotSettings,
    control: RenderControl<'_>,
) -> (RgbaImage, MandelbrotFrame, Dwells) {
    let mut with_continuous = s.clone();
    with_continuous.coloring.smooth = true;
    let (dwells, frame) = cpu_dwells_cancellable(&with_continuous, control);
    let (image, frame) = coloured(s, &dwells, frame);
    (image, frame, dwells)
}

/// `dwells` in the colours of `s`, the colouring timed as the frame's last stage.
fn coloured(
    s: &MandelbrotSettings,
    dwells: &Dwells,
    mut frame: MandelbrotFrame,
) -> (RgbaImage, MandelbrotFrame) {
    let start = Instant::now();
    let image = s.coloring.colorize(dwells, s.view.max_dwell);
    frame.stages.push(StageTime::since("colour", start));
    (image, frame)
}

/// The explorer on the CPU reference: [`cpu_picture`] uploaded into the renderer's texture.
pub struct CpuExplorer;

impl ExplorerBackend for CpuExplorer {
    fn render(
        &mut self,
        gl: &glow::Context,
        texture: &mut GlTexture,
        s: &MandelbrotSettings,
    ) -> Result<MandelbrotFrame, PipelineError> {
        let (image, mut frame) =
            cpu_picture(s, RenderControl::cancel_only(&AtomicBool::new(false)));
        let start = Instant::now();
        texture.upload(gl, &image)?;
        // The upload is timed with the colouring, as one stage "colour + upload".
        let upload = StageTime::since("upload", start);
        if let Some(colour) = frame.stages.last_mut() {
            colour.name = "colour + upload".into();
            colour.ms += upload.ms;
        }
        Ok(frame)
    }

    fn dwells(
        &mut self,
        s: &MandelbrotSettings,
    ) -> Result<(Dwells, MandelbrotFrame), PipelineError> {
        Ok(cpu_dwells(s))
    }

    fn time_dwells(&mut self, s: &MandelbrotSettings) -> Result<Vec<StageTime>, PipelineError> {
        Ok(cpu_dwells(s).1.stages)
    }

    fn trim(&mut self, _gl: &glow::Context) -> Result<(), PipelineError> {
        Ok(())
    }

    fn destroy(self, _gl: &glow::Context) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_render_reports_the_share_of_pixels_computed() {
        let s = MandelbrotSettings {
            view: crate::mandelbrot::View {
                width: 128,
                height: 128,
                ..Default::default()
            },
            mode: crate::mandelbrot::Mode::PerPixel,
            ..MandelbrotSettings::default()
        };
        let shares = std::sync::Mutex::new(Vec::new());
        let progress = |share: f32| shares.lock().expect("lock").push(share);
        let never = AtomicBool::new(false);
        let control = RenderControl {
            cancelled: &never,
            progress: &progress,
        };
        cpu_dwells_cancellable(&s, control);
        let mut shares = shares.into_inner().expect("lock");
        shares.sort_by(f32::total_cmp);
        assert_eq!(shares, [0.25, 0.5, 0.75, 1.0], "every 4096 of 16384 pixels");
    }

    #[test]
    fn the_picture_is_the_dwells_coloured() {
        let mut s = MandelbrotSettings::default();
        (s.view.width, s.view.height) = (48, 32);
        s.view.max_dwell = 128;
        let (image, frame) = cpu_picture(&s, RenderControl::cancel_only(&AtomicBool::new(false)));
        let (dwells, _) = cpu_dwells(&s);
        assert_eq!(image, s.coloring.colorize(&dwells, s.view.max_dwell));
        let names: Vec<&str> = frame.stages.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names.last(), Some(&"colour"));
        assert!(names.contains(&"dwell"), "{names:?}");
    }
}
