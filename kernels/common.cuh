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
// P: a uchar4, or a uint4 texel (texel_at).
template <typename P>
__device__ __forceinline__ float luma_of(P p)
{
    float rg = __fadd_rn(__fmul_rn(0.2126f, (float)p.x), __fmul_rn(0.7152f, (float)p.y));
    return __fadd_rn(rg, __fmul_rn(0.0722f, (float)p.z));
}

// clamp(round(v), 0, 255), rounding half away from zero like Rust's f32::round.
__device__ __forceinline__ unsigned char to_u8(float v)
{
    return (unsigned char)fminf(fmaxf(roundf(v), 0.0f), 255.0f);
}

// to_u8 for 0 <= v, as bits: the byte is the low 8 bits of the result, the rest is garbage.
// round half away from zero is floor(v + 0.5) with the sum rounded toward zero (rounding
// it to nearest would make 0.49999997 + 0.5 exactly 1), and the floor of a t < 2^23 is
// the low bits of t + 2^23 rounded toward zero: two adds instead of a round and a
// conversion (a conversion issues at an eighth of the rate of an add on sm_90).
__device__ __forceinline__ unsigned int nonnegative_to_u8_bits(float v)
{
    const float t = __fadd_rz(fminf(v, 255.0f), 0.5f);
    return __float_as_uint(__fadd_rz(t, 8388608.0f));
}

// sqrtf(s), correctly rounded, for 1e-30 <= s < 2^126: the fast path of the IEEE square
// root (a reciprocal square root estimate and one Newton step on the residual, in FMA)
// without the range check and call to the slow path that sqrtf adds around it.
__device__ __forceinline__ float sqrt_in_normal_range(float s)
{
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(s));
    const float y = __fmul_rn(s, r);
    const float half_r = __fmul_rn(0.5f, r);
    return __fmaf_rn(__fmaf_rn(-y, y, s), half_r, y);
}

// The unsharp mask of one channel value v with its Gaussian g: v + A (v - g), each step
// rounded as in the Rust reference, then to_u8.
__device__ __forceinline__ unsigned char unsharp_value(float v, float g, float amount)
{
    return to_u8(__fadd_rn(v, __fmul_rn(amount, __fsub_rn(v, g))));
}

// The histogram bin of a pixel's luma: to_u8 of a luma, which is never negative.
template <typename P>
__device__ __forceinline__ unsigned int luma_bin(P p)
{
    return nonnegative_to_u8_bits(luma_of(p)) & 0xffu;
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

// Pixel (x, y) with each channel in a 32-bit lane, as the texture unit returns it (read as
// integers, zero-extended): no masking before a conversion, unlike a uchar4.
__device__ __forceinline__ uint4 texel_at(cudaTextureObject_t image, int x, int y)
{
    return tex2D<uint4>(image, (float)x + 0.5f, (float)y + 0.5f);
}

__device__ __forceinline__ void store_pixel(cudaSurfaceObject_t image, int x, int y, uchar4 v)
{
    surf2Dwrite(v, image, x * (int)sizeof(uchar4), y);
}

// Two channels per 32-bit word in 16-bit lanes: R | B << 16 and G | A << 16 (values, or sums
// that stay below 2^16), for the 16x2 SIMD and for shuffling four channels in two words.
struct ChannelPairs {
    unsigned int rb, ga;
};

// A texel's channels (32-bit lanes, texel_at) paired into 16-bit lanes.
__device__ __forceinline__ ChannelPairs channel_pairs(uint4 p)
{
    return ChannelPairs{p.x | (p.z << 16), p.y | (p.w << 16)};
}

// A pixel as one word (R in the low byte) at (x, y); a pixel outside the surface is
// dropped (boundary mode zero), so callers need not test the image's far edges.
__device__ __forceinline__ void store_word_clipped(cudaSurfaceObject_t image, int x, int y,
                                                   unsigned int v)
{
    surf2Dwrite(v, image, x * (int)sizeof(unsigned int), y, cudaBoundaryModeZero);
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

// Inclusive prefix sum across the 32 lanes of a warp (all lanes active), of u32 or u64.
template <typename T>
__device__ __forceinline__ T warp_inclusive_sum(T v)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const T other = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += other;
    }
    return v;
}

// The strip walker of the window operators (Sobel and the 3x3 median: RADIUS 1). Each
// warp slides down a strip of OUT = 32 - 2 RADIUS output columns and SEGMENT rows; lane l
// reads column x0 - RADIUS + l, so the first and last RADIUS lanes are the apron: they
// compute like the others and store to column -1, outside the surface, where the store is
// dropped (no lane branches). row_of(texel) turns a row's texel into the lane's state for
// that row (what its neighbours will take by shuffle); the window's 2 RADIUS + 1 rows stay
// in registers as the warp moves down, STEP rows read ahead before any is used;
// pixel_of(rows, alpha) gives the output from rows[0..2 RADIUS] (top to bottom) and the
// centre texel's alpha. Rows past the image's last (only in the last segment: SEGMENT is a
// multiple of STEP) and columns past its right edge are dropped by the surface too.
// Io says how texels are read, what of the centre texel is kept (its alpha) and how an
// output is stored with it, dropped outside the surface: Rgba8Strip below (a word), or
// TypedStrip (typed.cuh) for every other stored format.
// block = (32, WARPS), grid = (ceil(W / (OUT * WARPS)), ceil(H / SEGMENT)).
struct Rgba8Strip {
    typedef uint4 Texel;
    typedef unsigned int Kept;
    static __device__ __forceinline__ Texel load(cudaTextureObject_t src, int x, int y) { return texel_at(src, x, y); }
    static __device__ __forceinline__ Kept kept(Texel p) { return p.w; }
    static __device__ __forceinline__ void store(cudaSurfaceObject_t dst, int x, int y, unsigned int v, Kept)
    {
        store_word_clipped(dst, x, y, v);
    }
};

template <int RADIUS, int WARPS, int SEGMENT, int STEP, int OUT, typename Io = Rgba8Strip,
          typename RowOf, typename PixelOf>
__device__ __forceinline__ void slide_window_strip(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                                   int width, int height, RowOf row_of, PixelOf pixel_of)
{
    static_assert(OUT == 32 - 2 * RADIUS, "the window takes RADIUS apron lanes at each side");
    static_assert(SEGMENT % STEP == 0, "a segment's last step must not run into the next");
    constexpr int SIDE = 2 * RADIUS;  // rows kept from one step to the next
    typedef typename Io::Texel Texel;
    typedef decltype(row_of(Texel{})) Row;
    const int lane = threadIdx.x;
    const int x0 = (blockIdx.x * WARPS + threadIdx.y) * OUT;
    if (x0 >= width) return;  // the whole warp
    const int x = x0 - RADIUS + lane;
    const int x_out = lane >= RADIUS && lane < RADIUS + OUT ? x : -1;
    const int y0 = blockIdx.y * SEGMENT;
    const int y1 = min(y0 + SEGMENT, height);

    // Rows y - RADIUS to y + RADIUS - 1 of the window, then STEP new rows per step.
    Row win[STEP + SIDE];
    typename Io::Kept alpha[STEP + SIDE];
#pragma unroll
    for (int r = 0; r < SIDE; ++r) {
        const Texel p = Io::load(src, x, y0 - RADIUS + r);
        win[r] = row_of(p);
        alpha[r] = Io::kept(p);
    }
    for (int y = y0; y < y1; y += STEP) {
        Texel p[STEP];
#pragma unroll
        for (int r = 0; r < STEP; ++r) p[r] = Io::load(src, x, y + RADIUS + r);
#pragma unroll
        for (int r = 0; r < STEP; ++r) {
            win[SIDE + r] = row_of(p[r]);
            alpha[SIDE + r] = Io::kept(p[r]);
        }
#pragma unroll
        for (int r = 0; r < STEP; ++r)
            Io::store(dst, x_out, y + r, pixel_of(&win[r], alpha[r + RADIUS]), alpha[r + RADIUS]);
#pragma unroll
        for (int r = 0; r < SIDE; ++r) {
            win[r] = win[STEP + r];
            alpha[r] = alpha[STEP + r];
        }
    }
}

// A flag published by one block and polled by another (the fused Mandelbrot refinement):
// the store releases the writer's earlier stores, the load acquires them, at GPU scope.
__device__ __forceinline__ unsigned int load_acquire_gpu(const unsigned int* p)
{
    unsigned int v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void store_release_gpu(unsigned int* p, unsigned int v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
}
