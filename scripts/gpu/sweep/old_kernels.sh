#!/usr/bin/env bash
# Writes the translation units that wrap the base commit's kernels ($1: commit, $2: out dir).
set -euo pipefail
base=$1 out=$2
mkdir -p "$out/old"
for f in common.cuh sobel.cu box_filter.cu convolution.cu histogram.cu transpose.cu; do
    git show "$base:kernels/$f" >"$out/old/$f"
done
cat >"$out/old_sobel.cu" <<'CU'
#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#define sobel sobel_base
#include "old/sobel.cu"
void old_sobel(const Args& a, int)
{
    dim3 grid((a.w + 31) / 32, (a.h + 31) / 32);
    sobel_base<<<grid, dim3(32, 8), 0, a.stream>>>(a.src, a.dst, a.w, a.h, a.scale);
}
CU
cat >"$out/old_box.cu" <<'CU'
#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#define box_rows box_rows_base
#define box_columns box_columns_base
#include "old/box_filter.cu"
void old_box(const Args& a, int)
{
    const int r = a.radius;
    int seg = 4 * (2 * r + 1); if (seg < BOX_MIN_SEGMENT) seg = BOX_MIN_SEGMENT;
    int rseg = 4 * (2 * r + 1); if (rseg < BOX_ROW_MIN_SEGMENT) rseg = BOX_ROW_MIN_SEGMENT;
    rseg = (rseg + 31) / 32 * 32;
    dim3 g1((a.w + rseg - 1) / rseg, a.h);
    box_rows_base<<<g1, 32, 3 * 4 * (rseg + 2 * r + 1), a.stream>>>(a.src, (uint4*)a.scratch, a.w, a.h, r, rseg);
    long long threads = (long long)a.w * ((a.h + seg - 1) / seg);
    box_columns_base<<<(int)((threads + BOX_BLOCK - 1) / BOX_BLOCK), BOX_BLOCK, 0, a.stream>>>(
        (const uint4*)a.scratch, a.src, a.dst, a.w, a.h, r, seg);
}
CU
cat >"$out/old_convolution.cu" <<'CU'
#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#define conv_rows conv_rows_base
#define conv_columns conv_columns_base
#define c_weights c_weights_base
#include "old/convolution.cu"
void old_gaussian(const Args& a, int)
{
    const int r = a.radius;
    CHECK(cudaMemcpyToSymbolAsync(c_weights_base, a.weights, sizeof(float) * (2 * r + 1), 0,
                                  cudaMemcpyHostToDevice, a.stream));
    CHECK(cudaFuncSetAttribute(conv_columns_base, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    dim3 g1((a.w + 255) / 256, (a.h + 3) / 4);
    conv_rows_base<<<g1, dim3(64, 4), 4 * (256 + 2 * r) * 16, a.stream>>>(a.src, (float4*)a.scratch, a.w, a.h, r);
    dim3 g2((a.w + 31) / 32, (a.h + 31) / 32);
    conv_columns_base<<<g2, dim3(32, 8), (32 + 2 * r) * 32 * 16, a.stream>>>((const float4*)a.scratch, a.src, a.dst, a.w, a.h, r);
}
CU
cat >"$out/old_histogram.cu" <<'CU'
#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#define histogram histogram_base
#include "old/histogram.cu"
void old_histogram(const Args& a, int)
{
    long long px = (long long)a.w * a.h;
    long long grid = (px + 255) / 256;
    if (grid > a.sm_count * 4) grid = a.sm_count * 4;
    histogram_base<<<(int)grid, 256, 0, a.stream>>>(a.src, a.w, a.h, a.bins);
}
CU
cat >"$out/old_transpose.cu" <<'CU'
#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#define transpose transpose_base
#include "old/transpose.cu"
void old_transpose(const Args& a, int)
{
    dim3 grid((a.w + 31) / 32, (a.h + 31) / 32);
    transpose_base<<<grid, dim3(32, 8), 0, a.stream>>>(a.src, a.dst, a.w, a.h);
}
CU
