//! What a frame's CUDA–OpenGL hand-over costs, variant by variant.
//!
//! For each size it registers the frame's three GL objects (source texture READ_ONLY,
//! output texture SURFACE_LDST, 4 KiB bin buffer) and times `cuGraphicsMapResources` and
//! `cuGraphicsUnmapResources` with CPU timers around each driver call and CUDA events on
//! the stream (the GPU timeline the app's status bar shows), over variants: one resource
//! alone, other registration and map flags, glFlush / glFinish before the map, GL busy
//! with copies before the map, CUDA work between map and unmap, the source kept mapped
//! across frames. Then the same objects on the external-memory path (semaphore hand-over).
//! Medians of 30 after 5 warm-up rounds. Needs the NVIDIA GPU (headless EGL).
//!
//! `cargo run --release -p cudalens-bench --example interop_probe [WxH ...]`

use cudalens::cuda::interop::{GraphicsResource, Registered};
use cudalens::cuda::{ffi, memory, CudaDevice, GpuTimeline};
use cudalens::gl::{GlBuffer, GlTexture, HeadlessGl};
use cudalens::pipeline::{BackendRequest, FrameRunner, InteropRequest};
use cudarc::driver::sys;
use glow::HasContext;
use std::time::Instant;

const RUNS: usize = 30;
const WARM_UP: usize = 5;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Per-run samples of named quantities (ms).
#[derive(Default)]
struct Samples(std::collections::BTreeMap<&'static str, Vec<f64>>);

impl Samples {
    fn push(&mut self, name: &'static str, ms: f64) {
        self.0.entry(name).or_default().push(ms);
    }
    fn line(self) -> String {
        self.0
            .into_iter()
            .map(|(k, v)| format!("{k} {:.3}", median(v)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// How one variant treats the frame.
#[derive(Clone, Copy, Default)]
struct Variant {
    name: &'static str,
    /// Which of [source, output, bins] take part.
    take: [bool; 3],
    source_flags: u32,
    output_flags: u32,
    flush: bool,
    finish: bool,
    /// GL copies of the source into a scratch texture queued before the map.
    gl_busy: usize,
    /// A memset of the bins and a copy of the source array between map and unmap.
    cuda_work: bool,
    /// Wait for the stream between map and unmap (the frame did, for its histogram
    /// readback, before this issue).
    sync_before_unmap: bool,
    /// Leave the GPU idle for 1 ms before the map (no CPU wait on it).
    sleep_before_map: bool,
}

fn register(
    device: &CudaDevice,
    v: &Variant,
    source: &GlTexture,
    output: &GlTexture,
    bins: &GlBuffer,
) -> Registered {
    let ctx = &device.ctx;
    let mut resources = Vec::new();
    if v.take[0] {
        resources.push(
            GraphicsResource::texture(ctx, source.id, v.source_flags).expect("register source"),
        );
    }
    if v.take[1] {
        resources.push(
            GraphicsResource::texture(ctx, output.id, v.output_flags).expect("register output"),
        );
    }
    if v.take[2] {
        resources.push(GraphicsResource::buffer(ctx, bins.id, 0).expect("register bins"));
    }
    Registered::new(resources)
}

#[allow(clippy::too_many_arguments)]
fn run_variant(
    gl: &glow::Context,
    device: &CudaDevice,
    v: &Variant,
    source: &GlTexture,
    output: &GlTexture,
    scratch: &GlTexture,
    bins: &GlBuffer,
) -> String {
    let stream = device.stream.clone();
    let mut registered = Some(register(device, v, source, output, bins));
    let mut samples = Samples::default();
    for run in 0..WARM_UP + RUNS {
        for _ in 0..v.gl_busy {
            // SAFETY: two live RGBA8 textures of the source's size.
            unsafe {
                gl.copy_image_sub_data(
                    source.id,
                    glow::TEXTURE_2D,
                    0,
                    0,
                    0,
                    0,
                    scratch.id,
                    glow::TEXTURE_2D,
                    0,
                    0,
                    0,
                    0,
                    source.width as i32,
                    source.height as i32,
                    1,
                );
            }
        }
        let t = Instant::now();
        // SAFETY: glFlush/glFinish on the current context.
        unsafe {
            if v.flush {
                gl.flush();
            }
            if v.finish {
                gl.finish();
            }
        }
        let gl_sync = ms_since(t);
        if v.sleep_before_map {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let mut timeline = GpuTimeline::start(&device.ctx, &stream).expect("events");
        let reg = registered.take().expect("registered");
        let t = Instant::now();
        let mapped = reg.map(&stream).expect("map");
        let map_cpu = ms_since(t);
        timeline.mark("map", &stream).expect("event");
        if v.cuda_work {
            if v.take[2] {
                let ptr = mapped
                    .pointer(mapped_index(v, 2))
                    .expect("bins pointer")
                    .ptr;
                // SAFETY: the mapped bin buffer holds 4 × 256 u32 and stays mapped until
                // the unmap below, which is ordered after the fill on the stream.
                unsafe { memory::fill_u32(ptr, 0, 1024, &stream) }.expect("memset");
            }
            if v.take[0] && v.take[1] {
                let src = mapped.array(0).expect("source array").raw();
                let dst = mapped.array(1).expect("output array").raw();
                // SAFETY: both textures are mapped RGBA8 arrays of the source's size until
                // the unmap below, which is ordered after the copy on the stream.
                unsafe { memory::copy_array(src, dst, source.width, source.height, &stream) }
                    .expect("copy");
            }
            timeline.mark("work", &stream).expect("event");
        }
        if v.sync_before_unmap {
            device.synchronize().expect("sync");
        }
        let t = Instant::now();
        registered = Some(mapped.unmap().expect("unmap"));
        let unmap_cpu = ms_since(t);
        timeline.mark("unmap", &stream).expect("event");
        let gpu = timeline.stage_times().expect("times");
        if run >= WARM_UP {
            samples.push("cpu map", map_cpu);
            samples.push("cpu unmap", unmap_cpu);
            if v.flush || v.finish {
                samples.push("cpu glFlush/glFinish", gl_sync);
            }
            for (name, ms) in gpu {
                samples.push(
                    match name.as_str() {
                        "map" => "gpu map",
                        "work" => "gpu work",
                        _ => "gpu unmap",
                    },
                    ms,
                );
            }
        }
    }
    format!("{:<34} {}", v.name, samples.line())
}

/// Index of resource `which` (0 source, 1 output, 2 bins) among those a variant takes.
fn mapped_index(v: &Variant, which: usize) -> usize {
    v.take[..which].iter().filter(|t| **t).count()
}

/// The source registered and mapped once; only output and bins per frame.
fn keep_source_mapped(
    device: &CudaDevice,
    source: &GlTexture,
    output: &GlTexture,
    bins: &GlBuffer,
) -> String {
    let stream = device.stream.clone();
    let src = Registered::new(vec![GraphicsResource::texture(
        &device.ctx,
        source.id,
        ffi::REGISTER_READ_ONLY,
    )
    .expect("register")]);
    let src_mapped = src.map(&stream).expect("map source once");
    let v = Variant {
        name: "source kept mapped; output + bins",
        take: [false, true, true],
        output_flags: ffi::REGISTER_SURFACE_LDST,
        ..Variant::default()
    };
    let mut registered = Some(register(device, &v, source, output, bins));
    let mut samples = Samples::default();
    for run in 0..WARM_UP + RUNS {
        let mut timeline = GpuTimeline::start(&device.ctx, &stream).expect("events");
        let t = Instant::now();
        let mapped = registered.take().expect("reg").map(&stream).expect("map");
        let map_cpu = ms_since(t);
        timeline.mark("map", &stream).expect("event");
        let t = Instant::now();
        registered = Some(mapped.unmap().expect("unmap"));
        let unmap_cpu = ms_since(t);
        timeline.mark("unmap", &stream).expect("event");
        let gpu = timeline.stage_times().expect("times");
        if run >= WARM_UP {
            samples.push("cpu map", map_cpu);
            samples.push("cpu unmap", unmap_cpu);
            samples.push("gpu map", gpu[0].1);
            samples.push("gpu unmap", gpu[1].1);
        }
    }
    drop(src_mapped);
    format!("{:<34} {}", v.name, samples.line())
}

/// cuGraphicsResourceSetMapFlags on every resource before each map.
fn with_map_flags(
    device: &CudaDevice,
    source: &GlTexture,
    output: &GlTexture,
    bins: &GlBuffer,
) -> String {
    let stream = device.stream.clone();
    let ctx = &device.ctx;
    let raw: Vec<sys::CUgraphicsResource> = vec![
        ffi::register_gl_image(source.id.0.get(), glow::TEXTURE_2D, 0).expect("reg"),
        ffi::register_gl_image(
            output.id.0.get(),
            glow::TEXTURE_2D,
            ffi::REGISTER_SURFACE_LDST,
        )
        .expect("reg"),
        ffi::register_gl_buffer(bins.id.0.get(), 0).expect("reg"),
    ];
    let flags = [1u32, 2, 2]; // READ_ONLY, WRITE_DISCARD, WRITE_DISCARD
    let mut samples = Samples::default();
    let mut handles = raw.clone();
    for run in 0..WARM_UP + RUNS {
        let mut timeline = GpuTimeline::start(ctx, &stream).expect("events");
        let t = Instant::now();
        for (r, f) in raw.iter().zip(flags) {
            // SAFETY: registered, unmapped resources.
            assert_eq!(
                unsafe { sys::cuGraphicsResourceSetMapFlags_v2(*r, f) },
                sys::CUresult::CUDA_SUCCESS
            );
        }
        let set_cpu = ms_since(t);
        let t = Instant::now();
        // SAFETY: registered, unmapped handles; the stream belongs to the current context.
        let ok =
            unsafe { sys::cuGraphicsMapResources(3, handles.as_mut_ptr(), stream.cu_stream()) };
        assert_eq!(ok, sys::CUresult::CUDA_SUCCESS);
        let map_cpu = ms_since(t);
        timeline.mark("map", &stream).expect("event");
        let t = Instant::now();
        // SAFETY: the handles are mapped.
        let ok =
            unsafe { sys::cuGraphicsUnmapResources(3, handles.as_mut_ptr(), stream.cu_stream()) };
        assert_eq!(ok, sys::CUresult::CUDA_SUCCESS);
        let unmap_cpu = ms_since(t);
        timeline.mark("unmap", &stream).expect("event");
        let gpu = timeline.stage_times().expect("times");
        if run >= WARM_UP {
            samples.push("cpu set flags", set_cpu);
            samples.push("cpu map", map_cpu);
            samples.push("cpu unmap", unmap_cpu);
            samples.push("gpu map", gpu[0].1);
            samples.push("gpu unmap", gpu[1].1);
        }
    }
    for r in raw {
        // SAFETY: registered once, unregistered once.
        unsafe { sys::cuGraphicsUnregisterResource(r) };
    }
    format!(
        "{:<34} {}",
        "map flags RO/WD/WD set per frame",
        samples.line()
    )
}

/// What GL does between two frames.
#[derive(Clone, Copy, PartialEq)]
enum GlBetween {
    Nothing,
    /// Copies the output into a scratch texture (as drawing it would read it), flushed.
    ReadsOutput,
    /// The same, then glFinish.
    ReadsOutputFinish,
}

/// The whole frame (copy + histogram) through FrameRunner on each interop path, with GL
/// idle or reading the output between frames (what egui does when it draws it).
fn frame_paths(gl: &glow::Context, source: &GlTexture, scratch: &GlTexture) -> Vec<String> {
    let image = cudalens::ops::random_image(source.width, source.height, 3);
    let mut out = Vec::new();
    for between in [
        GlBetween::Nothing,
        GlBetween::ReadsOutput,
        GlBetween::ReadsOutputFinish,
    ] {
        for path in [InteropRequest::Classic, InteropRequest::External] {
            let mut runner =
                match FrameRunner::new(gl, BackendRequest::Cuda, path, source.width, source.height)
                {
                    Ok(r) => r,
                    Err(e) => {
                        out.push(format!("{path:?}: cannot open: {e}"));
                        continue;
                    }
                };
            let mut samples = Samples::default();
            for run in 0..WARM_UP + RUNS {
                if between != GlBetween::Nothing {
                    let output = runner.targets.output.id;
                    // SAFETY: two live RGBA8 textures of the source's size.
                    unsafe {
                        gl.copy_image_sub_data(
                            output,
                            glow::TEXTURE_2D,
                            0,
                            0,
                            0,
                            0,
                            scratch.id,
                            glow::TEXTURE_2D,
                            0,
                            0,
                            0,
                            0,
                            source.width as i32,
                            source.height as i32,
                            1,
                        );
                        gl.flush();
                        if between == GlBetween::ReadsOutputFinish {
                            gl.finish();
                        }
                    }
                }
                let t = Instant::now();
                let report = runner.run(gl, source, &image, &[]).expect("frame");
                let wall = ms_since(t);
                if run >= WARM_UP {
                    samples.push("wall frame", wall);
                    for s in report.stages {
                        let name: &'static str = match s.name.as_str() {
                            "interop in" => "gpu interop in",
                            "interop out" => "gpu interop out",
                            "copy" => "gpu copy",
                            _ => "gpu histogram",
                        };
                        samples.push(name, s.ms);
                    }
                }
            }
            let status = runner
                .interop
                .clone()
                .map(|i| i.kind.to_string())
                .unwrap_or_default();
            let gl_side = match between {
                GlBetween::Nothing => "GL idle",
                GlBetween::ReadsOutput => "GL reads output",
                GlBetween::ReadsOutputFinish => "GL reads output+finish",
            };
            out.push(format!(
                "{:<34} {}",
                format!("frame, {status}, {gl_side}"),
                samples.line()
            ));
            runner.destroy(gl);
        }
    }
    out
}

fn sizes() -> Vec<(u32, u32)> {
    let args: Vec<(u32, u32)> = std::env::args()
        .skip(1)
        .filter_map(|a| cudalens::cli::parse_size(&a).ok())
        .collect();
    if args.is_empty() {
        vec![
            (512, 512),
            (1024, 1024),
            (1920, 1080),
            (3840, 2160),
            (7680, 4320),
        ]
    } else {
        args
    }
}

fn main() {
    let ctx = HeadlessGl::new().expect("headless GL");
    let gl = &ctx.gl;
    println!("GL: {}", ctx.renderer);
    let device = CudaDevice::for_current_gl().expect("CUDA on the GL device");
    println!("CUDA: {}", device.info);
    let ro = ffi::REGISTER_READ_ONLY;
    let ldst = ffi::REGISTER_SURFACE_LDST;
    let base = Variant {
        name: "3 resources (as the app)",
        take: [true, true, true],
        source_flags: ro,
        output_flags: ldst,
        ..Variant::default()
    };
    let variants = [
        base,
        Variant {
            name: "source texture alone",
            take: [true, false, false],
            ..base
        },
        Variant {
            name: "output texture alone",
            take: [false, true, false],
            ..base
        },
        Variant {
            name: "bin buffer alone",
            take: [false, false, true],
            ..base
        },
        Variant {
            name: "registered with no flags",
            source_flags: 0,
            output_flags: 0,
            ..base
        },
        Variant {
            name: "glFlush before map",
            flush: true,
            ..base
        },
        Variant {
            name: "glFinish before map",
            finish: true,
            ..base
        },
        Variant {
            name: "GL busy (20 copies) before map",
            gl_busy: 20,
            ..base
        },
        Variant {
            name: "GL busy + glFinish before map",
            gl_busy: 20,
            finish: true,
            ..base
        },
        Variant {
            name: "CUDA copy between map and unmap",
            cuda_work: true,
            ..base
        },
        Variant {
            name: "stream sync before unmap (old)",
            cuda_work: true,
            sync_before_unmap: true,
            ..base
        },
        Variant {
            name: "CPU sleeps 1 ms before map",
            sleep_before_map: true,
            ..base
        },
    ];
    for (w, h) in sizes() {
        println!("== {w}×{h} (medians of {RUNS}, ms)");
        let image = cudalens::ops::random_image(w, h, 1);
        let source = GlTexture::new(gl, w, h, Some(image.as_raw())).expect("source");
        let output = GlTexture::new(gl, w, h, None).expect("output");
        let scratch = GlTexture::new(gl, w, h, None).expect("scratch");
        let bins = GlBuffer::new(gl, 4096).expect("bins");
        for v in &variants {
            println!(
                "{}",
                run_variant(gl, &device, v, &source, &output, &scratch, &bins)
            );
        }
        println!("{}", keep_source_mapped(&device, &source, &output, &bins));
        println!("{}", with_map_flags(&device, &source, &output, &bins));
        for line in frame_paths(gl, &source, &scratch) {
            println!("{line}");
        }
        for t in [source, output, scratch] {
            t.destroy(gl);
        }
        bins.destroy(gl);
    }
}
