// common.cuh: helpers shared by every cudalens kernel.
//
// Images are RGBA8. Sources are read through texture objects created with point
// filtering, clamp addressing and CU_TRSF_READ_AS_INTEGER, so an out-of-range
// coordinate returns the nearest edge pixel: the contract's clamp-to-edge border.
// Results are written through surface objects (x in bytes).
//
// This header is self-contained (no system includes) so that NVRTC can compile it with
// the kernels when the binary was built without nvcc.
#pragma once

// Rec. 709 luma, evaluated exactly like the Rust reference ops::luma:
// (0.2126 r + 0.7152 g) + 0.0722 b, each product and sum rounded (no FMA contraction).
__device__ __forceinline__ float luma_of(uchar4 p)
{
    float rg = __fadd_rn(__fmul_rn(0.2126f, (float)p.x), __fmul_rn(0.7152f, (float)p.y));
    return __fadd_rn(rg, __fmul_rn(0.0722f, (float)p.z));
}

// clamp(round(v), 0, 255), rounding half away from zero like Rust's f32::round.
__device__ __forceinline__ unsigned char to_u8(float v)
{
    return (unsigned char)fminf(fmaxf(roundf(v), 0.0f), 255.0f);
}

// The histogram bin of a pixel's luma.
__device__ __forceinline__ int luma_bin(uchar4 p)
{
    return (int)to_u8(luma_of(p));
}

__device__ __forceinline__ int clamp_int(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

// Pixel (x, y) of a clamp-addressed texture: out-of-range coordinates give edge pixels.
__device__ __forceinline__ uchar4 pixel_at(cudaTextureObject_t image, int x, int y)
{
    return tex2D<uchar4>(image, (float)x + 0.5f, (float)y + 0.5f);
}

__device__ __forceinline__ void store_pixel(cudaSurfaceObject_t image, int x, int y, uchar4 v)
{
    surf2Dwrite(v, image, x * (int)sizeof(uchar4), y);
}

// A pixel as one 32-bit word, R in the low byte, alpha in the high one.
__device__ __forceinline__ unsigned int pack_rgba(uchar4 p)
{
    return (unsigned int)p.x | ((unsigned int)p.y << 8) | ((unsigned int)p.z << 16) |
           ((unsigned int)p.w << 24);
}

__device__ __forceinline__ float4 to_float4(uchar4 p)
{
    return make_float4((float)p.x, (float)p.y, (float)p.z, (float)p.w);
}

// RGB of a filtered float4 rounded to 8 bits, alpha taken from the source pixel.
__device__ __forceinline__ uchar4 rgb_with_alpha(float4 v, unsigned char alpha)
{
    return make_uchar4(to_u8(v.x), to_u8(v.y), to_u8(v.z), alpha);
}

__device__ __forceinline__ float4 fma4(float w, float4 v, float4 acc)
{
    return make_float4(fmaf(w, v.x, acc.x), fmaf(w, v.y, acc.y), fmaf(w, v.z, acc.z), acc.w);
}

__device__ __forceinline__ int div_up(int a, int b)
{
    return (a + b - 1) / b;
}

// RGB of a pixel as floats, for filters that accumulate in f32.
__device__ __forceinline__ float3 rgb_float(uchar4 p)
{
    return make_float3((float)p.x, (float)p.y, (float)p.z);
}

// Exact floor(x / n) for x < 2^31 and an odd n > 2 by one multiply-high: with
// s = floor(log2 n) and m = floor(2^(32+s) / n) + 1 (which fits 32 bits because n is not a
// power of two), x * m / 2^(32+s) exceeds x / n by less than 1/n, which cannot reach the next
// integer (Granlund–Montgomery).
struct Divider {
    unsigned int m;
    int s;
};

__device__ __forceinline__ Divider make_divider(unsigned int n)
{
    const int s = 31 - __clz(n);
    const unsigned int m = (unsigned int)((1ull << (32 + s)) / n) + 1u;
    return Divider{m, s};
}

__device__ __forceinline__ unsigned int divide(unsigned int x, Divider d)
{
    return __umulhi(x, d.m) >> d.s;
}

// Inclusive prefix sum across the 32 lanes of a warp (all lanes active).
__device__ __forceinline__ unsigned int warp_inclusive_sum(unsigned int v)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const unsigned int other = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += other;
    }
    return v;
}
