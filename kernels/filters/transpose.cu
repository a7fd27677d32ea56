// transpose.cu: out(x, y) = in(y, x) for RGBA8 images; the output is H x W.
//
// A block of TRANSPOSE_TILE x TRANSPOSE_ROWS threads moves one TRANSPOSE_TILE^2
// tile: each thread reads TRANSPOSE_TILE / TRANSPOSE_ROWS pixels of the tile (row-wise, so
// a warp reads one contiguous row segment), all before the first store into shared memory,
// and after a barrier writes them back column-wise, so a warp also writes one contiguous
// row segment of the output. The tile is padded by one element per row (TRANSPOSE_TILE + 1
// words): reading a column then touches 32 different banks, free of bank conflicts.
// grid = (ceil(W / TILE), ceil(H / TILE)) in input coordinates. Every stored format
// (typed.cuh) moves its texels the same way, as they are: transpose_<format>.

#include "common.cuh"
#include "cudalens_constants.h"
#include "typed.cuh"

template <typename V, int TILE, int ROWS>
__device__ __forceinline__ void transpose_tile(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                               int width, int height)
{
    __shared__ V tile[TILE][TILE + 1];
    const int x = blockIdx.x * TILE + threadIdx.x;
    const int y = blockIdx.y * TILE + threadIdx.y;
    V p[TILE / ROWS];
#pragma unroll
    for (int j = 0; j < TILE / ROWS; ++j)
        p[j] = tex2D<V>(src, (float)x + 0.5f, (float)(y + j * ROWS) + 0.5f);
#pragma unroll
    for (int j = 0; j < TILE / ROWS; ++j) tile[threadIdx.y + j * ROWS][threadIdx.x] = p[j];
    __syncthreads();

    // Output is height x width: output column = input row.
    const int ox = blockIdx.y * TILE + threadIdx.x;
    const int oy = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE / ROWS; ++j)
        if (ox < height && oy + j * ROWS < width)
            write_texel(dst, ox, oy + j * ROWS, tile[threadIdx.x][threadIdx.y + j * ROWS]);
}

extern "C" __global__ void __launch_bounds__(TRANSPOSE_TILE * TRANSPOSE_ROWS)
transpose(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height)
{
    transpose_tile<uchar4, TRANSPOSE_TILE, TRANSPOSE_ROWS>(src, dst, width, height);
}

#define TRANSPOSE_TYPED(suffix, T, C)                                                        \
    extern "C" __global__ void __launch_bounds__(TRANSPOSE_TILE * TRANSPOSE_ROWS)            \
    transpose_##suffix(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height) \
    {                                                                                        \
        transpose_tile<typename Texel<T, C>::type, TRANSPOSE_TILE, TRANSPOSE_ROWS>(src, dst,  \
                                                                           width, height);  \
    }
TYPED_FORMATS(TRANSPOSE_TYPED)
