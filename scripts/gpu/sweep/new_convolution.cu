#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#include "../../../kernels/filters/convolution_mma.cu"

// Variant parameter: 1000 * (row pass tile height) + column pass tile height.
typedef void (*RowsKernel)(cudaTextureObject_t, uint4*, int, int, int, int);
typedef void (*ColumnsKernel)(const uint4*, cudaSurfaceObject_t, int, int, int, int);

static void kernels_for(int steps, RowsKernel* rows, ColumnsKernel* columns)
{
#define CASE(J)                      \
    case J:                          \
        *rows = conv_rows_mma_##J;       \
        *columns = conv_columns_mma_##J; \
        break;
    switch (steps) {
        CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8) CASE(9) CASE(10) CASE(11) CASE(12)
        CASE(13)
    default: fprintf(stderr, "no mma kernels for %d steps\n", steps); exit(3);
    }
#undef CASE
}

static void launch_mma(const Args& a, int param)
{
    CHECK(cudaMemcpyToSymbolAsync(c_weights, a.weights, sizeof(float) * (2 * a.radius + 1), 0,
                                  cudaMemcpyHostToDevice, a.stream));
    const int steps = (2 * a.radius + 15) / 16 + 1;
    const int rows_th = param / 1000, cols_th = param % 1000;
    RowsKernel rows;
    ColumnsKernel columns;
    kernels_for(steps, &rows, &columns);
    const size_t rows_shared = 3 * 2 * (size_t)rows_th * (CONV_MMA_ROWS_TW + 16 * (steps - 1) + 8);
    const size_t cols_shared = 6 * 2 * (size_t)(cols_th + 16 * (steps - 1)) * (CONV_MMA_COLS_TW + 8);
    CHECK(cudaFuncSetAttribute(rows, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    CHECK(cudaFuncSetAttribute(columns, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    dim3 g1((a.w + CONV_MMA_ROWS_TW - 1) / CONV_MMA_ROWS_TW, (a.h + rows_th - 1) / rows_th);
    rows<<<g1, CONV_MMA_BLOCK, rows_shared, a.stream>>>(a.src, (uint4*)a.scratch, a.w, a.h, a.radius, rows_th);
    dim3 g2((a.w + CONV_MMA_COLS_TW - 1) / CONV_MMA_COLS_TW, (a.h + cols_th - 1) / cols_th);
    columns<<<g2, CONV_MMA_BLOCK, cols_shared, a.stream>>>((const uint4*)a.scratch, a.dst, a.w, a.h, a.radius, cols_th);
}

std::vector<Variant> gaussian_variants(int)
{
    std::vector<Variant> out;
    for (int rows_th : {32, 64})
        for (int cols_th : {64, 128, 256}) {
            char name[64];
            snprintf(name, sizeof name, "gauss mma rows th%d cols th%d", rows_th, cols_th);
            out.push_back({name, launch_mma, 1000 * rows_th + cols_th});
        }
    return out;
}
