// histogram.cu: 256-bin R, G, B and luma histograms in one pass over the image.
//
// Each warp owns a private 4 x 256 sub-histogram in shared memory (HIST_WARPS of them per
// block, 32 KB), so shared atomics contend only within a warp. Threads walk the image with
// a grid-stride loop reading through the texture path. At the end the block sums its warps'
// sub-histograms and merges them into the global bins with one atomicAdd per non-zero bin.
// Bins are laid out channel-major: [R 0..255, G 0..255, B 0..255, luma 0..255], the layout
// of the GL buffer the histogram shader draws from. The caller zeroes the bins.
//
// Launch: HIST_BLOCK = 32 * HIST_WARPS threads per block; the host launches a few blocks
// per SM (grid-stride), not one thread per pixel.
#include "common.cuh"

#define HIST_BINS 256
#define HIST_WARPS 8
#define HIST_BLOCK (32 * HIST_WARPS)

extern "C" __global__ void __launch_bounds__(HIST_BLOCK)
histogram(cudaTextureObject_t src, int width, int height, unsigned int* bins)
{
    __shared__ unsigned int sub[HIST_WARPS][4 * HIST_BINS];
    unsigned int* flat = &sub[0][0];
    for (int i = threadIdx.x; i < HIST_WARPS * 4 * HIST_BINS; i += HIST_BLOCK) flat[i] = 0u;
    __syncthreads();

    unsigned int* mine = sub[threadIdx.x / 32];
    const long long n = (long long)width * height;
    for (long long i = (long long)blockIdx.x * HIST_BLOCK + threadIdx.x; i < n;
         i += (long long)gridDim.x * HIST_BLOCK) {
        const int y = (int)(i / width);
        const int x = (int)(i - (long long)y * width);
        const uchar4 p = pixel_at(src, x, y);
        atomicAdd(&mine[p.x], 1u);
        atomicAdd(&mine[HIST_BINS + p.y], 1u);
        atomicAdd(&mine[2 * HIST_BINS + p.z], 1u);
        atomicAdd(&mine[3 * HIST_BINS + luma_bin(p)], 1u);
    }
    __syncthreads();

    for (int b = threadIdx.x; b < 4 * HIST_BINS; b += HIST_BLOCK) {
        unsigned int total = 0u;
#pragma unroll
        for (int w = 0; w < HIST_WARPS; ++w) total += sub[w][b];
        if (total) atomicAdd(&bins[b], total);
    }
}
