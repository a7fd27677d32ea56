#!/usr/bin/env bash
# There (the GPU machine, from the repository root): screenshots of the real app under
# Xvfb (Mesa on the server side, +iglx) with GLX on the NVIDIA GPU for the client
# (__GLX_VENDOR_LIBRARY_NAME=nvidia). The X11 and Mesa debs (Debian 12, docs/gpu-harness.md)
# exceed one call's carry beside the bundle, so they travel in two calls while the machine
# stays warm:
#   bash scripts/gpu/screenshot.sh unpack DIR   unpacks DIR/*.deb under /opt/x
#   bash scripts/gpu/screenshot.sh shoot        starts Xvfb and takes the screenshots
# The binary comes from the bundle (.carry, scripts/gpu/prepare.sh). Output in $OUT: the
# image window, a selection with the stack inside it, a 16-bit image, the kernel editor with a marked error,
# the explorer with its overlay, a Julia set, the 1e-100 deep bookmark, and the 1e-300 one in
# smooth colour; a 4K video playing, and two minutes of 4K playback at 60 fps counted for
# frames never painted. ONLY="shot-video play-2min" takes some of them.
set -u
cd "$(dirname "$0")/../.."
X=/opt/x
case ${1:-} in
    unpack)
        mkdir -p "$X"
        for f in "$2"/*.deb; do dpkg -x "$f" "$X"; done
        echo "unpacked $(ls "$2" | wc -l) debs into $X"
        ;;
    shoot)
        source scripts/gpu/common.sh
        ln -sf "$X/usr/bin/xkbcomp" /usr/bin/xkbcomp
        LIBS="$X/usr/lib/x86_64-linux-gnu:$X/lib/x86_64-linux-gnu"
        LD_LIBRARY_PATH="$LIBS" LIBGL_DRIVERS_PATH="$X/usr/lib/x86_64-linux-gnu/dri" \
            "$X/usr/bin/Xvfb" :7 -screen 0 1600x1000x24 +iglx +extension GLX -nolisten tcp \
            -xkbdir "$X/usr/share/X11/xkb" >/tmp/xvfb.log 2>&1 &
        xvfb=$!
        sleep 3
        export DISPLAY=:7 __GLX_VENDOR_LIBRARY_NAME=nvidia XKB_CONFIG_ROOT="$X/usr/share/X11/xkb"
        export LD_LIBRARY_PATH="/usr/local/nvidia/lib64:$LIBS" RUST_LOG=info XDG_CONFIG_HOME=/tmp
        app=(--size 1600x1000 --force)
        step shot-image 120 "$B/cudalens" tests/data/coffee.png "${app[@]}" --frames 40 --split \
            --filter gaussian:sigma=1.5 --filter sobel:scale=2 --screenshot "$OUT/screenshot-gpu.png"
        # A selection with the stack shown inside it only (the source outside).
        step shot-selection 120 env XDG_CONFIG_HOME=/tmp/selection-session "$B/cudalens" tests/data/coffee.png \
            "${app[@]}" --frames 40 --filter threshold:method=otsu --selection 120,80,260,180 \
            --selection-only --screenshot "$OUT/screenshot-gpu-selection.png"
        # A dim 16-bit TIFF (coffee squeezed into 20..60 of 255, widened) filtered in 16 bits
        # on CUDA, through Brightness/Contrast with Auto, beside its ranged histogram.
        rm -f /tmp/coffee-16bit.tif
        step make-16bit 60 "$B/cudalens" apply tests/data/coffee.png -o /tmp/coffee-16bit.tif \
            --depth 16 --filter levels:out_black=20,out_white=60
        step shot-16bit 120 env XDG_CONFIG_HOME=/tmp/typed-session "$B/cudalens" /tmp/coffee-16bit.tif \
            "${app[@]}" --frames 40 --split --filter gaussian:sigma=1.5 --filter unsharp:sigma=2,amount=1.5 \
            --auto-contrast --screenshot "$OUT/screenshot-gpu-16bit.png"
        # The kernel editor with a compile error marked at the user's line, beside the last
        # good build's output (the vignette keeps running).
        sed 's/const float d = sqrtf/const float d = sqrtff/' assets/kernels/vignette.cu >/tmp/vignette-typo.cu
        step shot-kernel-editor 120 env XDG_CONFIG_HOME=/tmp/editor-session "$B/cudalens" tests/data/coffee.png \
            "${app[@]}" --frames 360 --filter kernel:assets/kernels/vignette.cu,strength=1.5 \
            --kernel-editor /tmp/vignette-typo.cu --screenshot "$OUT/screenshot-gpu-kernel-editor.png"
        step shot-mandelbrot 120 "$B/cudalens" "${app[@]}" --frames 40 --mandelbrot --overlay \
            --refinement measured --screenshot "$OUT/screenshot-gpu-mandelbrot.png"
        step shot-julia 120 env XDG_CONFIG_HOME=/tmp/julia-session "$B/cudalens" "${app[@]}" --frames 40 \
            --mandelbrot --julia=-0.123,0.745 --screenshot "$OUT/screenshot-gpu-julia.png"
        step shot-deep 120 "$B/cudalens" "${app[@]}" --frames 60 --mandelbrot --overlay \
            --refinement measured --bookmark "Spiral by c = i, period-137" \
            --screenshot "$OUT/screenshot-gpu-deep.png"
        # Smooth colour at 1e-300 (extended exponents, BLA), the frame time in the status bar.
        step shot-deep-smooth 120 env XDG_CONFIG_HOME=/tmp/deep-smooth-session "$B/cudalens" "${app[@]}" \
            --frames 60 --mandelbrot --smooth --bookmark "Spiral by c = i, period-403" \
            --screenshot "$OUT/screenshot-gpu-deep-smooth.png"
        # Distance shading at 1e-100: the filaments outlined by the distance estimate.
        step shot-deep-distance 120 env XDG_CONFIG_HOME=/tmp/deep-distance-session "$B/cudalens" "${app[@]}" \
            --frames 60 --mandelbrot --smooth --distance 1.5 --bookmark "Spiral by c = i, period-137" \
            --screenshot "$OUT/screenshot-gpu-deep-distance.png"
        # A 4K HEVC clip playing through NVDEC and the stack, before/after split, its
        # transport bar (.carry/video from make_bench_clips.sh).
        step shot-video 120 env XDG_CONFIG_HOME=/tmp/video-session "$B/cudalens" \
            .carry/video/hevc_4k.mp4 "${app[@]}" --play --frames 240 --split \
            --filter gaussian:sigma=2 --filter sobel --screenshot "$OUT/screenshot-gpu-video.png"
        # Two minutes of 4K at 60 frames a second (the 2-second clip looping: a seek to its
        # start every 120 frames) through gaussian → sobel → box: the frame log's video
        # column says which frames were painted.
        step play-2min 200 env XDG_CONFIG_HOME=/tmp/play-session CUDALENS_FRAME_LOG=/tmp/play.log \
            "$B/cudalens" .carry/video/hevc_4k.mp4 "${app[@]}" --play \
            --frames 14500 --filter gaussian:sigma=2 --filter sobel --filter box:radius=5
        if [ -f /tmp/play.log ]; then
            awk '$11 != "none" { v = $11 + 0; if (n == 0) t0 = $1; t = $1
                    if (n > 0 && v != last) { shown++; if (v > last + 1) skipped += v - last - 1
                                               else if (v < last) loops++ }
                    last = v; n++ }
                 END { printf "painted %d frames in %.1f s; video frames shown %d, never painted %d, loops %d\n",
                       n, t - t0, shown, skipped, loops }' /tmp/play.log | tee "$OUT/video-play.txt" >>"$LOG"
            grep -h "video: frame\|decoded by" "$LOG" | tail -3 >>"$OUT/video-play.txt"
        fi
        kill "$xvfb"
        finish "screenshot"
        ;;
    *) echo "usage: $0 unpack DIR | shoot" ;;
esac
