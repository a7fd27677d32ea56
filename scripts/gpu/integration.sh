#!/usr/bin/env bash
# The merged product on the lent GPU machine, in calls that each fit one command's limit.
# Staged here by scripts/gpu/prepare.sh (.carry/bundle.tar.xz: the release binary, the gpu,
# cli and soak test binaries, and with BEFORE= an older build); run there from the
# repository root with carry [".carry", ".gl"]:
#   bash scripts/gpu/integration.sh a   # GPU tests on both interop paths vs the CPU, apply
#                                       # vs CPU, median/equalize vs OpenCV, bench before and
#                                       # after with NPP's peers at 4K and 8K, memcheck
#   bash scripts/gpu/integration.sh b   # GPU faults, the 10 000-frame soak, racecheck
# Each part stops its steps at DEADLINE (default: 560 s from its start). Only summaries,
# logs and JSON go to $OUT (at most 8 files come back).
set -u
OUT=${OUT:-/tmp/cudalens-out}
export DEADLINE=${DEADLINE:-$(($(date +%s) + 560))}
mkdir -p "$OUT"
case ${1:-a} in
    a)
        bash scripts/gpu/run.sh smi doctor tests apply opencv before4k peers4k before8k peers8k memcheck
        ;;
    b)
        bash scripts/gpu/run.sh smi >/dev/null
        mkdir -p .carry-hostile
        cp .carry/cudalens .carry/gpu-tests .carry/soak-tests .carry-hostile/
        OUT=/tmp/hostile bash scripts/gpu/hostile.sh faults soak
        bash scripts/gpu/run.sh racecheck bench
        cp /tmp/hostile/hostile.log "$OUT/hostile.log"
        cp /tmp/hostile/summary.txt "$OUT/hostile-summary.txt"
        cat /tmp/hostile/summary.txt "$OUT/summary.txt"
        ;;
esac
