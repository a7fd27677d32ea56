#!/usr/bin/env bash
# There (the GPU machine, from the repository root, carry [".carry", ".gl"]): the figures.
# Each step writes its JSON to $OUT; with BEFORE=1 (the bundle made with prepare.sh
# BEFORE=...) the older build runs the same step right before this one, on the same lease.
#   bash scripts/gpu/bench.sh                  filters explorer peers goals
# Steps: filters (`cudalens bench` at 4K, the filter table), explorer (`--mandelbrot`: the
# explorer's frame), peers (`cudalens-bench --peers` at 4K and 8K: NPP beside each kernel),
# goals (`cudalens-bench --mandelbrot`: Mariani–Silver at the four goal points and the
# window bookmarks), typed (`cudalens bench --type u8|u16|f32` at 4K, f32 at 8K),
# typed-peers (`cudalens-bench --peers --type u16|f32` at 4K: NPP's 16u and 32f calls beside
# the typed kernels), kernels (`--kernels`: user kernels' goals), deep, handover (the GL–CUDA hand-over probe on both interop paths),
# ms-sweep (the tuning sweep: long, one per call). DEADLINE (epoch seconds) stops steps.
cd "$(dirname "$0")/../.."
source scripts/gpu/common.sh

# Runs one research bench with this build's cudalens-bench, or with an older build:
# its cudalens-bench if it has one, else its `cudalens bench`, which took the same flags.
research() {
    local dir=$1
    shift
    if [ -x "$dir/cudalens-bench" ]; then
        "$dir/cudalens-bench" "$@"
    else
        "$dir/cudalens" bench "$@"
    fi
}
export -f research

# step_pair NAME LIMIT KIND ARGS...: the older build (with BEFORE=1), then this one;
# KIND: app (`cudalens bench`) or research (cudalens-bench).
step_pair() {
    local name=$1 limit=$2 kind=$3
    shift 3
    local builds="$B"
    [ "${BEFORE:-0}" = 1 ] && builds="$B/before $B"
    local dir tag
    for dir in $builds; do
        tag=after
        [ "$dir" = "$B/before" ] && tag=before
        if [ "$kind" = app ]; then
            step "$name-$tag" "$limit" "$dir/cudalens" bench "$@" --json "$OUT/$name-$tag.json"
        else
            step "$name-$tag" "$limit" research "$dir" "$@" --json "$OUT/$name-$tag.json"
        fi
    done
}

steps=${*:-"filters explorer peers goals"}
for s in $steps; do
    case $s in
        filters) step_pair filters-4k 200 app --backend cuda --runs 30 --size 3840x2160 ;;
        explorer) step_pair explorer 400 app --backend cuda --runs 30 --size 1920x1080 --mandelbrot ;;
        peers) step_pair peers-4k 240 research --backend cuda --peers --runs 30 --size 3840x2160
               step_pair peers-8k 300 research --backend cuda --peers --runs 30 --size 7680x4320 ;;
        goals) step_pair goals 420 research --backend cuda --mandelbrot --runs 15 --size 64x64 ;;
        deep) step_pair deep 200 research --backend cuda --deep --runs 20 --size 1920x1080 ;;
        # Every filter on RGBA of 8-bit, 16-bit and float samples at 4K (the typed kernels'
        # share of copy bandwidth against RGBA8's).
        typed) for t in u8 u16 f32; do
                   step_pair "typed-4k-$t" 200 app --backend cuda --runs 20 --size 3840x2160 --type "$t"
               done
               step_pair typed-8k-f32 240 app --backend cuda --runs 10 --size 7680x4320 --type f32 ;;
        # NPP's 16u and 32f C4R calls (box, Gaussian, median, Sobel in 32f, the copy) beside
        # the typed kernels on the same 4K image, each checked against the typed reference.
        typed-peers) for t in u16 f32; do
                         step_pair "typed-peers-4k-$t" 300 research --backend cuda --peers \
                             --type "$t" --runs 20 --size 3840x2160
                     done ;;
        # User kernels: edit to first frame, the per-pixel copy's share of the built-in copy
        # at 4K and 8K, the tiled Sobel against the built-in (in the kernel host and in-process).
        kernels) step kernels 300 "$B/cudalens" bench --kernels --runs 30 --json "$OUT/kernels.json" ;;
        handover) for path in external classic; do
                      step_pair "handover-$path" 200 research --backend cuda --interop "$path" \
                          --handover-probe --runs 30 --size 7680x4320
                  done ;;
        ms-sweep) step_pair ms-sweep 540 research --backend cuda --mandelbrot --ms-sweep \
                      --ms-sweep-sizes "${SWEEP_SIZES:-large}" --runs 15 --size 64x64 ;;
        *) echo "unknown step $s" | tee -a "$SUMMARY" ;;
    esac
done
# The goal points' speed-ups, the explorer frame and the filter totals, for the summary.
for f in "$OUT"/goals-*.json; do
    [ -e "$f" ] || continue
    python3 - "$f" <<'PY' | tee -a "$SUMMARY"
import json, sys
doc = json.load(open(sys.argv[1]))
goals = (doc.get("cases", {}).get("mandelbrot") or {}).get("goals") or []
print(sys.argv[1].rsplit("/", 1)[-1], "goal points:",
      ", ".join(f"{g['size'][0]}²/{g['max_dwell']} {g['speedup']:.2f}×" for g in goals) or "none")
PY
done
finish "bench"
