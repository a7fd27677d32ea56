#!/usr/bin/env bash
# Makes the shipped video, assets/chelsea.mp4, from assets/chelsea.png with Debian 12's
# ffmpeg: a 4-second zoom into the photo, 448×298 at 30 fps, H.264 High with B-frames
# (x264 on one thread, so the file is the same on every run of the same ffmpeg).
#   bash assets/make-clip.sh
set -euo pipefail
cd "$(dirname "$0")"
zoom="zoompan=z='1+0.5*on/119':x='iw/2-(iw/zoom/2)':y='ih/2-(ih/zoom/2)':d=120:s=448x298:fps=30"
ffmpeg -hide_banner -loglevel error -y -loop 1 -framerate 30 -i chelsea.png \
    -vf "$zoom,format=yuv420p" -frames:v 120 -c:v libx264 -preset slow -crf 24 -bf 2 \
    -x264-params threads=1 -movflags +faststart chelsea.mp4
