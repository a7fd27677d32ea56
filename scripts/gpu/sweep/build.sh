#!/usr/bin/env bash
# Builds the kernel-variant sweep (needs nvcc, see scripts/ci/cuda-toolchain.sh) into $1
# (default /tmp/cudalens-sweep): this branch's kernels and those of commit $BASE
# (default: where this branch left main).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/cudalens-sweep}
base=${BASE:-$(git -C "$here" merge-base HEAD main)}
"$here/old_kernels.sh" "$base" "$out"
# The kernels' shared constants: the header build.rs generates (run cargo build first).
root=$(cd "$here/../../.." && pwd)
header=$(ls -t "$root"/target/*/build/cudalens-*/out/cudalens_constants.h 2>/dev/null | head -n 1)
[ -n "$header" ] || { echo "no cudalens_constants.h under target/: run cargo build first" >&2; exit 1; }
cd "$here"
lib=$(dirname "$(dirname "$(command -v nvcc)")")/lib
nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -I"$here" -I"$root/kernels" -I"$(dirname "$header")" \
    -L"$lib" -o "$out/sweep" main.cu new_*.cu "$out"/old_*.cu
echo "built $out/sweep (base $base)"
