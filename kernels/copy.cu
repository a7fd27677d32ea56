// copy.cu: the frame's copy when no filter runs, array to array of the same format (a
// kernel, because cuMemcpy2D between two arrays runs at a fifth of the copy bandwidth).
// One kernel per stored format: samples of type T (8-bit, 16-bit, float) with C channels
// (1 or 4; 3-channel images are stored as 4 with opaque alpha), read as elements (no
// normalisation) through the texture path and written unchanged through the surface.
//
// A block of COPY_BLOCK_X x COPY_BLOCK_Y threads copies COPY_BLOCK_X x
// (COPY_BLOCK_Y * COPY_ROWS) pixels: each thread reads its COPY_ROWS pixels, COPY_BLOCK_Y
// rows apart, through the texture path before it writes any through the surface, so
// several reads are in flight. grid = (ceil(W / BLOCK_X), ceil(H / (BLOCK_Y * ROWS))).
#include "common.cuh"

#include "cudalens_constants.h"
#include "typed.cuh"

template <typename T, int C, int BX, int BY, int ROWS>
__device__ __forceinline__ void copy_rows(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                          int width, int height)
{
    typedef typename Texel<T, C>::type V;
    const int x = blockIdx.x * BX + threadIdx.x;
    const int y0 = blockIdx.y * BY * ROWS + threadIdx.y;
    if (x >= width) return;
    V p[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
        p[r] = tex2D<V>(src, (float)x + 0.5f, (float)(y0 + r * BY) + 0.5f);
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
        if (y0 + r * BY < height) surf2Dwrite(p[r], dst, x * (int)sizeof(V), y0 + r * BY);
}

template <typename T, int C>
__device__ __forceinline__ void copy_typed(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                           int width, int height)
{
    copy_rows<T, C, COPY_BLOCK_X, COPY_BLOCK_Y, COPY_ROWS>(src, dst, width, height);
}

// The kernels by name, as `filters/frame_copy.rs` looks them up: copy_image is RGBA8.
#define COPY_KERNEL(name, T, C)                                                              \
    extern "C" __global__ void __launch_bounds__(COPY_BLOCK_X * COPY_BLOCK_Y)                \
    name(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height)           \
    {                                                                                        \
        copy_typed<T, C>(src, dst, width, height);                                           \
    }

COPY_KERNEL(copy_image, unsigned char, 4)
COPY_KERNEL(copy_u8x1, unsigned char, 1)
COPY_KERNEL(copy_u16x1, unsigned short, 1)
COPY_KERNEL(copy_u16x4, unsigned short, 4)
COPY_KERNEL(copy_f32x1, float, 1)
COPY_KERNEL(copy_f32x4, float, 4)
