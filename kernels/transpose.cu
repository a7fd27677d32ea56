// transpose.cu: out(x, y) = in(y, x) for RGBA8 images; the output is H x W.
//
// A block of TRANSPOSE_TILE x TRANSPOSE_ROWS threads moves one TRANSPOSE_TILE^2 tile:
// each thread reads TRANSPOSE_TILE / TRANSPOSE_ROWS pixels of the tile (row-wise, so a
// warp reads one contiguous row segment), stores them in shared memory, and after a
// barrier writes them back column-wise, so a warp also writes one contiguous row segment of
// the output. The tile is padded by one element per row (TRANSPOSE_TILE + 1 words): reading
// a column then touches 32 different banks, free of bank conflicts.
// grid = (ceil(W / TILE), ceil(H / TILE)) in input coordinates.
#include "common.cuh"

#define TRANSPOSE_TILE 32
#define TRANSPOSE_ROWS 8

extern "C" __global__ void __launch_bounds__(TRANSPOSE_TILE * TRANSPOSE_ROWS)
transpose(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height)
{
    __shared__ uchar4 tile[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];
    int x = blockIdx.x * TRANSPOSE_TILE + threadIdx.x;
    int y = blockIdx.y * TRANSPOSE_TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TRANSPOSE_TILE; j += TRANSPOSE_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = pixel_at(src, x, y + j);
    __syncthreads();

    // Output is height x width: output column = input row.
    x = blockIdx.y * TRANSPOSE_TILE + threadIdx.x;
    y = blockIdx.x * TRANSPOSE_TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TRANSPOSE_TILE; j += TRANSPOSE_ROWS)
        if (x < height && y + j < width) store_pixel(dst, x, y + j, tile[threadIdx.x][threadIdx.y + j]);
}
