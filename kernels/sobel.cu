// sobel.cu: Sobel gradient magnitude of luma.
//
// out.rgb = clamp(round(scale * sqrt(Gx^2 + Gy^2)), 0, 255), alpha unchanged, with the
// standard 3x3 kernels on Rec. 709 luma and clamp-to-edge borders (texture addressing),
// evaluated in the Rust reference's order (no FMA contraction in the magnitude).
//
// Launch: each warp slides down a strip of 32 columns and SOBEL_SEGMENT rows. A lane reads
// one pixel per row (lanes 0 and 31 also read the column left and right of the strip) and
// computes its luma once; the left and right neighbours' lumas come from the adjacent lanes
// by shuffle, and the three rows the 3x3 window needs stay in registers as the warp moves
// down, so every pixel is read once (plus 2 rows per segment and 2 columns per strip).
// Rows are read SOBEL_STEP at a time before any is used, to keep several reads in flight.
// A block is SOBEL_WARPS warps side by side (adjacent strips share their edge columns in
// the texture cache). block = (32, SOBEL_WARPS),
// grid = (ceil(W / (32 * SOBEL_WARPS)), ceil(H / SOBEL_SEGMENT)).
#include "common.cuh"

#define SOBEL_WARPS 4
#define SOBEL_SEGMENT 64
#define SOBEL_STEP 4

// The lumas of one row around a lane's column: left, centre, right.
struct LumaRow {
    float l, c, r;
};

__device__ __forceinline__ LumaRow luma_row(float centre, float halo, int lane)
{
    float left = __shfl_up_sync(0xffffffffu, centre, 1);
    float right = __shfl_down_sync(0xffffffffu, centre, 1);
    if (lane == 0) left = halo;
    if (lane == 31) right = halo;
    return LumaRow{left, centre, right};
}

__device__ __forceinline__ unsigned char sobel_value(LumaRow a, LumaRow b, LumaRow c, float scale)
{
    // Same association as ops::cpu::sobel: (a + 2b) + c, 2b being exact.
    const float gx = __fsub_rn(__fadd_rn(__fadd_rn(a.r, 2.0f * b.r), c.r),
                               __fadd_rn(__fadd_rn(a.l, 2.0f * b.l), c.l));
    const float gy = __fsub_rn(__fadd_rn(__fadd_rn(c.l, 2.0f * c.c), c.r),
                               __fadd_rn(__fadd_rn(a.l, 2.0f * a.c), a.r));
    const float m = sqrtf(__fadd_rn(__fmul_rn(gx, gx), __fmul_rn(gy, gy)));
    return to_u8(__fmul_rn(scale, m));
}

template <int WARPS, int SEGMENT, int STEP>
__device__ __forceinline__ void sobel_strip(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                            int width, int height, float scale)
{
    const int lane = threadIdx.x;
    const int x0 = (blockIdx.x * WARPS + threadIdx.y) * 32;
    if (x0 >= width) return;  // the whole warp
    const int x = x0 + lane;
    const bool halo_lane = lane == 0 || lane == 31;
    const int hx = lane == 0 ? x0 - 1 : x0 + 32;
    const int y0 = blockIdx.y * SEGMENT;
    const int y1 = min(y0 + SEGMENT, height);

    // Rows y - 1 and y of the window, then STEP new rows per step.
    LumaRow win[STEP + 2];
    unsigned char alpha[STEP + 2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const uchar4 p = pixel_at(src, x, y0 - 1 + r);
        const float h = halo_lane ? luma_of(pixel_at(src, hx, y0 - 1 + r)) : 0.0f;
        win[r] = luma_row(luma_of(p), h, lane);
        alpha[r] = p.w;
    }
    for (int y = y0; y < y1; y += STEP) {
        uchar4 p[STEP];
        uchar4 hp[STEP];
#pragma unroll
        for (int r = 0; r < STEP; ++r) {
            p[r] = pixel_at(src, x, y + 1 + r);
            if (halo_lane) hp[r] = pixel_at(src, hx, y + 1 + r);
        }
#pragma unroll
        for (int r = 0; r < STEP; ++r) {
            const float h = halo_lane ? luma_of(hp[r]) : 0.0f;
            win[2 + r] = luma_row(luma_of(p[r]), h, lane);
            alpha[2 + r] = p[r].w;
        }
#pragma unroll
        for (int r = 0; r < STEP; ++r) {
            const unsigned char v = sobel_value(win[r], win[r + 1], win[r + 2], scale);
            if (x < width && y + r < y1) store_pixel(dst, x, y + r, make_uchar4(v, v, v, alpha[r + 1]));
        }
        win[0] = win[STEP];
        win[1] = win[STEP + 1];
        alpha[0] = alpha[STEP];
        alpha[1] = alpha[STEP + 1];
    }
}

extern "C" __global__ void __launch_bounds__(32 * SOBEL_WARPS)
sobel(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, float scale)
{
    sobel_strip<SOBEL_WARPS, SOBEL_SEGMENT, SOBEL_STEP>(src, dst, width, height, scale);
}
