#!/usr/bin/env bash
# Here (the build machine, Debian's ffmpeg): the clips `cudalens bench --video` times on the
# GPU machine, into .carry/video/ (ignored by git; carried with the bundle): synthetic test
# pictures (testsrc2) in HEVC Main, x265 ultrafast:
#   hevc_4k.mp4       120 frames of 3840×2160 at 60 fps, CRF 30 (about 7 Mbit/s)
#   hevc_8k.mp4       60 frames of 7680×4320 at 60 fps, CRF 30 (about 24 Mbit/s)
#   hevc_4k_2min.mp4  2 minutes of 3840×2160 at 30 fps, a keyframe every second (a phone's
#                     or camera's spacing), CRF 44 (0.6 Mbit/s, small enough to travel with
#                     the bundle): one second encoded, then repeated without re-encoding
#                     (seeking costs the same in every second)
#   bash scripts/gpu/make_bench_clips.sh
# There: .carry/bin/cudalens bench --video .carry/video/hevc_4k.mp4 [--json out.json]
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .carry/video
ff() { ffmpeg -hide_banner -loglevel error -y "$@"; }
hevc=(-c:v libx265 -tag:v hvc1 -preset ultrafast -pix_fmt yuv420p)
ff -f lavfi -i "testsrc2=s=3840x2160:r=60:d=2" "${hevc[@]}" -x265-params log-level=error:crf=30 \
    .carry/video/hevc_4k.mp4
ff -f lavfi -i "testsrc2=s=7680x4320:r=60:d=1" "${hevc[@]}" -x265-params log-level=error:crf=30 \
    .carry/video/hevc_8k.mp4
second=$(mktemp -d)
ff -f lavfi -i "testsrc2=s=3840x2160:r=30:d=1" "${hevc[@]}" \
    -x265-params log-level=error:crf=44:keyint=30:min-keyint=30:scenecut=0 "$second/one.mp4"
ff -stream_loop 119 -i "$second/one.mp4" -c copy .carry/video/hevc_4k_2min.mp4
rm -r "$second"
ls -l .carry/video
