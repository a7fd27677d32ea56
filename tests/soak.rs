//! Soak: a long headless run on the CUDA backend through the real interop path:
//! random filter stacks (random specification strings parsed by `Filter::from_str`, so
//! the soak follows whatever filters the parser knows), random parameters, images from
//! 1×1 to 8K loaded and replaced, Mandelbrot views. Every 100th frame is checked against
//! the CPU reference (read back from GL); the others stay in GL, as in the app. At
//! checkpoints the same canonical frame is run and the driver's
//! used GPU memory and the host RSS must stay within 1 MiB of the first checkpoint after
//! warm-up (`SOAK_WARM_UP` frames, default 1000); each checkpoint prints where the host
//! memory sits and which mappings moved, to place a drift. Ignored by default;
//! `scripts/gpu/soak.sh` runs it on the GPU machine (`SOAK_FRAMES`, default
//! 10 000; `SOAK_SECONDS` stops it early, saying how far it got; `SOAK_INTEROP` and
//! `SOAK_PARTS` choose the path and the kind of frames; `SOAK_REPLACE`, `SOAK_VIEW`,
//! `SOAK_READBACK` and `SOAK_STACKS` narrow it down to place a drift; `SOAK_DRAIN=1`
//! prints what GL actions at a checkpoint do to the device memory). The script keeps
//! the test's own CPU reference from being measured as the app: `MALLOC_ARENA_MAX=1`, so
//! that `malloc_trim` can give back what the reference's worker threads freed (each
//! thread's own arena keeps its top resident); one rayon thread
//! (`RAYON_NUM_THREADS=1`) and no glibc tcache, because each worker's stack and
//! per-thread cache fill slowly as ever larger references run (16 workers: +2 MiB over
//! 40 000 frames, flat with one).

mod common;

use cudalens::cuda::CudaDevice;
use cudalens::filters::{apply_cpu, Filter, ParamDefault, FILTERS};
use cudalens::gl::HeadlessGl;
use cudalens::mandelbrot::{render_per_pixel, MandelbrotSettings, Mode, Precision, View};
use cudalens::pipeline::stages_of;
use cudalens::pipeline::{
    BackendKind, BackendRequest, FrameRunner, InteropRequest, MandelbrotRenderer,
};
use image::RgbaImage;
use rand::{Rng, SeedableRng};
use std::time::Instant;

const MIB: i64 = 1 << 20;
/// Frames before the first checkpoint (`SOAK_WARM_UP` to change).
const WARM_UP: usize = 1000;
const CHECKPOINT_EVERY: usize = 500;

/// A random filter specification, sometimes out of range (the parser must refuse those).
fn random_spec(rng: &mut impl Rng) -> String {
    // Any registered filter, values over the lower third of each range and a little
    // outside it (so that some are refused).
    let def = FILTERS[rng.random_range(0..FILTERS.len())];
    let mut params = Vec::new();
    for p in def.params {
        if p.default != ParamDefault::Required && rng.random_bool(0.5) {
            continue;
        }
        if p.is_choice() {
            // Any of its words, or now and then one it does not have.
            let i = rng.random_range(0..=p.choices.len());
            params.push(format!(
                "{}={}",
                p.name,
                p.choices.get(i).unwrap_or(&"none")
            ));
            continue;
        }
        let top = p.min + (p.max - p.min) / 3.0 + 1.0;
        let v = rng.random_range(p.min - 0.5..top);
        params.push(if p.integer {
            format!("{}={}", p.name, v.round())
        } else {
            format!("{}={v:.2}", p.name)
        });
    }
    if params.is_empty() {
        def.name.to_string()
    } else {
        format!("{}:{}", def.name, params.join(","))
    }
}

/// A random stack of 0 to 4 valid filters; counts the specifications refused. With
/// `same_shape`, only filters whose output has their input's size.
fn random_stack(rng: &mut impl Rng, refused: &mut usize, same_shape: bool) -> Vec<Filter> {
    let n = rng.random_range(0..=4);
    let mut stack = Vec::new();
    while stack.len() < n {
        match random_spec(rng).parse::<Filter>() {
            Ok(f) if same_shape && f.output_size(3, 2) != (3, 2) => {}
            Ok(f) => stack.push(f),
            Err(_) => *refused += 1,
        }
    }
    stack
}

/// Sides log-uniform in 1..=8192 (clamped to 8K UHD), now and then exactly 7680×4320.
fn random_size(rng: &mut impl Rng, replacement: usize) -> (u32, u32) {
    if replacement % 40 == 7 {
        return (7680, 4320);
    }
    let side = |rng: &mut dyn rand::RngCore| 2f64.powf(rng.random_range(0.0..13.0)) as u32;
    (side(rng).clamp(1, 7680), side(rng).clamp(1, 4320))
}

fn exact(f: &Filter) -> bool {
    f.def().gpu_tolerance == 0
}

struct Soak {
    gl: HeadlessGl,
    runner: FrameRunner,
    mandel: MandelbrotRenderer,
    image: RgbaImage,
    /// Every Mandelbrot view 640×480 (`SOAK_VIEW=fixed`), to tell size changes apart.
    fixed_view: bool,
}

impl Soak {
    /// Loads `image` as the app does (`FrameRunner::load_source`).
    fn replace_image(&mut self, image: RgbaImage) {
        self.runner
            .load_source(&self.gl.gl, &image)
            .expect("source texture");
        self.image = image;
    }

    /// A frame as the app runs it: the result stays in GL, nothing is read back.
    fn run(&mut self, filters: &[Filter]) {
        let report = self
            .runner
            .run_loaded(&self.gl.gl, &self.image, &stages_of(filters))
            .expect("CUDA frame");
        assert_eq!(report.backend, BackendKind::Cuda, "fell back to the CPU");
    }

    /// A frame whose result is read back (as `apply` and saving do), to be checked.
    fn frame(&mut self, filters: &[Filter]) -> RgbaImage {
        self.run(filters);
        self.runner.read_output(&self.gl.gl).expect("read output")
    }

    /// Every stage on the GPU from the CPU's input of that stage, against the CPU stage;
    /// exact stacks also as a whole.
    fn check(&mut self, filters: &[Filter]) -> u8 {
        let whole = self.frame(filters);
        if filters.iter().all(exact) {
            assert_eq!(whole, apply_cpu(&self.image, filters), "{filters:?}");
        }
        let original = self.image.clone();
        let mut input = original.clone();
        let mut worst = 0;
        for f in filters {
            let want = f.apply_cpu(&input);
            self.replace_image(input);
            let got = self.frame(std::slice::from_ref(f));
            let (max, count) = common::max_difference(&got, &want);
            let tolerance = if exact(f) { 0 } else { 1 };
            assert!(
                max <= tolerance,
                "{f}: max difference {max} in {count} values"
            );
            worst = worst.max(max);
            input = want;
        }
        self.replace_image(original);
        worst
    }

    fn mandelbrot(&mut self, rng: &mut impl Rng, checked: bool) {
        let side = |rng: &mut dyn rand::RngCore, max: u32| rng.random_range(1..=max);
        let max = if checked { 384 } else { 1024 };
        let view = View {
            center: (rng.random_range(-2.0..0.6), rng.random_range(-1.2..1.2)),
            span: 10f64.powf(rng.random_range(-6.0..0.5)),
            width: if self.fixed_view { 640 } else { side(rng, max) },
            height: if self.fixed_view { 480 } else { side(rng, max) },
            max_dwell: rng.random_range(1..=2048),
            fractal: cudalens::mandelbrot::Fractal::Mandelbrot,
        };
        let mode = if rng.random_bool(0.5) {
            Mode::MarianiSilver
        } else {
            Mode::PerPixel
        };
        let s = MandelbrotSettings {
            view,
            mode,
            precision: if checked {
                Precision::F64
            } else {
                Precision::Auto
            },
            ..MandelbrotSettings::default()
        };
        if checked {
            let (got, _) = self.mandel.dwells(&s).expect("GPU dwells");
            let bad = got.mismatches(&render_per_pixel(&view, false));
            let total = (view.width * view.height) as usize;
            assert!(
                bad * 1000 <= total,
                "{view:?} {mode:?}: {bad} of {total} dwells differ"
            );
        } else {
            let frame = self.mandel.render(&self.gl.gl, &s).expect("GPU Mandelbrot");
            assert_eq!(frame.backend, BackendKind::Cuda);
        }
    }

    /// The canonical frame of a checkpoint; returns (GPU bytes used, host RSS bytes).
    /// What grows with the largest image or view seen (scratch, intermediates, dwell
    /// buffers) is trimmed first, as the app does on loading an image; once the last
    /// image's host pixels are dropped the allocator gives its free pages back: what is
    /// left over is what leaked.
    fn checkpoint(&mut self, canonical: &RgbaImage, stack: &[Filter]) -> (GpuUsed, i64) {
        self.runner.trim(&self.gl.gl);
        self.mandel
            .trim(&self.gl.gl)
            .expect("trim the Mandelbrot buffers");
        self.replace_image(canonical.clone());
        // SAFETY: glibc's malloc_trim only returns free heap pages to the system.
        unsafe { libc::malloc_trim(0) };
        self.run(stack);
        let s = MandelbrotSettings {
            view: View {
                center: (-0.5, 0.0),
                span: 3.0,
                width: 1024,
                height: 768,
                max_dwell: 512,
                fractal: cudalens::mandelbrot::Fractal::Mandelbrot,
            },
            ..MandelbrotSettings::default()
        };
        self.mandel.render(&self.gl.gl, &s).expect("canonical view");
        if let Some(d) = self.runner.cuda_device() {
            d.synchronize().expect("sync");
            d.bind().expect("bind");
        }
        let gpu = gpu_used(&self.gl.gl);
        if std::env::var_os("SOAK_DRAIN").is_some() {
            drain_probe(&self.gl.gl, gpu.used);
        }
        (gpu, status_bytes(&read_status(), "VmRSS:"))
    }
}

/// Whether anything the test can do makes GL give back the storage it keeps
/// (`SOAK_DRAIN=1`): the device memory in use after each of a series of GL actions,
/// printed against `before`. On the H200 none moved it.
fn drain_probe(gl: &glow::Context, before: i64) {
    use glow::HasContext;
    let used = || gpu_used(gl).used;
    let mut line = Vec::new();
    let mut step = |name: &str, f: &dyn Fn()| {
        f();
        line.push(format!(
            "{name} {:+.2}",
            (used() - before) as f64 / MIB as f64
        ));
    };
    // SAFETY (each closure): plain GL calls on this thread's current context, on
    // textures made and deleted within the closure.
    step("200 flushes", &|| unsafe {
        for _ in 0..200 {
            gl.flush();
        }
    });
    step("64 small textures", &|| {
        let texels = vec![7u8; 16 * 16 * 4];
        for _ in 0..64 {
            let t = cudalens::gl::GlTexture::new(gl, 16, 16, Some(&texels)).expect("small texture");
            t.destroy(gl);
        }
    });
    step("1 s", &|| {
        std::thread::sleep(std::time::Duration::from_secs(1))
    });
    let big = vec![7u8; 7680 * 4320 * 4];
    step("an 8K texture with texels", &|| {
        let t = cudalens::gl::GlTexture::new(gl, 7680, 4320, Some(&big)).expect("8K texture");
        t.destroy(gl);
    });
    step("64 more 1K textures with texels", &|| {
        for _ in 0..64 {
            let t = cudalens::gl::GlTexture::new(gl, 1024, 1024, Some(&big[..1 << 22]))
                .expect("1K texture");
            t.destroy(gl);
        }
    });
    println!("    drains: {}", line.join(", "));
}

/// The device memory in use at a checkpoint (CUDA's `cuMemGetInfo`, once GL has finished)
/// and the video memory GL calls free (`GL_NVX_gpu_memory_info`). On the map/unmap path
/// the first includes what GL's allocator keeps of freed texture storage, which GL counts
/// as free (docs/design/interop.md).
struct GpuUsed {
    used: i64,
    gl_free: Option<u64>,
}

fn gpu_used(gl: &glow::Context) -> GpuUsed {
    // SAFETY: a plain GL call on this thread's current context.
    unsafe { glow::HasContext::finish(gl) };
    let (free, total) = cudarc::driver::result::mem_get_info().expect("cuMemGetInfo");
    GpuUsed {
        used: total as i64 - free as i64,
        gl_free: cudalens::gl::free_video_memory(gl),
    }
}

fn env_or_unset(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| "unset".into())
}

fn read_status() -> String {
    std::fs::read_to_string("/proc/self/status").expect("/proc/self/status")
}

/// A field of `/proc/self/status` (`status`) given in kB, in bytes.
fn status_bytes(status: &str, field: &str) -> i64 {
    let kib: i64 = status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/self/status"));
    kib * 1024
}

/// Where the host memory sits, to place a drift of the RSS: anonymous, file-backed and
/// shared pages; what glibc's malloc has handed out (heap and its own mmaps) and holds free;
/// and how many mappings the process has (drivers map memory of their own, outside malloc).
fn host_memory_line() -> String {
    // SAFETY: mallinfo2 only reads glibc's allocator statistics.
    let m = unsafe { libc::mallinfo2() };
    let maps = common::mapping_count();
    let status = read_status();
    let mib = |b: i64| b as f64 / MIB as f64;
    format!(
        "anon {:.2}, file {:.2}, shmem {:.2} MiB; malloc in use {:.2} (of which mmapped {:.2}), free {:.2} MiB; {maps} mappings",
        mib(status_bytes(&status, "RssAnon:")),
        mib(status_bytes(&status, "RssFile:")),
        mib(status_bytes(&status, "RssShmem:")),
        mib(m.uordblks as i64 + m.hblkhd as i64),
        mib(m.hblkhd as i64),
        mib(m.fordblks as i64),
    )
}

/// Resident bytes of each mapping (`/proc/self/smaps`), keyed by its line in the maps
/// (address range, permissions, offset, device, inode and path).
fn mapping_rss() -> std::collections::HashMap<String, i64> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
    let mut out = std::collections::HashMap::new();
    let mut current = None;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if first.contains('-') && !first.ends_with(':') {
            current = Some(line.split_whitespace().collect::<Vec<_>>().join(" "));
        } else if let (Some(key), Some(kib)) = (&current, line.strip_prefix("Rss:")) {
            let kib: i64 = kib
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .unwrap_or(0);
            out.insert(key.clone(), kib * 1024);
        }
    }
    out
}

/// The mappings whose resident size moved by 256 KiB or more since `base`, largest moves
/// first (a mapping that came or went counts in full), then the sum of the smaller moves:
/// where an RSS drift sits.
fn mapping_moves(
    base: &std::collections::HashMap<String, i64>,
    now: &std::collections::HashMap<String, i64>,
) -> String {
    let mut moves: Vec<(i64, &str)> = base
        .keys()
        .chain(now.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|k| {
            let d = now.get(k).copied().unwrap_or(0) - base.get(k).copied().unwrap_or(0);
            (d, k.as_str())
        })
        .filter(|(d, _)| *d != 0)
        .collect();
    moves.sort_by_key(|(d, _)| -d.abs());
    let (large, small): (Vec<_>, Vec<_>) = moves.iter().partition(|(d, _)| d.abs() >= 256 * 1024);
    let mut out: Vec<String> = large
        .iter()
        .take(8)
        .map(|(d, k)| format!("{:+.2} MiB {k}", *d as f64 / MIB as f64))
        .collect();
    if !small.is_empty() {
        // Unnamed anonymous mappings are mostly threads' stacks (and drivers' own memory).
        let unnamed = |k: &str| k.split_whitespace().count() <= 5;
        let sum = |f: &dyn Fn(&str) -> bool| -> f64 {
            small
                .iter()
                .filter(|(_, k)| f(k))
                .map(|(d, _)| *d)
                .sum::<i64>() as f64
                / MIB as f64
        };
        out.push(format!(
            "{} smaller moves {:+.2} MiB (unnamed anonymous {:+.2} MiB)",
            small.len(),
            sum(&|_| true),
            sum(&unnamed)
        ));
    }
    out.join("; ")
}

/// The CUDA device's default memory pool (where cudarc's stream-ordered allocations
/// live): reserved and used MiB.
fn pool_line(device: Option<&CudaDevice>) -> String {
    match device.map(CudaDevice::pool_usage) {
        Some(Ok((reserved, used))) => format!(
            "pool reserved {:.2}, used {:.2} MiB",
            reserved as f64 / MIB as f64,
            used as f64 / MIB as f64
        ),
        _ => "pool ?".into(),
    }
}

#[test]
#[ignore = "long: run on the GPU machine by scripts/gpu/soak.sh"]
fn soak_random_frames_on_cuda() {
    if !CudaDevice::count().is_ok_and(|n| n > 0) {
        common::skip_gpu_test("no CUDA device");
        return;
    }
    let frames: usize = std::env::var("SOAK_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    // A time bound for a lent machine: the run stops early and says how far it got.
    let seconds: f64 = std::env::var("SOAK_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::INFINITY);
    let gl = HeadlessGl::new().expect("headless GL");
    // SOAK_INTEROP: auto (default), classic or external; SOAK_PARTS: both (default),
    // filters or mandelbrot, to tell where memory goes.
    let interop = match std::env::var("SOAK_INTEROP").as_deref() {
        Ok("classic") => InteropRequest::Classic,
        Ok("external") => InteropRequest::External,
        _ => InteropRequest::Auto,
    };
    let warm_up: usize = std::env::var("SOAK_WARM_UP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(WARM_UP);
    let parts = std::env::var("SOAK_PARTS").unwrap_or_else(|_| "both".into());
    // none: only the image loads; SOAK_REPLACE=0 keeps the first image.
    let filters_on = parts == "both" || parts == "filters";
    let mandel_on = parts == "both" || parts == "mandelbrot";
    let replace = std::env::var("SOAK_REPLACE").map_or(true, |v| v != "0");
    let fixed_view = std::env::var("SOAK_VIEW").is_ok_and(|v| v == "fixed");
    // SOAK_READBACK=all reads every filter frame back (as the first soak did), to
    // tell the host memory of the reads from the frames'.
    let readback_all = std::env::var("SOAK_READBACK").is_ok_and(|v| v == "all");
    // SOAK_READBACK=none checks nothing (no read-backs at all) and SOAK_STACKS=same-shape
    // leaves out filters that turn the image, to tell their memory from the frames'.
    let checks_on = std::env::var("SOAK_READBACK").map_or(true, |v| v != "none");
    let same_shape = std::env::var("SOAK_STACKS").is_ok_and(|v| v == "same-shape");
    let runner =
        FrameRunner::new(&gl.gl, BackendRequest::Cuda, interop, 1, 1).expect("CUDA backend");
    println!(
        "soak: interop {:?}, parts {parts}, images replaced {replace}, fixed view {fixed_view}, every frame read back {readback_all}, checks {checks_on}, same-shape stacks {same_shape}, warm-up {warm_up} frames, MALLOC_ARENA_MAX {}, RAYON_NUM_THREADS {}, GLIBC_TUNABLES {}",
        runner.interop,
        env_or_unset("MALLOC_ARENA_MAX"),
        env_or_unset("RAYON_NUM_THREADS"),
        env_or_unset("GLIBC_TUNABLES"),
    );
    let mandel =
        MandelbrotRenderer::new(&gl.gl, BackendRequest::Cuda, runner.cuda_share(), interop)
            .expect("CUDA Mandelbrot");
    let image = common::photo("coffee.png");
    let mut soak = Soak {
        gl,
        runner,
        mandel,
        image: RgbaImage::new(1, 1),
        fixed_view,
    };
    soak.replace_image(image);
    let photos = ["astronaut.png", "camera.png", "coffee.png", "logo.png"].map(common::photo);
    let canonical = photos[0].clone();
    let canonical_stack: Vec<Filter> = ["gaussian:sigma=2", "box:radius=3", "sobel"]
        .iter()
        .map(|s| s.parse().expect("canonical spec"))
        .collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    let (mut refused, mut checks, mut worst, mut replacements, mut mandels) = (0, 0, 0u8, 0, 0);
    let mut baseline: Option<(i64, i64)> = None;
    let mut baseline_maps = None;
    let (mut gpu_drift, mut rss_drift) = (0i64, 0i64);
    let mut gl_free_base: Option<Option<u64>> = None;
    let start = Instant::now();
    let mut done = 0;
    for frame in 0..frames {
        if start.elapsed().as_secs_f64() > seconds {
            break;
        }
        done = frame + 1;
        if frame % 25 == 0 && (replace || frame == 0) {
            let (w, h) = random_size(&mut rng, replacements);
            let image = if replacements % 5 == 0 {
                photos[replacements / 5 % photos.len()].clone()
            } else {
                cudalens::ops::random_image(w, h, frame as u64)
            };
            soak.replace_image(image);
            replacements += 1;
        }
        // Frame 98 of every hundred checks a filter stack, frame 99 a Mandelbrot view.
        let checked = checks_on && frame % 100 >= 98;
        let mandel_frame = frame % 5 == 4;
        if mandel_frame && mandel_on {
            soak.mandelbrot(&mut rng, checked);
            mandels += 1;
        } else if !mandel_frame && filters_on {
            let stack = random_stack(&mut rng, &mut refused, same_shape);
            if checked {
                worst = worst.max(soak.check(&stack));
                checks += 1;
            } else if readback_all {
                soak.frame(&stack);
            } else {
                soak.run(&stack);
            }
        }
        if frame + 1 >= warm_up && (frame + 1) % CHECKPOINT_EVERY == 0 {
            let (gpu, rss) = soak.checkpoint(&canonical, &canonical_stack);
            let now = (gpu.used, rss);
            let base = *baseline.get_or_insert(now);
            let gl_base = *gl_free_base.get_or_insert(gpu.gl_free);
            let maps = mapping_rss();
            let base_maps = baseline_maps.get_or_insert_with(|| maps.clone());
            gpu_drift = gpu_drift.max((now.0 - base.0).abs());
            rss_drift = rss_drift.max((now.1 - base.1).abs());
            let mib = |b: i64| b as f64 / MIB as f64;
            let gl_line = match (gpu.gl_free, gl_base) {
                (Some(f), Some(b)) => format!(
                    "GL free {:.1} MiB ({:+.2})",
                    mib(f as i64),
                    mib(f as i64 - b as i64)
                ),
                _ => "GL free ?".into(),
            };
            println!(
                "frame {:>6}: GPU used {:.1} MiB ({:+.2}; {gl_line}), RSS {:.1} MiB ({:+.2}), {:.0} s; {}",
                frame + 1,
                mib(now.0),
                mib(now.0 - base.0),
                mib(now.1),
                mib(now.1 - base.1),
                start.elapsed().as_secs_f64(),
                host_memory_line() + "; " + &pool_line(soak.runner.cuda_device())
            );
            let moves = mapping_moves(base_maps, &maps);
            if !moves.is_empty() {
                println!("    mappings moved since the first checkpoint: {moves}");
            }
        }
    }
    println!(
        "soak: {done} of {frames} frames ({mandels} Mandelbrot views, {replacements} images loaded), {checks} filter checks against the CPU (worst difference {worst}), {refused} out-of-range specs refused, {:.0} s; drift after warm-up: GPU {gpu_drift} B, RSS {rss_drift} B",
        start.elapsed().as_secs_f64()
    );
    // On map/unmap this fails while GL's allocator keeps freed texture storage: GL's own
    // free-memory figure (printed) stays put meanwhile (docs/design/interop.md).
    assert!(gpu_drift <= MIB, "GPU memory drifted by {gpu_drift} B");
    assert!(rss_drift <= MIB, "host RSS drifted by {rss_drift} B");
    let Soak {
        gl, runner, mandel, ..
    } = soak;
    mandel.destroy(&gl.gl);
    runner.destroy(&gl.gl);
}
