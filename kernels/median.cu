// median.cu: per R, G and B channel the median of the (2R+1)^2 window (1 <= R <= 7),
// clamp-to-edge borders, alpha of the centre pixel kept. Exact.
//
// Algorithm: each block loads its MEDIAN_BLOCK^2 outputs' window, a (MEDIAN_BLOCK + 2R)^2
// tile of RGBA8 pixels, into dynamic shared memory through the clamp-addressed texture.
// Each thread then finds its median by a bitwise radix select run on the three channels at
// once with byte-wise SIMD: for bit 7 down to 0 it counts, per byte lane, the window values
// below the candidate (result | bit) with __vcmpltu4; a lane keeps the bit while that count
// is at most the rank (n - 1) / 2. Counts fit a byte lane since n <= 225. That is
// 8 * (2R+1)^2 steps of four integer instructions per pixel, no sorting, no divergence.
//
// Launch: blocks of MEDIAN_BLOCK x MEDIAN_BLOCK threads, one output pixel each; dynamic
// shared memory (MEDIAN_BLOCK + 2R)^2 * 4 bytes.
#include "common.cuh"

#define MEDIAN_BLOCK 16
#define MEDIAN_MAX_RADIUS 7

__device__ __forceinline__ unsigned int pack(uchar4 p)
{
    return (unsigned int)p.x | ((unsigned int)p.y << 8) | ((unsigned int)p.z << 16);
}

extern "C" __global__ void __launch_bounds__(MEDIAN_BLOCK * MEDIAN_BLOCK)
median(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, int radius)
{
    extern __shared__ unsigned int tile[];
    const int side = MEDIAN_BLOCK + 2 * radius;
    const int x0 = blockIdx.x * MEDIAN_BLOCK - radius;
    const int y0 = blockIdx.y * MEDIAN_BLOCK - radius;
    const int tid = threadIdx.y * MEDIAN_BLOCK + threadIdx.x;
    for (int i = tid; i < side * side; i += MEDIAN_BLOCK * MEDIAN_BLOCK) {
        const int ty = i / side;
        tile[i] = pack(pixel_at(src, x0 + i - ty * side, y0 + ty));
    }
    __syncthreads();

    const int x = blockIdx.x * MEDIAN_BLOCK + threadIdx.x;
    const int y = blockIdx.y * MEDIAN_BLOCK + threadIdx.y;
    if (x >= width || y >= height) return;

    const int n = (2 * radius + 1) * (2 * radius + 1);
    const unsigned int rank = 0x00010101u * (unsigned int)((n - 1) / 2);
    unsigned int result = 0u;
    for (int bit = 7; bit >= 0; --bit) {
        const unsigned int candidate = result | (0x00010101u << bit);
        unsigned int below = 0u;
        for (int dy = 0; dy <= 2 * radius; ++dy) {
            const unsigned int* row = &tile[(threadIdx.y + dy) * side + threadIdx.x];
            for (int dx = 0; dx <= 2 * radius; ++dx)
                below = __vadd4(below, __vcmpltu4(row[dx], candidate) & 0x00010101u);
        }
        // Lanes whose count is at most the rank keep the bit.
        const unsigned int keep = __vcmpleu4(below, rank);
        result = (candidate & keep) | (result & ~keep);
    }
    const uchar4 centre = pixel_at(src, x, y);
    store_pixel(dst, x, y,
                make_uchar4(result & 0xFFu, (result >> 8) & 0xFFu, (result >> 16) & 0xFFu,
                            centre.w));
}
