//! GPU test of work spread over every GPU of the host without GL: zoom-sequence frames
//! (each device's pictures copied back, no pixel left unwritten) and posters past the
//! texture limit in bands of tiles (f64 and deep), against the CPU reference of the whole
//! view: at most one pixel in a thousand differs (those whose dwell hangs on the last bits
//! of their point, or on a tile's own reference orbit).
//!
//! CUDA only. Without a CUDA device it prints "skipped: no CUDA device" and passes, or
//! fails under `CUDALENS_REQUIRE_GPU=1`.

mod common;

use cudalens::mandelbrot::deep::{DeepLocation, DEEP_BOOKMARKS};
use cudalens::mandelbrot::{MandelbrotSettings, Mode, PosterPlan, Precision};
use cudalens::pipeline::{
    cpu_dwells, cpu_picture, render_frames_spread, render_poster, PosterPixels, RenderControl,
    Workers,
};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

/// Every CUDA device of the host as workers, or None (with the skip message).
fn every_device() -> Option<Workers> {
    common::gpu::cuda_devices().map(|n| Workers::Cuda((0..n).collect()))
}

fn view(w: u32, h: u32, center: &str, span: &str, dwell: u32, mode: Mode) -> MandelbrotSettings {
    let mut s = MandelbrotSettings::default();
    (s.view.width, s.view.height, s.view.max_dwell, s.mode) = (w, h, dwell, mode);
    s.set_location(DeepLocation::parse(center, span).expect("location"));
    s
}

fn cpu_rgb(s: &MandelbrotSettings) -> Vec<u8> {
    let never = AtomicBool::new(false);
    let (img, _) = cpu_picture(s, RenderControl::cancel_only(&never));
    img.pixels().flat_map(|p| [p[0], p[1], p[2]]).collect()
}

/// Pixels of `bpp` bytes that differ (all of them when the lengths do).
fn mismatches(a: &[u8], b: &[u8], bpp: usize) -> usize {
    if a.len() != b.len() {
        return a.len().max(b.len()) / bpp;
    }
    a.chunks(bpp)
        .zip(b.chunks(bpp))
        .filter(|(x, y)| x != y)
        .count()
}

#[test]
fn gpu_frames_spread_over_every_device_equal_the_cpu() {
    let Some(workers) = every_device() else {
        return;
    };
    let mut frames = Vec::new();
    for i in 0..(2 * workers.len() + 3) as u32 {
        let mode = [Mode::PerPixel, Mode::MarianiSilver][i as usize % 2];
        let mut s = view(320 + i, 200, "-0.7436,0.1318", "0.02", 600, mode);
        // The CPU reference iterates in f64 (auto would take f32 on the GPU at this span).
        s.precision = Precision::F64;
        frames.push(s);
    }
    let done = Mutex::new(Vec::new());
    let reports = render_frames_spread(&frames, 0..frames.len(), &workers, false, |k, out| {
        let img = out.image.expect("a picture");
        let unwritten = img.pixels().filter(|p| p[3] != 255).count();
        assert_eq!(unwritten, 0, "frame {k}: pixels no kernel wrote");
        let got: Vec<u8> = img.pixels().flat_map(|p| [p[0], p[1], p[2]]).collect();
        let n = got.len() / 3;
        let differ = mismatches(&got, &cpu_rgb(&frames[k]), 3);
        assert!(
            differ * 1000 <= n,
            "frame {k}: {differ} of {n} pixels differ from the CPU"
        );
        done.lock().expect("lock").push(k);
        Ok::<(), ()>(())
    })
    .expect("render")
    .expect("every frame");
    let mut done = done.into_inner().expect("lock");
    done.sort();
    assert_eq!(done, (0..frames.len()).collect::<Vec<_>>());
    for r in &reports {
        eprintln!(
            "{}: {} frames, busy {:.3} s, GPU {:.3} s",
            r.name, r.pieces, r.busy_s, r.gpu_s
        );
    }
}

/// Renders `s` as a poster cut by `plan` over `workers`; the bands in order.
fn poster(
    s: &MandelbrotSettings,
    plan: &PosterPlan,
    pixels: PosterPixels,
    workers: &Workers,
) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut next = 0;
    render_poster(s, plan, pixels, workers, |band, rows| {
        assert_eq!(band, next, "bands out of order");
        next += 1;
        bytes.extend_from_slice(rows);
        Ok::<(), ()>(())
    })
    .expect("render")
    .expect("written");
    bytes
}

#[test]
fn gpu_a_poster_past_the_texture_limit_equals_the_cpu() {
    let Some(workers) = every_device() else {
        return;
    };
    // 40000 wide: three tiles a band, past the 32768 texture limit.
    let s = view(40_000, 96, "-0.7436,0.1318", "0.05", 1000, Mode::PerPixel);
    let plan = PosterPlan::with_tiles(40_000, 96, 16_384, 32);
    let n = 40_000 * 96;
    let got = poster(&s, &plan, PosterPixels::Rgb8, &workers);
    let differ = mismatches(&got, &cpu_rgb(&s), 3);
    assert!(
        differ * 1000 <= n,
        "{differ} of {n} pixels differ from the CPU"
    );
    let got = poster(&s, &plan, PosterPixels::Dwell16, &workers);
    let want = cpu_dwells(&s).0.to_be16_bytes();
    let differ = mismatches(&got, &want, 2);
    assert!(
        differ * 1000 <= n,
        "{differ} of {n} dwells differ from the CPU"
    );
    eprintln!("f64 poster: {differ} of {n} dwells unlike the CPU's");
}

#[test]
fn gpu_a_deep_poster_in_tiles_equals_the_cpu() {
    let Some(workers) = every_device() else {
        return;
    };
    // The 1e-50 bookmark, each tile around a reference orbit of its own.
    let b = &DEEP_BOOKMARKS[0];
    let (w, h) = (600, 240);
    let mut s = view(w, h, "0,0", "1", b.max_dwell, Mode::PerPixel);
    s.set_location(b.location().expect("bookmark"));
    let plan = PosterPlan::with_tiles(w, h, 256, 64);
    let got = poster(&s, &plan, PosterPixels::Dwell16, &workers);
    let want = cpu_dwells(&s).0.to_be16_bytes();
    let n = (w * h) as usize;
    let differ = mismatches(&got, &want, 2);
    assert!(
        differ * 1000 <= n,
        "{differ} of {n} deep dwells differ from the CPU"
    );
    eprintln!("deep poster: {differ} of {n} dwells unlike the CPU's");
}
