#!/usr/bin/env bash
# Screenshots of the real app on the GPU machine: Xvfb (Mesa on the server side, +iglx)
# with GLX on the NVIDIA GPU for the client (__GLX_VENDOR_LIBRARY_NAME=nvidia), as in
# docs/gpu-machine.md. The X11 and Mesa debs (Debian 12) exceed one call's carry limit, so
#   bash scripts/gpu/screenshot.sh unpack DIR   unpacks DIR/*.deb under /opt/x (call 1, 2)
#   bash scripts/gpu/screenshot.sh shoot        starts Xvfb and takes the screenshots (call 2)
# while the machine stays warm between the calls. Binary: .shot/cudalens (or .shot/cudalens.xz,
# unpacked here). Output: $OUT: the image window, the explorer with its overlay (the measured
# refinement, then the child-grids preset: nested rectangles), and the explorer at the 1e-100
# deep bookmark with the overlay of its refinement, each with its status bar.
set -u
X=/opt/x
case ${1:-} in
    unpack)
        mkdir -p "$X"
        for f in "$2"/*.deb; do dpkg -x "$f" "$X"; done
        echo "unpacked $(ls "$2" | wc -l) debs into $X"
        ;;
    shoot)
        [ -f .shot/cudalens.xz ] && xz -d -f .shot/cudalens.xz && chmod +x .shot/cudalens
        for f in .gl/*.deb; do dpkg -x "$f" /; done
        ldconfig
        ln -sf "$X/usr/bin/xkbcomp" /usr/bin/xkbcomp
        LIBS="$X/usr/lib/x86_64-linux-gnu:$X/lib/x86_64-linux-gnu"
        LD_LIBRARY_PATH="$LIBS" LIBGL_DRIVERS_PATH="$X/usr/lib/x86_64-linux-gnu/dri" \
            "$X/usr/bin/Xvfb" :7 -screen 0 1600x1000x24 +iglx +extension GLX -nolisten tcp \
            -xkbdir "$X/usr/share/X11/xkb" >"$OUT/xvfb.log" 2>&1 &
        sleep 3
        export DISPLAY=:7 __GLX_VENDOR_LIBRARY_NAME=nvidia XKB_CONFIG_ROOT="$X/usr/share/X11/xkb"
        export LD_LIBRARY_PATH="/usr/local/nvidia/lib64:$LIBS" RUST_LOG=info XDG_CONFIG_HOME=/tmp
        .shot/cudalens tests/data/coffee.png --size 1600x1000 --frames 40 --split \
            --filter gaussian:sigma=1.5 --filter sobel:scale=2 --screenshot "$OUT/screenshot-gpu.png" 2>&1 | tail -n 5
        echo "image rc=$?"
        .shot/cudalens --size 1600x1000 --frames 40 --mandelbrot --overlay --refinement measured \
            --screenshot "$OUT/screenshot-gpu-mandelbrot.png" 2>&1 | tail -n 5
        echo "mandelbrot rc=$?"
        .shot/cudalens --size 1600x1000 --frames 40 --mandelbrot --overlay --refinement child-grids \
            --screenshot "$OUT/screenshot-gpu-mandelbrot-nested.png" 2>&1 | tail -n 5
        echo "mandelbrot nested rc=$?"
        .shot/cudalens --size 1600x1000 --frames 60 --mandelbrot --overlay --refinement measured --bookmark "Spiral by c = i, period-137" \
            --screenshot "$OUT/screenshot-gpu-deep.png" 2>&1 | tail -n 5
        echo "deep rc=$?"
        ;;
    *) echo "usage: $0 unpack DIR | shoot" ;;
esac
