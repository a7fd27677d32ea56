#!/usr/bin/env bash
# There (the GPU machine, from the repository root, carry [".carry", ".gl"]): long runs that
# look for leaks and drift. Logs to $OUT (log.txt, soak.txt, summary.txt, result.txt).
#   bash scripts/gpu/soak.sh                   frames leak
# Steps: frames (random filter stacks and Mandelbrot views, checked against the CPU, with
# host and device memory at checkpoints, on each variant of SOAK_VARIANTS), leak (10 000
# frames on the external-memory path: device memory before and after), video (NVDEC for
# SOAK_SECONDS: size-changing streams, seeks, readers opened and dropped; device memory
# at the end of each pass).
# SOAK_VARIANTS: interop:parts[:replace[:view[:readback[:stacks]]]] (interop auto, classic
# or external; parts both, filters, mandelbrot or none; replace 0 keeps the first image;
# view fixed: every view 640×480; readback all or none; stacks same-shape).
# SOAK_SECONDS bounds each variant (default 120), SOAK_FRAMES its frames (default 10 000);
# SOAK_REPEAT runs each step that many times in a row (default 1). On classic the GPU
# bound fails while GL's allocator keeps freed texture storage (docs/design/interop.md).
cd "$(dirname "$0")/../.."
source scripts/gpu/common.sh

soak_variant() {
    local v=$1 f
    IFS=: read -r -a f <<<"$v"
    # One malloc arena, one rayon thread and no tcache: the CPU reference's workers would
    # otherwise each keep memory of their own resident, and the checkpoints would measure
    # the harness's allocator, not the app (SOAK_THREADS sets more threads).
    MALLOC_ARENA_MAX=1 RAYON_NUM_THREADS=${SOAK_THREADS:-1} GLIBC_TUNABLES=glibc.malloc.tcache_count=0 \
        SOAK_INTEROP=${f[0]} SOAK_PARTS=${f[1]:-both} SOAK_REPLACE=${f[2]:-1} \
        SOAK_VIEW=${f[3]:-random} SOAK_READBACK=${f[4]:-checked} SOAK_STACKS=${f[5]:-any} \
        SOAK_FRAMES=${SOAK_FRAMES:-10000} SOAK_SECONDS=${SOAK_SECONDS:-120} \
        "$B/soak-tests" --ignored --nocapture --test-threads=1 2>&1 | tee -a "$OUT/soak.txt"
    local rc=${PIPESTATUS[0]}
    grep -h '^soak: [0-9]' "$OUT/soak.txt" | tail -n1
    return "$rc"
}

mem() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; }

leak() {
    local before after
    before=$(mem)
    "$B/gpu-tests" --test-threads=1 --nocapture --ignored external_path_leaks_no_gpu_memory
    local rc=$?
    after=$(mem)
    echo "nvidia-smi memory.used: before ${before} MiB, after ${after} MiB"
    return "$rc"
}
video() {
    SOAK_SECONDS=${SOAK_SECONDS:-120} "$B/gpu_video-tests" --test-threads=1 --nocapture \
        --ignored nvdec_decoding_leaks_no_gpu_memory
}
export -f soak_variant mem leak video
export B OUT

steps=${*:-"frames leak"}
for s in $steps; do
    case $s in
        frames) for v in ${SOAK_VARIANTS:-auto:both classic:both}; do
                    for r in $(seq "${SOAK_REPEAT:-1}"); do
                        step "soak-$v#$r" $((${SOAK_SECONDS:-120} + 60)) soak_variant "$v"
                    done
                done ;;
        leak) for r in $(seq "${SOAK_REPEAT:-1}"); do step "leak-external#$r" 200 leak; done ;;
        video) for r in $(seq "${SOAK_REPEAT:-1}"); do
                   step "video-nvdec#$r" $((${SOAK_SECONDS:-120} + 60)) video
               done ;;
        *) echo "unknown step $s" | tee -a "$SUMMARY" ;;
    esac
done
finish "soak"
