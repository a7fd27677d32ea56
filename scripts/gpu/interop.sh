#!/usr/bin/env bash
# Issue 10 on the lent GPU machine: what map/unmap costs (examples/interop_probe), both
# interop paths through the GPU tests, the benchmark on each path at 512² … 8K, the
# 10 000-frame leak run on the external path (device memory from the driver and from
# nvidia-smi), and compute-sanitizer. Binaries staged by scripts/gpu/prepare-interop.sh in
# $B (default .carry-interop). To $OUT: all.log (every step), summary.txt (one line per
# step), bench.jsonl (one JSON document per benchmark). Usage: interop.sh [STEP...]
set -u
OUT=${OUT:-/tmp/cudalens-out}
B=${B:-.carry-interop}
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export RUST_BACKTRACE=1 RUST_LOG=${RUST_LOG:-warn}
# The NVIDIA Vulkan ICD is not always where the loader looks.
if ! ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    echo "VK_DRIVER_FILES=$VK_DRIVER_FILES" | tee -a "$OUT/summary.txt"
fi
# Test binaries look for tests/data under the manifest directory they were built in.
mkdir -p /work/wt && ln -sfn "$PWD" /work/wt/interop

step() {
    local name=$1 limit=$2
    shift 2
    echo "=== $name: $*" | tee -a "$OUT/all.log"
    local start=$SECONDS
    timeout "$limit" "$@" >>"$OUT/all.log" 2>&1
    local rc=$?
    echo "$name rc=$rc $((SECONDS - start))s" | tee -a "$OUT/summary.txt"
}

mem() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; }

steps=${*:-"doctor probe tests soak bench memcheck"}
for s in $steps; do
    case $s in
        doctor) step doctor 60 "$B/cudalens" doctor ;;
        probe) step probe 120 "$B/interop_probe" ;;
        tests) step tests 200 "$B/gpu-tests" --test-threads=1 --nocapture ;;
        bench)
            for size in 512x512 1024x1024 1920x1080 3840x2160 7680x4320; do
                for path in classic external; do
                    extra=""
                    [ "$size" = 3840x2160 ] && extra="--mandelbrot"
                    step "bench-$path-$size" 90 "$B/cudalens" bench --backend cuda --interop "$path" \
                        --size "$size" --runs 30 $extra --json "$OUT/bench.json"
                    cat "$OUT/bench.json" >>"$OUT/bench.jsonl" 2>/dev/null && echo >>"$OUT/bench.jsonl"
                done
            done
            rm -f "$OUT/bench.json" ;;
        soak)
            echo "nvidia-smi memory.used before: $(mem) MiB" | tee -a "$OUT/summary.txt"
            step soak 150 "$B/gpu-tests" --test-threads=1 --nocapture --ignored external_path_leaks_no_gpu_memory
            echo "nvidia-smi memory.used after: $(mem) MiB" | tee -a "$OUT/summary.txt" ;;
        memcheck) step memcheck 200 env CUDALENS_GPU_QUICK=1 compute-sanitizer --tool memcheck \
            --error-exitcode 9 "$B/gpu-tests" --test-threads=1 histogram_and_transpose a_new_image \
            mandelbrot_colours filters_match_the_cpu_reference_on_random auto_prefers ;;
        *) echo "unknown step $s" ;;
    esac
done
echo "=== summary"; cat "$OUT/summary.txt"
