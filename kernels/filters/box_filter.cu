// box_filter.cu: exact box mean of the (2R+1)^2 window, one pass, two launch layouts.
//
// out = (sum + n/2) / n with n = (2R+1)^2 per RGB channel (integer sums, so exact; the
// division is a multiply-high, see Divider in common.cuh), alpha unchanged, clamp-to-edge
// borders from the texture addressing.
//
// Small radii (R <= BOX_SMALL_MAX_RADIUS: box_small_1 .. box_small_7): every pixel read once,
// sums in registers, no shared memory. Each warp slides down a strip of 32 - 2R output
// columns and BOX_SMALL_SEGMENT rows; lane l reads column x0 - R + l, so the R lanes at
// each side are the apron (they compute like the others and write to column -1, outside
// the surface, where the store is dropped: no lane branches). A pixel's channels are
// paired two per 32-bit register (R and B in one, G and A in the other, 16 bits each:
// (2R+1)^2 * 255 < 2^16 for R <= 7, so no lane carries into the next), and a row's
// horizontal window sum at a lane adds its neighbours' pairs by shuffle. The last
// 2R + BOX_SMALL_STEP rows' horizontal sums stay in registers and the vertical sum slides:
// + the row entering the window, - the row leaving it. Rows are read BOX_SMALL_STEP at a
// time before any is used, to keep several reads in flight. The instruction count per
// pixel bounds the small radii, so the division by n is a multiply-high by a constant and
// the output is packed as one word.
// block = (32, BOX_SMALL_WARPS), grid = (ceil(W / ((32 - 2R) * WARPS)), ceil(H / SEGMENT)),
// SEGMENT = BOX_TINY_SEGMENT up to BOX_TINY_MAX_RADIUS, BOX_SMALL_SEGMENT above.
//
// Larger radii (box_128, box_256, box_512): a block owns a strip of `strip` output columns
// and slides down `segment` rows of it.
// Its BOX_COLUMNS_PER_THREAD x T threads (T = 128, 256 or 512: box_128, box_256, box_512)
// cover the strip plus R columns of apron on each side (strip = 4T - 2R), each thread four
// adjacent columns, and keep in registers the vertical window sums V of their columns over
// rows y-R..y+R. Per output row:
//   1. read the row entering the window (y+R+1), the row leaving it (y-R) and the output
//      row's own pixels (for alpha), before anything waits for them;
//   2. an inclusive prefix sum P of V across the block: per thread over its 4 columns, per
//      warp by shuffles, over the warps' totals through shared memory;
//   3. each output is one difference P[o + 2R] - P[o - 1] of the prefix row in shared
//      memory, written through the surface (two barriers per row: after the warp totals
//      and after the prefix row; each also orders the previous row's reads before the
//      next row's writes);
//   4. V += entering - leaving.
// Cost per pixel does not grow with R except through the apron (2R / strip) and starting
// each segment's window (2R + 1 rows); the host sizes T and `segment` to keep both small.
// Shared memory: the prefix row [3][4T] u32, stored column-permuted (column c at
// (c % 4) * T + c / 4) so that a warp's accesses hit 32 different banks; warp totals
// [3][T / 32]. block = T threads, grid = (ceil(H / segment), ceil(W / strip)) (segments
// of one strip are consecutive blocks, so the rows they share meet in L2).
#include "common.cuh"
// Radii up to BOX_TINY_MAX_RADIUS take BOX_TINY_SEGMENT-row segments reading BOX_TINY_STEP
// rows ahead: fewer registers, more blocks to spread over the SMs (measured on the H200).
#include "cudalens_constants.h"

struct Rgb32 {
    unsigned int r, g, b;
};

template <int T>
__device__ __forceinline__ void box_strip(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                          int width, int height, int radius, int strip, int segment)
{
    constexpr int C = BOX_COLUMNS_PER_THREAD;
    constexpr int EXT = T * C;
    constexpr int WARPS = T / 32;
    extern __shared__ unsigned int smem[];
    unsigned int* prefix = smem;               // [3][EXT]
    unsigned int* totals = smem + 3 * EXT;     // [3][WARPS]

    const int t = threadIdx.x;
    const int lane = t & 31;
    const int warp = t >> 5;
    const int x0 = blockIdx.y * strip;
    const int xe = x0 - radius + t * C;  // image column of my first window column
    const int y0 = blockIdx.x * segment;
    const int y1 = min(y0 + segment, height);
    const unsigned int n = (unsigned int)((2 * radius + 1) * (2 * radius + 1));
    const Divider divider = make_divider(n);

    Rgb32 v[C];
#pragma unroll
    for (int j = 0; j < C; ++j) v[j] = Rgb32{0u, 0u, 0u};
#pragma unroll 4
    for (int k = -radius; k <= radius; ++k) {
#pragma unroll
        for (int j = 0; j < C; ++j) {
            const uchar4 p = pixel_at(src, xe + j, y0 + k);
            v[j].r += p.x;
            v[j].g += p.y;
            v[j].b += p.z;
        }
    }

    for (int y = y0; y < y1; ++y) {
        uchar4 enter[C], leave[C], centre[C];
#pragma unroll
        for (int j = 0; j < C; ++j) {
            enter[j] = pixel_at(src, xe + j, y + radius + 1);
            leave[j] = pixel_at(src, xe + j, y - radius);
            centre[j] = pixel_at(src, x0 + t * C + j, y);
        }

        // Inclusive prefix over this thread's columns, then across the warp.
        Rgb32 local[C];
        Rgb32 run{0u, 0u, 0u};
#pragma unroll
        for (int j = 0; j < C; ++j) {
            run.r += v[j].r;
            run.g += v[j].g;
            run.b += v[j].b;
            local[j] = run;
        }
        const Rgb32 inclusive{warp_inclusive_sum(run.r), warp_inclusive_sum(run.g),
                              warp_inclusive_sum(run.b)};
        if (lane == 31) {
            totals[warp] = inclusive.r;
            totals[WARPS + warp] = inclusive.g;
            totals[2 * WARPS + warp] = inclusive.b;
        }
        __syncthreads();

        // Every warp scans the warp totals itself: its offset is the inclusive sum of the
        // warps before it.
        Rgb32 scanned{0u, 0u, 0u};
        if (lane < WARPS) scanned = Rgb32{totals[lane], totals[WARPS + lane], totals[2 * WARPS + lane]};
        scanned = Rgb32{warp_inclusive_sum(scanned.r), warp_inclusive_sum(scanned.g),
                        warp_inclusive_sum(scanned.b)};
        const int before = warp > 0 ? warp - 1 : 0;
        Rgb32 base{__shfl_sync(0xffffffffu, scanned.r, before), __shfl_sync(0xffffffffu, scanned.g, before),
                   __shfl_sync(0xffffffffu, scanned.b, before)};
        if (warp == 0) base = Rgb32{0u, 0u, 0u};
        base.r += inclusive.r - run.r;
        base.g += inclusive.g - run.g;
        base.b += inclusive.b - run.b;

#pragma unroll
        for (int j = 0; j < C; ++j) {
            const int at = j * T + t;  // column t * C + j, permuted
            prefix[at] = base.r + local[j].r;
            prefix[EXT + at] = base.g + local[j].g;
            prefix[2 * EXT + at] = base.b + local[j].b;
        }
        __syncthreads();

#pragma unroll
        for (int j = 0; j < C; ++j) {
            const int o = t * C + j;  // output column x0 + o: window columns o .. o + 2R
            if (o < strip && x0 + o < width) {
                const int hi = o + 2 * radius;
                const int hi_at = (hi % C) * T + hi / C;
                const int lo_at = ((o + C - 1) % C) * T + (o - 1) / C;
                Rgb32 s{prefix[hi_at], prefix[EXT + hi_at], prefix[2 * EXT + hi_at]};
                if (o > 0) {
                    s.r -= prefix[lo_at];
                    s.g -= prefix[EXT + lo_at];
                    s.b -= prefix[2 * EXT + lo_at];
                }
                const unsigned int half = n / 2;
                store_pixel(dst, x0 + o, y,
                            make_uchar4(divide(s.r + half, divider), divide(s.g + half, divider),
                                        divide(s.b + half, divider), centre[j].w));
            }
        }

#pragma unroll
        for (int j = 0; j < C; ++j) {
            v[j].r += enter[j].x - (unsigned int)leave[j].x;
            v[j].g += enter[j].y - (unsigned int)leave[j].y;
            v[j].b += enter[j].z - (unsigned int)leave[j].z;
        }
    }
}

#define BOX_KERNEL(T)                                                                              \
    extern "C" __global__ void __launch_bounds__(T)                                                \
    box_##T(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, int radius,  \
            int strip, int segment)                                                                \
    {                                                                                              \
        box_strip<T>(src, dst, width, height, radius, strip, segment);                            \
    }

BOX_KERNEL(128)
BOX_KERNEL(256)
BOX_KERNEL(512)

__device__ __forceinline__ void add_pairs(ChannelPairs& acc, ChannelPairs v)
{
    acc.rb += v.rb;
    acc.ga += v.ga;
}

// The sum over columns lane - R .. lane + R of one row, by shuffle of the paired sums (all
// 32 lanes active; the apron lanes' own sums are garbage and never written).
template <int R>
__device__ __forceinline__ ChannelPairs row_window_sums(ChannelPairs own)
{
    ChannelPairs s = own;
#pragma unroll
    for (int d = 1; d <= R; ++d) {
        s.rb += __shfl_up_sync(0xffffffffu, own.rb, d) + __shfl_down_sync(0xffffffffu, own.rb, d);
        s.ga += __shfl_up_sync(0xffffffffu, own.ga, d) + __shfl_down_sync(0xffffffffu, own.ga, d);
    }
    return s;
}

// The output pixel as one word: each RGB window sum rounded to the mean, the source's alpha.
template <unsigned int N>
__device__ __forceinline__ unsigned int box_mean_pixel(ChannelPairs sum, unsigned int alpha,
                                                       Divider divider)
{
    constexpr unsigned int HALF = N / 2;
    const unsigned int rb = sum.rb + (HALF | HALF << 16);  // both lanes rounded at once
    const unsigned int r = divide(rb & 0xffffu, divider);
    const unsigned int g = divide((sum.ga & 0xffffu) + HALF, divider);
    const unsigned int b = divide(rb >> 16, divider);
    return r | (g << 8) | (b << 16) | (alpha << 24);
}

template <int R, int WARPS, int SEGMENT, int STEP>
__device__ __forceinline__ void box_small_strip(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                                int width, int height)
{
    static_assert(SEGMENT % STEP == 0, "a segment's last step must not run into the next");
    constexpr int OUT = 32 - 2 * R;  // output columns per warp
    constexpr int KEEP = 2 * R;      // window rows carried from one step to the next
    constexpr unsigned int N = (2 * R + 1) * (2 * R + 1);
    const int lane = threadIdx.x;
    const int x0 = (blockIdx.x * WARPS + threadIdx.y) * OUT;
    if (x0 >= width) return;  // the whole warp
    const int x = x0 - R + lane;
    // The column this lane writes: -1 (outside the surface: dropped) for the apron lanes,
    // so that every lane runs the same stores, without a branch.
    const int x_out = lane >= R && lane < 32 - R ? x : -1;
    const int y0 = blockIdx.y * SEGMENT;
    const int y1 = min(y0 + SEGMENT, height);
    const Divider divider = make_divider(N);

    // win[k]: the horizontal sums of row y - R + k; alpha[k]: that row's alpha at x.
    ChannelPairs win[KEEP + STEP];
    unsigned int alpha[KEEP + STEP];
    ChannelPairs sum{0u, 0u};  // rows y - R .. y + R - 1
#pragma unroll
    for (int k = 0; k < KEEP; ++k) {
        const uint4 p = texel_at(src, x, y0 - R + k);
        win[k] = row_window_sums<R>(channel_pairs(p));
        alpha[k] = p.w;
        add_pairs(sum, win[k]);
    }
    for (int y = y0; y < y1; y += STEP) {
        uint4 p[STEP];
#pragma unroll
        for (int r = 0; r < STEP; ++r) p[r] = texel_at(src, x, y + R + r);
#pragma unroll
        for (int r = 0; r < STEP; ++r) {
            win[KEEP + r] = row_window_sums<R>(channel_pairs(p[r]));
            alpha[KEEP + r] = p[r].w;
        }
        // Rows past the image's last (only in the last segment: SEGMENT is a multiple of
        // STEP) and columns past its right edge fall outside the surface and are dropped.
#pragma unroll
        for (int r = 0; r < STEP; ++r) {
            add_pairs(sum, win[KEEP + r]);  // row y + r + R enters
            store_word_clipped(dst, x_out, y + r, box_mean_pixel<N>(sum, alpha[R + r], divider));
            sum.rb -= win[r].rb;  // row y + r - R leaves
            sum.ga -= win[r].ga;
        }
#pragma unroll
        for (int k = 0; k < KEEP; ++k) {
            win[k] = win[k + STEP];
            alpha[k] = alpha[k + STEP];
        }
    }
}

#define BOX_SMALL_KERNEL(R, SEGMENT, STEP)                                                         \
    extern "C" __global__ void __launch_bounds__(32 * BOX_SMALL_WARPS)                             \
    box_small_##R(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height)         \
    {                                                                                              \
        box_small_strip<R, BOX_SMALL_WARPS, SEGMENT, STEP>(src, dst, width, height);               \
    }

BOX_SMALL_KERNEL(1, BOX_TINY_SEGMENT, BOX_TINY_STEP)
BOX_SMALL_KERNEL(2, BOX_TINY_SEGMENT, BOX_TINY_STEP)
BOX_SMALL_KERNEL(3, BOX_SMALL_SEGMENT, BOX_SMALL_STEP)
BOX_SMALL_KERNEL(4, BOX_SMALL_SEGMENT, BOX_SMALL_STEP)
BOX_SMALL_KERNEL(5, BOX_SMALL_SEGMENT, BOX_SMALL_STEP)
BOX_SMALL_KERNEL(6, BOX_SMALL_SEGMENT, BOX_SMALL_STEP)
BOX_SMALL_KERNEL(7, BOX_SMALL_SEGMENT, BOX_SMALL_STEP)

// Every other stored format (typed.cuh): radii up to TYPED_BOX_TILE_RADIUS in one pass
// (box_tile_<format>, below), larger ones in two passes through a plane of the colour
// channels in the scratch (channel-major: plane[c][y][x]), sums kept exactly as the
// reference keeps them: integers in u32 along rows and u64 down columns, floats in f64
// (a row's sum is stored as f32). Each thread slides its window over TYPED_BOX_RUN
// outputs: one add and one subtract a step after the first window.
//   box_rows_<format>: a thread a run of columns of one row (texture reads, clamp-to-edge);
//     block (TYPED_BLOCK_X, TYPED_BLOCK_Y), grid (ceil(ceil(W / RUN) / BLOCK_X), ceil(H / BLOCK_Y)).
//   box_cols_<format>: a thread a run of rows of one column (clamped plane reads), the mean
//     sum / (2R + 1)^2 in f64 stored by sample_from_f64, alpha from the source;
//     block (TYPED_BLOCK_X, TYPED_BLOCK_Y), grid (ceil(W / BLOCK_X), ceil(ceil(H / RUN) / BLOCK_Y)).
#include "typed.cuh"

template <typename T> struct BoxSums { typedef unsigned int row; typedef unsigned long long col; typedef unsigned int stored; static const bool floating = false; };
template <> struct BoxSums<float> { typedef double row; typedef double col; typedef float stored; static const bool floating = true; };

template <typename T, int C>
__device__ __forceinline__ void box_rows_typed(cudaTextureObject_t src, void* plane_bytes,
                                               int width, int height, int radius)
{
    typedef typename BoxSums<T>::row S;
    typedef typename BoxSums<T>::stored P;
    const int CC = Colour<C>::count;
    const int x0 = (blockIdx.x * TYPED_BLOCK_X + threadIdx.x) * TYPED_BOX_RUN;
    const int y = blockIdx.y * TYPED_BLOCK_Y + threadIdx.y;
    if (x0 >= width || y >= height) return;
    P* plane = (P*)plane_bytes;
    const size_t channel = (size_t)width * height;
    S sum[3] = {0, 0, 0};
    for (int dx = -radius; dx <= radius; ++dx) {
        const float4 v = load_values<T, C>(src, x0 + dx, y);
#pragma unroll
        for (int c = 0; c < CC; ++c) sum[c] += (S)channel_of(v, c);
    }
    const int end = min(x0 + TYPED_BOX_RUN, width);
    for (int x = x0;; ++x) {
#pragma unroll
        for (int c = 0; c < CC; ++c) plane[c * channel + (size_t)y * width + x] = (P)sum[c];
        if (x + 1 >= end) break;
        const float4 add = load_values<T, C>(src, x + 1 + radius, y);
        const float4 sub = load_values<T, C>(src, x - radius, y);
#pragma unroll
        for (int c = 0; c < CC; ++c) sum[c] = sum[c] + (S)channel_of(add, c) - (S)channel_of(sub, c);
    }
}

template <typename T, int C>
__device__ __forceinline__ void box_cols_typed(cudaTextureObject_t src, const void* plane_bytes,
                                               cudaSurfaceObject_t dst, int width, int height,
                                               int radius)
{
    typedef typename BoxSums<T>::col S;
    typedef typename BoxSums<T>::stored P;
    const int CC = Colour<C>::count;
    const int x = blockIdx.x * TYPED_BLOCK_X + threadIdx.x;
    const int y0 = (blockIdx.y * TYPED_BLOCK_Y + threadIdx.y) * TYPED_BOX_RUN;
    if (x >= width || y0 >= height) return;
    const P* plane = (const P*)plane_bytes;
    const size_t channel = (size_t)width * height;
    const double n = (double)(2 * radius + 1) * (double)(2 * radius + 1);
    S sum[3] = {0, 0, 0};
    for (int dy = -radius; dy <= radius; ++dy) {
        const int yy = clamp_int(y0 + dy, 0, height - 1);
#pragma unroll
        for (int c = 0; c < CC; ++c) sum[c] += (S)plane[c * channel + (size_t)yy * width + x];
    }
    const int end = min(y0 + TYPED_BOX_RUN, height);
    for (int y = y0;; ++y) {
        const float4 source = load_values<T, C>(src, x, y);
        float4 out = source;
#pragma unroll
        for (int c = 0; c < CC; ++c) {
            const T v = sample_from_f64<T>(__ddiv_rn((double)sum[c], n));
            set_channel(out, c, (float)v);
        }
        store_values<T, C>(dst, x, y, out, source);
        if (y + 1 >= end) break;
        const int add = min(y + 1 + radius, height - 1), sub = max(y - radius, 0);
#pragma unroll
        for (int c = 0; c < CC; ++c)
            sum[c] = sum[c] + (S)plane[c * channel + (size_t)add * width + x] -
                     (S)plane[c * channel + (size_t)sub * width + x];
    }
}

// Radii up to TYPED_BOX_TILE_RADIUS in one pass through shared memory (box_tile_<format>):
// a block of TYPED_BLOCK_X x TYPED_BLOCK_Y threads owns TYPED_BLOCK_X output columns and
// TYPED_BOX_TILE_ROWS output rows.
//   1. Each warp takes every TYPED_BLOCK_Y-th of the tile's TILE_ROWS + 2R window rows: its
//      lanes stage the row's TYPED_BLOCK_X + 2R pixels (one texture read each, clamp-to-edge),
//      then each lane sums its 2R + 1 staged values (u32, or f64 for floats) and keeps the
//      row sum in `rows` (the stored type: u32, or f32 as the two-pass plane keeps it).
//   2. Each thread slides its column's vertical window over TILE_ROWS / BLOCK_Y rows: the
//      first window summed, then one add and one subtract a row. Integers: the exactly
//      rounded mean floor((2 sum + n) / 2n), n = (2R+1)^2, by one multiply-high,
//      ((2 sum + n) * magic) >> shift, exact for every 2 sum + n < 2^28 (the launcher's
//      box_rounding; texels read and written as integers); floats: sum / n in f64 stored by
//      sample_from_f64 (as box_cols_typed). Alpha from the source.
// Shared memory (dynamic): rows [TILE_ROWS + 2R][colours][BLOCK_X] then the warps' staging
// [BLOCK_Y][colours][BLOCK_X + 2R], 4 bytes each (box_tile_shared_bytes in the launcher):
// consecutive lanes touch consecutive words, so no bank conflicts.
// grid (ceil(W / BLOCK_X), ceil(H / TILE_ROWS)), block (BLOCK_X, BLOCK_Y).
template <typename T, int C>
__device__ __forceinline__ void box_tile_typed(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                               int width, int height, int radius,
                                               unsigned int magic, int shift)
{
    constexpr bool INTEGER = !BoxSums<T>::floating;
    typedef typename BoxSums<T>::row S;
    typedef typename BoxSums<T>::stored P;
    const int CC = Colour<C>::count;
    const int BX = TYPED_BLOCK_X, BY = TYPED_BLOCK_Y, ROWS = TYPED_BOX_TILE_ROWS;
    static_assert(TYPED_BOX_TILE_ROWS % TYPED_BLOCK_Y == 0, "a thread's rows divide the tile's");
    extern __shared__ unsigned int tile_words[];
    P* rows = (P*)tile_words;                     // [ROWS + 2R][CC][BX]
    const int window_rows = ROWS + 2 * radius;
    const int staged = BX + 2 * radius;
    P* stage = rows + window_rows * CC * BX + threadIdx.y * CC * staged;  // this warp's
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x0 = blockIdx.x * BX, y0 = blockIdx.y * ROWS;

    for (int r = ty; r < window_rows; r += BY) {
        const int y = y0 - radius + r;
        for (int i = tx; i < staged; i += BX) {
            if constexpr (INTEGER) {
                const typename Texel<T, C>::type v = load_texel<T, C>(src, x0 - radius + i, y);
#pragma unroll
                for (int c = 0; c < CC; ++c) stage[c * staged + i] = texel_channel(v, c);
            } else {
                const float4 v = load_values<T, C>(src, x0 - radius + i, y);
#pragma unroll
                for (int c = 0; c < CC; ++c) stage[c * staged + i] = channel_of(v, c);
            }
        }
        __syncwarp();
#pragma unroll
        for (int c = 0; c < CC; ++c) {
            S sum = 0;
            for (int k = 0; k <= 2 * radius; ++k) sum += (S)stage[c * staged + tx + k];
            rows[(r * CC + c) * BX + tx] = (P)sum;
        }
        __syncwarp();
    }
    __syncthreads();

    typedef S V;  // (2R + 1)^2 * 65535 < 2^32 for R <= 16: a tile's integer sums fit u32
    static_assert(TYPED_BOX_TILE_RADIUS <= 16, "u32 column sums");
    const int x = x0 + tx;
    const int first = ty * (ROWS / BY);
    const unsigned int n_int = (unsigned int)((2 * radius + 1) * (2 * radius + 1));
    const double n = (double)n_int;
    V sum[3] = {0, 0, 0};
    for (int k = 0; k <= 2 * radius; ++k) {
#pragma unroll
        for (int c = 0; c < CC; ++c) sum[c] += (V)rows[((first + k) * CC + c) * BX + tx];
    }
#pragma unroll 2
    for (int j = 0; j < ROWS / BY; ++j) {
        const int y = y0 + first + j;
        if (x < width && y < height) {
            if constexpr (INTEGER) {
                T q[3];
#pragma unroll
                for (int c = 0; c < CC; ++c)
                    q[c] = (T)(((unsigned long long)(2u * sum[c] + n_int) * magic) >> shift);
                if constexpr (C == 1) {
                    write_texel(dst, x, y, q[0]);
                } else {
                    const typename Texel<T, C>::type source = load_texel<T, C>(src, x, y);
                    write_texel(dst, x, y, typename Texel<T, C>::type{q[0], q[1], q[2], source.w});
                }
            } else {
                const float4 source = load_values<T, C>(src, x, y);
                float4 out = source;
#pragma unroll
                for (int c = 0; c < CC; ++c)
                    set_channel(out, c, sample_from_f64<T>(__ddiv_rn((double)sum[c], n)));
                store_values<T, C>(dst, x, y, out, source);
            }
        }
        if (j + 1 < ROWS / BY) {
#pragma unroll
            for (int c = 0; c < CC; ++c)
                sum[c] = sum[c] + (V)rows[((first + j + 1 + 2 * radius) * CC + c) * BX + tx] -
                         (V)rows[((first + j) * CC + c) * BX + tx];
        }
    }
}

#define BOX_TYPED(suffix, T, C)                                                              \
    extern "C" __global__ void __launch_bounds__(TYPED_BLOCK_X * TYPED_BLOCK_Y)              \
    box_rows_##suffix(cudaTextureObject_t src, void* plane, int width, int height, int radius) \
    {                                                                                        \
        box_rows_typed<T, C>(src, plane, width, height, radius);                             \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(TYPED_BLOCK_X * TYPED_BLOCK_Y)              \
    box_tile_##suffix(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, \
                      int radius, unsigned int magic, int shift)                             \
    {                                                                                        \
        box_tile_typed<T, C>(src, dst, width, height, radius, magic, shift);                 \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(TYPED_BLOCK_X * TYPED_BLOCK_Y)              \
    box_cols_##suffix(cudaTextureObject_t src, const void* plane, cudaSurfaceObject_t dst,   \
                      int width, int height, int radius)                                     \
    {                                                                                        \
        box_cols_typed<T, C>(src, plane, dst, width, height, radius);                        \
    }
TYPED_FORMATS(BOX_TYPED)
