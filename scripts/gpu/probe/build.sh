#!/usr/bin/env bash
# Builds scripts/gpu/probe/cdp_idle.cu twice into $1 (default .carry/probe): cdp_idle (plain)
# and cdp_idle_rdc (relocatable device code linked with libcudadevrt, as kernels/mandelbrot.cu);
# and map_trace.so (scripts/gpu/probe/map_trace.c, an LD_PRELOAD shim for the soak).
# Needs nvcc (source scripts/ci/cuda-toolchain.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-.carry/probe}
mkdir -p "$out"
lib=$(dirname "$(dirname "$(command -v nvcc)")")/lib
nvcc -O3 -arch=sm_90 -L"$lib" -o "$out/cdp_idle" "$here/cdp_idle.cu"
nvcc -O3 -arch=sm_90 -rdc=true -DWITH_CDP -L"$lib" -o "$out/cdp_idle_rdc" "$here/cdp_idle.cu" -lcudadevrt
gcc -O2 -Wall -shared -fPIC -o "$out/map_trace.so" "$here/map_trace.c" -ldl
echo "built $out/cdp_idle, $out/cdp_idle_rdc and $out/map_trace.so"
