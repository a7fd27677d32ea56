#!/usr/bin/env bash
# Here (the build machine, Debian's ffmpeg): the clips `cudalens bench --video` times on the
# GPU machine, into .carry/video/ (ignored by git; carried with the bundle, 4.6 MiB):
# synthetic test pictures (testsrc2) in HEVC Main, x265 ultrafast, CRF 30: 120 frames of
# 3840×2160 at 60 fps (about 7 Mbit/s) and 60 frames of 7680×4320 (about 24 Mbit/s).
#   bash scripts/gpu/make_bench_clips.sh
# There: .carry/bin/cudalens bench --video .carry/video/hevc_4k.mp4 [--json out.json]
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .carry/video
ff() { ffmpeg -hide_banner -loglevel error -y "$@"; }
hevc=(-c:v libx265 -tag:v hvc1 -preset ultrafast -x265-params log-level=error:crf=30 -pix_fmt yuv420p)
ff -f lavfi -i "testsrc2=s=3840x2160:r=60:d=2" "${hevc[@]}" .carry/video/hevc_4k.mp4
ff -f lavfi -i "testsrc2=s=7680x4320:r=60:d=1" "${hevc[@]}" .carry/video/hevc_8k.mp4
ls -l .carry/video
