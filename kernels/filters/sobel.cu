// sobel.cu: Sobel gradient magnitude of luma.
//
// out.rgb = clamp(round(scale * sqrt(Gx^2 + Gy^2)), 0, 255), alpha unchanged, with the
// standard 3x3 kernels on Rec. 709 luma and clamp-to-edge borders (texture addressing),
// evaluated in the Rust reference's order (no FMA contraction in the magnitude; a + 2b as
// one FMA is the same rounding, 2b being exact).
//
// Launch: slide_window_strip (common.cuh, radius 1): each warp slides down a strip of SOBEL_OUT = 30
// output columns and SOBEL_SEGMENT rows. Lane l reads column x0 - 1 + l, one pixel per row,
// and computes its luma once; the left and right neighbours' lumas come from the adjacent
// lanes by shuffle, so lanes 0 and 31 are the apron and no lane branches for the strip's
// edges. The three rows the 3x3 window needs stay in registers as the warp moves down, so
// every pixel is read once (plus 2 rows per segment and 2 columns per strip, from cache).
// Rows are read SOBEL_STEP at a time before any is used, to keep several reads in flight. The instruction
// count per pixel is what bounds this kernel (Nsight Compute: issue slots 77 % busy before
// the apron layout), hence the branch-free square root, rounding by adds and one
// byte permute to pack the output. A block is SOBEL_WARPS warps side by side.
// block = (32, SOBEL_WARPS), grid = (ceil(W / (SOBEL_OUT * SOBEL_WARPS)), ceil(H / SOBEL_SEGMENT)).
#include "common.cuh"
#include "cudalens_constants.h"

// The lumas of one row around a lane's column: left, centre, right.
struct LumaRow {
    float l, c, r;
};

__device__ __forceinline__ LumaRow luma_row(float centre)
{
    // Lanes 0 and 31 get their own value back: they are the apron and write nothing.
    return LumaRow{__shfl_up_sync(0xffffffffu, centre, 1), centre,
                   __shfl_down_sync(0xffffffffu, centre, 1)};
}

// (a + 2b) + c, as the reference sums a column or a row of the operator.
__device__ __forceinline__ float weighted_sum(float a, float b, float c)
{
    return __fadd_rn(__fmaf_rn(2.0f, b, a), c);
}

// The output pixel as one word: the magnitude in R, G and B, the source's alpha.
__device__ __forceinline__ unsigned int sobel_pixel(LumaRow a, LumaRow b, LumaRow c, float scale,
                                                    unsigned int alpha)
{
    const float gx = __fsub_rn(weighted_sum(a.r, b.r, c.r), weighted_sum(a.l, b.l, c.l));
    const float gy = __fsub_rn(weighted_sum(c.l, c.c, c.r), weighted_sum(a.l, a.c, a.r));
    // gx and gy are differences of sums of lumas (multiples of a luma's rounding step, at
    // least 1e-8 when not 0), so the sum of squares is 0 or above 1e-16: raising it to
    // 1e-30 changes no output (scale * 1e-15 rounds to 0) and keeps the fast square root.
    const float s = fmaxf(__fadd_rn(__fmul_rn(gx, gx), __fmul_rn(gy, gy)), 1e-30f);
    const unsigned int v = nonnegative_to_u8_bits(__fmul_rn(scale, sqrt_in_normal_range(s)));
    return __byte_perm(v, alpha, 0x4000);  // bytes v, v, v, alpha
}

template <int WARPS, int SEGMENT, int STEP>
__device__ __forceinline__ void sobel_strip(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                            int width, int height, float scale)
{
    slide_window_strip<1, WARPS, SEGMENT, STEP, SOBEL_OUT>(
        src, dst, width, height, [](uint4 p) { return luma_row(luma_of(p)); },
        [scale](const LumaRow* w, unsigned int alpha) { return sobel_pixel(w[0], w[1], w[2], scale, alpha); });
}

extern "C" __global__ void __launch_bounds__(32 * SOBEL_WARPS)
sobel(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, float scale)
{
    sobel_strip<SOBEL_WARPS, SOBEL_SEGMENT, SOBEL_STEP>(src, dst, width, height, scale);
}

// Every other stored format (typed.cuh), Gx and Gy of typed_luma in the reference's order,
// the magnitude's square root correctly rounded, stored by sample_from_f32 (integers round
// and saturate, floats unclamped); alpha kept. Texels of up to TYPED_STRIP_MAX_TEXEL_BYTES
// slide the same strips (TypedStrip: a lane's luma computed once, its neighbours' by
// shuffle; same block and grid as `sobel`); wider ones one thread a pixel, the nine lumas
// read through the texture, block (TYPED_BLOCK_X, TYPED_BLOCK_Y), grid (ceil(W / BLOCK_X),
// ceil(H / BLOCK_Y)).
#include "typed.cuh"

__device__ __forceinline__ float4 typed_sobel_value(LumaRow a, LumaRow b, LumaRow c, float scale)
{
    const float gx = __fsub_rn(weighted_sum(a.r, b.r, c.r), weighted_sum(a.l, b.l, c.l));
    const float gy = __fsub_rn(weighted_sum(c.l, c.c, c.r), weighted_sum(a.l, a.c, a.r));
    const float m = __fmul_rn(scale, __fsqrt_rn(__fadd_rn(__fmul_rn(gx, gx), __fmul_rn(gy, gy))));
    return make_float4(m, m, m, 0.0f);
}

template <typename T, int C>
__device__ __forceinline__ void sobel_typed(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                            int width, int height, float scale)
{
    if constexpr (SlidesStrips<T, C>::value) {
        slide_window_strip<1, SOBEL_WARPS, SOBEL_SEGMENT, SOBEL_STEP, SOBEL_OUT, TypedStrip<T, C>>(
            src, dst, width, height, [](float4 v) { return luma_row(typed_luma<C>(v)); },
            [scale](const LumaRow* w, float) { return typed_sobel_value(w[0], w[1], w[2], scale); });
    } else {
        int x, y;
        float4 centre;
        if (!typed_pixel<T, C>(src, width, height, x, y, centre)) return;
        LumaRow rows[3];
#pragma unroll
        for (int dy = 0; dy < 3; ++dy) {
            const float at = dy == 1 ? typed_luma<C>(centre)
                                     : typed_luma<C>(load_values<T, C>(src, x, y + dy - 1));
            rows[dy] = LumaRow{typed_luma<C>(load_values<T, C>(src, x - 1, y + dy - 1)), at,
                               typed_luma<C>(load_values<T, C>(src, x + 1, y + dy - 1))};
        }
        store_values<T, C>(dst, x, y, typed_sobel_value(rows[0], rows[1], rows[2], scale), centre);
    }
}

#define SOBEL_TYPED(suffix, T, C)                                                            \
    extern "C" __global__ void __launch_bounds__(TYPED_BLOCK_X * TYPED_BLOCK_Y)              \
    sobel_##suffix(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height,  \
                   float scale)                                                              \
    {                                                                                        \
        sobel_typed<T, C>(src, dst, width, height, scale);                                   \
    }
TYPED_FORMATS(SOBEL_TYPED)
