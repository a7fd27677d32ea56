#!/usr/bin/env bash
# Writes the test clips of tests/data/video with Debian 12's ffmpeg (5.1): tiny counters
# whose frame N is one flat colour (R = 10·N, G = 255 − 10·N, B = 128), so that frame
# count, order and colour can be checked after any lossy codec; a clip whose size is not a
# multiple of 16, an audio-only file and a truncated MP4 for the hostile tests.
#   bash scripts/fidelity/make_video_clips.sh
set -euo pipefail
cd "$(dirname "$0")/../../tests/data/video"
ff() { ffmpeg -hide_banner -loglevel error -y "$@"; }
counter="color=c=black:s=64x48:r=24:d=1,format=rgb24,geq=r='10*N':g='255-10*N':b=128"
# H.264 High with B-frames (x264's default), BT.601 limited range (yuv420p).
ff -f lavfi -i "$counter" -c:v libx264 -preset medium -crf 10 -bf 2 -pix_fmt yuv420p \
    -colorspace bt470bg -color_primaries bt470bg -color_trc smpte170m counter_h264.mp4
# HEVC Main10 in Matroska.
ff -f lavfi -i "$counter" -frames:v 12 -c:v libx265 -x265-params log-level=error:crf=8 \
    -pix_fmt yuv420p10le counter_hevc10.mkv
# VP9 in WebM.
ff -f lavfi -i "$counter" -frames:v 12 -c:v libvpx-vp9 -crf 10 -b:v 0 -pix_fmt yuv420p \
    counter_vp9.webm
# A size not a multiple of 16 (the decoder crops its 64×48 macroblocks).
ff -f lavfi -i "color=c=black:s=62x34:r=10:d=0.5,format=rgb24,geq=r='X*4':g='Y*7':b=200" \
    -c:v libx264 -crf 10 -pix_fmt yuv420p odd_size.mp4
# Textured pictures for NVDEC against FFmpeg, at 176×144 (NVDEC takes HEVC and VP9 from
# 144 and 128 lines up): H.264 with B-frames, BT.709 limited range; HEVC Main in MP4 (hvc1),
# full range; HEVC Main10 in Matroska; VP9 in WebM.
texture="testsrc2=s=176x144:r=24:d=0.5"
ff -f lavfi -i "$texture" -c:v libx264 -preset medium -bf 3 -crf 16 -pix_fmt yuv420p \
    -colorspace bt709 -color_primaries bt709 -color_trc bt709 texture_h264.mp4
ff -f lavfi -i "$texture" -c:v libx265 -tag:v hvc1 \
    -x265-params log-level=error:crf=14:range=full -pix_fmt yuv420p -color_range pc \
    texture_hevc_full.mp4
ff -f lavfi -i "$texture" -c:v libx265 -x265-params log-level=error:crf=14 \
    -pix_fmt yuv420p10le texture_hevc10.mkv
ff -f lavfi -i "$texture" -c:v libvpx-vp9 -crf 20 -b:v 0 -pix_fmt yuv420p texture_vp9.webm
# Counters with a keyframe every 6 frames, for exact seeks from a keyframe that is not the
# first, at 176×144 (NVDEC takes them): H.264 with B-frames (closed GOPs); HEVC with
# B-frames and open GOPs (CRA pictures, whose leading pictures need the GOP before).
gop="color=c=black:s=176x144:r=24:d=1,format=rgb24,geq=r='10*N':g='255-10*N':b=128"
ff -f lavfi -i "$gop" -c:v libx264 -preset medium -crf 10 -bf 2 -g 6 -keyint_min 6 \
    -sc_threshold 0 -pix_fmt yuv420p gop_h264.mp4
ff -f lavfi -i "$gop" -c:v libx265 -tag:v hvc1 -pix_fmt yuv420p \
    -x265-params log-level=error:crf=8:keyint=6:min-keyint=6:scenecut=0:bframes=2:open-gop=1 \
    gop_hevc.mp4
# The same in Matroska (seeks there go by the demuxer's own keyframe index).
ff -i gop_hevc.mp4 -c copy gop_hevc.mkv
# Streams whose size changes at a keyframe (as a capture or a stream that adapts its
# resolution does): 96×64 → 64×48 → 160×96 → 96×64, 12 frames each, H.264 with its
# parameter sets in band at every keyframe, joined by ffmpeg's concat demuxer; and VP9 in
# WebM 176×144 → 128×128 → 256×144 → 176×144 (NVDEC takes VP9 from 128 lines up).
sized() { # codec, output, then size:source pairs
    local codec=$1 out=$2 list parts=()
    shift 2
    list=$(mktemp --suffix=.txt)
    for part in "$@"; do
        local size=${part%%:*} src=${part#*:} seg
        seg=$(mktemp --suffix=."${out##*.}")
        if [[ $codec == h264 ]]; then
            ff -f lavfi -i "$src=size=$size:rate=24" -frames:v 12 -c:v libx264 -preset medium \
                -crf 20 -bf 2 -g 6 -keyint_min 6 -sc_threshold 0 \
                -x264-params repeat-headers=1 -pix_fmt yuv420p "$seg"
        else
            ff -f lavfi -i "$src=size=$size:rate=24" -frames:v 12 -c:v libvpx-vp9 -crf 30 \
                -b:v 0 -g 6 -pix_fmt yuv420p "$seg"
        fi
        echo "file '$seg'" >>"$list"
        parts+=("$seg")
    done
    ff -f concat -safe 0 -i "$list" -c copy "$out"
    rm "$list" "${parts[@]}"
}
sized h264 sizes_h264.mp4 96x64:testsrc2 64x48:mandelbrot 160x96:testsrc2 96x64:mandelbrot
sized vp9 sizes_vp9.webm 176x144:testsrc2 128x128:mandelbrot 256x144:testsrc2 176x144:mandelbrot
# H.264 for OpenH264 against FFmpeg: full range BT.601 with B-frames (a pyramid of 3) and
# keyframes 8 apart at 150×86; 1280×720 with no colour description (BT.709 by its height).
ff -f lavfi -i "testsrc2=s=150x86:r=24:d=1" \
    -vf "scale=out_range=full:out_color_matrix=bt601,format=yuv420p" -c:v libx264 \
    -preset medium -crf 16 -bf 3 -g 8 -keyint_min 8 -sc_threshold 0 -color_range pc \
    -colorspace bt470bg -color_primaries bt470bg -color_trc smpte170m full_h264.mp4
ff -f lavfi -i "testsrc2=s=1280x720:r=24:d=0.25" -c:v libx264 -preset medium -crf 30 -bf 2 \
    -pix_fmt yuv420p hd_h264.mp4
# H.264 High 10, which OpenH264 does not decode (a refusal in one line without ffmpeg).
ff -f lavfi -i "$counter" -frames:v 6 -c:v libx264 -pix_fmt yuv420p10le high10_h264.mp4
# Turned a quarter by its track matrix (as phones write them).
ff -i odd_size.mp4 -c copy -metadata:s:v:0 rotate=90 turned.mp4
# Sound only.
ff -f lavfi -i "sine=frequency=440:duration=0.2" -c:a aac audio_only.m4a
# The counter cut in the middle (its index, at the end, is lost).
head -c "$(($(stat -c %s counter_h264.mp4) / 2))" counter_h264.mp4 >truncated.mp4
# The textured H.264 with its index first (faststart), cut in the middle: the sample table
# points past the end.
ff -i texture_h264.mp4 -c copy -movflags faststart faststart.mp4
head -c "$(($(stat -c %s faststart.mp4) / 2))" faststart.mp4 >faststart_cut.mp4
rm faststart.mp4
# FFmpeg's decode of each clip, as an Adler-32 per frame of its planar samples (8-bit, or
# 16-bit little-endian words; framecrc's, which starts from 0, not 1), in presentation order,
# each frame at its own size (`-autoscale 0`); "@WxH" after a frame of another size than
# the clip's first.
{
    echo "# clip width height depth adler32-of-each-frame (FFmpeg $(ffmpeg -version | head -1 | cut -d' ' -f3))"
    for clip in counter_h264.mp4 counter_hevc10.mkv counter_vp9.webm odd_size.mp4 \
        texture_h264.mp4 texture_hevc_full.mp4 texture_hevc10.mkv texture_vp9.webm \
        gop_h264.mp4 gop_hevc.mp4 gop_hevc.mkv sizes_h264.mp4 sizes_vp9.webm; do
        fmt=$(ffprobe -v error -select_streams v:0 -show_entries stream=pix_fmt,width,height \
            -of csv=p=0 "$clip")
        IFS=, read -r w h pix <<<"$fmt"
        depth=8
        [[ $pix == *10le ]] && depth=10
        crcs=$(paste -d' ' \
            <(ffmpeg -hide_banner -loglevel error -i "$clip" -autoscale 0 -fps_mode passthrough \
                -f framecrc - | grep -v '^#' | awk -F', *' '{print $6}') \
            <(ffprobe -v error -select_streams v:0 -show_entries frame=width,height \
                -of csv=p=0 "$clip" | grep -v '^$') |
            awk -v size="$w,$h" '{ split($2, s, ","); f = s[1] "," s[2];
                printf "%s%s ", $1, (f == size ? "" : "@" s[1] "x" s[2]) }')
        echo "$clip $w $h $depth $crcs"
    done
} >ffmpeg_frames.txt
ls -l
