//! Hostile input: files that declare huge images, truncated and
//! corrupt JPEGs, FIFOs and pipes, impossible output paths, interrupted saves, oversized
//! windows and benchmarks, unknown words. Each case: no crash, no hang, no overwrite,
//! exit code 2 with one line naming the problem, and memory bounded.

mod common;

use common::hostile_files::{
    bmp_rle_declaring, gif_declaring, jpeg_declaring, jpeg_of, scan_start,
};
use common::process::{cudalens, leftover_parts, run_limited, wait_limited, Finished};
use common::{data, photo, png_declaring};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);
const MIB: u64 = 1 << 20;

fn run(args: &[&str], scratch: &Path) -> Finished {
    run_limited(cudalens().args(args), scratch, LIMIT)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

#[test]
fn files_declaring_32768_squared_are_refused_before_decoding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let coffee = jpeg_of(&photo("coffee.png"));
    let huge_jpeg = jpeg_declaring(&coffee, 32768);
    let files = [
        write(d, "huge.gif", &gif_declaring(32768)),
        write(d, "huge.bmp", &bmp_rle_declaring(32768)),
        write(d, "huge.png", &png_declaring(32768, 32768)),
        write(d, "huge.jpg", &huge_jpeg[..huge_jpeg.len() / 2]),
    ];
    let out = d.join("out.png");
    for f in &files {
        for args in [
            vec![
                "apply",
                s(f),
                "-o",
                s(&out),
                "--filter",
                "sobel",
                "--max-memory",
                "2G",
            ],
            vec!["histogram", s(f), "--max-memory", "2G"],
        ] {
            let r = run(&args, d);
            r.refused_with("over the budget");
            assert!(r.stderr.contains("32768×32768"), "{r:#?}");
            assert!(
                r.peak_rss < 200 * MIB,
                "{args:?}: peak RSS {} MiB",
                r.peak_rss / MIB
            );
        }
    }
    assert!(!out.exists());
}

#[test]
fn truncated_and_corrupt_jpegs_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let good = jpeg_of(&photo("coffee.png"));
    let scan = scan_start(&good);
    let truncated = &good[..scan + (good.len() - scan) / 3];
    let mut corrupt = good.clone();
    let middle = scan + (good.len() - scan) / 2;
    corrupt[middle..middle + 64].fill(0xFF);
    corrupt[middle + 64] = 0xC4; // a marker inside the entropy-coded data
    let ok = write(d, "good.jpg", &good);
    assert!(run(&["histogram", s(&ok)], d).code == Some(0));
    // Scan data overwritten with bytes that are no markers: only the scan walk notices.
    let astray = std::fs::read(data("fidelity/jpeg_corrupt_scan.jpg")).expect("corpus file");
    for (name, bytes) in [
        ("cut.jpg", truncated),
        ("bad.jpg", &corrupt[..]),
        ("astray.jpg", &astray[..]),
    ] {
        let p = write(d, name, bytes);
        run(&["histogram", s(&p)], d).refused_with("corrupt or truncated JPEG");
        let out = d.join(format!("{name}.png"));
        run(&["apply", s(&p), "-o", s(&out), "--filter", "sobel"], d)
            .refused_with("corrupt or truncated JPEG");
        assert!(!out.exists());
    }
}

#[test]
fn a_fifo_nobody_writes_to_does_not_hang() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("fifo.png");
    let c = std::ffi::CString::new(s(&fifo)).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let out = dir.path().join("o.png");
    let r = run(
        &["apply", s(&fifo), "-o", s(&out), "--filter", "sobel"],
        dir.path(),
    );
    r.refused_with("no data");
    run(&["histogram", s(&fifo)], dir.path()).refused_with("no data");
    assert!(r.elapsed < Duration::from_secs(10));
}

#[test]
fn a_png_piped_through_dev_stdin_is_read_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bytes = std::fs::read(data("logo.png")).expect("read");
    let mut child = cudalens()
        .args(["histogram", "/dev/stdin", "--json", "--backend", "cpu"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &bytes));
    let out = child.wait_with_output().expect("runs");
    let _ = writer.join();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let from_file = run(
        &[
            "histogram",
            s(&data("logo.png")),
            "--json",
            "--backend",
            "cpu",
        ],
        dir.path(),
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), from_file.stdout);
}

#[test]
fn every_output_path_problem_is_exit_2_before_any_work() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    // The input is not an image: if the output were checked after loading, the message
    // would be about the input.
    let input = write(d, "in.png", b"not an image at all");
    let i = s(&input);
    let a_file = write(d, "plain.txt", b"x");
    let loop_a = d.join("loop-a.png");
    std::os::unix::fs::symlink(d.join("loop-b.png"), &loop_a).expect("symlink");
    std::os::unix::fs::symlink(&loop_a, d.join("loop-b.png")).expect("symlink");
    let sub = d.join("sub");
    std::fs::create_dir(&sub).expect("mkdir");
    let cases: Vec<(PathBuf, &[&str], &str)> = vec![
        (d.join("missing/out.png"), &[], "does not exist"),
        (a_file.join("out.png"), &[], "not a folder"),
        (sub.with_extension("png"), &[], "cannot write here"),
        (
            PathBuf::from("/proc/cudalens-out.png"),
            &[],
            "cannot write here",
        ),
        (loop_a.clone(), &[], "symbolic links"),
    ];
    std::fs::create_dir(sub.with_extension("png")).expect("mkdir");
    for (out, extra, needle) in cases {
        let mut args = vec!["apply", i, "-o", s(&out), "--filter", "sobel"];
        args.extend_from_slice(extra);
        run(&args, d).refused_with(needle);
        let mut forced = args.clone();
        forced.push("--force");
        run(&forced, d).refused_with(needle);
    }
    run(&["histogram", s(&loop_a)], d).refused_with("symbolic links");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        let locked = d.join("locked");
        std::fs::create_dir(&locked).expect("mkdir");
        std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o500))
            .expect("chmod");
        run(
            &[
                "apply",
                s(&data("coffee.png")),
                "-o",
                s(&locked.join("o.png")),
                "--filter",
                "sobel",
            ],
            d,
        )
        .refused_with("ermission denied");
    }
    assert!(leftover_parts(d).is_empty(), "{:?}", leftover_parts(d));
}

/// A 2048² noisy photograph-sized PNG: slow enough to encode that a signal lands mid-save.
fn big_input(dir: &Path) -> PathBuf {
    let img = cudalens::ops::random_image(2048, 2048, 7);
    let p = dir.join("big.png");
    img.save(&p).expect("save");
    p
}

/// `apply INPUT -o OUT --filter transpose --backend cpu`.
fn transpose_on_cpu(input: &Path, out: &Path) -> Command {
    let mut cmd = cudalens();
    cmd.args(["apply", s(input), "-o", s(out), "--filter", "transpose"])
        .args(["--backend", "cpu"]);
    cmd
}

#[test]
fn a_file_size_limit_fails_cleanly_and_names_the_users_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let input = big_input(d);
    let out = d.join("out.png");
    let mut cmd = transpose_on_cpu(&input, &out);
    // SAFETY: setrlimit is async-signal-safe and only limits the child's file sizes.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            let limit = libc::rlimit {
                rlim_cur: 1 << 20,
                rlim_max: 1 << 20,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let r = run_limited(&mut cmd, d, LIMIT);
    r.refused_with(s(&out));
    assert!(r.stderr.contains("too large"), "{r:#?}");
    assert!(
        !r.stderr.contains(".cudalens-"),
        "temporary name leaked: {r:#?}"
    );
    assert!(!out.exists());
    assert!(leftover_parts(d).is_empty(), "{:?}", leftover_parts(d));
}

#[test]
fn an_interrupted_save_leaves_no_part_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let input = big_input(d);
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let out = d.join("out.png");
        // On a loaded machine the whole save can pass between two looks at the folder:
        // then the run proves nothing about signals, and is made again.
        let mut interrupted = None;
        for _attempt in 0..10 {
            let _ = std::fs::remove_file(&out);
            let mut child = transpose_on_cpu(&input, &out)
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn");
            let start = std::time::Instant::now();
            let mut exited = false;
            while leftover_parts(d).is_empty() {
                if child.try_wait().expect("try_wait").is_some() {
                    exited = true;
                    break;
                }
                assert!(
                    start.elapsed() < Duration::from_secs(30),
                    "the save never started"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
            if exited {
                continue;
            }
            // SAFETY: `child` is ours and not yet reaped.
            unsafe { libc::kill(child.id() as libc::pid_t, signal) };
            let r = wait_limited(child, LIMIT);
            if r.code == Some(0) {
                continue; // it had finished before the signal came
            }
            interrupted = Some(r);
            break;
        }
        let r = interrupted.expect("the save was never caught in progress in 10 runs");
        assert_eq!(r.signal, Some(signal), "{r:#?}");
        assert!(leftover_parts(d).is_empty(), "{:?}", leftover_parts(d));
        // Killed before the rename: no output. After it (the process was ending): the
        // whole image, never a part of one.
        if out.exists() {
            let saved = image::open(&out).expect("a complete image");
            assert_eq!((saved.width(), saved.height()), (2048, 2048));
        }
    }
}

#[test]
fn apply_peak_memory_is_at_most_three_images_plus_64_mib() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let input = big_input(d);
    let image = 2048 * 2048 * 4;
    for filters in [
        vec!["gaussian:sigma=3"],
        vec!["box:radius=7", "sobel", "transpose", "gaussian:sigma=1"],
    ] {
        let out = d.join("out.png");
        let _ = std::fs::remove_file(&out);
        let mut args = vec!["apply", s(&input), "-o", s(&out), "--backend", "cpu"];
        for f in &filters {
            args.extend(["--filter", f]);
        }
        let r = run(&args, d);
        assert_eq!(r.code, Some(0), "{r:#?}");
        let limit = 3 * image + 64 * MIB;
        assert!(
            r.peak_rss <= limit,
            "{filters:?}: peak RSS {} MiB > {} MiB",
            r.peak_rss / MIB,
            limit / MIB
        );
    }
}

#[test]
fn the_memory_budget_refuses_with_a_clear_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("o.png");
    let coffee = data("coffee.png");
    let r = run(
        &[
            "apply",
            s(&coffee),
            "-o",
            s(&out),
            "--filter",
            "sobel",
            "--max-memory",
            "1M",
        ],
        dir.path(),
    );
    r.refused_with("--max-memory");
    assert!(
        r.stderr.contains("over the budget of 1.0 MiB") || r.stderr.contains("1 MiB"),
        "{r:#?}"
    );
    run(
        &["histogram", s(&coffee), "--max-memory", "lots"],
        dir.path(),
    )
    .refused_with("lots");
}

#[test]
fn screenshot_follows_the_rules_of_apply() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let input = d.join("in.png");
    std::fs::copy(data("coffee.png"), &input).expect("copy");
    let before = std::fs::read(&input).expect("read");
    let i = s(&input);
    run(&[i, "--frames", "3", "--screenshot", i], d)
        .refused_with("refusing to overwrite the input");
    run(&[i, "--frames", "3", "--screenshot", i, "--force"], d)
        .refused_with("refusing to overwrite the input");
    let existing = write(d, "shot.png", b"keep me");
    run(&[i, "--frames", "3", "--screenshot", s(&existing)], d).refused_with("already exists");
    run(
        &[
            i,
            "--frames",
            "3",
            "--screenshot",
            s(&d.join("no/shot.png")),
        ],
        d,
    )
    .refused_with("does not exist");
    run(&[i, "--screenshot", s(&d.join("s.png"))], d).refused_with("--frames");
    assert_eq!(std::fs::read(&input).expect("read"), before);
    assert_eq!(std::fs::read(&existing).expect("read"), b"keep me");
}

#[test]
fn sizes_are_checked_before_anything_is_allocated() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    // The CPU bench has no texture limit: the memory budget (set here, so that the test
    // does not depend on this machine's memory) refuses what the parser lets through.
    let cpu_bench = |size: &str| {
        let args = ["bench", "--size", size, "--runs", "1", "--backend", "cpu"];
        run(&[&args[..], &["--max-memory", "8G"]].concat(), d)
    };
    for size in ["32767x32767", "65536x65536", "0x10", "4294967296x1"] {
        run(&["--frames", "1", "--size", size], d).refused_with(size);
        cpu_bench(size).refused_with(size);
    }
    // Within the parser's limit but over the budget.
    let r = cpu_bench("32768x32768");
    assert_eq!(r.code, Some(2), "{r:#?}");
    assert!(r.peak_rss < 512 * MIB, "peak RSS {} MiB", r.peak_rss / MIB);
    run(
        &[
            "bench",
            "--size",
            "64x64",
            "--runs",
            "1",
            "--backend",
            "cpu",
            "--json",
            s(&d.join("no/b.json")),
        ],
        d,
    )
    .refused_with("does not exist");
}

#[test]
fn unknown_words_and_bad_flags_get_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    run(&["frobnicate"], d).refused_with("neither a command");
    run(&["/no/such/image.png"], d).refused_with("no such file");
    run(&["apply", "x.png"], d).refused_with("--output");
    run(&["apply", "x.png", "-o", "y.png", "--filter", "blur"], d).refused_with("unknown filter");
    run(&["--frobnicate"], d).refused_with("--frobnicate");
    run(&["histogram"], d).refused_with("INPUT");
    let help = run(&["--help"], d);
    assert_eq!(help.code, Some(0));
    assert!(help.stdout.contains("Usage"), "{help:#?}");
}

/// A poster far larger than memory should hold (1.5 GiB of RGB): the process holds a few
/// bands, never the picture; an interrupted poster leaves no part file and no output.
#[test]
fn a_poster_is_streamed_in_bounded_memory_and_an_interrupt_leaves_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let out = d.join("poster.png");
    // Outside the set: every point escapes at once, so the run is the streaming itself.
    let poster = |out: &Path| {
        let mut cmd = cudalens();
        cmd.args([
            "mandelbrot",
            "-o",
            s(out),
            "--width",
            "65536",
            "--height",
            "8192",
        ])
        .args([
            "--center",
            "3,3",
            "--span",
            "1",
            "--max-dwell",
            "16",
            "--backend",
            "cpu",
        ]);
        cmd
    };
    let r = run_limited(&mut poster(&out), d, Duration::from_secs(300));
    assert_eq!(r.code, Some(0), "{r:#?}");
    let picture = 65536 * 8192 * 3;
    assert!(
        r.peak_rss <= 512 * MIB,
        "peak RSS {} MiB for a {} MiB picture",
        r.peak_rss / MIB,
        picture / MIB
    );
    let (w, h) = image::image_dimensions(&out).expect("a whole PNG");
    assert_eq!((w, h), (65536, 8192));
    std::fs::remove_file(&out).expect("rm");
    let mut child = poster(&out).stderr(Stdio::null()).spawn().expect("spawn");
    let start = std::time::Instant::now();
    while leftover_parts(d).is_empty() {
        assert!(
            child.try_wait().expect("try_wait").is_none(),
            "ended before its file began"
        );
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the poster never started"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    // SAFETY: `child` is ours and not yet reaped.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let r = wait_limited(child, LIMIT);
    assert_eq!(r.signal, Some(libc::SIGINT), "{r:#?}");
    assert!(leftover_parts(d).is_empty(), "{:?}", leftover_parts(d));
    assert!(!out.exists(), "a part of a poster was left as the output");
}

/// `texture_h264.mp4` with bytes flipped inside its first IDR slice (the container and
/// the NAL units' lengths left sound, so the damage reaches the decoder).
fn damaged_slice() -> Vec<u8> {
    let mut bytes = std::fs::read(data("video/texture_h264.mp4")).expect("clip");
    // The media box comes first here; its first sample begins right after its header.
    let mdat = bytes.windows(4).position(|w| w == b"mdat").expect("mdat") + 4;
    let mut at = mdat;
    loop {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
        if bytes[at + 4] & 0x1f == 5 {
            for k in (at + 4 + len / 4..at + 4 + len * 3 / 4).step_by(11) {
                bytes[k] ^= 0xa5;
            }
            return bytes;
        }
        at += 4 + len;
    }
}

/// Videos where only OpenH264 decodes (the CPU backend, no ffmpeg on the PATH): a file
/// cut short, a false one, an empty one, H.264 with its slice data damaged, and streams
/// OpenH264 does not decode (HEVC, H.264 High 10, VP9) each give one line naming the
/// problem, exit 2 and write nothing; no panic, no hang.
#[test]
fn videos_only_openh264_could_decode_are_refused_in_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let cases = [
        (data("video/truncated.mp4"), "cannot read its container"),
        (
            write(d, "text.mp4", b"a text file, not a video\n"),
            "cannot read its container",
        ),
        (write(d, "empty.mp4", b""), "empty file"),
        (
            write(d, "damaged.mp4", &damaged_slice()),
            "openh264: the stream's data is damaged",
        ),
        (
            data("video/counter_hevc10.mkv"),
            "HEVC 10-bit needs NVDEC or the ffmpeg program, which is not on the PATH",
        ),
        (
            data("video/high10_h264.mp4"),
            "H.264 10-bit needs the ffmpeg program, which is not on the PATH",
        ),
        (
            data("video/counter_vp9.webm"),
            "VP9 needs NVDEC or the ffmpeg program",
        ),
    ];
    let out = d.join("f%03d.png");
    for (input, needle) in cases {
        for args in [
            vec!["apply", s(&input), "-o", s(&out), "--backend", "cpu"],
            vec!["histogram", s(&input), "--json", "--backend", "cpu"],
        ] {
            let r = run_limited(cudalens().env("PATH", "/nonexistent").args(&args), d, LIMIT);
            r.refused_with(needle);
            assert!(r
                .stderr
                .contains(input.file_name().and_then(|n| n.to_str()).expect("name")));
            assert!(
                !d.join("f000.png").exists(),
                "{args:?}: a frame was written"
            );
        }
    }
}
