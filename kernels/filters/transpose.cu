// transpose.cu: out(x, y) = in(y, x) for RGBA8 images; the output is H x W.
//
// A block of TRANSPOSE_TILE x TRANSPOSE_ROWS threads moves one TRANSPOSE_TILE^2
// tile: each thread reads TRANSPOSE_TILE / TRANSPOSE_ROWS pixels of the tile (row-wise, so
// a warp reads one contiguous row segment), all before the first store into shared memory,
// and after a barrier writes them back column-wise, so a warp also writes one contiguous
// row segment of the output. The tile is padded by one element per row (TRANSPOSE_TILE + 1
// words): reading a column then touches 32 different banks, free of bank conflicts.
// grid = (ceil(W / TILE), ceil(H / TILE)) in input coordinates.

#include "common.cuh"
#include "cudalens_constants.h"

template <int TILE, int ROWS>
__device__ __forceinline__ void transpose_tile(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                               int width, int height)
{
    __shared__ uchar4 tile[TILE][TILE + 1];
    const int x = blockIdx.x * TILE + threadIdx.x;
    const int y = blockIdx.y * TILE + threadIdx.y;
    uchar4 p[TILE / ROWS];
#pragma unroll
    for (int j = 0; j < TILE / ROWS; ++j) p[j] = pixel_at(src, x, y + j * ROWS);
#pragma unroll
    for (int j = 0; j < TILE / ROWS; ++j) tile[threadIdx.y + j * ROWS][threadIdx.x] = p[j];
    __syncthreads();

    // Output is height x width: output column = input row.
    const int ox = blockIdx.y * TILE + threadIdx.x;
    const int oy = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE / ROWS; ++j)
        if (ox < height && oy + j * ROWS < width)
            store_pixel(dst, ox, oy + j * ROWS, tile[threadIdx.x][threadIdx.y + j * ROWS]);
}

extern "C" __global__ void __launch_bounds__(TRANSPOSE_TILE * TRANSPOSE_ROWS)
transpose(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height)
{
    transpose_tile<TRANSPOSE_TILE, TRANSPOSE_ROWS>(src, dst, width, height);
}
