// equalize.cu: histogram equalisation of R, G and B, each on its own, as OpenCV's
// equalizeHist computes it (see src/filters/equalize.rs for the formula).
//
// The host first runs histogram.cu on the input into the scratch (4 x 256 u32 bins:
// R, G, B, luma). equalize_lut: one block per channel; its first thread walks the 256 bins
// (a few microseconds, no host round trip) and writes the channel's 256-entry LUT after the
// bins, in the f32 arithmetic of the reference (scale = 255 / (N - h[i0]), sum * scale
// rounded to nearest even). equalize_apply: each block copies the 768 LUT bytes to shared
// memory, then each thread maps one pixel; alpha is kept.
//
// Launch: equalize_lut <<<3, 32>>>; equalize_apply EQUALIZE_BLOCK_X x EQUALIZE_BLOCK_Y
// threads, one pixel each.
#include "common.cuh"

#define EQUALIZE_BLOCK_X 32
#define EQUALIZE_BLOCK_Y 8
#define EQUALIZE_BINS 256
#define EQUALIZE_LUT_OFFSET (4 * EQUALIZE_BINS * 4)

extern "C" __global__ void equalize_lut(unsigned char* scratch, int total)
{
    if (threadIdx.x != 0) return;
    const unsigned int* hist = (const unsigned int*)scratch + blockIdx.x * EQUALIZE_BINS;
    unsigned char* lut = scratch + EQUALIZE_LUT_OFFSET + blockIdx.x * EQUALIZE_BINS;
    int first = 0;
    while (first < EQUALIZE_BINS && hist[first] == 0u) ++first;
    if (first == EQUALIZE_BINS || (int)hist[first] == total) {
        for (int i = 0; i < EQUALIZE_BINS; ++i) lut[i] = (unsigned char)i;
        return;
    }
    const float scale = __fdiv_rn(255.0f, __int2float_rn(total - (int)hist[first]));
    for (int i = 0; i <= first; ++i) lut[i] = (unsigned char)(i < first ? i : 0);
    unsigned int sum = 0u;
    for (int i = first + 1; i < EQUALIZE_BINS; ++i) {
        sum += hist[i];
        const float v = rintf(__fmul_rn(__uint2float_rn(sum), scale));
        lut[i] = (unsigned char)fminf(fmaxf(v, 0.0f), 255.0f);
    }
}

extern "C" __global__ void __launch_bounds__(EQUALIZE_BLOCK_X * EQUALIZE_BLOCK_Y)
equalize_apply(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height,
               const unsigned char* scratch)
{
    __shared__ unsigned char lut[3 * EQUALIZE_BINS];
    const int tid = threadIdx.y * EQUALIZE_BLOCK_X + threadIdx.x;
    for (int i = tid; i < 3 * EQUALIZE_BINS; i += EQUALIZE_BLOCK_X * EQUALIZE_BLOCK_Y)
        lut[i] = scratch[EQUALIZE_LUT_OFFSET + i];
    __syncthreads();
    const int x = blockIdx.x * EQUALIZE_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * EQUALIZE_BLOCK_Y + threadIdx.y;
    if (x >= width || y >= height) return;
    const uchar4 p = pixel_at(src, x, y);
    store_pixel(dst, x, y,
                make_uchar4(lut[p.x], lut[EQUALIZE_BINS + p.y], lut[2 * EQUALIZE_BINS + p.z], p.w));
}
