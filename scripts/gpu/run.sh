#!/usr/bin/env bash
# Runs on the lent GPU machine (no Rust there), from the repository root, after
# scripts/gpu/prepare.sh staged the binaries in .carry/. Everything goes to $OUT:
#   run.log (every step's output), summary.txt (one line per step), JSON and CSV results.
# Steps: nvidia-smi, doctor, GPU tests (real interop path vs CPU reference), apply with
# --backend cuda vs cpu, median and equalize against OpenCV, compute-sanitizer (memcheck here;
# racecheck, initcheck, synccheck, GPU faults and the soak through hostile.sh), benchmarks
# (filters and Mandelbrot, before/after with NPP's peers, deep zoom, batch images/s), the
# kernel-variant sweep and Nsight Compute over it. Usage: bash scripts/gpu/run.sh [STEP...]
# With DEADLINE (epoch seconds) set, no step runs past it.
set -u
OUT=${OUT:-/tmp/cudalens-out}
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
# The test binaries find tests/data under the checkout they were built in (/work/main).
[ -d /work/main/tests/data ] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
# prepare.sh packs the binaries; unpack them once per machine.
if [ -f .carry/bundle.tar.xz ] && [ ! -x .carry/cudalens ]; then
    tar -C .carry -xJf .carry/bundle.tar.xz
fi
export CUDALENS_BIN="$PWD/.carry/cudalens" RUST_BACKTRACE=1
B=.carry
LOG="$OUT/run.log"

step() {
    local name=$1 limit=$2
    shift 2
    echo "=== $name: $*" | tee -a "$LOG"
    local start=$SECONDS
    # DEADLINE (epoch seconds): no step may run past it, so the call ends in time.
    if [ -n "${DEADLINE:-}" ]; then
        local left=$((DEADLINE - $(date +%s)))
        if [ "$left" -lt 10 ]; then
            echo "$name skipped: no time left" | tee -a "$OUT/summary.txt" "$LOG"
            return
        fi
        [ "$left" -lt "$limit" ] && limit=$left
    fi
    # Through bash -c so that steps may be the exported shell functions below.
    timeout "$limit" bash -c '"$@"' step "$@" >>"$LOG" 2>&1
    local rc=$?
    echo "$name rc=$rc $((SECONDS - start))s" | tee -a "$OUT/summary.txt" "$LOG"
}

compare() {
    python3 - "$@" <<'PY'
import sys
import numpy as np
from PIL import Image
a = np.asarray(Image.open(sys.argv[1]).convert("RGBA"), dtype=np.int16)
b = np.asarray(Image.open(sys.argv[2]).convert("RGBA"), dtype=np.int16)
assert a.shape == b.shape, (a.shape, b.shape)
d = np.abs(a - b)
print(f"{sys.argv[1]} vs {sys.argv[2]}: shape {a.shape}, max diff {d.max()}, differing values {(d > 0).sum()}")
sys.exit(0 if d.max() <= 1 else 1)
PY
}

apply_both() {
    local out
    for backend in cuda cpu; do
        out="/tmp/astronaut-$backend.png"
        "$B/cudalens" apply tests/data/astronaut.png -o "$out" --force --backend "$backend" \
            --filter gaussian:sigma=3 --filter sobel:scale=2 --filter box:radius=4 || return 1
    done
    compare /tmp/astronaut-cuda.png /tmp/astronaut-cpu.png
}

NCU_METRICS=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
export -f compare apply_both
HOSTILE=${HOSTILE:-/tmp/hostile}
export B OUT NCU_METRICS HOSTILE
steps=${*:-"smi doctor tests apply opencv memcheck bench"}
for s in $steps; do
    case $s in
        smi) step nvidia-smi 60 nvidia-smi ;;
        doctor) step doctor 120 "$B/cudalens" doctor ;;
        tests) step gpu-tests 420 "$B/gpu-tests" --test-threads=1 --nocapture ;;
        apply) step apply-cuda-vs-cpu 120 apply_both ;;
        memcheck) step memcheck 400 env CUDALENS_GPU_QUICK=1 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/gpu-tests" --test-threads=1 ;;
        opencv) step opencv-cuda 200 python3 scripts/gpu/opencv_check.py "$B/cudalens" cuda /tmp ;;
        bench) step bench 400 "$B/cudalens" bench --backend cuda --mandelbrot --runs 30 --json "$OUT/bench.json" ;;
        # The filter, box and histogram tests on small images under memcheck.
        filters-memcheck) step memcheck-filters 300 env CUDALENS_GPU_QUICK=1 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/gpu-tests" --test-threads=1 random_images box_is_exact histogram_and_transpose ;;
        # Nsight Compute on the Sobel and 3x3 box kernels of the sweep (every layout), at 8K.
        ncu-filters) step ncu-filters 200 env CUDALENS_SWEEP_QUICK=1 CUDALENS_SWEEP_CASES=sobel,box ncu --clock-control none --csv --kernel-name regex:"sobel|box_small" --launch-count 32 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis "$B/sweep" ;;
        # Nsight Compute on the 5x5 median (median5) inside the app's bench, at 8K.
        ncu-median) step ncu-median 200 ncu --clock-control none --csv --kernel-name median5 --launch-count 3 --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats "$B/cudalens" bench --backend cuda --size 7680x4320 --runs 3 --filter median:radius=2 ;;
        # ...and on the sweep's median5 variants (which pipe each comparison loads).
        ncu-median-sweep) step ncu-median-sweep 200 env CUDALENS_SWEEP_QUICK=1 CUDALENS_SWEEP_CASES=median ncu --clock-control none --csv --kernel-name regex:median5 --metrics sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fp16.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fp16_cycles_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum "$B/sweep" ;;
        box-memcheck) step memcheck-box 200 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/gpu-tests" --test-threads=1 box_is_exact ;;
        # The Gaussian's tests (the tensor-core passes at every step count) under the
        # sanitizers, on small images.
        gauss-tests) step gpu-tests-gaussian 300 "$B/gpu-tests" --test-threads=1 --nocapture gaussian ;;
        gauss-memcheck | gauss-racecheck | gauss-initcheck) step "$s" 300 env CUDALENS_GPU_SANITIZE=1 CUDALENS_GPU_QUICK=1 compute-sanitizer --tool "${s#gauss-}" --error-exitcode 9 "$B/gpu-tests" --test-threads=1 gaussian ;;
        # Nsight Compute on the Gaussian's σ = 16 passes (J = 7) of every tile variant, at 8K.
        ncu-gauss) step ncu-gauss 200 env CUDALENS_SWEEP_QUICK=1 CUDALENS_SWEEP_CASES=gauss ncu --clock-control none --csv --kernel-name regex:conv_.*_mma_7 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis "$B/sweep" ;;
        # Issue 10: the hand-over cost of filter stacks that use scratch memory, in several
        # orders, at 4K and 8K, on both interop paths (bench --filter; scripts/gpu/stacks.sh).
        # Issue 10: how often the 8K bench's hand-over passes 0.05 ms, over separate processes.
        handover) step handover 300 bash scripts/gpu/handover.sh "$B/cudalens" ;;
        # NPP peers one filter at a time, plain and under memcheck (scripts/gpu/peer_check.sh).
        peer-check) step peer-check 300 bash scripts/gpu/peer_check.sh "$B/cudalens" median:radius=1 median:radius=2 median:radius=7 unsharp:sigma=2,amount=1 equalize ;;
        # Issue 10: does a kernel of a module linked for dynamic parallelism delay its stream's
        # next commands? (scripts/gpu/probe/, built into $B/probe by its build.sh)
        cdp-idle) step cdp-idle-plain 60 "$B/probe/cdp_idle"
                  step cdp-idle-rdc 60 "$B/probe/cdp_idle_rdc" ;;
        # The same probe with the older build (prepare.sh BEFORE=), for before/after on one lease.
        handover-probe-before) step handover-probe-before 200 "$B/before/cudalens" bench --backend cuda --interop external --handover-probe --size 7680x4320 --runs 30 --json "$OUT/handover-probe-before.json" ;;
        # One filter stack before and after (BA_FILTER, default the 5x5 median), 4K and 8K.
        filter-ba) for size in 3840x2160 7680x4320; do
                       step "before-${BA_FILTER:-median:radius=2}-$size" 120 "$B/before/cudalens" bench --backend cuda --runs 30 --size "$size" --filter "${BA_FILTER:-median:radius=2}"
                       step "after-${BA_FILTER:-median:radius=2}-$size" 120 "$B/cudalens" bench --backend cuda --runs 30 --size "$size" --filter "${BA_FILTER:-median:radius=2}"
                   done ;;
        # racecheck, initcheck and synccheck on the Mandelbrot tests without child grids
        # (the tools do not support dynamic parallelism, and pass over every kernel of a
        # module linked for it): the module built without device-side launches, the fused
        # kernel, the in-block refinement, per-pixel and the colours, quick sizes.
        mandel-racecheck | mandel-initcheck | mandel-synccheck) step "$s" 400 env CUDALENS_GPU_QUICK=1 CUDALENS_GPU_NO_CHILD_GRIDS=1 CUDALENS_SANITIZER_MODULE=1 compute-sanitizer --tool "${s#mandel-}" --error-exitcode 9 "$B/gpu-tests" --test-threads=1 mandelbrot ;;
        # Nsight Compute on the fused refinement at a goal point (4096², max dwell 512) and
        # at a window size (whole set, 8192): occupancy and where the warps wait.
        ncu-fused) for v in "4096 4096 512 -0.5,0 2" "1920 1080 8192 -0.5,0 3"; do
                       set -- $v
                       step "ncu-fused-$1x$2-$3" 200 ncu --clock-control none --csv --kernel-name regex:mandel_ms_fused --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats "${NCU_BIN:-$B/cudalens}" mandelbrot --backend cuda --mode mariani-silver --width "$1" --height "$2" --max-dwell "$3" --center "$4" --span "$5" --output "/tmp/ncu-fused-$1.png" --force
                   done ;;
        # racecheck on the Mandelbrot dwell test alone (no interop), and the whole Mandelbrot
        # racecheck with the older build's tests (prepare.sh BEFORE_TESTS=): is a failure new?
        mandel-racecheck-dwells) step "$s" 400 env CUDALENS_GPU_QUICK=1 CUDALENS_GPU_NO_CHILD_GRIDS=1 CUDALENS_SANITIZER_MODULE=1 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/gpu-tests" --test-threads=1 mandelbrot_matches_the_cpu_reference ;;
        # The same dwell test with its output, and the command line under racecheck (its error
        # message), to place a failure.
        mandel-racecheck-verbose) step "$s" 300 env RUST_BACKTRACE=1 CUDALENS_GPU_QUICK=1 CUDALENS_GPU_NO_CHILD_GRIDS=1 CUDALENS_SANITIZER_MODULE=1 compute-sanitizer --tool racecheck --show-backtrace device "$B/gpu-tests" --test-threads=1 --nocapture mandelbrot_matches_the_cpu_reference
                                  for size in "7 3" "317 211" "640 480"; do
                                      set -- $size
                                      step "racecheck-cli-$1x$2" 120 env CUDALENS_SANITIZER_MODULE=1 compute-sanitizer --tool racecheck "$B/cudalens" mandelbrot --backend cuda --mode mariani-silver --width "$1" --height "$2" --output "/tmp/rc-$1.png" --force
                                  done ;;
        # The command line under racecheck (sanitizer module) with this build, the trial build
        # (VARIANT=) and the older one (BEFORE=), at two sizes where the fused grid has many blocks.
        racecheck-cli-builds) for bin in "$B/cudalens" "$B/variant/cudalens" "$B/before/cudalens"; do
                                  for size in "317 211" "640 480"; do
                                      set -- $size
                                      step "racecheck-cli-${bin#$B/}-$1x$2" 120 env CUDALENS_SANITIZER_MODULE=1 compute-sanitizer --tool racecheck "$bin" mandelbrot --backend cuda --mode mariani-silver --width "$1" --height "$2" --output "/tmp/rc-$1.png" --force
                                  done
                              done ;;
        # racecheck's options tried on the command line at 317x211 (is the failure the tool's?).
        racecheck-options) for opts in "--racecheck-detect-level error" "--kernel-name-exclude kns=mandel_ms_fused" "--print-level info"; do
                               step "racecheck-cli ${opts}" 120 env CUDALENS_SANITIZER_MODULE=1 bash -c "compute-sanitizer --tool racecheck $opts $B/cudalens mandelbrot --backend cuda --mode mariani-silver --width 317 --height 211 --output /tmp/rc-317.png --force; echo exit status \$?"
                           done ;;
        mandel-racecheck-before) step "$s" 400 env CUDALENS_GPU_QUICK=1 CUDALENS_GPU_NO_CHILD_GRIDS=1 CUDALENS_SANITIZER_MODULE=1 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/before/gpu-tests" --test-threads=1 mandelbrot ;;
        # Issue 9: the in-block refinement above 4096² (64 -> 16 px) at 16384²/512, Nsight
        # Compute on its two kernels (the lines, then a block per cell) and its hottest SASS.
        ncu-16k) step ncu-inblock-16384-512 200 ncu --clock-control none --csv --kernel-name regex:"mandel_(ms|grid_lines)_f32" --launch-count 2 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section InstructionStats "$B/cudalens" mandelbrot --backend cuda --mode mariani-silver --width 16384 --height 16384 --max-dwell 512 --center -0.5,0 --span 2 --output /tmp/ncu-16k.png --force
                 step ncu-sass-inblock-16384-512 200 ncu --clock-control none --csv --kernel-name regex:"mandel_ms_f32" --launch-count 1 --section SourceCounters --page source --print-source sass --log-file "$OUT/sass-mandel_ms.csv" "$B/cudalens" mandelbrot --backend cuda --mode mariani-silver --width 16384 --height 16384 --max-dwell 512 --center -0.5,0 --span 2 --output /tmp/ncu-16k.png --force ;;
        # Issue 9: the in-block refinement's two kernels (the lines, then a block per cell)
        # at the goal points 4096²/2048 and 16384²/512, for this build or NCU_BIN: how the
        # time splits between them, occupancy, issue and where the warps wait (NCU_KERNELS
        # and NCU_LAUNCHES: other kernels, e.g. the one-grid form).
        ncu-goals) for v in "4096 2048" "16384 512"; do
                       set -- $v
                       step "ncu-goal-${NCU_TAG:-after}-$1-$2" 200 ncu --clock-control none --csv --kernel-name regex:"${NCU_KERNELS:-mandel_(ms|grid_lines)_f32}" --launch-count "${NCU_LAUNCHES:-2}" --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section InstructionStats "${NCU_BIN:-$B/cudalens}" mandelbrot --backend cuda --mode mariani-silver --width "$1" --height "$1" --max-dwell "$2" --center -0.5,0 --span 2 --output "/tmp/ncu-goal-$1.png" --force
                   done ;;
        # Issue 9: where the fused kernel's instructions go at 4096²/512, against per-pixel's on
        # the same view (instruction statistics, issue, the hottest SASS lines).
        ncu-4k) for k in mandel_per_pixel mandel_ms_fused; do
                    mode=per-pixel; [ "$k" = mandel_ms_fused ] && mode=mariani-silver
                    step "ncu-$k-4096-512" 200 ncu --clock-control none --csv --kernel-name regex:"$k" --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section InstructionStats --section SourceCounters "$B/cudalens" mandelbrot --backend cuda --mode "$mode" --width 4096 --height 4096 --max-dwell 512 --center -0.5,0 --span 2 --output "/tmp/ncu-$k.png" --force
                    step "ncu-sass-$k-4096-512" 200 ncu --clock-control none --csv --kernel-name regex:"$k" --launch-count 1 --section SourceCounters --page source --print-source sass --log-file "$OUT/sass-$k.csv" "$B/cudalens" mandelbrot --backend cuda --mode "$mode" --width 4096 --height 4096 --max-dwell 512 --center -0.5,0 --span 2 --output "/tmp/ncu-$k.png" --force
                done ;;
        explorer-memcheck) step memcheck-explorer 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/gpu-tests" --test-threads=1 explorer ;;
        mandel-memcheck) step memcheck-mandelbrot 300 env CUDALENS_GPU_QUICK=1 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/gpu-tests" --test-threads=1 mandelbrot ;;
        # Issue 10: filter and explorer frames in turn in one process (bench --handover-probe),
        # on both interop paths, to place the explorer's GPU-side wait.
        handover-probe) step handover-probe-external 200 "$B/cudalens" bench --backend cuda --interop external --handover-probe --size 7680x4320 --runs 30 --json "$OUT/handover-probe-external.json"
                        step handover-probe-classic 200 "$B/cudalens" bench --backend cuda --interop classic --handover-probe --size 7680x4320 --runs 30 --json "$OUT/handover-probe-classic.json" ;;
        stacks) step stacks 300 bash scripts/gpu/stacks.sh "${STACKS_BIN:-$B/cudalens}" ;;
        deep-tests) step gpu-tests-deep 200 "$B/gpu-tests" --test-threads=1 --nocapture deep ;;
        deep-memcheck) step memcheck-deep 200 env CUDALENS_GPU_QUICK=1 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/gpu-tests" --test-threads=1 deep mandelbrot ;;
        # The explorer's display resized 200 times: its semaphores kept (after), or made
        # per size (BEFORE_TESTS=, the same test on older code: expected to fail).
        resize) step resize-test 120 "$B/gpu-tests" --exact explorer_display_resizes_keep_the_drivers_mappings --nocapture ;;
        resize-before) step resize-test-before 120 "$B/before/gpu-tests" --exact explorer_display_resizes_keep_the_drivers_mappings --nocapture ;;
        mandel-tests) step gpu-tests-mandelbrot 200 "$B/gpu-tests" --test-threads=1 --nocapture mandelbrot ;;
        # Issue 8's checks (scripts/gpu/hostile.sh; its files stay in $HOSTILE, a summary
        # line each in $HOSTILE/summary.txt).
        faults) step faults 240 env OUT="$HOSTILE" bash scripts/gpu/hostile.sh faults ;;
        soak) step soak 400 env OUT="$HOSTILE" SOAK_SECONDS="${SOAK_SECONDS:-80}" bash scripts/gpu/hostile.sh soak ;;
        racecheck | initcheck | synccheck) step "$s" $((${SANITIZER_SECONDS:-190} + 10)) env OUT="$HOSTILE" SANITIZER_SECONDS=${SANITIZER_SECONDS:-190} bash scripts/gpu/hostile.sh "$s" ;;
        # The kernel-variant sweep (scripts/gpu/sweep/build.sh, staged as $B/sweep) and
        # Nsight Compute's view of one 8K run of every variant.
        sweep) step sweep 200 "$B/sweep" "$OUT/sweep.csv" 20 ;;
        ncu) step ncu 200 env CUDALENS_SWEEP_QUICK=1 ncu --clock-control none --csv --metrics "$NCU_METRICS" "$B/sweep" ;;
        batch) step batch-cuda 150 python3 scripts/bench/batch_images.py --cudalens "$B/cudalens" --count 48 --backend cuda --jobs 16 --repeat 3
               step batch-cpu 150 python3 scripts/bench/batch_images.py --cudalens "$B/cudalens" --count 48 --backend cpu --jobs 16 --repeat 2 ;;
        # Issue 12's CPU table on an idle machine: cudalens's CPU backend and OpenCV, same
        # threads, back to back.
        opencv-cpu) step opencv-cpu-2 150 python3 scripts/bench/opencv_cpu.py --cudalens "$B/cudalens" --size 1920x1080 --threads 2 --runs 30 --rounds 3 --json "$OUT/opencv-cpu-2.json"
                    step opencv-cpu-16 150 python3 scripts/bench/opencv_cpu.py --cudalens "$B/cudalens" --size 1920x1080 --threads 16 --runs 30 --rounds 3 --json "$OUT/opencv-cpu-16.json" ;;
        deep) step bench-deep 150 "$B/cudalens" bench --backend cuda --deep --size 1920x1080 --runs 20 ;;
        deep-before) step bench-deep-before 150 "$B/before/cudalens" bench --backend cuda --deep --size 1920x1080 --runs 20 ;;
        deep-variant) step bench-deep-variant 150 "$B/variant/cudalens" bench --backend cuda --deep --size 1920x1080 --runs 20 ;;
        # Issue 11's before and after on one lease: an older build (prepare.sh BEFORE=) and
        # this one with NPP's peers, at 4K and 8K.
        # Mariani-Silver tunings on the deep bookmarks (1920x1080), and the Mandelbrot
        # benchmark with the explorer's pixel buffer mapped and unmapped.
        deep-sweep) step bench-deep-sweep 400 "$B/cudalens" bench --backend cuda --deep --ms-sweep --size 640x360 --runs 5 --json "$OUT/deep-sweep.json" ;;
        mandel-classic) step bench-mandel-classic 300 "$B/cudalens" bench --backend cuda --mandelbrot --interop classic --runs 30 --json "$OUT/bench-classic.json" ;;
        # The large sweep alone (4096² and 16384² goal points).
        ms-sweep-large) step bench-ms-sweep-large 420 "$B/cudalens" bench --backend cuda --mandelbrot --ms-sweep --ms-sweep-sizes large --runs 15 --json "$OUT/ms-sweep-large.json" ;;
        ms-sweep-window) step bench-ms-sweep-window 420 "$B/cudalens" bench --backend cuda --mandelbrot --ms-sweep --ms-sweep-sizes window --runs 15 --json "$OUT/ms-sweep-window.json" ;;
        ms-compare) step bench-ms-compare 420 "$B/cudalens" bench --backend cuda --mandelbrot --ms-sweep --ms-sweep-sizes compare --runs 15 --json "$OUT/ms-compare.json" ;;
        ms-sweep) step bench-ms-sweep 420 "$B/cudalens" bench --backend cuda --mandelbrot --ms-sweep --runs 15 --json "$OUT/ms-sweep.json" ;;
        # One window-sized Mariani-Silver frame, with a short limit: a refinement that hangs
        # shows here before the tests wait on it.
        # The explorer's refinement presets drawn by the command line (overlay and statistics).
        overlay-presets) for r in measured nested child-grids; do
                             step "overlay-$r" 60 "$B/cudalens" mandelbrot --backend cuda --width 1600 --height 1000 --overlay --smooth --refinement "$r" --output "$OUT/overlay-$r.png"
                         done ;;
        mandel-smoke) step mandel-smoke 60 "$B/cudalens" mandelbrot --backend cuda --width 1920 --height 1080 --max-dwell 8192 --output /tmp/mandel-smoke.png ;;
        # The refinement with continuous values (fills store Coons patches) at 16384^2/512,
        # before (prepare.sh BEFORE=) and after, three times in turn: the command line's dwell time.
        smooth-16k) for k in 1 2 3; do
                        for b in before/cudalens cudalens; do
                            step "smooth-16k-${b%%/*}" 60 "$B/$b" mandelbrot --backend cuda --mode mariani-silver --smooth --width 16384 --height 16384 --max-dwell 512 --center -0.5,0 --span 2 --output /tmp/smooth-16k.png --force
                        done
                    done ;;
        # A trial build (prepare.sh VARIANT=) of the same benchmark.
        mandel-variant) step bench-mandel-variant 300 "$B/variant/cudalens" bench --backend cuda --mandelbrot --runs 30 --json "$OUT/variant-mandel.json" ;;
        ms-sweep-before) step bench-ms-sweep-before 420 "$B/before/cudalens" bench --backend cuda --mandelbrot --ms-sweep --runs 15 --json "$OUT/ms-sweep-before.json" ;;
        # The Mandelbrot benchmark of the older build, for before/after on one lease.
        mandel-before) step bench-mandel-before 300 "$B/before/cudalens" bench --backend cuda --mandelbrot --runs 30 --json "$OUT/before-mandel.json" ;;
        before4k) step bench-before-4k 120 "$B/before/cudalens" bench --backend cuda --runs 30 --size 3840x2160 --json "$OUT/before-4k.json" ;;
        before8k) step bench-before-8k 200 "$B/before/cudalens" bench --backend cuda --runs 30 --size 7680x4320 --json "$OUT/before-8k.json" ;;
        # bench --peers of the older build (prepare.sh BEFORE=), for before/after on one lease.
        peers-before4k) step bench-peers-before-4k 200 "$B/before/cudalens" bench --backend cuda --peers --runs 30 --size 3840x2160 --json "$OUT/peers-before-4k.json" ;;
        peers-before8k) step bench-peers-before-8k 300 "$B/before/cudalens" bench --backend cuda --peers --runs 30 --size 7680x4320 --json "$OUT/peers-before-8k.json" ;;
        peers4k) step bench-peers-4k 200 "$B/cudalens" bench --backend cuda --peers --runs 30 --size 3840x2160 --json "$OUT/peers-4k.json" ;;
        peers8k) step bench-peers-8k 300 "$B/cudalens" bench --backend cuda --peers --runs 30 --size 7680x4320 --json "$OUT/peers-8k.json" ;;
        *) echo "unknown step $s" ;;
    esac
done
echo "=== summary"; cat "$OUT/summary.txt"
