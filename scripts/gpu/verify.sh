#!/usr/bin/env bash
# There (the GPU machine, from the repository root, carry [".carry", ".gl"]): proves the
# build on the GPU. Every test binary runs with CUDALENS_REQUIRE_GPU=1, so a test that
# cannot reach the GPU fails instead of passing as skipped. Logs and a summary to $OUT:
# log.txt (everything), summary.txt (one line per step), result.txt (one line).
#   bash scripts/gpu/verify.sh                 smi doctor tests apply opencv faults
#   bash scripts/gpu/verify.sh memcheck        compute-sanitizer memcheck, every GPU test
#   bash scripts/gpu/verify.sh sanitizers      racecheck, initcheck, synccheck
# Steps (any list, in order): smi doctor tests unit cli hostile apply opencv faults
# memcheck memcheck-mandelbrot racecheck initcheck synccheck sanitizers. Each call must end
# within the device tool's 10 minutes: DEADLINE (epoch seconds) stops steps before it.
cd "$(dirname "$0")/../.."
source scripts/gpu/common.sh

# The same stack through --backend cuda and --backend cpu: at most 1 apart per channel.
apply_both() {
    local backend
    for backend in cuda cpu; do
        "$B/cudalens" apply tests/data/astronaut.png -o "/tmp/astronaut-$backend.png" --force \
            --backend "$backend" --filter gaussian:sigma=3 --filter sobel:scale=2 \
            --filter box:radius=4 || return 1
    done
    python3 - /tmp/astronaut-cuda.png /tmp/astronaut-cpu.png <<'PY'
import sys
import numpy as np
from PIL import Image
a, b = (np.asarray(Image.open(p).convert("RGBA"), dtype=np.int16) for p in sys.argv[1:3])
assert a.shape == b.shape, (a.shape, b.shape)
d = np.abs(a - b)
print(f"cuda vs cpu: shape {a.shape}, max diff {d.max()}, differing values {(d > 0).sum()}")
sys.exit(0 if d.max() <= 1 else 1)
PY
}

# The median, equalize and threshold outputs against OpenCV (skipped where cv2 is missing).
opencv() {
    if ! python3 -c "import cv2" 2>/dev/null; then
        echo "no OpenCV (cv2) on this machine"
        return 3
    fi
    python3 scripts/gpu/opencv_check.py "$B/cudalens" cuda /tmp
}

IMG=tests/data/astronaut.png

# One injected fault under `auto` (must end on the CPU with the CPU's exact image; its
# message is logged) and under `cuda` (must fail and write nothing). $1: label, rest: the
# environment that injects it.
fault_case() {
    local label=$1 ok=0
    shift
    local stack=(--filter gaussian:sigma=2 --filter box:radius=3 --filter sobel)
    local a="$OUT/faults/auto-$label.png" c="$OUT/faults/cuda-$label.png"
    rm -f "$a" "$c"
    env "$@" "$B/cudalens" apply "$IMG" -o "$a" --backend auto "${stack[@]}" 2>"$a.err"
    local rc_auto=$?
    env "$@" "$B/cudalens" apply "$IMG" -o "$c" --backend cuda "${stack[@]}" 2>"$c.err"
    local rc_cuda=$?
    cat "$a.err" "$c.err"
    cmp -s "$a" "$OUT/faults/reference-cpu.png" || ok=1
    [ "$rc_auto" -eq 0 ] && [ "$rc_cuda" -ne 0 ] && [ ! -e "$c" ] || ok=1
    echo "fault $label: auto rc=$rc_auto, cuda rc=$rc_cuda, $([ $ok -eq 0 ] && echo as expected || echo NOT as expected)"
    return $ok
}

# The injected GPU faults (CUDALENS_FAULT) and no device at all: each falls back to the
# CPU under auto and is a clear error under cuda.
faults() {
    mkdir -p "$OUT/faults"
    "$B/cudalens" apply "$IMG" -o "$OUT/faults/reference-cpu.png" --force --backend cpu \
        --filter gaussian:sigma=2 --filter box:radius=3 --filter sobel || return 1
    local f failed=0
    for f in oom-texture oom-scratch launch register; do
        fault_case "$f" CUDALENS_FAULT="$f" || failed=1
    done
    fault_case no-device CUDA_VISIBLE_DEVICES= || failed=1
    # Mandelbrot: failed child launches fall back to the CPU's identical dwells.
    local m=(mandelbrot --width 2048 --height 2048 --max-dwell 1024 --mode mariani-silver --dwell --force)
    "$B/cudalens" "${m[@]}" -o "$OUT/faults/m-cpu.png" --backend cpu || failed=1
    CUDALENS_FAULT=child-launch "$B/cudalens" "${m[@]}" -o "$OUT/faults/m-auto.png" --backend auto || failed=1
    cmp -s "$OUT/faults/m-auto.png" "$OUT/faults/m-cpu.png" || { echo "child-launch fault: auto differs from the CPU"; failed=1; }
    CUDALENS_FAULT=child-launch "$B/cudalens" "${m[@]}" -o "$OUT/faults/m-cuda.png" --backend cuda
    [ $? -ne 0 ] || { echo "child-launch fault: cuda did not fail"; failed=1; }
    return $failed
}

# compute-sanitizer TOOL over the GPU tests (quick sizes), optional test filters after.
sanitize() {
    local tool=$1
    shift
    # One log per tool; each run appends (the filter and Mandelbrot runs of one tool).
    local log="$OUT/$tool.txt" part
    part=$(mktemp)
    compute-sanitizer --tool "$tool" --error-exitcode 9 "$B/gpu-tests" --test-threads=1 "$@" >"$part" 2>&1
    local rc=$?
    { echo "=== $tool $*"; cat "$part"; } >>"$log"
    grep -h 'SUMMARY\|^test result' "$part" | sort | uniq -c
    rm -f "$part"
    return $rc
}
export -f apply_both opencv fault_case faults sanitize
export B OUT IMG

steps=${*:-"smi doctor tests apply opencv faults"}
steps=${steps//sanitizers/racecheck initcheck synccheck}
for s in $steps; do
    case $s in
        smi) step nvidia-smi 60 nvidia-smi ;;
        doctor) step doctor 120 "$B/cudalens" doctor ;;
        # Every kernel against the CPU reference on both interop paths (classic and
        # external memory), the Mandelbrot and deep-zoom renderers, the explorer.
        tests) step gpu-tests 480 "$B/gpu-tests" --test-threads=1 --nocapture
               step gl-roundtrip 60 "$B/gl_roundtrip-tests"
               step interop-fallback 60 "$B/interop_fallback-tests"
               # The image-file corpus through --backend cuda against the CPU and Pillow.
               step fidelity-tests 180 "$B/fidelity-tests" --test-threads=1
               # User kernels: NVRTC builds of the examples and hostile sources, run on the GPU.
               step user-kernel-tests 240 "$B/user_kernel-tests" --test-threads=1 --nocapture
               # User kernels that fault or hang, in the kernel host process.
               [ ! -x "$B/user_kernel_runtime-tests" ] ||
                   step user-kernel-runtime-tests 300 "$B/user_kernel_runtime-tests" --test-threads=1 --nocapture
               # Rotate, flip, resize and crop on CUDA against the CPU reference and Pillow.
               [ ! -x "$B/edits-tests" ] || step edits-tests 180 "$B/edits-tests" --test-threads=1
               # kernel: stages through apply, in the kernel host (faults, hangs, mixed stacks).
               [ ! -x "$B/kernel_stage-tests" ] || step kernel-stage-tests 180 "$B/kernel_stage-tests" --test-threads=1 --nocapture ;;
        unit) step unit-tests 300 "$B/lib-tests" --test-threads=2 ;;
        cli) step cli-tests 300 "$B/cli-tests" ;;
        # Hostile input on the real backends: clear errors, no panic, no hang, no overwrite.
        hostile) step hostile-tests 300 "$B/hostile-tests" ;;
        apply) step apply-cuda-vs-cpu 120 apply_both ;;
        opencv) step opencv-oracle 200 opencv ;;
        faults) step faults 300 faults ;;
        # Every GPU test under memcheck (the Mandelbrot and deep tests included), quick sizes.
        memcheck) step memcheck 540 env CUDALENS_GPU_QUICK=1 bash -c 'sanitize memcheck' ;;
        memcheck-mandelbrot) step memcheck-mandelbrot 400 env CUDALENS_GPU_QUICK=1 bash -c 'sanitize memcheck mandelbrot deep explorer' ;;
        # racecheck, initcheck and synccheck do not support dynamic parallelism: the filter
        # kernels' tests, and the Mandelbrot tests on the module built without device-side
        # launches (CUDALENS_SANITIZER_MODULE=1), at small sizes.
        racecheck | initcheck | synccheck)
            step "$s-filters" 420 env CUDALENS_GPU_QUICK=1 CUDALENS_GPU_SANITIZE=$([ "$s" = racecheck ] && echo 1 || echo 0) bash -c "sanitize $s histogram random_images a_new_image"
            step "$s-mandelbrot" 300 env CUDALENS_GPU_QUICK=1 CUDALENS_GPU_NO_CHILD_GRIDS=1 CUDALENS_SANITIZER_MODULE=1 bash -c "sanitize $s mandelbrot" ;;
        *) echo "unknown step $s" | tee -a "$SUMMARY"; continue ;;
    esac
done
finish "verify"
