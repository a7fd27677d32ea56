// threshold.cu: the threshold filter (see src/filters/threshold/mod.rs for the methods).
//
// The host first runs histogram.cu on the input into the scratch (4 x 256 u32 bins: R, G,
// B, luma). threshold_level: one block of THRESHOLD_BINS threads, thread i holding luma bin
// i, finds the level of the method and writes it after the bins. It follows the CPU
// reference (src/filters/threshold/cpu.rs) decision for decision: running sums in u64 by a
// block scan, Otsu's variance in the reference's f64 operations and order (no contraction),
// isodata's test in exact 128-bit integers, the triangle's distances in i64, and ties to
// the same bin (arg-max reductions keep the lowest index), so the level is the reference's.
// threshold_apply: one pixel a thread; luma bin >= level gives `on` in R, G and B, else
// `off`; alpha is kept. The level is `fixed` when it is >= 0 (manual), else the computed one.
//
// Launch: threshold_level <<<1, THRESHOLD_BINS>>>; threshold_apply THRESHOLD_BLOCK_X x
// THRESHOLD_BLOCK_Y threads, grid (ceil(W / BLOCK_X), ceil(H / BLOCK_Y)).
#include "common.cuh"
#include "cudalens_constants.h"

#define THRESHOLD_LUMA_BINS_OFFSET (3 * THRESHOLD_BINS)
#define THRESHOLD_LEVEL_OFFSET (4 * THRESHOLD_BINS * 4)

typedef unsigned long long u64;

// Below every triangle distance: the key of threads past the tail.
#define THRESHOLD_NO_KEY (-0x7fffffffffffffffll - 1)

// Inclusive prefix sum of v over the block's threads, through `buf` (THRESHOLD_BINS).
__device__ __forceinline__ u64 block_inclusive_sum(u64* buf, u64 v)
{
    const int i = threadIdx.x;
    buf[i] = v;
    __syncthreads();
    for (int d = 1; d < THRESHOLD_BINS; d <<= 1) {
        const u64 add = i >= d ? buf[i - d] : 0ull;
        __syncthreads();
        buf[i] += add;
        __syncthreads();
    }
    return buf[i];
}

// The index of the largest key over the block, the lowest index on ties (every thread
// calls it; every thread gets the result).
template <typename T>
__device__ __forceinline__ int block_first_argmax(T* keys, int* indices, T key, int index)
{
    const int i = threadIdx.x;
    keys[i] = key;
    indices[i] = index;
    __syncthreads();
    for (int stride = THRESHOLD_BINS / 2; stride > 0; stride >>= 1) {
        if (i < stride) {
            const T other = keys[i + stride];
            const int other_index = indices[i + stride];
            if (other > keys[i] || (other == keys[i] && other_index < indices[i])) {
                keys[i] = other;
                indices[i] = other_index;
            }
        }
        __syncthreads();
    }
    const int result = indices[0];
    __syncthreads();
    return result;
}

// The reference's otsu_variance: m = s / w each, d = m1 - m2, (w1 w2) * (d d), rounded
// step by step.
__device__ __forceinline__ double otsu_variance(u64 w1, u64 s1, u64 w2, u64 s2)
{
    const double m1 = __ddiv_rn(__ull2double_rn(s1), __ull2double_rn(w1));
    const double m2 = __ddiv_rn(__ull2double_rn(s2), __ull2double_rn(w2));
    const double d = __dadd_rn(m1, -m2);
    return __dmul_rn(__ull2double_rn(w1 * w2), __dmul_rn(d, d));
}

// A 128-bit unsigned integer.
struct U128 {
    u64 hi, lo;
};

__device__ __forceinline__ U128 mul_wide(u64 a, u64 b)
{
    return U128{__umul64hi(a, b), a * b};
}

__device__ __forceinline__ U128 add_wide(U128 a, U128 b)
{
    const u64 lo = a.lo + b.lo;
    return U128{a.hi + b.hi + (lo < a.lo ? 1ull : 0ull), lo};
}

__device__ __forceinline__ bool less_equal(U128 a, U128 b)
{
    return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo);
}

extern "C" __global__ void __launch_bounds__(THRESHOLD_BINS)
threshold_level(unsigned char* scratch, int method, int manual)
{
    __shared__ u64 scan[THRESHOLD_BINS];
    __shared__ unsigned int counts[THRESHOLD_BINS];
    __shared__ double variance_keys[THRESHOLD_BINS];
    __shared__ long long integer_keys[THRESHOLD_BINS];
    __shared__ int indices[THRESHOLD_BINS];
    __shared__ int lo_bin, hi_bin, first_isodata;

    const int t = threadIdx.x;
    unsigned int* level = (unsigned int*)(scratch + THRESHOLD_LEVEL_OFFSET);
    const unsigned int c = ((const unsigned int*)scratch)[THRESHOLD_LUMA_BINS_OFFSET + t];
    counts[t] = c;
    if (t == 0) {
        lo_bin = THRESHOLD_BINS;
        hi_bin = -1;
        first_isodata = THRESHOLD_BINS;
    }
    __syncthreads();
    if (c != 0u) {
        atomicMin(&lo_bin, t);
        atomicMax(&hi_bin, t);
    }
    // w: pixels in bins <= t; s: their luma sum.
    const u64 w = block_inclusive_sum(scan, (u64)c);
    const u64 n = scan[THRESHOLD_BINS - 1];
    __syncthreads();
    const u64 s = block_inclusive_sum(scan, (u64)t * c);
    const u64 total = scan[THRESHOLD_BINS - 1];
    const int lo = lo_bin, hi = hi_bin;
    if (hi < 0 || method == THRESHOLD_MANUAL) {  // an empty image keeps the manual level
        if (t == 0) *level = (unsigned int)manual;
        return;
    }
    if (lo == hi) {  // a constant image: all black
        if (t == 0) *level = (unsigned int)hi + 1u;
        return;
    }
    const bool split = t >= lo && t < hi;  // bins that may end the lower class
    int bin = lo;
    if (method == THRESHOLD_MEAN) {
        bin = (int)(total / n);
    } else if (method == THRESHOLD_OTSU) {
        const double v = split ? otsu_variance(w, s, n - w, total - s) : -1.0;
        bin = block_first_argmax(variance_keys, indices, v, t);
    } else if (method == THRESHOLD_ISODATA) {
        if (split) {
            const u64 w_high = n - w, s_high = total - s;
            const U128 a = add_wide(mul_wide(s, w_high), mul_wide(s_high, w));
            const u64 d = 2ull * (w * w_high);  // < 2^63: w + w_high = n <= 2^32
            if (less_equal(mul_wide((u64)t, d), a) && !less_equal(mul_wide((u64)t + 1ull, d), a))
                atomicMin(&first_isodata, t);
        }
        __syncthreads();
        bin = first_isodata < THRESHOLD_BINS ? first_isodata : lo;
    } else if (method == THRESHOLD_TRIANGLE) {
        const int peak = block_first_argmax(integer_keys, indices, (long long)c, t);
        const long long height = (long long)counts[peak];
        const bool flip = peak - lo < hi - peak;
        const int width = flip ? hi - peak : peak - lo;
        const int x = t;
        long long length = THRESHOLD_NO_KEY;
        if (x < width) {
            const int b = flip ? hi - x : lo + x;
            length = height * x - (long long)width * (long long)counts[b];
        }
        const int best = block_first_argmax(integer_keys, indices, length, x);
        bin = flip ? hi - best : lo + best;
    }
    if (t == 0) *level = (unsigned int)bin + 1u;
}

extern "C" __global__ void __launch_bounds__(THRESHOLD_BLOCK_X * THRESHOLD_BLOCK_Y)
threshold_apply(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height,
                const unsigned char* scratch, int fixed, unsigned int on, unsigned int off)
{
    const unsigned int level =
        fixed >= 0 ? (unsigned int)fixed
                   : *(const unsigned int*)(scratch + THRESHOLD_LEVEL_OFFSET);
    const int x = blockIdx.x * THRESHOLD_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * THRESHOLD_BLOCK_Y + threadIdx.y;
    const uint4 p = texel_at(src, x, y);
    const unsigned int v = luma_bin(p) >= level ? on : off;
    // A pixel past the image's right or bottom edge falls outside the surface and is dropped.
    store_word_clipped(dst, x, y, v * 0x010101u | (p.w << 24));
}

// Every other stored format (typed.cuh), as the reference (filters/threshold/typed.rs)
// decides: lumas in the type's units; integer types bin round(Y) (up to full scale), floats
// bin finite lumas over their own range into TYPED_HIST_BINS bins (range_bin, in f64).
// The automatic level comes from the host: threshold_range_<format> (floats: the finite
// lumas' least and greatest order keys at scratch[TYPED_HIST_BINS], [+1]) and
// threshold_hist_<format> (the bins at scratch[0..]) run here, the host reads the bins and
// finds the level with the reference's own function, then threshold_map_<format> writes
// `on` where the pixel is white, `off` elsewhere; alpha kept.
// mode: 0 white where Y >= `at` (floats, manual); 1 where round(Y) >= level (integers);
// 2 where Y is finite and its range bin >= level (floats, automatic).
// One thread a pixel: block (TYPED_BLOCK_X, TYPED_BLOCK_Y), grid (ceil(W / BLOCK_X), ceil(H / BLOCK_Y));
// the range: as typed.cuh's range kernels.
#include "typed.cuh"

// round(Y) clamped to 0..full scale, as the reference's integer bins.
template <typename T>
__device__ __forceinline__ unsigned int rounded_bin(float y)
{
    return (unsigned int)fminf(fmaxf(roundf(y), 0.0f), FullScale<T>::value);
}

template <typename T, int C>
__device__ __forceinline__ void threshold_range(cudaTextureObject_t src, unsigned int* scratch,
                                                int width, int height)
{
    const int x = blockIdx.x * TYPED_BLOCK_X + threadIdx.x, y0 = range_first_row();
    unsigned int lo = 0xffffffffu, hi = 0u;
    for (int r = 0; r < TYPED_RANGE_ROWS && x < width; ++r) {
        const int y = y0 + r * TYPED_BLOCK_Y;
        if (y >= height) break;
        fold_key(lo, hi, typed_luma<C>(load_values<T, C>(src, x, y)));
    }
    warp_fold_range(scratch + TYPED_HIST_BINS, lo, hi);
}

template <typename T, int C>
__device__ __forceinline__ void threshold_hist(cudaTextureObject_t src, unsigned int* scratch,
                                               int width, int height, int floats)
{
    int x, y;
    float4 v;
    if (!typed_pixel<T, C>(src, width, height, x, y, v)) return;
    const float luma = typed_luma<C>(v);
    if (!floats) {
        atomicAdd(scratch + rounded_bin<T>(luma), 1u);
    } else if (is_finite_f32(luma)) {
        const float lo = float_of_key(scratch[TYPED_HIST_BINS]);
        const float hi = float_of_key(scratch[TYPED_HIST_BINS + 1]);
        atomicAdd(scratch + range_bin(luma, lo, hi, TYPED_HIST_BINS), 1u);
    }
}

template <typename T, int C>
__device__ __forceinline__ void threshold_map(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                              int width, int height, int mode,
                                              unsigned int level, float at, float lo, float hi,
                                              float on, float off)
{
    int x, y;
    float4 v;
    if (!typed_pixel<T, C>(src, width, height, x, y, v)) return;
    const float luma = typed_luma<C>(v);
    bool white;
    if (mode == 0) white = luma >= at;
    else if (mode == 1) white = rounded_bin<T>(luma) >= level;
    else white = is_finite_f32(luma) && range_bin(luma, lo, hi, TYPED_HIST_BINS) >= level;
    const float out = white ? on : off;
    store_values<T, C>(dst, x, y, make_float4(out, out, out, 0.0f), v);
}

#define THRESHOLD_TYPED(suffix, T, C)                                                        \
    extern "C" __global__ void __launch_bounds__(TYPED_BLOCK_X * TYPED_BLOCK_Y)              \
    threshold_range_##suffix(cudaTextureObject_t src, unsigned int* scratch, int width,      \
                             int height)                                                     \
    {                                                                                        \
        threshold_range<T, C>(src, scratch, width, height);                                  \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(TYPED_BLOCK_X * TYPED_BLOCK_Y)              \
    threshold_hist_##suffix(cudaTextureObject_t src, unsigned int* scratch, int width,       \
                            int height, int floats)                                          \
    {                                                                                        \
        threshold_hist<T, C>(src, scratch, width, height, floats);                           \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(TYPED_BLOCK_X * TYPED_BLOCK_Y)              \
    threshold_map_##suffix(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width,      \
                           int height, int mode, unsigned int level, float at, float lo,     \
                           float hi, float on, float off)                                    \
    {                                                                                        \
        threshold_map<T, C>(src, dst, width, height, mode, level, at, lo, hi, on, off);     \
    }
TYPED_FORMATS(THRESHOLD_TYPED)
