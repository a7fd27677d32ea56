#!/usr/bin/env bash
# Writes the translation units that wrap the base commit's kernels ($1: commit, $2: out dir),
# each launched as the app launches it. The wrappers follow the kernels' launch interface
# since 7e06bac (box_T strips, sobel warp strips, conv_fused / conv_rows / conv_columns,
# grid-stride histogram): a base older than that needs the wrappers of its own time
# (git log of this file).
set -euo pipefail
base=$1 out=$2
mkdir -p "$out/old"
for f in common.cuh sobel.cu box_filter.cu convolution.cu histogram.cu transpose.cu; do
    git show "$base:kernels/filters/$f" >"$out/old/$f" 2>/dev/null || git show "$base:kernels/$f" >"$out/old/$f"
done
cat >"$out/old_sobel.cu" <<'CU'
#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#define sobel sobel_base
#include "old/sobel.cu"
void old_sobel(const Args& a, int)
{
    dim3 grid((a.w + 32 * SOBEL_WARPS - 1) / (32 * SOBEL_WARPS), (a.h + SOBEL_SEGMENT - 1) / SOBEL_SEGMENT);
    sobel_base<<<grid, dim3(32, SOBEL_WARPS), 0, a.stream>>>(a.src, a.dst, a.w, a.h, a.scale);
}
CU
cat >"$out/old_box.cu" <<'CU'
#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#define box_128 box_128_base
#define box_256 box_256_base
#define box_512 box_512_base
// The warp kernels for radii up to BOX_SMALL_MAX_RADIUS (since ab218fd: a base older than
// that needs this file of its own time).
#define box_small_1 box_small_1_base
#define box_small_2 box_small_2_base
#define box_small_3 box_small_3_base
#define box_small_4 box_small_4_base
#define box_small_5 box_small_5_base
#define box_small_6 box_small_6_base
#define box_small_7 box_small_7_base
#include "old/box_filter.cu"
// BOX_TUNINGS of src/filters/box_filter.rs at 7e06bac: (radius, threads, segment 4K, 8K),
// the strips' launch above radius 7.
static const int tunings[6][4] = {{1, 128, 16, 16},    {5, 128, 16, 16},    {16, 128, 16, 16},
                                  {64, 128, 64, 256}, {128, 128, 128, 256}, {255, 256, 128, 256}};
static void old_box_small(const Args& a)
{
    const int r = a.radius, out = (32 - 2 * r) * BOX_SMALL_WARPS;
#ifdef BOX_TINY_MAX_RADIUS
    const int segment = r <= BOX_TINY_MAX_RADIUS ? BOX_TINY_SEGMENT : BOX_SMALL_SEGMENT;
#else
    const int segment = BOX_SMALL_SEGMENT;
#endif
    dim3 grid((a.w + out - 1) / out, (a.h + segment - 1) / segment), block(32, BOX_SMALL_WARPS);
    switch (r) {
    case 1: box_small_1_base<<<grid, block, 0, a.stream>>>(a.src, a.dst, a.w, a.h); break;
    case 2: box_small_2_base<<<grid, block, 0, a.stream>>>(a.src, a.dst, a.w, a.h); break;
    case 3: box_small_3_base<<<grid, block, 0, a.stream>>>(a.src, a.dst, a.w, a.h); break;
    case 4: box_small_4_base<<<grid, block, 0, a.stream>>>(a.src, a.dst, a.w, a.h); break;
    case 5: box_small_5_base<<<grid, block, 0, a.stream>>>(a.src, a.dst, a.w, a.h); break;
    case 6: box_small_6_base<<<grid, block, 0, a.stream>>>(a.src, a.dst, a.w, a.h); break;
    default: box_small_7_base<<<grid, block, 0, a.stream>>>(a.src, a.dst, a.w, a.h); break;
    }
}
// The app's launch at the base: the warp kernel up to radius 7, strips above.
void old_box(const Args& a, int)
{
    const int r = a.radius;
    if (r <= BOX_SMALL_MAX_RADIUS) return old_box_small(a);
    int i = 0;
    while (i < 5 && r > tunings[i][0]) ++i;
    const bool large = (long long)a.w * a.h > 3840LL * 2160 * 2;
    int segment = large ? tunings[i][3] : tunings[i][2];
    if (segment > a.h) segment = a.h;
    int t = tunings[i][1];
    while (t < 512 && t * BOX_COLUMNS_PER_THREAD - 2 * r < 32) t *= 2;
    const int strip = t * BOX_COLUMNS_PER_THREAD - 2 * r;
    dim3 grid((a.h + segment - 1) / segment, (a.w + strip - 1) / strip);
    size_t shared = 4 * 3 * (t * BOX_COLUMNS_PER_THREAD + t / 32);
    if (t == 128) box_128_base<<<grid, t, shared, a.stream>>>(a.src, a.dst, a.w, a.h, r, strip, segment);
    if (t == 256) box_256_base<<<grid, t, shared, a.stream>>>(a.src, a.dst, a.w, a.h, r, strip, segment);
    if (t == 512) box_512_base<<<grid, t, shared, a.stream>>>(a.src, a.dst, a.w, a.h, r, strip, segment);
}
CU
if grep -q conv_columns "$out/old/convolution.cu"; then
cat >"$out/old_convolution.cu" <<'CU'
#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#define conv_fused conv_fused_base
#define conv_rows conv_rows_base
#define conv_columns conv_columns_base
#define c_weights c_weights_base
#include "old/convolution.cu"
// The app's launch at 7e06bac: fused tiles of 32 rows up to CONV_FUSED_MAX_RADIUS, above it
// rows then columns in tiles of 64 rows.
void old_gaussian(const Args& a, int)
{
    const int r = a.radius;
    CHECK(cudaMemcpyToSymbolAsync(c_weights_base, a.weights, sizeof(float) * (2 * r + 1), 0,
                                  cudaMemcpyHostToDevice, a.stream));
    if (r <= CONV_FUSED_MAX_RADIUS) {
        const int th = 32, rows = th + 2 * r, in_stride = (CONV_TILE_W + 2 * r) | 1;
        size_t shared = 4 * (size_t)(rows * in_stride + 3 * rows * (CONV_TILE_W + 1));
        CHECK(cudaFuncSetAttribute(conv_fused_base, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
        dim3 grid((a.w + CONV_TILE_W - 1) / CONV_TILE_W, (a.h + th - 1) / th);
        conv_fused_base<<<grid, CONV_BLOCK, shared, a.stream>>>(a.src, a.dst, a.w, a.h, r, th);
        return;
    }
    CHECK(cudaFuncSetAttribute(conv_columns_base, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    size_t rows_in = 32 * ((CONV_TILE_W + 2 * r) | 1), rows_out = 3 * 32 * CONV_ROWS_OUT_STRIDE;
    size_t rows_shared = 4 * (rows_in > rows_out ? rows_in : rows_out);
    dim3 g1((a.w + CONV_TILE_W - 1) / CONV_TILE_W, (a.h + 31) / 32);
    conv_rows_base<<<g1, CONV_BLOCK, rows_shared, a.stream>>>(a.src, (float4*)a.scratch, a.w, a.h, r);
    const int th = 64;
    size_t cols_shared = 4 * 3 * (size_t)(th + 2 * r) * 33;
    dim3 g2((a.w + 31) / 32, (a.h + th - 1) / th);
    conv_columns_base<<<g2, CONV_BLOCK, cols_shared, a.stream>>>((const float4*)a.scratch, a.src, a.dst, a.w, a.h, r, th);
}
CU
else
# Since the Gaussian moved to the tensor cores above radius 9 (session 8) the base's
# convolution.cu has the fused pass only: the wrapper times that, and refuses larger radii
# (the tensor-core passes of such a base are not wrapped here).
cat >"$out/old_convolution.cu" <<'CU'
#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#define conv_fused conv_fused_base
#define conv_rows conv_rows_base
#define c_weights c_weights_base
#include "old/convolution.cu"
void old_gaussian(const Args& a, int)
{
    const int r = a.radius;
    if (r > CONV_FUSED_MAX_RADIUS) {
        fprintf(stderr, "the base's Gaussian of radius %d (tensor cores) is not wrapped\n", r);
        exit(2);
    }
    CHECK(cudaMemcpyToSymbolAsync(c_weights_base, a.weights, sizeof(float) * (2 * r + 1), 0,
                                  cudaMemcpyHostToDevice, a.stream));
    const int th = 32, rows = th + 2 * r, in_stride = (CONV_TILE_W + 2 * r) | 1;
    size_t shared = 4 * (size_t)(rows * in_stride + 3 * rows * (CONV_TILE_W + 1));
    CHECK(cudaFuncSetAttribute(conv_fused_base, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    dim3 grid((a.w + CONV_TILE_W - 1) / CONV_TILE_W, (a.h + th - 1) / th);
    conv_fused_base<<<grid, CONV_BLOCK, shared, a.stream>>>(a.src, a.dst, a.w, a.h, r, th);
}
CU
fi
cat >"$out/old_histogram.cu" <<'CU'
#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#define histogram histogram_base
#include "old/histogram.cu"
void old_histogram(const Args& a, int)
{
    long long items = (long long)((a.w + 31) / 32) * ((a.h + HIST_ROWS - 1) / HIST_ROWS);
    long long grid = (items + HIST_WARPS - 1) / HIST_WARPS;
    if (grid > a.sm_count * 4LL) grid = a.sm_count * 4LL;
    histogram_base<<<(int)grid, HIST_BLOCK, 0, a.stream>>>(a.src, a.w, a.h, a.bins);
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
    dim3 grid((a.w + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE, (a.h + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE);
    transpose_base<<<grid, dim3(TRANSPOSE_TILE, TRANSPOSE_ROWS), 0, a.stream>>>(a.src, a.dst, a.w, a.h);
}
CU
