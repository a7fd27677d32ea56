// equalize.cu: histogram equalisation of R, G and B, each on its own, as OpenCV's
// equalizeHist computes it (see src/filters/equalize.rs for the formula).
//
// The host first runs histogram.cu on the input into the scratch (4 x 256 u32 bins:
// R, G, B, luma). equalize_lut: one block of EQUALIZE_BINS threads per channel, thread i
// holding bin i: the first non-empty bin by a shared minimum, the running sums by a
// block-wide scan (integers, so the same sums as the reference's loop), then every entry of
// the channel's 256-entry LUT at once, written after the bins, in the f32 arithmetic of the
// reference (scale = 255 / (N - h[i0]), sum * scale rounded to nearest even).
// equalize_apply: each block copies the 768 LUT bytes to shared memory, then each thread
// maps EQUALIZE_ROWS pixels EQUALIZE_BLOCK_Y rows apart, all read before any is written;
// alpha is kept.
//
// Launch: equalize_lut <<<3, EQUALIZE_BINS>>>; equalize_apply EQUALIZE_BLOCK_X x
// EQUALIZE_BLOCK_Y threads, grid (ceil(W / BLOCK_X), ceil(H / (BLOCK_Y * ROWS))).
#include "common.cuh"
#include "cudalens_constants.h"

#define EQUALIZE_LUT_OFFSET (4 * EQUALIZE_BINS * 4)

extern "C" __global__ void __launch_bounds__(EQUALIZE_BINS)
equalize_lut(unsigned char* scratch, int total)
{
    __shared__ unsigned int warp_totals[EQUALIZE_BINS / 32];
    __shared__ int first_bin;
    const int i = threadIdx.x;
    const unsigned int* hist = (const unsigned int*)scratch + blockIdx.x * EQUALIZE_BINS;
    unsigned char* lut = scratch + EQUALIZE_LUT_OFFSET + blockIdx.x * EQUALIZE_BINS;
    const unsigned int h = hist[i];
    if (i == 0) first_bin = EQUALIZE_BINS;
    __syncthreads();
    if (h != 0u) atomicMin(&first_bin, i);
    const unsigned int in_warp = warp_inclusive_sum(h);
    if ((i & 31) == 31) warp_totals[i >> 5] = in_warp;
    __syncthreads();
    const int first = first_bin;
    unsigned int inclusive = in_warp;  // hist[0] + ... + hist[i]
    for (int w = 0; w < (i >> 5); ++w) inclusive += warp_totals[w];
    if (first == EQUALIZE_BINS || (int)hist[first] == total) {
        lut[i] = (unsigned char)i;
        return;
    }
    if (i <= first) {
        lut[i] = (unsigned char)(i < first ? i : 0);
        return;
    }
    // The reference's running sum over bins first + 1 .. i (those below first are empty).
    const unsigned int sum = inclusive - hist[first];
    const float scale = __fdiv_rn(255.0f, __int2float_rn(total - (int)hist[first]));
    const float v = rintf(__fmul_rn(__uint2float_rn(sum), scale));
    lut[i] = (unsigned char)fminf(fmaxf(v, 0.0f), 255.0f);
}

extern "C" __global__ void __launch_bounds__(EQUALIZE_BLOCK_X * EQUALIZE_BLOCK_Y)
equalize_apply(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height,
               const unsigned char* scratch)
{
    __shared__ unsigned char lut[3 * EQUALIZE_BINS];
    const int tid = threadIdx.y * EQUALIZE_BLOCK_X + threadIdx.x;
    for (int i = tid; i < 3 * EQUALIZE_BINS; i += EQUALIZE_BLOCK_X * EQUALIZE_BLOCK_Y)
        lut[i] = scratch[EQUALIZE_LUT_OFFSET + i];
    const int x = blockIdx.x * EQUALIZE_BLOCK_X + threadIdx.x;
    const int y0 = blockIdx.y * EQUALIZE_BLOCK_Y * EQUALIZE_ROWS + threadIdx.y;
    uint4 p[EQUALIZE_ROWS];
#pragma unroll
    for (int r = 0; r < EQUALIZE_ROWS; ++r) p[r] = texel_at(src, x, y0 + r * EQUALIZE_BLOCK_Y);
    __syncthreads();
    // Pixels past the image's right or bottom edge fall outside the surface and are dropped.
#pragma unroll
    for (int r = 0; r < EQUALIZE_ROWS; ++r)
        store_word_clipped(dst, x, y0 + r * EQUALIZE_BLOCK_Y,
                           (unsigned int)lut[p[r].x] | ((unsigned int)lut[EQUALIZE_BINS + p[r].y] << 8) |
                               ((unsigned int)lut[2 * EQUALIZE_BINS + p[r].z] << 16) | (p[r].w << 24));
}

// Every other stored format (typed.cuh), each colour channel on its own as the reference
// (filters/equalize/typed.rs) does: integer values are their own bins, floats bin their
// finite values over the channel's range into TYPED_HIST_BINS bins (range_bin, f64).
// Scratch (u32 words): bins [c][TYPED_HIST_BINS] from 0; the float channels' least and
// greatest order keys at EQ_RANGE + 2c; the tables (f32) [c][TYPED_HIST_BINS] at EQ_TABLE;
// one flag a channel at EQ_HAS (0: the channel is constant and kept as it is).
// equalize_range_<format> (floats) and equalize_hist_<format> count here, equalize_tables
// makes each channel's table and flag from its bins (below), and equalize_map_<format>
// looks each value's bin up (non-finite values kept); alpha kept. Nothing goes to the host.
// Counting and mapping: one thread a pixel, block (TYPED_BLOCK_X, TYPED_BLOCK_Y), grid
// (ceil(W / BLOCK_X), ceil(H / BLOCK_Y)); the range: as typed.cuh's range kernels.
#include "typed.cuh"

#define EQ_RANGE (3 * TYPED_HIST_BINS)
#define EQ_TABLE (EQ_RANGE + 8)
#define EQ_HAS (EQ_TABLE + 3 * TYPED_HIST_BINS)

// equalize_tables: each colour channel's table from its bins, on the device, in the
// reference's arithmetic (filters/equalize/typed.rs, equalize_table). One block a channel
// (grid = colour channels) of EQUALIZE_TABLE_THREADS threads, reading the bins coalesced:
// first the first non-empty bin (a shared minimum) and the count (a shared u64 sum), then
// the bins in tiles of EQUALIZE_TABLE_THREADS, each an inclusive block-wide scan in u64
// carried from the tile before (the same sums as the reference's running loop), writing
// each entry. `round`: integer samples (round_ties_even((sum as f32) * (full / (N - h[i0])
// as f32)), clamped to 0..=full); else floats ((sum as f32) * full / (N - h[i0]) as f32).
// Entries at or below the first bin are 0; a constant channel gets its flag at EQ_HAS
// cleared (kept as it is).
#define EQ_WARPS (EQUALIZE_TABLE_THREADS / 32)

extern "C" __global__ void __launch_bounds__(EQUALIZE_TABLE_THREADS)
equalize_tables(unsigned int* scratch, int round, float full)
{
    __shared__ unsigned long long warp_sums[EQ_WARPS];
    __shared__ unsigned long long total, tile_total;
    __shared__ unsigned int first_bin;
    const int c = blockIdx.x, t = threadIdx.x;
    const unsigned int* hist = scratch + c * TYPED_HIST_BINS;
    float* table = (float*)(scratch + EQ_TABLE) + c * TYPED_HIST_BINS;
    if (t == 0) {
        first_bin = TYPED_HIST_BINS;
        total = 0;
    }
    __syncthreads();
    unsigned long long mine = 0;
    unsigned int first = TYPED_HIST_BINS;
    for (int i = t; i < TYPED_HIST_BINS; i += EQUALIZE_TABLE_THREADS) {
        const unsigned int h = hist[i];
        if (h != 0u && first == TYPED_HIST_BINS) first = (unsigned int)i;
        mine += h;
    }
    if (first < TYPED_HIST_BINS) atomicMin(&first_bin, first);
    const unsigned long long warp_total = __shfl_sync(0xffffffffu, warp_inclusive_sum(mine), 31);
    if ((t & 31) == 0) atomicAdd(&total, warp_total);
    __syncthreads();
    const unsigned int i0 = first_bin;
    const unsigned long long n = total;
    if (i0 == TYPED_HIST_BINS || (unsigned long long)hist[i0] == n) {
        if (t == 0) scratch[EQ_HAS + c] = 0u;
        return;
    }
    if (t == 0) scratch[EQ_HAS + c] = 1u;
    const unsigned long long at_first = hist[i0];
    const float rest = __ull2float_rn(n - at_first);
    const float scale = __fdiv_rn(full, rest);
    unsigned long long carry = 0;  // the count below this tile
    for (int base = 0; base < TYPED_HIST_BINS; base += EQUALIZE_TABLE_THREADS) {
        const int i = base + t;
        const unsigned int h = hist[i];
        const unsigned long long in_warp = warp_inclusive_sum<unsigned long long>(h);
        if ((t & 31) == 31) warp_sums[t >> 5] = in_warp;
        __syncthreads();
        if (t < 32) {
            const unsigned long long w = t < EQ_WARPS ? warp_sums[t] : 0;
            const unsigned long long scanned = warp_inclusive_sum(w);
            if (t < EQ_WARPS) warp_sums[t] = scanned - w;
            if (t == 31) tile_total = scanned;
        }
        __syncthreads();
        const unsigned long long cdf = carry + warp_sums[t >> 5] + in_warp;  // bins 0..=i
        float v = 0.0f;
        if ((unsigned int)i > i0) {
            const float sum = __ull2float_rn(cdf - at_first);
            v = round ? fminf(fmaxf(rintf(__fmul_rn(sum, scale)), 0.0f), full)
                      : __fdiv_rn(__fmul_rn(sum, full), rest);
        }
        table[i] = v;
        carry += tile_total;
        __syncthreads();  // warp_sums and tile_total are the next tile's
    }
}

// The bin of channel c's value v (false: not counted, a non-finite float).
template <typename T>
__device__ __forceinline__ bool equalize_bin(const unsigned int* scratch, int c, float v,
                                             unsigned int& bin)
{
    bin = (unsigned int)v;
    return true;
}
template <>
__device__ __forceinline__ bool equalize_bin<float>(const unsigned int* scratch, int c, float v,
                                                    unsigned int& bin)
{
    if (!is_finite_f32(v)) return false;
    bin = range_bin(v, float_of_key(scratch[EQ_RANGE + 2 * c]),
                    float_of_key(scratch[EQ_RANGE + 2 * c + 1]), TYPED_HIST_BINS);
    return true;
}

template <typename T, int C>
__device__ __forceinline__ void equalize_range(cudaTextureObject_t src, unsigned int* scratch,
                                               int width, int height)
{
    const int x = blockIdx.x * TYPED_BLOCK_X + threadIdx.x, y0 = range_first_row();
    unsigned int lo[3] = {0xffffffffu, 0xffffffffu, 0xffffffffu}, hi[3] = {0u, 0u, 0u};
    for (int r = 0; r < TYPED_RANGE_ROWS && x < width; ++r) {
        const int y = y0 + r * TYPED_BLOCK_Y;
        if (y >= height) break;
        const float4 v = load_values<T, C>(src, x, y);
#pragma unroll
        for (int c = 0; c < Colour<C>::count; ++c) fold_key(lo[c], hi[c], channel_of(v, c));
    }
#pragma unroll
    for (int c = 0; c < Colour<C>::count; ++c) warp_fold_range(scratch + EQ_RANGE + 2 * c, lo[c], hi[c]);
}

template <typename T, int C>
__device__ __forceinline__ void equalize_hist(cudaTextureObject_t src, unsigned int* scratch,
                                              int width, int height)
{
    int x, y;
    float4 v;
    if (!typed_pixel<T, C>(src, width, height, x, y, v)) return;
#pragma unroll
    for (int c = 0; c < Colour<C>::count; ++c) {
        unsigned int bin;
        if (equalize_bin<T>(scratch, c, channel_of(v, c), bin))
            atomicAdd(scratch + c * TYPED_HIST_BINS + bin, 1u);
    }
}

template <typename T, int C>
__device__ __forceinline__ void equalize_map(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                             const unsigned int* scratch, int width, int height)
{
    int x, y;
    float4 v;
    if (!typed_pixel<T, C>(src, width, height, x, y, v)) return;
    float4 out = v;
    const float* tables = (const float*)(scratch + EQ_TABLE);
#pragma unroll
    for (int c = 0; c < Colour<C>::count; ++c) {
        unsigned int bin;
        if (scratch[EQ_HAS + c] && equalize_bin<T>(scratch, c, channel_of(v, c), bin))
            set_channel(out, c, tables[c * TYPED_HIST_BINS + bin]);
    }
    store_values<T, C>(dst, x, y, out, v);
}

#define EQUALIZE_TYPED(suffix, T, C)                                                         \
    extern "C" __global__ void __launch_bounds__(TYPED_BLOCK_X * TYPED_BLOCK_Y)              \
    equalize_range_##suffix(cudaTextureObject_t src, unsigned int* scratch, int width,       \
                            int height)                                                      \
    {                                                                                        \
        equalize_range<T, C>(src, scratch, width, height);                                   \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(TYPED_BLOCK_X * TYPED_BLOCK_Y)              \
    equalize_hist_##suffix(cudaTextureObject_t src, unsigned int* scratch, int width,        \
                           int height)                                                       \
    {                                                                                        \
        equalize_hist<T, C>(src, scratch, width, height);                                    \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(TYPED_BLOCK_X * TYPED_BLOCK_Y)              \
    equalize_map_##suffix(cudaTextureObject_t src, cudaSurfaceObject_t dst,                  \
                          const unsigned int* scratch, int width, int height)                \
    {                                                                                        \
        equalize_map<T, C>(src, dst, scratch, width, height);                                \
    }
TYPED_FORMATS(EQUALIZE_TYPED)
