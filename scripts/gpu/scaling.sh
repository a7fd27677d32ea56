#!/usr/bin/env bash
# There (the GPU machine, from the repository root, carry [".carry", ".gl"]): work spread
# over the host's GPUs. For 1, 2, 4, … GPUs (powers of two up to the host's): the SIDE²
# poster at max dwell 4096 (default 65536) and a FRAMES-frame 1920×1080 zoom sequence
# (default 600), each with its wall time, host peak RSS and each GPU's busy time; then the
# GPU tests of posters and spread frames (every device, against the CPU), and memcheck.
# Figures to $OUT/scaling.txt; outputs are written to scratch space and removed.
#   bash scripts/gpu/scaling.sh [SIDE] [FRAMES]
# DWELL (default 4096) and POSTER_ARGS (more `mandelbrot` options) change the poster;
# ZOOM=0 and TESTS=0 leave out the zoom sequences and the tests, e.g. a poster where the GPU
# is the bottleneck: DWELL=16384 POSTER_ARGS="--mode per-pixel" ZOOM=0 TESTS=0 … 32768
cd "$(dirname "$0")/../.."
source scripts/gpu/common.sh
SIDE=${1:-65536}
FRAMES=${2:-600}
DWELL=${DWELL:-4096}
POSTER_ARGS=${POSTER_ARGS:-}
ZOOM=${ZOOM:-1}
TESTS=${TESTS:-1}
SCRATCH=${SCRATCH:-/tmp/cudalens-scaling}
FIGURES="$OUT/scaling.txt"
mkdir -p "$SCRATCH"

# measured LABEL COMMAND...: runs COMMAND, appends its wall time, host peak RSS and the
# worker lines it printed to the figures.
measured() {
    local label=$1
    shift
    python3 - "$label" "$FIGURES" "$@" <<'PY'
import resource, subprocess, sys, time
label, figures, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
start = time.monotonic()
p = subprocess.run(cmd, capture_output=True, text=True)
wall = time.monotonic() - start
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
sys.stdout.write(p.stdout + p.stderr)
with open(figures, "a") as f:
    f.write(f"{label}: rc {p.returncode}, wall {wall:.2f} s, host peak RSS {rss:.0f} MiB\n")
    for line in p.stderr.splitlines():
        if "poster" in line or "frames/s" in line or line.startswith("  "):
            f.write(f"    {line.strip()}\n")
sys.exit(p.returncode)
PY
}

list() { seq -s, 0 $(($1 - 1)); }

poster() {
    # shellcheck disable=SC2086
    measured "poster ${SIDE}² max dwell $DWELL $POSTER_ARGS on $1 GPU(s)" "$B/cudalens" \
        mandelbrot -o "$SCRATCH/poster.png" --width "$SIDE" --height "$SIDE" \
        --max-dwell "$DWELL" $POSTER_ARGS --devices "$(list "$1")" --force
    local rc=$?
    ls -l "$SCRATCH/poster.png" >>"$FIGURES" 2>&1
    rm -f "$SCRATCH/poster.png"
    return $rc
}

zoom() {
    measured "zoom ${FRAMES}×1920×1080 on $1 GPU(s)" "$B/cudalens" mandelbrot \
        -o "$SCRATCH/zoom.png" --width 1920 --height 1080 --max-dwell 4096 \
        --frames "$FRAMES" --zoom-to=-0.743643887037158,0.131825904205311,1e-9 \
        --devices "$(list "$1")" --force
    local rc=$?
    rm -f "$SCRATCH"/zoom-*.png
    return $rc
}

export -f measured list poster zoom
export SIDE FRAMES SCRATCH FIGURES B DWELL POSTER_ARGS
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || echo 0)
echo "$(date -u +%F) $GPUS GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)" >"$FIGURES"
n=1
while [ "$n" -le "$GPUS" ]; do
    step "poster-$n" 240 poster "$n"
    [ "$ZOOM" = 0 ] || step "zoom-$n" 240 zoom "$n"
    n=$((n * 2))
done
[ "$TESTS" = 0 ] || step poster-tests 240 "$B/gpu_poster-tests" --test-threads=1 --nocapture
[ "$TESTS" = 0 ] || step memcheck 300 compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$B/gpu_poster-tests" --test-threads=1
cat "$FIGURES"
finish "scaling"
