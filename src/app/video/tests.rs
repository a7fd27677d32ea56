//! The player on the committed counter clips (frame N is one flat colour: R = 10·N,
//! G = 255 − 10·N, B = 128): exact seeks and steps on H.264 with B-frames, HEVC Main10 in
//! Matroska (no declared frame count) and VP9 in WebM; the clock, dropped frames, the end
//! and the loop; bad files. Skipped (with a message) where ffmpeg is not installed.

use super::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn ffmpeg_installed() -> bool {
    let found = crate::video::ffmpeg_found().is_some();
    if !found {
        eprintln!("skipped: ffmpeg is not installed");
    }
    found
}

fn clip(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/video")
        .join(name)
}

/// The counter's frame number read from its colour (the red channel, 10 levels a frame).
fn frame_number(frame: &ShownFrame) -> u64 {
    let FramePixels::Host(image) = &frame.pixels else {
        panic!("ffmpeg's frames are in host memory");
    };
    let p = image.get_pixel(32, 24);
    let n = (f64::from(p[0]) / 10.0).round() as u64;
    let green = 255 - 10 * n as i32;
    assert!(
        (i32::from(p[1]) - green).abs() <= 6,
        "frame {} is not a counter frame: {p:?}",
        frame.index
    );
    n
}

/// Opens `path` (no window to wake).
fn open(path: &Path) -> Result<(VideoPlayer, ShownFrame), crate::video::VideoError> {
    VideoPlayer::open(path, std::sync::Arc::new(|| {}), None)
}

/// The frame a seek or a step asked for, once decoded (polled for at most ten seconds).
fn arrived(player: &mut VideoPlayer) -> Option<ShownFrame> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let (frame, event) = player.poll(Instant::now());
        if frame.is_some() || event.is_some() {
            return frame;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("no frame within ten seconds");
}

/// Polls until `until` says stop or five seconds pass; the frames shown, in order.
fn poll_until(
    player: &mut VideoPlayer,
    now: impl Fn() -> Instant,
    until: impl Fn(&Option<PlayerEvent>, &[u64]) -> bool,
) -> (Vec<u64>, Option<PlayerEvent>) {
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut shown = Vec::new();
    loop {
        let (frame, event) = player.poll(now());
        if let Some(f) = frame {
            assert_eq!(
                frame_number(&f),
                f.index,
                "the frame's pixels are its index's"
            );
            shown.push(f.index);
        }
        if until(&event, &shown) || Instant::now() > deadline {
            return (shown, event);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Steps, seeks (last, middle, first), the ends and a seek past the end on the counter
/// clip `name` of `count` frames, played by `opened`.
fn check_seeks_and_steps(name: &str, count: u64, opened: (VideoPlayer, ShownFrame)) {
    let (mut player, first) = opened;
    assert_eq!((first.index, frame_number(&first)), (0, 0), "{name}");
    assert_eq!(player.frame_count(), Some(count), "{name}");
    for want in [1, 2, 3] {
        player.step_forward();
        let f = arrived(&mut player).expect("a frame");
        assert_eq!((f.index, frame_number(&f)), (want, want), "{name}");
    }
    player.step_back().expect("steps back");
    assert!(player.is_seeking());
    let back = arrived(&mut player).expect("a frame");
    assert_eq!((back.index, frame_number(&back)), (2, 2), "{name}");
    for target in [count - 1, count / 2 + 1, 1, 0] {
        player.seek(target).expect("seeks");
        let f = arrived(&mut player).expect("a frame");
        assert_eq!((f.index, frame_number(&f)), (target, target), "{name}");
        assert_eq!(player.shown(), target);
    }
    // Before the first frame there is none; after the last neither (the end says so).
    player.step_back().expect("steps back");
    assert!(!player.is_seeking() && player.shown() == 0);
    player.seek(count - 1).expect("seeks");
    arrived(&mut player).expect("the last frame");
    player.step_forward();
    assert!(
        arrived(&mut player).is_none(),
        "{name}: a frame after the last"
    );
    assert_eq!(player.shown(), count - 1);
    // A seek past the end shows the last frame.
    player.seek(count + 10).expect("seeks");
    let last = arrived(&mut player).expect("the last frame");
    assert_eq!(frame_number(&last), count - 1, "{name}");
}

#[test]
fn seeks_and_steps_land_on_the_exact_frame() {
    if !ffmpeg_installed() {
        return;
    }
    for (name, count) in [
        ("counter_h264.mp4", 24),
        ("counter_hevc10.mkv", 12),
        ("counter_vp9.webm", 12),
    ] {
        check_seeks_and_steps(name, count, open(&clip(name)).expect("opens"));
    }
}

/// The same through OpenH264, ffmpeg or not: H.264 with B-frames, keyframes first only
/// and 6 apart (seeks from a keyframe that is not the first).
#[test]
fn openh264_seeks_and_steps_land_on_the_exact_frame() {
    for name in ["counter_h264.mp4", "gop_h264.mp4"] {
        let frames = crate::video::HostFrames::openh264(&clip(name), None).expect("opens");
        let opened =
            VideoPlayer::open_host(&clip(name), std::sync::Arc::new(|| {}), frames).expect("plays");
        assert_eq!(opened.0.decoded_by().name(), "openh264");
        check_seeks_and_steps(name, 24, opened);
    }
}

#[test]
fn the_clock_shows_the_due_frame_and_counts_those_dropped() {
    if !ffmpeg_installed() {
        return;
    }
    let (mut player, _) = open(&clip("counter_h264.mp4")).expect("opens");
    assert!(!player.is_playing() && player.next_due(Instant::now()).is_none());
    // The queue holds the next three frames once the decoder had time to fill it.
    std::thread::sleep(Duration::from_millis(300));
    let t0 = Instant::now();
    player.play(t0).expect("plays");
    let period = Duration::from_secs_f64(1.0 / 24.0);
    // Before frame 1 is due nothing changes, and the window sleeps until then.
    let (frame, event) = player.poll(t0 + period / 2);
    assert!(frame.is_none() && event.is_none());
    let wait = player.next_due(t0).expect("playing");
    assert!(
        wait <= period && wait + Duration::from_millis(2) >= period,
        "{wait:?}"
    );
    // Three periods late: frames 1 and 2 are dropped, 3 shows.
    let (frame, _) = player.poll(t0 + period * 3 + period / 4);
    let frame = frame.expect("frame 3 is due");
    assert_eq!((frame.index, frame_number(&frame)), (3, 3));
    assert_eq!(player.dropped(), 2);
    // Half speed: the next frame is due two periods after the change.
    let t1 = t0 + period * 3 + period / 4;
    player.set_speed(0.5, t1);
    let (frame, _) = player.poll(t1 + period * 3 / 2);
    assert!(frame.is_none(), "not yet due at half speed");
    player.pause();
    assert!(
        player.poll(t1 + period * 100).0.is_none(),
        "a paused clock shows nothing"
    );
}

#[test]
fn a_video_ends_on_its_last_frame_or_loops() {
    if !ffmpeg_installed() {
        return;
    }
    let (mut player, _) = open(&clip("counter_vp9.webm")).expect("opens");
    player.looping = false;
    player.seek(10).expect("seeks");
    arrived(&mut player).expect("frame 10");
    let t0 = Instant::now();
    player.play(t0).expect("plays");
    let late = move || t0 + Duration::from_secs(10);
    let (shown, event) = poll_until(&mut player, late, |e, _| e.is_some());
    assert_eq!(event, Some(PlayerEvent::Ended));
    assert_eq!(shown.last(), Some(&11), "the last frame shows: {shown:?}");
    assert!(!player.is_playing());
    // Play at the end starts again from the first frame.
    player.play(Instant::now()).expect("plays");
    let first = arrived(&mut player).expect("frame 0");
    assert_eq!((first.index, frame_number(&first)), (0, 0));
    assert!(player.is_playing());

    let (mut player, _) = open(&clip("counter_hevc10.mkv")).expect("opens");
    player.seek(10).expect("seeks");
    arrived(&mut player).expect("frame 10");
    let t0 = Instant::now();
    player.play(t0).expect("plays");
    let (shown, event) = poll_until(
        &mut player,
        || Instant::now() + Duration::from_secs(1),
        |_, shown| shown.contains(&0),
    );
    assert_eq!(event, None);
    assert!(
        shown.contains(&0),
        "the loop came back to frame 0: {shown:?}"
    );
    assert!(player.is_playing());
}

#[test]
fn bad_videos_are_one_line_errors() {
    if !ffmpeg_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let text = dir.path().join("notes.mp4");
    std::fs::write(&text, "not a video\n").expect("write");
    let empty = dir.path().join("empty.mkv");
    std::fs::write(&empty, "").expect("write");
    for path in [
        text,
        empty,
        clip("audio_only.m4a"),
        clip("truncated.mp4"),
        dir.path().join("missing.webm"),
        dir.path().to_path_buf(),
    ] {
        let e = open(&path).err().expect("refused");
        let message = e.to_string();
        assert!(!message.contains('\n'), "{message}");
        assert!(
            message.contains(path.file_name().unwrap().to_str().unwrap()),
            "{message}"
        );
    }
    // A stream cut short is refused in one line, or plays what it holds and then ends
    // or says where it stopped; either way, no hang.
    let whole = std::fs::read(clip("counter_hevc10.mkv")).expect("read");
    for keep in [2, 3] {
        let cut = dir.path().join(format!("cut{keep}.mkv"));
        std::fs::write(&cut, &whole[..whole.len() * keep / 4]).expect("write");
        let mut player = match open(&cut) {
            Ok((player, _)) => player,
            Err(e) => {
                assert!(!e.to_string().contains('\n'), "{e}");
                continue;
            }
        };
        let t0 = Instant::now();
        player.looping = false;
        player.play(t0).expect("plays");
        let (_, event) = poll_until(
            &mut player,
            move || t0 + Duration::from_secs(60),
            |e, _| e.is_some(),
        );
        match event {
            Some(PlayerEvent::Ended) => {}
            Some(PlayerEvent::Failed(m)) => assert!(!m.contains('\n'), "{m}"),
            None => panic!("{}: neither ended nor failed", cut.display()),
        }
    }
}

#[test]
fn clock_text_is_minutes_and_seconds() {
    assert_eq!(clock_text(0.0), "0:00.00");
    assert_eq!(clock_text(61.5), "1:01.50");
    assert_eq!(clock_text(-3.0), "0:00.00");
}
