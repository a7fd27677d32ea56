// histogram.cu: 256-bin R, G, B and luma histograms in one pass over the image.
//
// Each warp owns a private 4 x 256 sub-histogram in shared memory (HIST_WARPS of them per
// block, 32 KB), so shared atomics contend only within a warp. The image is cut into
// items of 32 columns x HIST_ROWS rows; warps take items in a grid-stride loop (adjacent
// warps take horizontally adjacent items), and a lane reads its HIST_ROWS pixels of the
// item through the texture path, all before it counts any, so several reads are in flight.
// At the end the block sums its warps' sub-histograms and merges them into the global bins
// with one atomicAdd per non-zero bin. Bins are laid out channel-major: [R 0..255,
// G 0..255, B 0..255, luma 0..255], the layout of the GL buffer the histogram shader draws
// from. The caller zeroes the bins.
//
// Launch: HIST_BLOCK = 32 * HIST_WARPS threads per block; the host launches a few blocks
// per SM (grid-stride), not one thread per pixel.
#include "common.cuh"

#include "cudalens_constants.h"

#define HIST_BLOCK (32 * HIST_WARPS)

__device__ __forceinline__ void count_pixel(unsigned int* hist, uint4 p)
{
    atomicAdd(&hist[p.x], 1u);
    atomicAdd(&hist[HIST_BINS + p.y], 1u);
    atomicAdd(&hist[2 * HIST_BINS + p.z], 1u);
    atomicAdd(&hist[3 * HIST_BINS + luma_bin(p)], 1u);
}

template <int WARPS, int ROWS>
__device__ __forceinline__ void histogram_items(cudaTextureObject_t src, int width, int height,
                                                unsigned int* bins)
{
    __shared__ unsigned int sub[WARPS][4 * HIST_BINS];
    unsigned int* flat = &sub[0][0];
    for (int i = threadIdx.x; i < WARPS * 4 * HIST_BINS; i += 32 * WARPS) flat[i] = 0u;
    __syncthreads();

    unsigned int* mine = sub[threadIdx.x / 32];
    const int lane = threadIdx.x & 31;
    const int columns = div_up(width, 32);
    // At most 2048 x 8192 items for a 65536^2 image: int arithmetic is enough.
    const int items = columns * div_up(height, ROWS);
    const int warps = gridDim.x * WARPS;
    for (int item = blockIdx.x * WARPS + threadIdx.x / 32; item < items; item += warps) {
        const int row = item / columns;
        const int x = (item - row * columns) * 32 + lane;
        const int y0 = row * ROWS;
        uint4 p[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) p[r] = texel_at(src, x, y0 + r);
        if (x < width) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
                if (y0 + r < height) count_pixel(mine, p[r]);
        }
    }
    __syncthreads();

    for (int b = threadIdx.x; b < 4 * HIST_BINS; b += 32 * WARPS) {
        unsigned int total = 0u;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) total += sub[w][b];
        if (total) atomicAdd(&bins[b], total);
    }
}

extern "C" __global__ void __launch_bounds__(HIST_BLOCK)
histogram(cudaTextureObject_t src, int width, int height, unsigned int* bins)
{
    histogram_items<HIST_WARPS, HIST_ROWS>(src, width, height, bins);
}

// The histogram of what is shown where the filters' result shows inside a selection only:
// the caller counted the source with `histogram`; for each pixel of the selection
// (x0, y0, w × h) this takes the source's bins away and adds the result's. One thread a
// pixel in a grid-stride loop; a block keeps signed sub-histograms in shared memory and
// adds each non-zero total to the global bins (unsigned wrap-around adds the negatives).
//
// Launch: HIST_BLOCK threads per block, a few blocks per SM (grid-stride).
extern "C" __global__ void __launch_bounds__(HIST_BLOCK)
histogram_swap_rect(cudaTextureObject_t src, cudaTextureObject_t out, int x0, int y0, int w,
                    int h, unsigned int* bins)
{
    __shared__ int sub[4 * HIST_BINS];
    for (int i = threadIdx.x; i < 4 * HIST_BINS; i += HIST_BLOCK) sub[i] = 0;
    __syncthreads();
    const long long n = (long long)w * h;
    for (long long i = blockIdx.x * (long long)HIST_BLOCK + threadIdx.x; i < n;
         i += (long long)gridDim.x * HIST_BLOCK) {
        const int x = x0 + (int)(i % w);
        const int y = y0 + (int)(i / w);
        const uint4 s = texel_at(src, x, y);
        const uint4 o = texel_at(out, x, y);
        atomicSub(&sub[s.x], 1);
        atomicSub(&sub[HIST_BINS + s.y], 1);
        atomicSub(&sub[2 * HIST_BINS + s.z], 1);
        atomicSub(&sub[3 * HIST_BINS + luma_bin(s)], 1);
        atomicAdd(&sub[o.x], 1);
        atomicAdd(&sub[HIST_BINS + o.y], 1);
        atomicAdd(&sub[2 * HIST_BINS + o.z], 1);
        atomicAdd(&sub[3 * HIST_BINS + luma_bin(o)], 1);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 4 * HIST_BINS; b += HIST_BLOCK) {
        if (sub[b] != 0) atomicAdd(&bins[b], (unsigned int)sub[b]);
    }
}
