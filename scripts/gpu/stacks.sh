#!/usr/bin/env bash
# Issue 10's question: what the GPU side of the hand-over back to GL costs for filter stacks
# with and without a scratch-using stage (Gaussian above radius 9), in several orders, sizes
# and interop paths. Usage: bash scripts/gpu/stacks.sh path/to/cudalens (on the device, from
# scripts/gpu/run.sh; JSON per case under $OUT/stacks/, one summary line each on stdout).
set -u
bin=$1
mkdir -p "$OUT/stacks"
stacks=(
    "gaussian:sigma=8"
    "gaussian:sigma=8 transpose"
    "transpose gaussian:sigma=8"
    "gaussian:sigma=8 sobel box:radius=5 transpose"
    "gaussian:sigma=2 sobel box:radius=5 transpose"
    "sobel box:radius=5 transpose"
    "unsharp:sigma=2,amount=1 transpose"
)
i=0
for size in 7680x4320 3840x2160; do
    for interop in external classic; do
        for stack in "${stacks[@]}"; do
            args=()
            for f in $stack; do args+=(--filter "$f"); done
            json="$OUT/stacks/$i.json"
            "$bin" bench --backend cuda --interop "$interop" --size "$size" --runs 30 "${args[@]}" \
                --json "$json" >/dev/null 2>"$OUT/stacks/$i.err" || echo "case $i failed: $(cat "$OUT/stacks/$i.err")"
            python3 - "$json" "$size" "$interop" "$stack" <<'PY'
import json, sys
path, size, interop, stack = sys.argv[1:]
try:
    case = next(iter(json.load(open(path))["cases"].values()))
except Exception as e:
    print(f"{size} {interop} [{stack}]: no result ({e})")
    sys.exit(0)
st = case["stages_ms"]
keys = ["interop in", "interop out", "interop out (CPU)", "histogram"]
print(f"{size} {interop:8s} total {case['total_ms']:.3f} " + " ".join(f"{k} {st.get(k, float('nan')):.3f}" for k in keys) + f" [{stack}]")
PY
            i=$((i + 1))
        done
    done
done
