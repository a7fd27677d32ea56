#!/usr/bin/env bash
# The merged product on the lent GPU machine, in two calls that each fit one command's limit.
# Staged here by scripts/gpu/prepare.sh (.carry/: the release binary and the gpu, cli and
# soak test binaries); run there from the repository root with carry [".carry", ".gl"]:
#   bash scripts/gpu/integration.sh a   # GPU tests on both interop paths, apply vs CPU,
#                                       # median/equalize vs OpenCV, memcheck, bench (both paths)
#   bash scripts/gpu/integration.sh b   # GPU faults, the 10 000-frame soak, racecheck
# Only summaries and logs go to $OUT (at most 8 files come back).
set -u
OUT=${OUT:-/tmp/cudalens-out}
R=/tmp/integration
mkdir -p "$OUT" "$R"
case ${1:-a} in
    a)
        OUT=$R/run bash scripts/gpu/run.sh smi doctor tests apply opencv memcheck bench
        .carry/cudalens bench --backend cuda --interop classic --runs 30 >"$R/bench-classic.txt" 2>&1
        cp "$R/run/run.log" "$OUT/run.log"
        cp "$R/run/summary.txt" "$OUT/run-summary.txt"
        cp "$R/run/bench.json" "$OUT/bench.json"
        cp "$R/bench-classic.txt" "$OUT/bench-classic.txt"
        cat "$R/run/summary.txt"
        ;;
    b)
        mkdir -p .carry-hostile
        cp .carry/cudalens .carry/gpu-tests .carry/soak-tests .carry-hostile/
        OUT=$R/hostile bash scripts/gpu/hostile.sh faults soak
        OUT=$R/run bash scripts/gpu/run.sh racecheck
        cp "$R/hostile/hostile.log" "$OUT/hostile.log"
        cp "$R/hostile/summary.txt" "$OUT/hostile-summary.txt"
        cp "$R/run/run.log" "$OUT/racecheck.log"
        cat "$R/hostile/summary.txt" "$R/run/summary.txt"
        ;;
esac
