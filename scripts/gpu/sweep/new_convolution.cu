#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#include "../../../kernels/convolution.cu"

static void upload(const Args& a)
{
    CHECK(cudaMemcpyToSymbolAsync(c_weights, a.weights, sizeof(float) * (2 * a.radius + 1), 0,
                                  cudaMemcpyHostToDevice, a.stream));
}
static size_t fused_shared(int r, int th)
{
    int rows = th + 2 * r;
    int in_stride = (CONV_TILE_W + 2 * r) | 1;
    return 4 * (size_t)(rows * in_stride + 3 * rows * (CONV_TILE_W + 1));
}
static void launch_fused(const Args& a, int th)
{
    upload(a);
    size_t shared = fused_shared(a.radius, th);
    CHECK(cudaFuncSetAttribute(conv_fused, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    dim3 grid((a.w + CONV_TILE_W - 1) / CONV_TILE_W, (a.h + th - 1) / th);
    conv_fused<<<grid, CONV_BLOCK, shared, a.stream>>>(a.src, a.dst, a.w, a.h, a.radius, th);
}
static void launch_two_pass(const Args& a, int th)
{
    upload(a);
    CHECK(cudaFuncSetAttribute(conv_columns, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    size_t rows_in = 32 * ((CONV_TILE_W + 2 * a.radius) | 1), rows_out = 3 * 32 * CONV_ROWS_OUT_STRIDE;
    size_t rows_shared = 4 * (rows_in > rows_out ? rows_in : rows_out);
    dim3 g1((a.w + CONV_TILE_W - 1) / CONV_TILE_W, (a.h + 31) / 32);
    conv_rows<<<g1, CONV_BLOCK, rows_shared, a.stream>>>(a.src, (float4*)a.scratch, a.w, a.h, a.radius);
    size_t cols_shared = 4 * 3 * (size_t)(th + 2 * a.radius) * 33;
    dim3 g2((a.w + 31) / 32, (a.h + th - 1) / th);
    conv_columns<<<g2, CONV_BLOCK, cols_shared, a.stream>>>((const float4*)a.scratch, a.src, a.dst, a.w, a.h, a.radius, th);
}
std::vector<Variant> gaussian_variants(int radius)
{
    std::vector<Variant> out;
    if (radius <= CONV_FUSED_MAX_RADIUS) {
        out.push_back({"gauss fused th32", launch_fused, 32});
        out.push_back({"gauss fused th64", launch_fused, 64});
        if (fused_shared(radius, 128) <= 227 * 1024) out.push_back({"gauss fused th128", launch_fused, 128});
    }
    for (int th : {32, 64, 128, 256})
        if (4 * 3 * (size_t)(th + 2 * radius) * 33 <= 227 * 1024) {
            char name[64];
            snprintf(name, sizeof name, "gauss 2-pass th%d", th);
            out.push_back({name, launch_two_pass, th});
        }
    return out;
}
