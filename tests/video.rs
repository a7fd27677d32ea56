//! Videos through ffmpeg: the test clips (`scripts/fidelity/make_video_clips.sh`: frame N
//! one flat colour, R = 10·N, G = 255 − 10·N, B = 128) decode to their frame count, in
//! order, in their colours, on H.264 with B-frames, HEVC Main10 and VP9; `apply` writes
//! numbered frames equal to the CPU filter of each decoded frame, and videos that ffprobe
//! and the decoder read back. Bad input: one line, exit 2, nothing written, no hang.
//! Skipped (with a message) where ffmpeg is not installed; CI installs it. OpenH264 (forced,
//! ffmpeg or not): ffmpeg's frames, FFmpeg's recorded samples (no ffmpeg needed), exact
//! seeks, `apply` and `histogram` with no ffmpeg on the PATH, refusals in one line.

mod common;

use common::process::{cudalens, leftover_parts, run_limited};
use cudalens::filters::Filter;
use cudalens::video::FrameReader;
use std::path::{Path, PathBuf};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

fn ffmpeg_installed() -> bool {
    let found = cudalens::video::ffmpeg_found().is_some();
    if !found {
        eprintln!("skipped: ffmpeg is not installed");
    }
    found
}

fn clip(name: &str) -> PathBuf {
    common::data(&format!("video/{name}"))
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Every frame of `path`.
fn frames(path: &Path) -> Vec<image::RgbaImage> {
    let mut reader = FrameReader::open(path).expect("opens");
    let mut all = Vec::new();
    while let Some(f) = reader.next_frame().expect("decodes") {
        all.push(f);
    }
    all
}

/// A stream whose size changes at keyframes (96×64 → 64×48 → 160×96 → 96×64, H.264 and
/// VP9): every frame arrives at the first frame's size (ffmpeg scales the others, as NVDEC
/// does in the app), described the same by the Rust demuxer and ffprobe.
#[test]
fn a_stream_whose_size_changes_keeps_its_first_size() {
    if !ffmpeg_installed() {
        return;
    }
    for (name, size) in [("sizes_h264.mp4", (96, 64)), ("sizes_vp9.webm", (176, 144))] {
        let described = cudalens::video::describe(&clip(name)).expect("described");
        assert_eq!((described.width, described.height), size, "{name}");
        let all = frames(&clip(name));
        assert_eq!(all.len(), 48, "{name}: frames");
        assert!(all.iter().all(|f| f.dimensions() == size), "{name}: sizes");
        // Not one picture repeated: the segments after a change are decoded, not dropped.
        assert!(
            all.windows(2).all(|w| w[0] != w[1]),
            "{name}: a frame repeats"
        );
    }
}

/// The counter's colour of frame `n`.
fn counter(n: usize) -> [i32; 3] {
    [10 * n as i32, 255 - 10 * n as i32, 128]
}

/// The largest difference of any pixel of `frame` from `want`.
fn off(frame: &image::RgbaImage, want: [i32; 3]) -> i32 {
    frame
        .pixels()
        .flat_map(|p| (0..3).map(move |c| (i32::from(p[c]) - want[c]).abs()))
        .max()
        .unwrap_or(i32::MAX)
}

#[test]
fn clips_decode_in_order_in_their_colours() {
    if !ffmpeg_installed() {
        return;
    }
    for (name, count) in [
        ("counter_h264.mp4", 24),
        ("counter_hevc10.mkv", 12),
        ("counter_vp9.webm", 12),
    ] {
        let all = frames(&clip(name));
        assert_eq!(all.len(), count, "{name}: frames");
        for (n, f) in all.iter().enumerate() {
            assert_eq!(f.dimensions(), (64, 48), "{name}");
            let d = off(f, counter(n));
            assert!(d <= 6, "{name}: frame {n} is {d} levels from its colour");
        }
    }
    let odd = frames(&clip("odd_size.mp4"));
    assert_eq!(odd.len(), 5);
    assert_eq!(odd[0].dimensions(), (62, 34));
}

#[test]
fn apply_writes_each_frame_filtered_as_the_cpu_filters_it() {
    if !ffmpeg_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let pattern = dir.path().join("f%04d.png");
    let input = clip("counter_h264.mp4");
    let spec = "gaussian:sigma=1.5";
    let r = run_limited(
        cudalens().args(["apply", s(&input), "-o", s(&pattern), "--filter", spec]),
        dir.path(),
        LIMIT,
    );
    assert_eq!(r.code, Some(0), "{r:#?}");
    let filter: Filter = spec.parse().expect("spec");
    for (n, frame) in frames(&input).iter().enumerate() {
        let want = filter.apply_cpu(frame);
        let path = dir.path().join(format!("f{n:04}.png"));
        let got = image::open(&path).expect("a frame").into_rgba8();
        let differ = got
            .pixels()
            .zip(want.pixels())
            .filter(|(a, b)| a.0[..3] != b.0[..3])
            .count();
        // On CUDA the kernels are within a level of the CPU (verify.sh's apply step).
        let bound = if r.stderr.contains("CPU backend") {
            0
        } else {
            got.len()
        };
        assert!(differ <= bound, "frame {n}: {differ} pixels differ");
    }
    assert!(!dir.path().join("f0024.png").exists(), "a frame too many");
}

#[test]
fn apply_encodes_videos_that_read_back() {
    if !ffmpeg_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for (out, codec) in [("o.mp4", "h264"), ("o.mkv", "h264"), ("o.webm", "vp9")] {
        let out = dir.path().join(out);
        let input = clip("counter_hevc10.mkv");
        let r = run_limited(
            cudalens().args(["apply", s(&input), "-o", s(&out)]),
            dir.path(),
            LIMIT,
        );
        assert_eq!(r.code, Some(0), "{r:#?}");
        let info = cudalens::video::probe(&out).expect("probe");
        assert_eq!(
            (info.codec.as_str(), info.width, info.height),
            (codec, 64, 48)
        );
        let all = frames(&out);
        assert_eq!(all.len(), 12, "{}", out.display());
        for (n, f) in all.iter().enumerate() {
            let d = off(f, counter(n));
            assert!(d <= 12, "{}: frame {n} is {d} levels off", out.display());
        }
    }
    assert!(leftover_parts(dir.path()).is_empty());
}

#[test]
fn bad_videos_get_one_line_and_nothing_is_written() {
    if !ffmpeg_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let text = d.join("text.mp4");
    std::fs::write(&text, "this is not a video\n").expect("write");
    let empty = d.join("empty.mp4");
    std::fs::write(&empty, "").expect("write");
    let folder = d.join("folder.mp4");
    std::fs::create_dir(&folder).expect("mkdir");
    let fifo = d.join("fifo.mp4");
    let c = std::ffi::CString::new(s(&fifo)).expect("path");
    // SAFETY: mkfifo reads a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let mut corrupt = std::fs::read(clip("counter_h264.mp4")).expect("read");
    let mdat = corrupt.windows(4).position(|w| w == b"mdat").expect("mdat");
    for k in (mdat + 200..mdat + 1400).step_by(7) {
        corrupt[k] ^= 0x5a;
    }
    let damaged = d.join("damaged.mp4");
    std::fs::write(&damaged, corrupt).expect("write");
    let cases: [(PathBuf, &str); 8] = [
        (text, "not a video"),
        (empty, "empty"),
        (folder, "folder"),
        (fifo, "not a regular file"),
        (clip("truncated.mp4"), "not a video"),
        (clip("audio_only.m4a"), "no video stream"),
        (damaged, "frame 0"),
        (d.join("missing.mp4"), "no such file"),
    ];
    for (input, needle) in cases {
        for out in ["out.mp4", "f%03d.png"] {
            let out = d.join(out);
            let r = run_limited(
                cudalens().args(["apply", s(&input), "-o", s(&out)]),
                d,
                LIMIT,
            );
            assert_eq!(r.code, Some(2), "{}: {r:#?}", input.display());
            assert!(r.stderr.contains(needle), "{}: {r:#?}", input.display());
            assert_eq!(r.stderr.trim().lines().count(), 1, "{r:#?}");
            assert!(
                !out.exists() && !d.join("f000.png").exists(),
                "{}",
                input.display()
            );
        }
    }
    assert!(leftover_parts(d).is_empty(), "{:?}", leftover_parts(d));
    // Outputs that cannot be: the input itself, an existing file without --force, a
    // still's format, edits.
    let input = d.join("in.mp4");
    std::fs::copy(clip("counter_vp9.webm"), &input).expect("copy");
    let before = std::fs::read(&input).expect("read");
    for (args, needle) in [
        (vec!["-o", s(&input)], "replace the input"),
        (vec!["-o", s(&input), "--force"], "replace the input"),
        (vec!["-o", "x.png"], "numbered images"),
        (
            vec!["-o", "f%d.png", "--edit", "rotate:90"],
            "--filter only",
        ),
    ] {
        let r = run_limited(cudalens().args(["apply", s(&input)]).args(&args), d, LIMIT);
        assert_eq!(r.code, Some(2), "{args:?}: {r:#?}");
        assert!(r.stderr.contains(needle), "{args:?}: {r:#?}");
    }
    assert_eq!(
        std::fs::read(&input).expect("read"),
        before,
        "the input changed"
    );
    // Without ffmpeg: what would decode it.
    let r = run_limited(
        cudalens().env("PATH", "/nonexistent").args([
            "apply",
            s(&input),
            "-o",
            s(&d.join("o.mkv")),
        ]),
        d,
        LIMIT,
    );
    assert_eq!(r.code, Some(2), "{r:#?}");
    assert!(r.stderr.contains("install ffmpeg"), "{r:#?}");
}

/// `histogram clip --json --per-frame`: the frames' counts add up to the whole, and the
/// means are those of the colours the clip was made with.
#[test]
fn a_videos_histogram_counts_every_frame() {
    if !ffmpeg_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let input = clip("counter_h264.mp4");
    let r = run_limited(
        cudalens().args(["histogram", s(&input), "--json", "--per-frame"]),
        dir.path(),
        LIMIT,
    );
    assert_eq!(r.code, Some(0), "{r:#?}");
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(doc["frames"], 24);
    let frames = doc["per_frame"].as_array().expect("per frame");
    assert_eq!(frames.len(), 24);
    let counts = |d: &serde_json::Value, c: &str| -> Vec<u64> {
        d[c].as_array()
            .expect("bins")
            .iter()
            .map(|v| v.as_u64().expect("count"))
            .collect()
    };
    for c in ["r", "g", "b", "luma"] {
        let mut sum = vec![0u64; 256];
        for f in frames {
            counts(f, c).iter().zip(&mut sum).for_each(|(v, s)| *s += v);
        }
        assert_eq!(sum, counts(&doc, c), "{c}: the frames do not add up");
    }
    // Frame N is (10N, 255 − 10N, 128): over 24 frames the means are 115, 140, 128.
    for (c, want) in [("r", 115.0), ("g", 140.0), ("b", 128.0)] {
        let mean = doc["stats"][c]["mean"].as_f64().expect("mean");
        assert!(
            (mean - want).abs() <= 3.0,
            "{c}: mean {mean}, made as {want}"
        );
    }
    let r = run_limited(
        cudalens().args(["histogram", s(&input), "--per-frame"]),
        dir.path(),
        LIMIT,
    );
    assert_eq!(r.code, Some(2), "{r:#?}");
}

/// `ffmpeg`'s raw output of `path` as `pix_fmt` (extra arguments before the output).
fn ffmpeg_raw(path: &Path, pix_fmt: &str, extra: &[&str]) -> Vec<u8> {
    let out = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-i", s(path)])
        .args(extra)
        .args([
            "-fps_mode",
            "passthrough",
            "-f",
            "rawvideo",
            "-pix_fmt",
            pix_fmt,
            "-",
        ])
        .output()
        .expect("ffmpeg runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The YUV → RGBA arithmetic that NVDEC's frames go through (`video::yuv`, the CPU
/// reference of the GPU kernel) against FFmpeg's own conversion (swscale, accurate
/// rounding, bilinear chroma, the stream's matrix) of the same decoded samples, on every
/// frame of the textured H.264 clip (BT.709) and the Main10 counter (BT.601), both limited
/// range. Compared where the chroma within two samples of a pixel is flat: there chroma
/// siting and interpolation, which the two choose differently, cannot matter, and what is
/// left is the matrix, range and rounding. (Full range is left out: swscale 5.1 scales
/// full-range chroma otherwise than H.273's (C − 2ⁿ⁻¹)/(2ⁿ − 1), which `video::yuv` takes.)
#[test]
fn the_video_colour_conversion_agrees_with_ffmpegs() {
    use cudalens::video::yuv::{chroma_size, Matrix, Yuv420, YuvFormat, YuvToRgb};
    if !ffmpeg_installed() {
        return;
    }
    for (name, format, matrix_name) in [
        ("texture_h264.mp4", (8, Matrix::Bt709, false), "bt709"),
        ("counter_hevc10.mkv", (10, Matrix::Bt601, false), "bt601"),
    ] {
        let info = cudalens::video::describe(&clip(name)).expect("described");
        let (w, h) = (info.width, info.height);
        let (depth, matrix, full_range) = format;
        let k = YuvToRgb::new(YuvFormat {
            depth,
            matrix,
            full_range,
        });
        let pix = if depth > 8 { "yuv420p10le" } else { "yuv420p" };
        let yuv = ffmpeg_raw(&clip(name), pix, &[]);
        let range = if full_range { "pc" } else { "tv" };
        let scale = format!("scale=in_color_matrix={matrix_name}:in_range={range}");
        let flags = [
            "-sws_flags",
            "accurate_rnd+full_chroma_int+bitexact+bilinear",
            "-vf",
            &scale,
        ];
        let rgb = ffmpeg_raw(&clip(name), "rgb24", &flags);
        let frames = rgb.len() / (3 * w * h) as usize;
        assert!(frames > 0, "{name}: no frames");
        let (cw, ch) = chroma_size(w, h);
        let (mut compared, mut worst, mut all) = (0u64, 0u8, 0u64);
        for (planes, theirs) in yuv
            .chunks(yuv.len() / frames)
            .zip(rgb.chunks(3 * (w * h) as usize))
        {
            let pic = Yuv420::from_planar(planes, (w, h), depth > 8).expect("planes");
            let ours = pic.to_rgba(&k);
            let flat = |x: u32, y: u32| {
                let (cx, cy) = (x / 2, y / 2);
                let at = |p: &[u16], i: i64, j: i64| {
                    let i = i.clamp(0, i64::from(cw) - 1) as usize;
                    let j = j.clamp(0, i64::from(ch) - 1) as usize;
                    p[j * cw as usize + i]
                };
                let (cx, cy) = (i64::from(cx), i64::from(cy));
                [&pic.cb, &pic.cr].iter().all(|p| {
                    let c = at(p, cx, cy);
                    (-2..=2).all(|dj| (-2..=2).all(|di| at(p, cx + di, cy + dj) == c))
                })
            };
            for (i, t) in theirs.chunks(3).enumerate() {
                all += 1;
                let (x, y) = (i as u32 % w, i as u32 / w);
                if !flat(x, y) {
                    continue;
                }
                compared += 1;
                let p = ours.get_pixel(x, y);
                for c in 0..3 {
                    worst = worst.max(p[c].abs_diff(t[c]));
                }
            }
        }
        eprintln!("{name}: {compared} of {all} pixels with flat chroma, at most {worst} from FFmpeg's RGB");
        assert!(
            compared * 20 >= all,
            "{name}: only {compared} of {all} pixels compared"
        );
        assert!(worst <= 1, "{name}: {worst} levels from FFmpeg's RGB");
    }
}

/// Both decoders give the same pixels: ffmpeg's frames of 4:2:0 streams go through the
/// conversion NVDEC's take (`video::yuv`), from the samples FFmpeg decoded — which the GPU
/// tests prove equal to NVDEC's — for 8-bit BT.709, full range and 10-bit streams.
#[test]
fn ffmpeg_frames_take_the_conversion_nvdec_frames_take() {
    use cudalens::video::yuv::{Yuv420, YuvToRgb};
    if !ffmpeg_installed() {
        return;
    }
    for name in [
        "texture_h264.mp4",
        "texture_hevc_full.mp4",
        "texture_hevc10.mkv",
    ] {
        let info = cudalens::video::probe(&clip(name)).expect("probe");
        let format = info.yuv_format().expect("4:2:0");
        let (w, h) = (info.width, info.height);
        let pix = info.pixel_format.clone();
        let raw = ffmpeg_raw(&clip(name), &pix, &[]);
        let got = frames(&clip(name));
        // Described by the Rust demuxer (as `apply` and `histogram` describe a video), the
        // reader takes the same path.
        let described = cudalens::video::describe(&clip(name)).expect("described");
        let mut reader = FrameReader::open_at(&clip(name), described, 0).expect("opens");
        let mut again = Vec::new();
        while let Some(f) = reader.next_frame().expect("decodes") {
            again.push(f);
        }
        assert!(again == got, "{name}: the described reader's frames differ");
        let per_frame = raw.len() / got.len();
        for (i, (frame, planes)) in got.iter().zip(raw.chunks(per_frame)).enumerate() {
            let want = Yuv420::from_planar(planes, (w, h), format.depth > 8)
                .expect("planes")
                .to_rgba(&YuvToRgb::new(format));
            assert!(frame == &want, "{name} frame {i}");
        }
        eprintln!("{name}: {} frames, {format:?}", got.len());
    }
}

/// The shipped video (`assets/make-clip.sh`) is what README's quick start opens: H.264,
/// 448×298, 120 frames, read by the Rust demuxer (no ffmpeg needed), and its first frame
/// (decoded by ffmpeg where installed) is the shipped photo, scaled.
#[test]
fn the_shipped_clip_is_the_photo_zoomed() {
    let path = common::repo_root().join("assets/chelsea.mp4");
    let info = cudalens::video::describe(&path).expect("described");
    assert_eq!(
        (info.codec.as_str(), info.width, info.height, info.frames),
        ("h264", 448, 298, Some(120))
    );
    if !ffmpeg_installed() {
        return;
    }
    let mut reader = FrameReader::open(&path).expect("opens");
    let first = reader.next_frame().expect("decodes").expect("a frame");
    let photo = image::open(common::repo_root().join("assets/chelsea.png"))
        .expect("the photo")
        .to_rgba8();
    let scaled = image::imageops::resize(&photo, 448, 298, image::imageops::FilterType::Triangle);
    let total: u64 = first
        .pixels()
        .zip(scaled.pixels())
        .flat_map(|(a, b)| (0..3).map(move |c| u64::from(a[c].abs_diff(b[c]))))
        .sum();
    let mean = total as f64 / (448.0 * 298.0 * 3.0);
    eprintln!("the first frame is {mean:.2} levels off the photo, on average");
    assert!(
        mean < 8.0,
        "the first frame is {mean:.1} levels off the photo"
    );
}

/// The H.264 clips OpenH264 is checked on: B-frames (up to a pyramid of 3), BT.601 and
/// BT.709 signalled, full range, no colour description at 144 and 720 lines, a size not a
/// multiple of 16, keyframes 6 and 8 apart, and the shipped clip.
fn h264_clips() -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = [
        "counter_h264.mp4",
        "odd_size.mp4",
        "texture_h264.mp4",
        "gop_h264.mp4",
        "full_h264.mp4",
        "hd_h264.mp4",
    ]
    .iter()
    .map(|n| clip(n))
    .collect();
    all.push(common::repo_root().join("assets/chelsea.mp4"));
    all
}

/// Every frame of `path` as OpenH264 decodes it (whether ffmpeg is here or not).
fn openh264_frames(path: &Path) -> Vec<image::RgbaImage> {
    let mut reader = cudalens::video::HostFrames::openh264(path, None).expect("opens");
    let mut all = Vec::new();
    while let Some(f) = reader.next_frame().expect("decodes") {
        all.push(f);
    }
    all
}

/// What sets OpenH264's decode apart from FFmpeg's (and NVDEC's, which the GPU tests find
/// equal to FFmpeg's): in B-slices OpenH264 deblocks some edges with another strength than
/// the standard's and predicts a few spatial-direct blocks otherwise, a level or a few off
/// in a few blocks (its upstream tracker knows the deblocking one). Without B-frames, or
/// with neither deblocked nor spatially predicted B-slices, it is exact. Clips where that
/// shows are held to this bound; every other clip to the byte.
const B_SLICE_DEVIATION: (f64, u8) = (0.005, 8);

/// How far OpenH264's frames of `name` may be from ffmpeg's.
fn openh264_bound(name: &str) -> (f64, u8) {
    match name {
        "texture_h264.mp4" | "chelsea.mp4" => B_SLICE_DEVIATION,
        _ => (0.0, 0),
    }
}

/// Whether `a` is `b` within `bound`, or how far it is not.
fn within(a: &image::RgbaImage, b: &image::RgbaImage, bound: (f64, u8)) -> Result<(), String> {
    let (share, level) = deviation(a, b);
    if share <= bound.0 && level <= bound.1 {
        return Ok(());
    }
    Err(format!(
        "{:.3} % of pixels differ, by up to {level}",
        100.0 * share
    ))
}

/// The fraction of pixels of `a` and `b` that differ, and the largest difference.
fn deviation(a: &image::RgbaImage, b: &image::RgbaImage) -> (f64, u8) {
    assert_eq!(a.dimensions(), b.dimensions());
    let mut worst = 0;
    let differ = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, q)| {
            worst = (0..3).fold(worst, |w, c| w.max(p[c].abs_diff(q[c])));
            p != q
        })
        .count();
    (differ as f64 / f64::from(a.width() * a.height()), worst)
}

/// OpenH264's frames against ffmpeg's (both readers convert the samples by `video::yuv`,
/// OpenH264's with the SPS's matrix and range, ffmpeg's with ffprobe's): the same count,
/// order and pixels, to the byte where OpenH264 decodes exactly.
#[test]
fn openh264_gives_ffmpegs_frames() {
    if !ffmpeg_installed() {
        return;
    }
    for path in h264_clips() {
        let name = path.file_name().and_then(|n| n.to_str()).expect("name");
        let bound = openh264_bound(name);
        let ours = openh264_frames(&path);
        let theirs = frames(&path);
        assert_eq!(ours.len(), theirs.len(), "{name}: frames");
        let (mut off, mut most, mut worst) = (0, 0.0f64, 0);
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            if let Err(e) = within(a, b, bound) {
                panic!("{name} frame {i}: {e}");
            }
            let (share, level) = deviation(a, b);
            off += usize::from(share > 0.0);
            most = most.max(share);
            worst = worst.max(level);
        }
        eprintln!(
            "{name}: {} frames, {off} not equal (at most {:.3} % of a frame's pixels, {worst} levels)",
            ours.len(),
            100.0 * most
        );
    }
}

/// OpenH264's samples against FFmpeg's decode as recorded (`ffmpeg_frames.txt`; no ffmpeg
/// needed), each frame at its own size: equal on every frame of the clips without a
/// B-slice deviation, on all but the deviating frames of the others (a stream whose size
/// changes included: its frames come in order at their own sizes).
#[test]
fn openh264_decodes_the_samples_ffmpeg_decoded() {
    use cudalens::video::openh264::OpenH264Reader;
    let mut checked = 0;
    for (name, _, depth, want) in common::video::ffmpeg_frames() {
        let Ok(mut reader) = OpenH264Reader::open(&clip(&name)) else {
            continue;
        };
        let mut got = Vec::new();
        while let Some(yuv) = reader.next_samples().expect("decodes") {
            got.push((
                common::video::planar_adler(&yuv, depth),
                (yuv.width, yuv.height),
            ));
        }
        assert_eq!(got.len(), want.len(), "{name}: frames");
        let sizes = |v: &[(u32, (u32, u32))]| v.iter().map(|f| f.1).collect::<Vec<_>>();
        assert_eq!(sizes(&got), sizes(&want), "{name}: sizes");
        let differ: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
        let allowed = match name.as_str() {
            "texture_h264.mp4" => 1,
            "sizes_h264.mp4" => 3,
            _ => 0,
        };
        assert!(differ.len() <= allowed, "{name}: frames {differ:?} differ");
        checked += 1;
    }
    // counter_h264, odd_size, texture_h264, gop_h264, sizes_h264.
    assert_eq!(checked, 5, "H.264 clips checked");
}

/// A seek gives exactly the frame asked for, then the one after it: keyframes, frames
/// between (B-frames among them), the last frame; past the end, nothing.
#[test]
fn openh264_seeks_to_the_exact_frame() {
    if !ffmpeg_installed() {
        return;
    }
    // The keyframes-6-apart clip in Matroska too (seeks there go by the demuxer's index).
    let dir = tempfile::tempdir().expect("tempdir");
    let mkv = dir.path().join("gop_h264.mkv");
    let remux = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-i"])
        .args([
            clip("gop_h264.mp4").as_path(),
            Path::new("-c"),
            Path::new("copy"),
            &mkv,
        ])
        .status()
        .expect("ffmpeg runs");
    assert!(remux.success());
    for path in ["gop_h264.mp4", "full_h264.mp4", "texture_h264.mp4"]
        .iter()
        .map(|n| clip(n))
        .chain([mkv])
    {
        let name = path.file_name().and_then(|n| n.to_str()).expect("name");
        let all = frames(&path);
        let n = all.len() as u64;
        let bound = openh264_bound(name);
        let mut reader = cudalens::video::HostFrames::openh264(&path, None).expect("opens");
        for k in [n - 1, 5, 0, 6, 7, 11, 1, n / 2, n - 2] {
            reader.seek(k).expect("seeks");
            let f = reader.next_frame().expect("decodes").expect("a frame");
            if let Err(e) = within(&f, &all[k as usize], bound) {
                panic!("{name}: seek to {k}: {e}");
            }
            match reader.next_frame().expect("decodes") {
                Some(next) => {
                    if let Err(e) = within(&next, &all[k as usize + 1], bound) {
                        panic!("{name}: after {k}: {e}");
                    }
                }
                None => assert_eq!(k, n - 1, "{name}: nothing after {k}"),
            }
        }
        reader.seek(n).expect("seeks");
        assert!(reader.next_frame().expect("the end").is_none(), "{name}");
    }
}

/// Without ffmpeg on the PATH (and on the CPU backend, so NVDEC does not take it either)
/// `apply` runs the shipped clip through OpenH264 and says so, each frame the CPU filter of
/// OpenH264's frame; `histogram` counts every frame of a clip.
#[test]
fn apply_and_histogram_decode_by_openh264_without_ffmpeg() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let input = common::repo_root().join("assets/chelsea.mp4");
    let pattern = d.join("%06d.png");
    let r = run_limited(
        cudalens().env("PATH", "/nonexistent").args([
            "apply",
            s(&input),
            "-o",
            s(&pattern),
            "--filter",
            "sobel",
            "--backend",
            "cpu",
        ]),
        d,
        LIMIT,
    );
    assert_eq!(r.code, Some(0), "{r:#?}");
    assert!(
        r.stderr.contains("120 frames")
            && r.stderr.contains(
                "decoded by openh264 (the CPU backend; the ffmpeg program is not on the PATH)"
            ),
        "{r:#?}"
    );
    let filter: Filter = "sobel".parse().expect("spec");
    for (n, frame) in openh264_frames(&input).iter().enumerate() {
        let got = image::open(d.join(format!("{n:06}.png")))
            .expect("a frame")
            .into_rgba8();
        let want = filter.apply_cpu(frame);
        assert!(
            got.pixels()
                .zip(want.pixels())
                .all(|(a, b)| a.0[..3] == b.0[..3]),
            "frame {n}"
        );
    }
    assert!(!d.join("000120.png").exists(), "a frame too many");
    let r = run_limited(
        cudalens().env("PATH", "/nonexistent").args([
            "histogram",
            s(&clip("counter_h264.mp4")),
            "--json",
            "--backend",
            "cpu",
        ]),
        d,
        LIMIT,
    );
    assert_eq!(r.code, Some(0), "{r:#?}");
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(doc["frames"], 24);
    for (c, want) in [("r", 115.0), ("g", 140.0), ("b", 128.0)] {
        let mean = doc["stats"][c]["mean"].as_f64().expect("mean");
        assert!(
            (mean - want).abs() <= 3.0,
            "{c}: mean {mean}, made as {want}"
        );
    }
}

/// What OpenH264 does not decode is refused when it opens, in a line that names the
/// stream and what would decode it; a describe needs no ffprobe where the Rust demuxer
/// reads the file.
#[test]
fn openh264_refuses_what_it_does_not_decode() {
    use cudalens::video::HostFrames;
    for (name, line) in [
        (
            "counter_hevc10.mkv",
            "HEVC 10-bit needs NVDEC or the ffmpeg program",
        ),
        ("texture_vp9.webm", "VP9 needs NVDEC or the ffmpeg program"),
        ("high10_h264.mp4", "H.264 10-bit needs the ffmpeg program"),
    ] {
        let e = HostFrames::openh264(&clip(name), None)
            .err()
            .expect("refused");
        let text = e.to_string();
        assert!(text.contains(name) && text.contains(line), "{text}");
        assert!(text.contains("not on the PATH (install ffmpeg)") && !text.contains('\n'));
    }
    let info = cudalens::video::describe(&clip("high10_h264.mp4")).expect("described");
    assert_eq!(
        (info.codec.as_str(), info.pixel_format.as_str()),
        ("h264", "yuv420p10le")
    );
}
