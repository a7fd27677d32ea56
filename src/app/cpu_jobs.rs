//! The CPU backend's work as background jobs (`worker`): the filter stack on the image,
//! and the explorer's frames, coarse first. They call the same CPU code as the pipeline
//! does; only where it runs changes.

use super::worker::JobContext;
use crate::filters::Filter;
use crate::mandelbrot::{Dwells, MandelbrotSettings};
use crate::ops::ShownSelection;
use crate::pipeline::{
    cpu_panned_dwells, cpu_picture, cpu_picture_keeping_dwells, process_on_cpu_with, FrameReport,
    MandelbrotFrame, RenderControl, StageTime,
};
use image::RgbaImage;
use std::sync::Arc;
use std::time::Instant;

/// Images from this many pixels on are filtered in the background on the CPU backend
/// (smaller ones take a few milliseconds).
pub const BACKGROUND_PIXELS: u64 = 1 << 20;
/// The explorer's preview is this many times coarser than the picture.
pub const PREVIEW_SCALE: u32 = 8;

/// Runs `filters` on `image` (the CPU reference, filter by filter, checking for a cancel
/// between them) and sends the result with its report, whose histogram counts what is
/// shown (the result inside `shown` only, where given).
pub fn filter_job(
    image: &Arc<RgbaImage>,
    filters: &[Filter],
    shown: Option<ShownSelection>,
    job: &JobContext<(RgbaImage, FrameReport)>,
) {
    let done = process_on_cpu_with(image, filters, &mut |progress| {
        job.set_progress(progress);
        !job.cancelled()
    });
    if let Some((result, mut report)) = done {
        if shown.is_some() {
            report.histogram = crate::ops::cpu::histogram_shown(image, &result, shown);
        }
        job.send((result, report));
    }
}

/// A frame of the explorer computed in the background.
pub struct ExplorerImage {
    pub image: RgbaImage,
    pub frame: MandelbrotFrame,
    /// The settings it was computed for (the full-size view).
    pub settings: MandelbrotSettings,
    /// A coarse preview (the full frame follows).
    pub preview: bool,
    /// The full frame's dwells with their continuous values, kept to recolour the view.
    pub dwells: Option<Arc<Dwells>>,
}

/// The view at 1/`scale` of its size (at least one pixel each way).
pub fn coarse(s: &MandelbrotSettings, scale: u32) -> MandelbrotSettings {
    let mut c = s.clone();
    c.view.width = (s.view.width / scale).max(1);
    c.view.height = (s.view.height / scale).max(1);
    c.overlay = false;
    c
}

/// Computes the view coarse (when it is large enough to gain from it), then at full size.
pub fn explorer_job(s: MandelbrotSettings, job: &JobContext<ExplorerImage>) {
    if s.view.width >= 4 * PREVIEW_SCALE && s.view.height >= 4 * PREVIEW_SCALE {
        let control = RenderControl::cancel_only(job.cancel_flag());
        let (image, frame) = cpu_picture(&coarse(&s, PREVIEW_SCALE), control);
        job.send(ExplorerImage {
            image,
            frame,
            settings: s.clone(),
            preview: true,
            dwells: None,
        });
        job.set_progress(0.1);
    }
    if job.cancelled() {
        return;
    }
    // The preview took the first tenth of the bar.
    let progress = |share: f32| job.set_progress(0.1 + 0.9 * share);
    let control = RenderControl {
        cancelled: job.cancel_flag(),
        progress: &progress,
    };
    let (image, frame, dwells) = cpu_picture_keeping_dwells(&s, control);
    if job.cancelled() {
        return; // the dwells stopped part-way
    }
    job.send(ExplorerImage {
        image,
        frame,
        settings: s,
        preview: false,
        dwells: Some(Arc::new(dwells)),
    });
}

/// The view `s`, a pan of the kept view by `offset` whole pixels: the kept dwells moved,
/// the exposed strips computed (see `mandelbrot::pan`; a deep view's around its own
/// reference orbit). One full frame, no preview.
pub fn explorer_pan_job(
    s: MandelbrotSettings,
    kept: Arc<Dwells>,
    offset: (i64, i64),
    job: &JobContext<ExplorerImage>,
) {
    let (dwells, mut frame, computed) = cpu_panned_dwells(&s, &kept, offset);
    let n = u64::from(s.view.width) * u64::from(s.view.height);
    log::debug!("pan by {offset:?}: {computed} of {n} pixels computed");
    let start = Instant::now();
    let image = s.coloring.colorize(&dwells, s.view.max_dwell);
    frame.stages.push(StageTime::since("colour", start));
    job.send(ExplorerImage {
        image,
        frame,
        settings: s,
        preview: false,
        dwells: Some(Arc::new(dwells)),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::worker::Worker;
    use crate::pipeline::{cpu_dwells, cpu_dwells_cancellable};
    use std::time::{Duration, Instant};

    fn finish<T: Send + 'static>(w: &mut Worker<T>) -> Vec<T> {
        let start = Instant::now();
        let mut out = Vec::new();
        while w.busy() && start.elapsed() < Duration::from_secs(60) {
            out.extend(w.poll());
            std::thread::sleep(Duration::from_millis(2));
        }
        out
    }

    #[test]
    fn the_background_stack_gives_the_cpu_reference() {
        let mut img = RgbaImage::new(64, 48);
        for (x, y, p) in img.enumerate_pixels_mut() {
            *p = image::Rgba([(x * 4) as u8, (y * 5) as u8, ((x * y) % 251) as u8, 255]);
        }
        let filters: Vec<Filter> = ["gaussian:sigma=1.5", "sobel"]
            .iter()
            .map(|s| s.parse().expect("spec"))
            .collect();
        let want = filters.iter().fold(img.clone(), |acc, f| f.apply_cpu(&acc));
        let image = Arc::new(img);
        let mut w = Worker::new("test");
        let (i2, f2) = (image.clone(), filters.clone());
        w.start(|| {}, move |job| filter_job(&i2, &f2, None, job));
        let got = finish(&mut w);
        let (result, report) = got.into_iter().last().expect("a result");
        assert_eq!(result, want);
        assert_eq!(report.stages.len(), 3);
        assert_eq!(report.histogram, crate::ops::cpu::histogram(&want));
        // With filters on a selection only, the histogram counts what is shown.
        let shown = Some(ShownSelection {
            x: 10,
            y: 8,
            width: 30,
            height: 20,
        });
        let (i2, f2) = (image.clone(), filters.clone());
        w.start(|| {}, move |job| filter_job(&i2, &f2, shown, job));
        let (result, report) = finish(&mut w).into_iter().last().expect("a result");
        let composite = crate::ops::cpu::histogram_shown(&image, &result, shown);
        assert_eq!(report.histogram, composite);
        assert_ne!(report.histogram, crate::ops::cpu::histogram(&result));
    }

    #[test]
    fn the_explorer_sends_a_preview_then_the_frame() {
        let mut s = MandelbrotSettings::default();
        (s.view.width, s.view.height) = (160, 96);
        s.view.max_dwell = 64;
        let mut w = Worker::new("test");
        let mut seen = Vec::new();
        let s1 = s.clone();
        w.start(|| {}, move |job| explorer_job(s1, job));
        let start = Instant::now();
        while w.busy() && start.elapsed() < Duration::from_secs(60) {
            // Each result is looked at (poll keeps only the newest of a batch).
            if let Some(r) = w.poll() {
                seen.push((r.preview, r.image.dimensions()));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(seen.last(), Some(&(false, (160, 96))), "{seen:?}");
        if seen.len() == 2 {
            assert_eq!(seen[0], (true, (20, 12)));
        }
        let (dwells, _) = cpu_dwells(&s);
        let want = s.coloring.colorize(&dwells, s.view.max_dwell);
        let mut again = Worker::new("test");
        again.start(|| {}, move |job| explorer_job(s, job));
        let last = finish(&mut again).into_iter().last().expect("frame");
        assert_eq!(last.image, want);
    }

    /// The full frame keeps its dwells with continuous values: any colouring of them is
    /// the picture a new computation in that colouring gives, smooth or not, in a built-in
    /// palette or a user's.
    #[test]
    fn kept_dwells_recolour_as_a_new_computation_would() {
        use crate::mandelbrot::{Gradient, Palette, PaletteChoice, Stop};
        let mut s = MandelbrotSettings::default();
        (s.view.width, s.view.height) = (96, 64);
        s.view.max_dwell = 300;
        let mut w = Worker::new("test");
        let s1 = s.clone();
        w.start(|| {}, move |job| explorer_job(s1, job));
        let last = finish(&mut w).into_iter().last().expect("frame");
        assert!(!last.preview);
        let dwells = last.dwells.expect("the full frame keeps its dwells");
        assert!(dwells.smooth.is_some(), "continuous values kept");
        let user = Gradient::new(
            "user",
            vec![
                Stop {
                    position: 0.1,
                    rgb: [250, 10, 0],
                },
                Stop {
                    position: 0.7,
                    rgb: [0, 40, 200],
                },
            ],
        )
        .expect("valid");
        let palettes = Palette::ALL
            .map(PaletteChoice::from)
            .into_iter()
            .chain([PaletteChoice::User(user)]);
        for (i, palette) in palettes.enumerate() {
            for smooth in [false, true] {
                let mut c = s.clone();
                c.coloring.palette = palette.clone();
                c.coloring.smooth = smooth;
                c.coloring.density = 0.5 + i as f32;
                c.coloring.offset = 0.25 * i as f32 % 1.0;
                let never = std::sync::atomic::AtomicBool::new(false);
                let (want, _) = cpu_picture(&c, RenderControl::cancel_only(&never));
                let got = c.coloring.colorize(&dwells, c.view.max_dwell);
                assert!(got == want, "{palette:?}, smooth {smooth}");
            }
        }
    }

    #[test]
    fn a_cancelled_frame_stops_computing() {
        use std::sync::atomic::AtomicBool;
        let mut s = MandelbrotSettings::default();
        (s.view.width, s.view.height) = (64, 48);
        s.view.max_dwell = 256;
        let running = AtomicBool::new(false);
        let (full, _) = cpu_dwells_cancellable(&s, RenderControl::cancel_only(&running));
        assert_eq!(full.values, cpu_dwells(&s).0.values);
        assert!(full.values.iter().any(|&d| d > 0));
        let stopped = AtomicBool::new(true);
        let (none, _) = cpu_dwells_cancellable(&s, RenderControl::cancel_only(&stopped));
        assert!(none.values.iter().all(|&d| d == 0));
    }
}
