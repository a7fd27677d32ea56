#!/usr/bin/env bash
# The Mandelbrot explorer's proof on the lent GPU machine (no Rust there). Stage first, here:
#   cargo build --release; cargo test --release --no-run   (nvcc on PATH)
#   copy target/release/cudalens, the gpu test binary (as gpu-tests), a baseline binary
#   (cudalens-base, optional) and this script into a carry folder $B.
# (gzipped to stay under the carry limit: NAME.gz is unpacked into /tmp/bin). Then on the
# device, from the repository root: C=<carry folder> bash $C/mandelbrot.sh [STEP...]
# Steps: lib (the library's unit tests: CPU references, geometry, parsing), tests (GPU tests vs the CPU reference, both modes, smooth colouring), memcheck
# (compute-sanitizer on the Mandelbrot tests, quick sizes), bench (--mandelbrot, or
# --ms-sweep with SWEEP=1), base (the baseline binary's bench and window views), overlay
# (PNGs of the explorer's overlay and a smooth zoom sequence through the CLI).
# Output: $OUT/log.txt, summary.txt, bench.json, PNGs.
set -u
OUT=${OUT:-/tmp/cudalens-out}
C=${C:?carry folder}
B=/tmp/bin
mkdir -p "$OUT" /work/wt "$B"
for f in "$C"/*.gz; do gunzip -c "$f" >"$B/$(basename "$f" .gz)"; chmod +x "$B/$(basename "$f" .gz)"; done
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
# Test binaries look for tests/data under the checkout they were built in.
ln -sfn "$PWD" /work/wt/mandel
export RUST_BACKTRACE=1 CUDA_MODULE_LOADING=EAGER
LOG="$OUT/log.txt"

step() {
    local name=$1 limit=$2
    shift 2
    echo "=== $name: $*" | tee -a "$LOG"
    local start=$SECONDS
    timeout "$limit" "$@" >>"$LOG" 2>&1
    local rc=$?
    echo "$name rc=$rc $((SECONDS - start))s" | tee -a "$OUT/summary.txt" "$LOG"
}

base_views() {
    # The baseline's Mariani-Silver and per-pixel dwell times on the views the issue cites.
    local v
    for v in "-0.5,0 3.0 Whole" "-0.088,0.654 0.004 Triple"; do
        set -- $v
        for d in 1024 8192; do
            for mode in per-pixel mariani-silver; do
                for i in 1; do
                    "$B/cudalens-base" mandelbrot -o /tmp/base.png --force --backend cuda --width 1920 --height 1080 \
                        --center "$1" --span "$2" --max-dwell $d --mode $mode 2>&1 | sed "s/^/$3 $d $mode: /"
                done
            done
        done
    done
}

overlay() {
    "$B/cudalens" mandelbrot -o "$OUT/overlay-whole-set.png" --force --backend cuda --width 1600 --height 1000 \
        --overlay --smooth || return 1
    "$B/cudalens" mandelbrot -o "$OUT/overlay-seahorse.png" --force --backend cuda --width 1600 --height 1000 \
        --center=-0.743643887,0.131825904 --span 0.002 --max-dwell 2048 --overlay || return 1
    "$B/cudalens" mandelbrot -o /tmp/zoom/z.png --force --backend cuda --width 640 --height 400 --smooth \
        --frames 24 --zoom-to=-0.743643887,0.131825904,0.0001 --max-dwell 2048 || return 1
    ls /tmp/zoom | wc -l
}

export -f base_views overlay
export B OUT
mkdir -p /tmp/zoom
steps=${*:-"lib tests memcheck bench overlay"}
for s in $steps; do
    case $s in
        smi) step nvidia-smi 30 nvidia-smi ;;
        lib) step lib-tests 60 "$B/lib-tests" --test-threads=16 mandelbrot cli:: app:: tiles ;;
        tests) step gpu-tests 120 "$B/gpu-tests" --test-threads=1 --nocapture mandelbrot ;;
        memcheck) step memcheck 90 env CUDALENS_GPU_QUICK=1 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/gpu-tests" --test-threads=1 mandelbrot ;;
        bench) step bench 170 "$B/cudalens" bench --backend cuda --size 256x256 --runs 7 --mandelbrot ${SWEEP:+--ms-sweep} --json "$OUT/bench.json" ;;
        base) step base-bench 40 "$B/cudalens-base" bench --backend cuda --size 256x256 --runs 7 --mandelbrot
              step base-views 40 bash -c base_views ;;
        overlay) step overlay 30 bash -c overlay ;;
        *) echo "unknown step $s" ;;
    esac
done
echo "=== summary"; cat "$OUT/summary.txt"
