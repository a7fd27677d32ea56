// copy.cu: the frame's copy when no filter runs, RGBA8 array to RGBA8 array (a kernel,
// because cuMemcpy2D between two arrays runs at a fifth of the copy bandwidth).
//
// A block of COPY_BLOCK_X x COPY_BLOCK_Y threads copies COPY_BLOCK_X x
// (COPY_BLOCK_Y * COPY_ROWS) pixels: each thread reads its COPY_ROWS pixels, COPY_BLOCK_Y
// rows apart, through the texture path before it writes any through the surface, so
// several reads are in flight. grid = (ceil(W / BLOCK_X), ceil(H / (BLOCK_Y * ROWS))).
#include "common.cuh"

#include "cudalens_constants.h"

template <int BX, int BY, int ROWS>
__device__ __forceinline__ void copy_rows(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                          int width, int height)
{
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y0 = blockIdx.y * BY * ROWS + threadIdx.y;
    if (x >= width) return;
    uchar4 p[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) p[r] = pixel_at(src, x, y0 + r * BY);
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
        if (y0 + r * BY < height) store_pixel(dst, x, y0 + r * BY, p[r]);
}

extern "C" __global__ void __launch_bounds__(COPY_BLOCK_X * COPY_BLOCK_Y)
copy_image(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height)
{
    copy_rows<COPY_BLOCK_X, COPY_BLOCK_Y, COPY_ROWS>(src, dst, width, height);
}
