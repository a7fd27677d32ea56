#!/usr/bin/env bash
# Issue 8 on the GPU machine: GPU faults, the soak and compute-sanitizer over every kernel.
# Staged here by `scripts/gpu/hostile.sh stage` (release binary and test binaries in
# .carry-hostile/), run there from the repository root with `carry: [".carry-hostile", ".gl"]`:
#   bash scripts/gpu/hostile.sh faults soak          # call 1
#   bash scripts/gpu/hostile.sh memcheck racecheck initcheck synccheck   # call 2
# Everything goes to $OUT: hostile.log (all output), summary.txt (one line per check).
set -u
C=.carry-hostile
if [ "${1:-}" = stage ]; then
    set -euo pipefail
    source scripts/ci/cuda-toolchain.sh
    cargo build --release
    cargo test --release --no-run --message-format=json 2>/dev/null >target/hostile-tests.json
    mkdir -p "$C"
    cp target/release/cudalens "$C/cudalens"
    python3 - "$C" <<'PY'
import json, shutil, sys
for line in open("target/hostile-tests.json"):
    msg = json.loads(line)
    exe, name = msg.get("executable"), msg.get("target", {}).get("name")
    if exe and name in ("gpu", "soak"):
        shutil.copy(exe, f"{sys.argv[1]}/{name}-tests")
PY
    cp scripts/gpu/hostile.sh "$C/"
    strip "$C"/*-tests "$C/cudalens" 2>/dev/null || true
    du -sh "$C"
    exit 0
fi
# Run from scripts/gpu/run.sh: the binaries it unpacked into .carry/.
[ -d "$C" ] || C=.carry
OUT=${OUT:-/tmp/hostile-out}
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
# Test binaries look for tests/data under the worktree they were built in.
mkdir -p /work/wt && ln -sfn "$PWD" /work/wt/hostile
[ -d /work/main/tests/data ] || ln -sfn "$PWD" /work/main
LOG="$OUT/hostile.log"
B="$C/cudalens"
IMG=tests/data/astronaut.png
STACK=(--filter gaussian:sigma=2 --filter box:radius=3 --filter sobel)

note() { echo "$*" | tee -a "$OUT/summary.txt" "$LOG"; }

# One fault under `auto` (must end on the CPU with a message and the CPU's exact image)
# and under `cuda` (must exit 2 and write nothing). $1: label, rest: environment.
fault_case() {
    local label=$1
    shift
    local a="$OUT/auto-$label.png" c="$OUT/cuda-$label.png"
    env "$@" timeout 120 "$B" apply "$IMG" -o "$a" --backend auto "${STACK[@]}" >>"$LOG" 2>"$OUT/auto-$label.err"
    local rc_auto=$?
    env "$@" timeout 120 "$B" apply "$IMG" -o "$c" --backend cuda "${STACK[@]}" >>"$LOG" 2>"$OUT/cuda-$label.err"
    local rc_cuda=$?
    local same=no
    cmp -s "$a" "$OUT/reference-cpu.png" && same=yes
    cat "$OUT/auto-$label.err" "$OUT/cuda-$label.err" >>"$LOG"
    note "fault $label: auto rc=$rc_auto CPU-identical=$same message=[$(grep -h 'CPU backend' "$OUT/auto-$label.err" | head -c 160)] | cuda rc=$rc_cuda output-written=$([ -e "$c" ] && echo yes || echo no) message=[$(head -c 160 "$OUT/cuda-$label.err")]"
}

mandel_fault() {
    local m=(mandelbrot --width 2048 --height 2048 --max-dwell 1024 --mode mariani-silver --dwell --force)
    timeout 120 "$B" "${m[@]}" -o "$OUT/m-cpu.png" --backend cpu >>"$LOG" 2>&1
    CUDALENS_FAULT=child-launch timeout 120 "$B" "${m[@]}" -o "$OUT/m-auto.png" --backend auto >>"$LOG" 2>"$OUT/m-auto.err"
    local rc_auto=$?
    CUDALENS_FAULT=child-launch timeout 120 "$B" "${m[@]}" -o "$OUT/m-cuda.png" --backend cuda >>"$LOG" 2>"$OUT/m-cuda.err"
    local rc_cuda=$?
    local same=no
    cmp -s "$OUT/m-auto.png" "$OUT/m-cpu.png" && same=yes
    cat "$OUT/m-auto.err" "$OUT/m-cuda.err" >>"$LOG"
    note "fault child-launch: auto rc=$rc_auto CPU-identical=$same message=[$(tail -n1 "$OUT/m-auto.err" | head -c 160)] | cuda rc=$rc_cuda message=[$(head -c 200 "$OUT/m-cuda.err")]"
}

# Another process takes all but ~200 MiB of the GPU; an 8K frame no longer fits.
gpu_hog() {
    python3 - "$OUT/big.png" <<'PY'
import sys, numpy as np
from PIL import Image
Image.fromarray(np.random.default_rng(1).integers(0, 256, (4320, 7680, 4), dtype=np.uint8)).save(sys.argv[1])
PY
    "$B" apply "$OUT/big.png" -o "$OUT/big-cpu.png" --backend cpu "${STACK[@]}" >>"$LOG" 2>&1
    python3 - <<'PY' &
import cupy, time
free, total = cupy.cuda.runtime.memGetInfo()
hog = cupy.empty(free - (200 << 20), dtype=cupy.uint8)
open("/tmp/hog.ready", "w").close()
time.sleep(120)
PY
    local hog=$!
    for _ in $(seq 100); do [ -e /tmp/hog.ready ] && break; sleep 0.2; done
    nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader >>"$LOG"
    timeout 120 "$B" apply "$OUT/big.png" -o "$OUT/big-auto.png" --backend auto "${STACK[@]}" >>"$LOG" 2>"$OUT/hog-auto.err"
    local rc_auto=$?
    timeout 120 "$B" apply "$OUT/big.png" -o "$OUT/big-cuda.png" --backend cuda "${STACK[@]}" >>"$LOG" 2>"$OUT/hog-cuda.err"
    local rc_cuda=$?
    kill "$hog"
    local same=no
    cmp -s "$OUT/big-auto.png" "$OUT/big-cpu.png" && same=yes
    cat "$OUT/hog-auto.err" "$OUT/hog-cuda.err" >>"$LOG"
    note "fault real-oom (GPU held by another process, 8K frame): auto rc=$rc_auto CPU-identical=$same message=[$(grep -h 'CPU backend' "$OUT/hog-auto.err" | head -c 200)] | cuda rc=$rc_cuda message=[$(head -c 240 "$OUT/hog-cuda.err")]"
}

faults() {
    "$B" doctor >>"$LOG" 2>&1
    "$B" apply "$IMG" -o "$OUT/reference-cpu.png" --backend cpu "${STACK[@]}" >>"$LOG" 2>&1
    "$B" apply "$IMG" -o "$OUT/plain-cuda.png" --backend cuda "${STACK[@]}" >>"$LOG" 2>&1
    note "no fault: cuda rc=$? ($(python3 -c "
import numpy as np; from PIL import Image
a=np.asarray(Image.open('$OUT/plain-cuda.png'),dtype=int); b=np.asarray(Image.open('$OUT/reference-cpu.png'),dtype=int)
print('max diff vs CPU', abs(a-b).max())"))"
    for f in oom-texture oom-scratch launch register; do
        fault_case "$f" CUDALENS_FAULT="$f"
    done
    fault_case no-device CUDA_VISIBLE_DEVICES=
    mandel_fault
    gpu_hog
}

# The soak on each interop path, then filters and Mandelbrot views apart, so that a drift
# can be placed. SOAK_VARIANTS: interop:parts[:replace[:view[:readback[:stacks]]]] (parts
# both, filters, mandelbrot or none; replace 0 keeps the first image; view fixed: every view
# 640×480; readback all: every filter frame read back from GL, not only the checked ones,
# none: no checks, nothing read back; stacks same-shape: no filter that turns the image).
soak() {
    local v
    for v in ${SOAK_VARIANTS:-auto:both classic:both auto:filters auto:mandelbrot}; do
        local start=$SECONDS f
        IFS=: read -r -a f <<<"$v"
        # One malloc arena: the CPU reference's worker threads (rayon) would otherwise each
        # keep the top of an arena of their own resident, which malloc_trim does not give
        # back, and the checkpoints would measure the harness's allocator, not the app.
        # One rayon thread and no tcache for the same reason: each worker's stack and
        # per-thread cache fill slowly as ever larger references run (run 125: 16 workers
        # +2 MiB over 40 000 frames; one, without tcache, flat). SOAK_THREADS sets more.
        # SOAK_PRELOAD: a shim to preload (scripts/gpu/probe/map_trace.so names the library
        # behind each large /dev/nvidiactl mapping, logged to map-trace-<variant>.log).
        LD_PRELOAD=${SOAK_PRELOAD:-} MAP_TRACE_LOG="$OUT/map-trace-${v//:/-}.log" \
        MALLOC_ARENA_MAX=1 RAYON_NUM_THREADS=${SOAK_THREADS:-1} GLIBC_TUNABLES=glibc.malloc.tcache_count=0 SOAK_INTEROP=${f[0]} SOAK_PARTS=${f[1]:-both} SOAK_REPLACE=${f[2]:-1} SOAK_VIEW=${f[3]:-random} SOAK_READBACK=${f[4]:-checked} SOAK_STACKS=${f[5]:-any} SOAK_FRAMES=${SOAK_FRAMES:-10000} SOAK_SECONDS=${SOAK_SECONDS:-120} \
            timeout $((${SOAK_SECONDS:-120} + 30)) "$C/soak-tests" --ignored --nocapture --test-threads=1 2>&1 | tee -a "$OUT/soak.txt" >>"$LOG"
        note "soak $v rc=${PIPESTATUS[0]} $((SECONDS - start))s: $(grep -h '^soak: [0-9]' "$OUT/soak.txt" | tail -n1)"
    done
}

sanitize() {
    local tool=$1
    shift
    local start=$SECONDS
    # racecheck runs the shared-memory kernels far slower: small random images there.
    local small=0
    [ "$tool" = racecheck ] && small=1
    CUDALENS_GPU_SANITIZE=$small CUDALENS_GPU_QUICK=1 timeout "${SANITIZER_SECONDS:-120}" compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$C/gpu-tests" --test-threads=1 "$@" >"$OUT/$tool.txt" 2>&1
    local rc=$?
    cat "$OUT/$tool.txt" >>"$LOG"
    note "$tool rc=$rc $((SECONDS - start))s: $(grep -h 'ERROR SUMMARY' "$OUT/$tool.txt" | sort | uniq -c | tr '\n' ' ') tests: $(grep -h '^test result' "$OUT/$tool.txt" | tr '\n' ' ')"
}

# racecheck, initcheck and synccheck do not support dynamic parallelism: they run the tests
# of every kernel outside the Mariani–Silver module (every filter case on random images up
# to 1917×1081 in quick mode, the histogram and transpose, a replaced image); memcheck runs
# all GPU tests.
FILTER_TESTS=(histogram random_images a_new_image)
for s in "$@"; do
    case $s in
        faults) faults ;;
        soak) soak ;;
        memcheck) sanitize memcheck ;;
        racecheck | initcheck | synccheck) sanitize "$s" "${FILTER_TESTS[@]}" ;;
        *) echo "unknown step $s" ;;
    esac
done
echo "=== summary"
cat "$OUT/summary.txt"
