// histogram_ranged.cu: ranged histograms of 8-bit, 16-bit and float images in one pass.
//
// Input: interleaved samples in linear device memory (1 grey, 3 RGB or 4 RGBA channels).
// Histogram channels: grey, or R, G, B and Rec. 709 luma (alpha not counted). Each value
// goes to a slot: bins 0..bins-1, then below (bins), above (bins + 1) and NaN (bins + 2);
// the output holds (bins + 3) 64-bit counts per channel, channel-major. The caller zeroes it.
//
// Slots follow the Rust reference (ops::histogram::BinRange, numpy's rule): 8 and 16-bit
// values, luma included, look theirs up in a table the host computed from that rule; float
// values compute it here in f64, every operation rounded as the reference rounds it.
// Luma is (0.2126 R + 0.7152 G) + 0.0722 B in f32 (luma_of), rounded half away from zero
// and clamped to the type for integer images.
//
// Counting: a block keeps `copies` sub-histograms of u32 in shared memory (warp w uses copy
// w % copies, so shared atomics contend within fewer threads), merged into the 64-bit
// output at the end with one atomicAdd per non-zero slot; with shared = 0 (too many slots to
// fit) threads add to the output directly. The host keeps a block's pixels under 2^31 so
// that the u32 counts cannot wrap.
#include "common.cuh"

#include "cudalens_constants.h"

#define RANGED_BLOCK (32 * HIST_RANGED_WARPS)

struct FloatRange {
    double lo, hi, step;
    int bins;
};

// Edge i (0..bins): i * step + lo, edge bins being hi.
__device__ __forceinline__ double range_edge(const FloatRange& r, int i)
{
    return i >= r.bins ? r.hi : __dadd_rn(__dmul_rn((double)i, r.step), r.lo);
}

// The slot of a float value: floor((v - lo) / (hi - lo) * bins), moved by one where the
// edges disagree, v == hi in the last bin; below, above and NaN apart.
__device__ __forceinline__ unsigned int float_slot(const FloatRange& r, float v)
{
    if (v != v) return r.bins + 2;
    const double d = (double)v;
    if (d < r.lo) return r.bins;
    if (d > r.hi) return r.bins + 1;
    const double f = __dmul_rn(__ddiv_rn(__dsub_rn(d, r.lo), __dsub_rn(r.hi, r.lo)), (double)r.bins);
    int i = min((int)f, r.bins - 1);
    if (d < range_edge(r, i)) {
        --i;
    } else if (i + 1 < r.bins && d >= range_edge(r, i + 1)) {
        ++i;
    }
    return (unsigned int)i;
}

struct Rgb {
    float x, y, z;
};

// Luma of a pixel as luma_of computes it.
__device__ __forceinline__ float luma3(float r, float g, float b)
{
    const Rgb p = {r, g, b};
    return luma_of(p);
}

template <typename T> struct Sampler;

template <> struct Sampler<unsigned char> {
    __device__ static unsigned int slot(const unsigned int* lut, const FloatRange&, unsigned char v)
    {
        return __ldg(&lut[v]);
    }
    __device__ static unsigned int luma_slot(const unsigned int* lut, const FloatRange&, float y)
    {
        return __ldg(&lut[(unsigned int)fminf(fmaxf(roundf(y), 0.0f), 255.0f)]);
    }
};

template <> struct Sampler<unsigned short> {
    __device__ static unsigned int slot(const unsigned int* lut, const FloatRange&, unsigned short v)
    {
        return __ldg(&lut[v]);
    }
    __device__ static unsigned int luma_slot(const unsigned int* lut, const FloatRange&, float y)
    {
        return __ldg(&lut[(unsigned int)fminf(fmaxf(roundf(y), 0.0f), 65535.0f)]);
    }
};

template <> struct Sampler<float> {
    __device__ static unsigned int slot(const unsigned int*, const FloatRange& r, float v)
    {
        return float_slot(r, v);
    }
    __device__ static unsigned int luma_slot(const unsigned int*, const FloatRange& r, float y)
    {
        return float_slot(r, y);
    }
};

// Adds one to slot s of histogram channel c: in shared memory, or in the output.
__device__ __forceinline__ void count_slot(unsigned int* sub, unsigned long long* out,
                                           int slots, int c, unsigned int s)
{
    if (sub) {
        atomicAdd(&sub[c * slots + s], 1u);
    } else {
        atomicAdd(&out[(unsigned long long)c * slots + s], 1ull);
    }
}

template <typename T, int CH>
__device__ void ranged_histogram(const T* __restrict__ src, long long pixels,
                                 const unsigned int* __restrict__ lut, FloatRange r, int copies,
                                 unsigned long long* out)
{
    extern __shared__ unsigned int shared_slots[];
    constexpr int HISTS = CH == 1 ? 1 : 4;
    const int slots = r.bins + 3;
    const int per_copy = HISTS * slots;
    unsigned int* sub = nullptr;
    if (copies > 0) {
        for (int i = threadIdx.x; i < copies * per_copy; i += blockDim.x) shared_slots[i] = 0u;
        __syncthreads();
        sub = shared_slots + (threadIdx.x / 32 % copies) * per_copy;
    }
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < pixels; p += stride) {
        const T* px = src + p * CH;
        if (CH == 1) {
            count_slot(sub, out, slots, 0, Sampler<T>::slot(lut, r, px[0]));
        } else {
            const T cr = px[0], cg = px[1], cb = px[2];
            count_slot(sub, out, slots, 0, Sampler<T>::slot(lut, r, cr));
            count_slot(sub, out, slots, 1, Sampler<T>::slot(lut, r, cg));
            count_slot(sub, out, slots, 2, Sampler<T>::slot(lut, r, cb));
            const float y = luma3((float)cr, (float)cg, (float)cb);
            count_slot(sub, out, slots, 3, Sampler<T>::luma_slot(lut, r, y));
        }
    }
    if (copies == 0) return;
    __syncthreads();
    for (int i = threadIdx.x; i < per_copy; i += blockDim.x) {
        unsigned long long total = 0ull;
        for (int k = 0; k < copies; ++k) total += shared_slots[k * per_copy + i];
        if (total) atomicAdd(&out[i], total);
    }
}

#define RANGED_KERNEL(NAME, T, CH)                                                            \
    extern "C" __global__ void __launch_bounds__(RANGED_BLOCK)                                \
    NAME(const T* src, long long pixels, const unsigned int* lut, double lo, double hi,       \
         double step, int bins, int copies, unsigned long long* out)                          \
    {                                                                                         \
        const FloatRange r = {lo, hi, step, bins};                                            \
        ranged_histogram<T, CH>(src, pixels, lut, r, copies, out);                            \
    }

RANGED_KERNEL(ranged_histogram_u8_c1, unsigned char, 1)
RANGED_KERNEL(ranged_histogram_u8_c3, unsigned char, 3)
RANGED_KERNEL(ranged_histogram_u8_c4, unsigned char, 4)
RANGED_KERNEL(ranged_histogram_u16_c1, unsigned short, 1)
RANGED_KERNEL(ranged_histogram_u16_c3, unsigned short, 3)
RANGED_KERNEL(ranged_histogram_u16_c4, unsigned short, 4)
RANGED_KERNEL(ranged_histogram_f32_c1, float, 1)
RANGED_KERNEL(ranged_histogram_f32_c3, float, 3)
RANGED_KERNEL(ranged_histogram_f32_c4, float, 4)
