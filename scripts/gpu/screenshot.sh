#!/usr/bin/env bash
# There (the GPU machine, from the repository root): screenshots of the real app under
# Xvfb (Mesa on the server side, +iglx) with GLX on the NVIDIA GPU for the client
# (__GLX_VENDOR_LIBRARY_NAME=nvidia). The X11 and Mesa debs (Debian 12, docs/gpu-harness.md)
# exceed one call's carry beside the bundle, so they travel in two calls while the machine
# stays warm:
#   bash scripts/gpu/screenshot.sh unpack DIR   unpacks DIR/*.deb under /opt/x
#   bash scripts/gpu/screenshot.sh shoot        starts Xvfb and takes the screenshots
# The binary comes from the bundle (.carry, scripts/gpu/prepare.sh). Output in $OUT: the
# image window, a colour JPEG, the explorer with its overlay (the measured refinement, then the
# child-grids preset), and the explorer at the 1e-100 deep bookmark, each with its status bar.
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
        # A colour JPEG (4:2:0, as cameras write them) shown unfiltered, in a session of its
        # own (the others' stacks are remembered): its true colours.
        python3 -c "from PIL import Image; Image.open('tests/data/astronaut.png').convert('RGB').save('/tmp/astronaut.jpg', quality=90, subsampling=2)" &&
            step shot-jpeg 120 env XDG_CONFIG_HOME=/tmp/jpeg-session "$B/cudalens" /tmp/astronaut.jpg "${app[@]}" --frames 40 \
                --screenshot "$OUT/screenshot-gpu-jpeg.png"
        step shot-mandelbrot 120 "$B/cudalens" "${app[@]}" --frames 40 --mandelbrot --overlay \
            --refinement measured --screenshot "$OUT/screenshot-gpu-mandelbrot.png"
        step shot-nested 120 "$B/cudalens" "${app[@]}" --frames 40 --mandelbrot --overlay \
            --refinement child-grids --screenshot "$OUT/screenshot-gpu-mandelbrot-nested.png"
        step shot-deep 120 "$B/cudalens" "${app[@]}" --frames 60 --mandelbrot --overlay \
            --refinement measured --bookmark "Spiral by c = i, period-137" \
            --screenshot "$OUT/screenshot-gpu-deep.png"
        kill "$xvfb"
        finish "screenshot"
        ;;
    *) echo "usage: $0 unpack DIR | shoot" ;;
esac
