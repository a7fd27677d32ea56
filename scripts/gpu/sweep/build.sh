#!/usr/bin/env bash
# Builds the kernel-variant sweep (needs nvcc, see scripts/ci/cuda-toolchain.sh) into $1
# (default /tmp/cudalens-sweep): this branch's kernels and those of commit $BASE
# (default: where this branch left main).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/cudalens-sweep}
base=${BASE:-$(git -C "$here" merge-base HEAD main)}
"$here/old_kernels.sh" "$base" "$out"
cd "$here"
lib=$(dirname "$(dirname "$(command -v nvcc)")")/lib
nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -I"$here" -L"$lib" -o "$out/sweep" \
    main.cu new_*.cu "$out"/old_*.cu
echo "built $out/sweep (base $base)"
