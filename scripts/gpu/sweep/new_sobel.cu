#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#include "../../../kernels/filters/sobel.cu"

template <int WARPS, int SEGMENT, int STEP>
__global__ void __launch_bounds__(32 * WARPS) sobel_v(cudaTextureObject_t s, cudaSurfaceObject_t d, int w, int h, float scale)
{
    sobel_strip<WARPS, SEGMENT, STEP>(s, d, w, h, scale);
}
template <int WARPS, int SEGMENT, int STEP>
void launch_sobel(const Args& a, int)
{
    dim3 grid((a.w + SOBEL_OUT * WARPS - 1) / (SOBEL_OUT * WARPS), (a.h + SEGMENT - 1) / SEGMENT);
    sobel_v<WARPS, SEGMENT, STEP><<<grid, dim3(32, WARPS), 0, a.stream>>>(a.src, a.dst, a.w, a.h, a.scale);
}
// Trial layout: 32 output columns a warp, aligned to 128 bytes, the two halo columns read
// by lanes 0 and 31 as a second fetch per row (no apron lanes, sector-aligned rows).
template <int WARPS, int SEGMENT, int STEP>
__global__ void __launch_bounds__(32 * WARPS) sobel_aligned(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, float scale)
{
    const int lane = threadIdx.x;
    const int x0 = (blockIdx.x * WARPS + threadIdx.y) * 32;
    if (x0 >= width) return;
    const int x = x0 + lane;
    const int hx = lane == 0 ? x0 - 1 : x0 + 32;  // lanes 0 and 31: their halo column
    const int y0 = blockIdx.y * SEGMENT;
    const int y1 = min(y0 + SEGMENT, height);
    auto row = [&](uint4 p, uint4 hp) {
        const float c = luma_of(p);
        const float h = luma_of(hp);
        float l = __shfl_up_sync(0xffffffffu, c, 1);
        float r = __shfl_down_sync(0xffffffffu, c, 1);
        l = lane == 0 ? h : l;
        r = lane == 31 ? h : r;
        return LumaRow{l, c, r};
    };
    LumaRow win[STEP + 2];
    unsigned int alpha[STEP + 2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const uint4 p = texel_at(src, x, y0 - 1 + r);
        const uint4 hp = texel_at(src, hx, y0 - 1 + r);
        win[r] = row(p, hp);
        alpha[r] = p.w;
    }
    for (int y = y0; y < y1; y += STEP) {
        uint4 p[STEP], hp[STEP];
#pragma unroll
        for (int r = 0; r < STEP; ++r) {
            p[r] = texel_at(src, x, y + 1 + r);
            hp[r] = make_uint4(0, 0, 0, 0);
            if (lane == 0 || lane == 31) hp[r] = texel_at(src, hx, y + 1 + r);
        }
#pragma unroll
        for (int r = 0; r < STEP; ++r) {
            win[2 + r] = row(p[r], hp[r]);
            alpha[2 + r] = p[r].w;
        }
#pragma unroll
        for (int r = 0; r < STEP; ++r)
            store_word_clipped(dst, x, y + r, sobel_pixel(win[r], win[r + 1], win[r + 2], scale, alpha[r + 1]));
        win[0] = win[STEP];
        win[1] = win[STEP + 1];
        alpha[0] = alpha[STEP];
        alpha[1] = alpha[STEP + 1];
    }
}
template <int WARPS, int SEGMENT, int STEP>
void launch_sobel_aligned(const Args& a, int)
{
    dim3 grid((a.w + 32 * WARPS - 1) / (32 * WARPS), (a.h + SEGMENT - 1) / SEGMENT);
    sobel_aligned<WARPS, SEGMENT, STEP><<<grid, dim3(32, WARPS), 0, a.stream>>>(a.src, a.dst, a.w, a.h, a.scale);
}
std::vector<Variant> sobel_variants()
{
    return {
        {"sobel w4 seg64 step4", launch_sobel<4, 64, 4>, 0},
        {"sobel w4 seg32 step4", launch_sobel<4, 32, 4>, 0},
        {"sobel w4 seg16 step4", launch_sobel<4, 16, 4>, 0},
        {"aligned w4 seg16 step4", launch_sobel_aligned<4, 16, 4>, 0},
        {"aligned w4 seg32 step4", launch_sobel_aligned<4, 32, 4>, 0},
        {"aligned w8 seg16 step4", launch_sobel_aligned<8, 16, 4>, 0},
        {"sobel w4 seg16 step2", launch_sobel<4, 16, 2>, 0},
        {"sobel w4 seg8 step4", launch_sobel<4, 8, 4>, 0},
        {"sobel w8 seg16 step4", launch_sobel<8, 16, 4>, 0},
        {"sobel w2 seg16 step4", launch_sobel<2, 16, 4>, 0},
        {"sobel w4 seg24 step4", launch_sobel<4, 24, 4>, 0},
        {"sobel w4 seg128 step4", launch_sobel<4, 128, 4>, 0},
        {"sobel w4 seg64 step8", launch_sobel<4, 64, 8>, 0},
        {"sobel w4 seg128 step8", launch_sobel<4, 128, 8>, 0},
        {"sobel w2 seg64 step4", launch_sobel<2, 64, 4>, 0},
        {"sobel w8 seg64 step4", launch_sobel<8, 64, 4>, 0},
        {"sobel w8 seg32 step8", launch_sobel<8, 32, 8>, 0},
    };
}
