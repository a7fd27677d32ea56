#!/usr/bin/env bash
# There (the GPU machine, from the repository root, carry [".carry", ".gl"]): proves the
# build on the GPU. Every test binary runs with CUDALENS_REQUIRE_GPU=1, so a test that
# cannot reach the GPU fails instead of passing as skipped; each test runs in a process of
# its own, JOBS at a time. Logs and a summary to $OUT: log.txt (everything), summary.txt
# (one line per step), result.txt (one line, and the ledger row of the call).
# Groups, each made to end within one device call (docs/gpu-harness.md has their times):
#   bash scripts/gpu/verify.sh              quick: smi doctor tests-quick apply opencv faults
#   bash scripts/gpu/verify.sh full         smi doctor tests unit cli hostile apply opencv faults
#   bash scripts/gpu/verify.sh memcheck     memcheck-all memcheck-hosted memcheck-planted
#   bash scripts/gpu/verify.sh sanitizers   racecheck initcheck synccheck
# Steps (any list, in order, groups too): smi doctor tests tests-quick typed video unit cli hostile
# apply opencv faults memcheck-all memcheck-hosted memcheck-planted memcheck-mandelbrot
# memcheck-typed memcheck-video racecheck initcheck synccheck. `video` runs gpu_video alone
# (NVDEC against FFmpeg's decode, frames through the stack). `typed` runs gpu_typed and
# gpu_histogram alone
# (typed images through both interop paths, ranged histograms; `tests` includes them). DEADLINE (epoch seconds; default 9 minutes from the
# start) skips the steps that could not end before it.
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
# The faults' images and messages (their lines go to the log).
FAULTS=/tmp/cudalens-faults

# One injected fault under `auto` (must end on the CPU with the CPU's exact image; its
# message is logged) and under `cuda` (must fail and write nothing). $1: label, rest: the
# environment that injects it.
fault_case() {
    local label=$1 ok=0
    shift
    local stack=(--filter gaussian:sigma=2 --filter box:radius=3 --filter sobel)
    local a="$FAULTS/auto-$label.png" c="$FAULTS/cuda-$label.png"
    rm -f "$a" "$c"
    env "$@" "$B/cudalens" apply "$IMG" -o "$a" --backend auto "${stack[@]}" 2>"$a.err"
    local rc_auto=$?
    env "$@" "$B/cudalens" apply "$IMG" -o "$c" --backend cuda "${stack[@]}" 2>"$c.err"
    local rc_cuda=$?
    cat "$a.err" "$c.err"
    cmp -s "$a" "$FAULTS/reference-cpu.png" || ok=1
    [ "$rc_auto" -eq 0 ] && [ "$rc_cuda" -ne 0 ] && [ ! -e "$c" ] || ok=1
    echo "fault $label: auto rc=$rc_auto, cuda rc=$rc_cuda, $([ $ok -eq 0 ] && echo as expected || echo NOT as expected)"
    return $ok
}

# The injected GPU faults (CUDALENS_FAULT) and no device at all: each falls back to the
# CPU under auto and is a clear error under cuda.
faults() {
    mkdir -p "$FAULTS"
    "$B/cudalens" apply "$IMG" -o "$FAULTS/reference-cpu.png" --force --backend cpu \
        --filter gaussian:sigma=2 --filter box:radius=3 --filter sobel || return 1
    local f failed=0
    for f in oom-texture oom-scratch launch register; do
        fault_case "$f" CUDALENS_FAULT="$f" || failed=1
    done
    fault_case no-device CUDA_VISIBLE_DEVICES= || failed=1
    # Mandelbrot: failed child launches fall back to the CPU's identical dwells.
    local m=(mandelbrot --width 2048 --height 2048 --max-dwell 1024 --mode mariani-silver --dwell --force)
    "$B/cudalens" "${m[@]}" -o "$FAULTS/m-cpu.png" --backend cpu || failed=1
    CUDALENS_FAULT=child-launch "$B/cudalens" "${m[@]}" -o "$FAULTS/m-auto.png" --backend auto || failed=1
    cmp -s "$FAULTS/m-auto.png" "$FAULTS/m-cpu.png" || { echo "child-launch fault: auto differs from the CPU"; failed=1; }
    CUDALENS_FAULT=child-launch "$B/cudalens" "${m[@]}" -o "$FAULTS/m-cuda.png" --backend cuda
    [ $? -ne 0 ] || { echo "child-launch fault: cuda did not fail"; failed=1; }
    return $failed
}

# The test binaries that reach the GPU: every kernel against the CPU reference on both
# interop paths, the ranged histograms, typed images through both paths, the Mandelbrot
# and deep-zoom renderers, the explorer, the GL round trips, the interop fallback, the image-file corpus through CUDA (fidelity), user kernels built
# by NVRTC (in process and in the kernel host, faults and hangs included), the edits, and
# kernel: stages through apply.
GPU_BINS="gpu gpu_histogram gpu_typed gpu_poster gpu_video gl_roundtrip interop_fallback fidelity user_kernel user_kernel_runtime edits kernel_stage"
gpu_tests() {
    local label=$1 bins=() b
    for b in $GPU_BINS; do
        if [ -x "$B/$b-tests" ]; then bins+=("$B/$b-tests"); else echo "$label: $b left out of the bundle"; fi
    done
    tests_of "$label" "${bins[@]}"
}

# The hosted frames under a sanitizer: user kernels that behave, run whole frames in the
# kernel host (external memory) or stage by stage (map/unmap), with the host followed.
hosted() {
    local plan
    plan=$(mktemp)
    plan_tests "$plan" "$B/gpu-tests" gpu_user_kernel &&
        plan_tests "$plan" "$B/kernel_stage-tests" gpu_ &&
        plan_tests "$plan" "$B/user_kernel_runtime-tests" gpu_ || return 1
    # Names that start with gpu_ (a filter matches anywhere in a name).
    grep ' gpu_' "$plan" >"$plan.gpu"
    run_plan memcheck-hosted "$plan.gpu"
    local rc=$?
    rm -f "$plan" "$plan.gpu"
    return $rc
}

# The memcheck step's own command line on the planted error (a write past the end of an
# allocation that does not fault without a sanitizer): it must fail, with the error counted.
planted() {
    tests_of_filtered memcheck-planted --ignored sanitizer_planted_write_past_an_allocation
    local rc=$?
    if [ "$rc" -ne 0 ] && grep -q 'ERROR SUMMARY: [1-9]' "$TESTLOGS"/memcheck-planted/*.log 2>/dev/null; then
        echo "the planted write failed the memcheck step, as it must"
        return 0
    fi
    echo "the memcheck step did not fail on the planted write (rc $rc)"
    return 1
}

# Sanitizer steps: racecheck, initcheck and synccheck do not support dynamic parallelism:
# the filter kernels' tests, and the Mandelbrot tests on the module built without
# device-side launches (CUDALENS_SANITIZER_MODULE=1), at small sizes.
sanitizer_steps() {
    local s=$1 race
    race=$([ "$s" = racecheck ] && echo 1 || echo 0)
    step "$s-filters" 420 env SANITIZER="$s" CUDALENS_GPU_QUICK=1 CUDALENS_GPU_SANITIZE="$race" \
        bash -c 'tests_of_filtered "$@"' _ "$s-filters" histogram random_images a_new_image
    step "$s-mandelbrot" 300 env SANITIZER="$s" CUDALENS_GPU_QUICK=1 CUDALENS_GPU_NO_CHILD_GRIDS=1 \
        CUDALENS_SANITIZER_MODULE=1 bash -c 'tests_of_filtered "$@"' _ "$s-mandelbrot" mandelbrot
}

# The typed images' and ranged histograms' GPU tests (named gpu_…; their CPU-only tests
# make no CUDA call for a sanitizer to follow).
typed_gpu() {
    local label=$1 plan rc
    plan=$(mktemp)
    plan_tests "$plan" "$B/gpu_typed-tests" gpu_ && plan_tests "$plan" "$B/gpu_histogram-tests" &&
        run_plan "$label" "$plan"
    rc=$?
    rm -f "$plan"
    return $rc
}

# tests_of_filtered LABEL [--ignored] WORD...: the gpu tests whose names contain any WORD.
tests_of_filtered() {
    local label=$1 plan rc
    shift
    plan=$(mktemp)
    plan_tests "$plan" "$B/gpu-tests" "$@" && run_plan "$label" "$plan"
    rc=$?
    rm -f "$plan"
    return $rc
}
export -f apply_both opencv fault_case faults gpu_tests hosted planted tests_of_filtered typed_gpu
export B OUT IMG GPU_BINS FAULTS

# The groups, as their steps.
expand() {
    local s
    for s in "$@"; do
        case $s in
            quick) echo smi doctor tests-quick apply opencv faults ;;
            full) echo smi doctor tests unit cli hostile apply opencv faults ;;
            memcheck) echo memcheck-all memcheck-hosted memcheck-planted ;;
            sanitizers) echo racecheck initcheck synccheck ;;
            *) echo "$s" ;;
        esac
    done
}
# shellcheck disable=SC2048,SC2086
steps=$(expand ${*:-quick})
for s in $steps; do
    case $s in
        smi) step nvidia-smi 60 nvidia-smi ;;
        doctor) step doctor 120 "$B/cudalens" doctor ;;
        tests) step gpu-tests 540 gpu_tests gpu-tests ;;
        tests-quick) step gpu-tests-quick 480 env CUDALENS_GPU_QUICK=1 bash -c 'gpu_tests gpu-tests-quick' ;;
        typed) step gpu-typed 180 tests_of gpu-typed "$B/gpu_typed-tests" "$B/gpu_histogram-tests" ;;
        video) step gpu-video 180 tests_of gpu-video "$B/gpu_video-tests" ;;
        unit) step unit-tests 300 tests_of unit-tests "$B/lib-tests" ;;
        cli) step cli-tests 300 tests_of cli-tests "$B/cli-tests" ;;
        # Hostile input on the real backends: clear errors, no panic, no hang, no overwrite.
        hostile) step hostile-tests 300 tests_of hostile-tests "$B/hostile-tests" ;;
        apply) step apply-cuda-vs-cpu 120 apply_both ;;
        opencv) step opencv-oracle 200 opencv ;;
        faults) step faults 300 faults ;;
        # Every GPU test under memcheck but those that fault on purpose, quick sizes.
        memcheck-all) step memcheck 480 env SANITIZER=memcheck CUDALENS_GPU_QUICK=1 bash -c 'tests_of memcheck "$B/gpu-tests"' ;;
        memcheck-hosted) step memcheck-hosted 300 env SANITIZER=memcheck CUDALENS_GPU_QUICK=1 bash -c hosted ;;
        memcheck-typed) step memcheck-typed 300 env SANITIZER=memcheck bash -c 'typed_gpu memcheck-typed' ;;
        memcheck-video) step memcheck-video 240 env SANITIZER=memcheck bash -c 'tests_of memcheck-video "$B/gpu_video-tests"' ;;
        memcheck-planted) step memcheck-planted 120 env SANITIZER=memcheck bash -c planted ;;
        memcheck-mandelbrot) step memcheck-mandelbrot 400 env SANITIZER=memcheck CUDALENS_GPU_QUICK=1 bash -c 'tests_of_filtered memcheck-mandelbrot mandelbrot deep explorer julia' ;;
        racecheck | initcheck | synccheck) sanitizer_steps "$s" ;;
        *) echo "unknown step $s" | tee -a "$SUMMARY"; continue ;;
    esac
done
finish "verify"
