// median.cu: per R, G and B channel the median of the (2R+1)^2 window (1 <= R <= 7),
// clamp-to-edge borders, alpha of the centre pixel kept. Exact.
//
// median (any radius): each block loads its MEDIAN_BLOCK^2 outputs' window, a
// (MEDIAN_BLOCK + 2R)^2 tile of RGBA8 pixels, into dynamic shared memory through the
// clamp-addressed texture. Each thread then finds its median by a bitwise radix select run on
// the three channels at once with byte-wise SIMD: for bit 7 down to 0 it counts, per byte
// lane, the window values below the candidate (result | bit) with __vcmpltu4; a lane keeps
// the bit while that count is at most the rank (n - 1) / 2. Counts fit a byte lane since
// n <= 225. That is 8 * (2R+1)^2 steps of four integer instructions per pixel, no sorting,
// no divergence. Blocks of MEDIAN_BLOCK x MEDIAN_BLOCK threads, one output pixel each;
// dynamic shared memory (MEDIAN_BLOCK + 2R)^2 * 4 bytes.
//
// median3 (R = 1): the median of 9 from sorted columns: with each column of three sorted
// into (lo, mid, hi), the median of the window is the median of (the largest lo, the median
// of the mids, the smallest hi). Channels travel in 16-bit pairs (ChannelPairs) so that one
// VIMNMX.U16x2 compares two at once. The layout is Sobel's (slide_window_strip, common.cuh):
// each warp slides down a strip of MEDIAN3_OUT = 30 output columns and MEDIAN3_SEGMENT rows,
// lane l reading column x0 - 1 + l (lanes 0 and 31 are the apron); a lane sorts its own
// column, the neighbours' sorted columns come by shuffle, and the three rows stay in
// registers as the warp moves down, MEDIAN3_STEP rows read ahead.
// block = (32, MEDIAN3_WARPS), grid = (ceil(W / (MEDIAN3_OUT * MEDIAN3_WARPS)),
// ceil(H / MEDIAN3_SEGMENT)).
//
// median5 (R = 2): the median of 25 by a pruned merging network. Each lane owns two
// adjacent columns xb = x0 - 2 + 2l and xb + 1, and a word holds one channel of both in its
// 16-bit halves (R, G and B words: three words for two pixels, no alpha half compared); the
// low halves run the window centred on xb, the high halves the one centred on xb + 1, with
// the same network on both at once. Per word: sort the lane's column pair of five rows (9
// compare-exchanges), form the pair one column to the right (xb + 1 | xb + 2) by a byte
// permute with lane l + 1's words and merge the two (Batcher's odd-even merge, 10 values),
// take lane l - 1's merged pair (columns xb - 2, xb - 1 for the low halves) and lane l + 1's
// sorted column (xb + 2) by shuffle, merge the two pairs only as far as ranks 7..12 of their
// 20 values (the others cannot be the median of 25: each has more than 12 values on one
// side), and select rank 12 of those six and the fifth column as the minimum over i + j = 6
// of max(d_i, e_j). The network is checked on all 2^25 inputs of zeros and ones (which
// proves it for every input, being made of min and max only) by scripts/median5_network.py.
// Lanes 0 and 31 are the apron: a warp writes MEDIAN5_OUT = 60 columns, sliding down
// MEDIAN5_SEGMENT rows, MEDIAN5_STEP rows read ahead. 126 16-bit SIMD min/max and 22
// shuffles a pixel (167 and 40 when each lane held one column). The network runs on the ALU pipe
// whichever comparison it uses (half-float HMNMX2 too, measured), and the kernel
// is bound by that pipe.
// block = (32, MEDIAN5_WARPS), grid = (ceil(W / (MEDIAN5_OUT * MEDIAN5_WARPS)),
// ceil(H / MEDIAN5_SEGMENT)).
#include "common.cuh"
#include "cudalens_constants.h"

__device__ __forceinline__ unsigned int pack(uchar4 p)
{
    return (unsigned int)p.x | ((unsigned int)p.y << 8) | ((unsigned int)p.z << 16);
}

extern "C" __global__ void __launch_bounds__(MEDIAN_BLOCK * MEDIAN_BLOCK)
median(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, int radius)
{
    extern __shared__ unsigned int tile[];
    const int side = MEDIAN_BLOCK + 2 * radius;
    const int x0 = blockIdx.x * MEDIAN_BLOCK - radius;
    const int y0 = blockIdx.y * MEDIAN_BLOCK - radius;
    const int tid = threadIdx.y * MEDIAN_BLOCK + threadIdx.x;
    for (int i = tid; i < side * side; i += MEDIAN_BLOCK * MEDIAN_BLOCK) {
        const int ty = i / side;
        tile[i] = pack(pixel_at(src, x0 + i - ty * side, y0 + ty));
    }
    __syncthreads();

    const int x = blockIdx.x * MEDIAN_BLOCK + threadIdx.x;
    const int y = blockIdx.y * MEDIAN_BLOCK + threadIdx.y;
    if (x >= width || y >= height) return;

    const int n = (2 * radius + 1) * (2 * radius + 1);
    const unsigned int rank = 0x00010101u * (unsigned int)((n - 1) / 2);
    unsigned int result = 0u;
    for (int bit = 7; bit >= 0; --bit) {
        const unsigned int candidate = result | (0x00010101u << bit);
        unsigned int below = 0u;
        for (int dy = 0; dy <= 2 * radius; ++dy) {
            const unsigned int* row = &tile[(threadIdx.y + dy) * side + threadIdx.x];
            for (int dx = 0; dx <= 2 * radius; ++dx)
                below = __vadd4(below, __vcmpltu4(row[dx], candidate) & 0x00010101u);
        }
        // Lanes whose count is at most the rank keep the bit.
        const unsigned int keep = __vcmpleu4(below, rank);
        result = (candidate & keep) | (result & ~keep);
    }
    const uchar4 centre = pixel_at(src, x, y);
    store_pixel(dst, x, y,
                make_uchar4(result & 0xFFu, (result >> 8) & 0xFFu, (result >> 16) & 0xFFu,
                            centre.w));
}

// Channel pairs compared as 16-bit unsigned integers (VIMNMX.U16x2). The 5x5 network takes
// its comparison as a type (encode, min, max) so that the kernel-variant sweep can try
// others.
struct U16Pairs {
    static __device__ __forceinline__ unsigned int encode(unsigned int w) { return w; }
    static __device__ __forceinline__ unsigned int min(unsigned int a, unsigned int b) { return __vminu2(a, b); }
    static __device__ __forceinline__ unsigned int max(unsigned int a, unsigned int b) { return __vmaxu2(a, b); }
};

// Whole 32-bit keys compared as one value (the typed kernels' float keys).
struct U32Keys {
    static __device__ __forceinline__ unsigned int encode(unsigned int w) { return w; }
    static __device__ __forceinline__ unsigned int min(unsigned int a, unsigned int b) { return ::min(a, b); }
    static __device__ __forceinline__ unsigned int max(unsigned int a, unsigned int b) { return ::max(a, b); }
};

// Compare-exchange of both halves of two words: a gets the smaller, b the larger.
template <typename Pairs>
__device__ __forceinline__ void compare_exchange(unsigned int& a, unsigned int& b)
{
    const unsigned int lo = Pairs::min(a, b);
    b = Pairs::max(a, b);
    a = lo;
}

template <typename Pairs = U16Pairs>
__device__ __forceinline__ unsigned int median3_pairs(unsigned int a, unsigned int b, unsigned int c)
{
    return Pairs::max(Pairs::min(a, b), Pairs::min(Pairs::max(a, b), c));
}

// One word of a column of three, sorted: lo <= mid <= hi in each 16-bit lane.
struct SortedColumn {
    unsigned int lo, mid, hi;
};

template <typename Pairs>
__device__ __forceinline__ SortedColumn sorted_column(unsigned int a, unsigned int b, unsigned int c)
{
    compare_exchange<Pairs>(a, b);
    compare_exchange<Pairs>(b, c);
    compare_exchange<Pairs>(a, b);
    return SortedColumn{a, b, c};
}

// The median of the 3x3 window of one word (two channels in U16Pairs, one key in U32Keys)
// around this lane's column, from the rows above, at and below.
template <typename Pairs = U16Pairs>
__device__ __forceinline__ unsigned int median9_pairs(unsigned int up, unsigned int at, unsigned int down)
{
    const SortedColumn c = sorted_column<Pairs>(up, at, down);
    const unsigned int m = 0xffffffffu;
    const SortedColumn l{__shfl_up_sync(m, c.lo, 1), __shfl_up_sync(m, c.mid, 1), __shfl_up_sync(m, c.hi, 1)};
    const SortedColumn r{__shfl_down_sync(m, c.lo, 1), __shfl_down_sync(m, c.mid, 1),
                         __shfl_down_sync(m, c.hi, 1)};
    const unsigned int lows = Pairs::max(Pairs::max(l.lo, c.lo), r.lo);
    const unsigned int highs = Pairs::min(Pairs::min(l.hi, c.hi), r.hi);
    return median3_pairs<Pairs>(lows, median3_pairs<Pairs>(l.mid, c.mid, r.mid), highs);
}

// The output word: bytes R (rb 0), G (ga 0), B (rb 2) of the window's medians, then the
// centre's alpha.
__device__ __forceinline__ unsigned int rgb_medians_with_alpha(unsigned int rb, unsigned int ga,
                                                               unsigned int alpha)
{
    return __byte_perm(__byte_perm(rb, ga, 0x0240), alpha, 0x4210);
}

__device__ __forceinline__ unsigned int median9_pixel(const ChannelPairs* w, unsigned int alpha)
{
    return rgb_medians_with_alpha(median9_pairs(w[0].rb, w[1].rb, w[2].rb),
                                  median9_pairs(w[0].ga, w[1].ga, w[2].ga), alpha);
}

template <int WARPS, int SEGMENT, int STEP>
__device__ __forceinline__ void median3_strip(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                              int width, int height)
{
    slide_window_strip<1, WARPS, SEGMENT, STEP, MEDIAN3_OUT>(
        src, dst, width, height, [](uint4 p) { return channel_pairs(p); },
        [](const ChannelPairs* w, unsigned int alpha) { return median9_pixel(w, alpha); });
}

extern "C" __global__ void __launch_bounds__(32 * MEDIAN3_WARPS)
median3(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height)
{
    median3_strip<MEDIAN3_WARPS, MEDIAN3_SEGMENT, MEDIAN3_STEP>(src, dst, width, height);
}

// Batcher's odd-even merge of sorted a[0], a[SA], ... (M values) and b[0], b[SB], ... (N
// values) into z[0..M+N): the odd-indexed and the even-indexed values merged apart, then one
// compare-exchange per adjacent pair. Fully unrolled; outputs nobody reads are dropped by
// the compiler with the min or max that made them.
template <typename Pairs, int M, int SA, int N, int SB>
__device__ __forceinline__ void merge_sorted(const unsigned int* a, const unsigned int* b, unsigned int* z)
{
    if constexpr (M == 0) {
#pragma unroll
        for (int i = 0; i < N; ++i) z[i] = b[i * SB];
    } else if constexpr (N == 0) {
#pragma unroll
        for (int i = 0; i < M; ++i) z[i] = a[i * SA];
    } else if constexpr (M == 1 && N == 1) {
        z[0] = a[0];
        z[1] = b[0];
        compare_exchange<Pairs>(z[0], z[1]);
    } else {
        constexpr int V = (M + 1) / 2 + (N + 1) / 2, W = M / 2 + N / 2;
        unsigned int v[V], w[W];
        merge_sorted<Pairs, (M + 1) / 2, 2 * SA, (N + 1) / 2, 2 * SB>(a, b, v);
        merge_sorted<Pairs, M / 2, 2 * SA, N / 2, 2 * SB>(a + SA, b + SB, w);
        z[0] = v[0];
        constexpr int PAIRS = W < V - 1 ? W : V - 1;
#pragma unroll
        for (int i = 0; i < PAIRS; ++i) {
            z[1 + 2 * i] = Pairs::min(w[i], v[i + 1]);
            z[2 + 2 * i] = Pairs::max(w[i], v[i + 1]);
        }
#pragma unroll
        for (int i = PAIRS; i < W; ++i) z[1 + PAIRS + i] = w[i];
#pragma unroll
        for (int i = PAIRS + 1; i < V; ++i) z[W + i] = v[i];
    }
}

// A column of five sorted in place (the 9 compare-exchanges of an optimal network).
template <typename Pairs>
__device__ __forceinline__ void sort5(unsigned int (&c)[5])
{
    constexpr int net[9][2] = {{0, 1}, {3, 4}, {2, 4}, {2, 3}, {0, 3}, {0, 2}, {1, 4}, {1, 3}, {1, 2}};
#pragma unroll
    for (int k = 0; k < 9; ++k) compare_exchange<Pairs>(c[net[k][0]], c[net[k][1]]);
}

// The median of 25 from the sorted pairs of columns (l - 2, l - 1) and (l, l + 1) and the
// sorted column l + 2 of one word: the pairs merged only as far as ranks 7..12, then rank 12
// of the 25 is rank 5 (from 0) of d[7..12] and far: the minimum over i + j = 6 (i, j counted
// from 1, far_0 = -inf) of max(d_i, far_j).
template <typename Pairs>
__device__ __forceinline__ unsigned int median_of_pairs_and_column(const unsigned int (&left_pair)[10],
                                                                   const unsigned int (&pair)[10],
                                                                   const unsigned int (&far)[5])
{
    unsigned int d[20];
    merge_sorted<Pairs, 10, 1, 10, 1>(left_pair, pair, d);  // only d[7..12] are used
    unsigned int median = d[12];
#pragma unroll
    for (int i = 0; i < 5; ++i) median = Pairs::min(median, Pairs::max(d[7 + i], far[4 - i]));
    return median;
}

// The 5x5 medians of one channel at this lane's two columns xb (low halves of the words)
// and xb + 1 (high halves), from its five rows (top to bottom) in Pairs' encoding: the column
// pair sorted, the pair of columns one to the right (xb + 1 | xb + 2) made by a byte
// permute with lane + 1's words, the two merged, lane - 1's merged pair (columns xb - 2 and
// xb - 1 for the low halves) and lane + 1's sorted column (xb + 2) by shuffle. Every lane of
// the warp must call it (shuffles).
template <typename Pairs>
__device__ __forceinline__ unsigned int median25_two_columns(unsigned int (&c)[5])
{
    const unsigned int m = 0xffffffffu;
    sort5<Pairs>(c);
    unsigned int far[5], right[5], pair[10], left_pair[10];
#pragma unroll
    for (int i = 0; i < 5; ++i) {
        far[i] = __shfl_down_sync(m, c[i], 1);
        right[i] = __byte_perm(c[i], far[i], 0x5432);
    }
    merge_sorted<Pairs, 5, 1, 5, 1>(c, right, pair);
#pragma unroll
    for (int i = 0; i < 10; ++i) left_pair[i] = __shfl_up_sync(m, pair[i], 1);
    return median_of_pairs_and_column<Pairs>(left_pair, pair, far);
}

// One row of a lane's two columns: per channel a word with column xb in the low half and
// xb + 1 in the high half (alpha too, passed through).
struct TwoColumnRow {
    unsigned int r, g, b, alpha;
};

__device__ __forceinline__ TwoColumnRow two_column_row(uint4 lo, uint4 hi)
{
    return TwoColumnRow{lo.x | (hi.x << 16), lo.y | (hi.y << 16), lo.z | (hi.z << 16), lo.w | (hi.w << 16)};
}

template <int WARPS, int SEGMENT, int STEP, typename Pairs>
__device__ __forceinline__ void median5_strip(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width,
                                              int height)
{
    const int lane = threadIdx.x;
    const int x0 = (blockIdx.x * WARPS + threadIdx.y) * MEDIAN5_OUT;
    if (x0 >= width) return;
    const int xb = x0 - 2 + 2 * lane;
    const int x_out = lane >= 1 && lane <= 30 ? xb : -2;  // lanes 0 and 31: apron, no stores
    const int y0 = blockIdx.y * SEGMENT;
    const int y1 = min(y0 + SEGMENT, height);
    TwoColumnRow win[STEP + 4];
#pragma unroll
    for (int r = 0; r < 4; ++r) win[r] = two_column_row(texel_at(src, xb, y0 - 2 + r), texel_at(src, xb + 1, y0 - 2 + r));
    for (int y = y0; y < y1; y += STEP) {
        uint4 lo[STEP], hi[STEP];
#pragma unroll
        for (int r = 0; r < STEP; ++r) {
            lo[r] = texel_at(src, xb, y + 2 + r);
            hi[r] = texel_at(src, xb + 1, y + 2 + r);
        }
#pragma unroll
        for (int r = 0; r < STEP; ++r) win[4 + r] = two_column_row(lo[r], hi[r]);
#pragma unroll
        for (int r = 0; r < STEP; ++r) {
            unsigned int rw[5], gw[5], bw[5];
#pragma unroll
            for (int k = 0; k < 5; ++k) {
                rw[k] = Pairs::encode(win[r + k].r);
                gw[k] = Pairs::encode(win[r + k].g);
                bw[k] = Pairs::encode(win[r + k].b);
            }
            const unsigned int mr = median25_two_columns<Pairs>(rw);
            const unsigned int mg = median25_two_columns<Pairs>(gw);
            const unsigned int mb = median25_two_columns<Pairs>(bw);
            const unsigned int a = win[r + 2].alpha;
            const unsigned int rg = __byte_perm(mr, mg, 0x6240);  // R0 G0 R1 G1
            const unsigned int ba = __byte_perm(mb, a, 0x6240);   // B0 A0 B1 A1
            store_word_clipped(dst, x_out, y + r, __byte_perm(rg, ba, 0x5410));
            store_word_clipped(dst, x_out + 1, y + r, __byte_perm(rg, ba, 0x7632));
        }
#pragma unroll
        for (int r = 0; r < 4; ++r) win[r] = win[STEP + r];
    }
}

extern "C" __global__ void __launch_bounds__(32 * MEDIAN5_WARPS)
median5(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height)
{
    median5_strip<MEDIAN5_WARPS, MEDIAN5_SEGMENT, MEDIAN5_STEP, U16Pairs>(src, dst, width, height);
}

// Every other stored format (typed.cuh), the layout of `median`: each block loads its
// MEDIAN_BLOCK^2 outputs' (MEDIAN_BLOCK + 2R)^2 window into dynamic shared memory as order
// keys, one plane per colour channel (integers: the value; floats: float_key, the order of
// f32::total_cmp, so NaN sorts above every number as in the reference), and each thread
// selects rank (n - 1) / 2 of its window per channel: R = 1 from sorted columns (as median3;
// texels up to TYPED_STRIP_MAX_TEXEL_BYTES run median3's strips instead, median3_typed);
// R = 2 by median5's pruned merging network on whole keys (five columns sorted, columns
// (x-2, x-1) and (x, x+1) merged in pairs, the pairs merged as far as ranks 7..12, then the
// fifth column: 96 compare-exchanges and 10 min or max, where a radix select takes 16 or 32
// steps of 25 compares; keys of 8 or 16 bits run two channels a word, 16-bit halves); larger R a bitwise radix select: for each key bit
// from the top, the candidate result | bit is kept while at most the rank values lie below
// it (8, 16 or 32 steps of n compares). Dynamic shared memory: channels *
// (MEDIAN_BLOCK + 2R)^2 * 4 bytes.
#include "typed.cuh"

template <typename T> struct MedianKey {
    static const int bits = sizeof(T) * 8;
    static __device__ __forceinline__ unsigned int of(float v) { return (unsigned int)v; }
    static __device__ __forceinline__ float value(unsigned int k) { return (float)k; }
};
template <> struct MedianKey<float> {
    static const int bits = 32;
    static __device__ __forceinline__ unsigned int of(float v) { return float_key(v); }
    static __device__ __forceinline__ float value(unsigned int k) { return float_of_key(k); }
};

// The median of 25 words by median5's network, in Pairs' comparison (whole keys, or two
// 16-bit keys a word): word(i, j) is column i, row j of the window; the columns sorted,
// columns 0-1 and 2-3 merged in pairs, then the pairs and column 4.
template <typename Pairs, typename Word>
__device__ __forceinline__ unsigned int median25_words(Word word)
{
    unsigned int col[5][5];
#pragma unroll
    for (int i = 0; i < 5; ++i) {
#pragma unroll
        for (int j = 0; j < 5; ++j) col[i][j] = word(i, j);
        sort5<Pairs>(col[i]);
    }
    unsigned int left[10], pair[10];
    merge_sorted<Pairs, 5, 1, 5, 1>(col[0], col[1], left);
    merge_sorted<Pairs, 5, 1, 5, 1>(col[2], col[3], pair);
    return median_of_pairs_and_column<Pairs>(left, pair, col[4]);
}

// The same for a d x d window of any size, read from `plane` at each bit.
template <int BITS>
__device__ __forceinline__ unsigned int radix_select_plane(const unsigned int* plane, int side,
                                                           int d, unsigned int rank)
{
    unsigned int result = 0;
    for (int bit = BITS - 1; bit >= 0; --bit) {
        const unsigned int candidate = result | (1u << bit);
        unsigned int below = 0;
        for (int j = 0; j < d; ++j)
            for (int i = 0; i < d; ++i) below += plane[j * side + i] < candidate;
        if (below <= rank) result = candidate;
    }
    return result;
}

// The median of the 3 x 3 keys at `plane` from sorted columns: with each column sorted into
// (lo, mid, hi), the median of the nine is the median of (the largest lo, the median of the
// mids, the smallest hi), as median3 does for RGBA8 (median_typed's R = 1, texels wider than
// TYPED_STRIP_MAX_TEXEL_BYTES).
__device__ __forceinline__ unsigned int median9_keys(const unsigned int* plane, int side)
{
    unsigned int lo[3], mid[3], hi[3];
#pragma unroll
    for (int i = 0; i < 3; ++i) {
        const unsigned int a = plane[i], b = plane[side + i], c = plane[2 * side + i];
        const unsigned int ab_lo = min(a, b), ab_hi = max(a, b);
        lo[i] = min(ab_lo, c);
        hi[i] = max(ab_hi, c);
        mid[i] = max(ab_lo, min(ab_hi, c));
    }
    const unsigned int l = max(max(lo[0], lo[1]), lo[2]);
    const unsigned int h = min(min(hi[0], hi[1]), hi[2]);
    const unsigned int m = max(min(mid[0], mid[1]), min(max(mid[0], mid[1]), mid[2]));
    return max(min(l, m), min(max(l, m), h));
}

// The 3x3 median of texels up to TYPED_STRIP_MAX_TEXEL_BYTES: median3's strip walker
// (TypedStrip) on the format's keys. Keys of at most 16 bits travel two channels a word in U16Pairs (R | G
// << 16, then B; grey alone), float keys one a word in U32Keys; each word runs
// median9_pairs. Same block and grid as median3.
template <typename T, int C> struct Median3Keys {
    static const int CC = Colour<C>::count;
    static const bool pairs = MedianKey<T>::bits <= 16;
    static const int words = pairs ? (CC + 1) / 2 : CC;
    struct Row {
        unsigned int w[words];
    };
    static __device__ __forceinline__ Row row(float4 v)
    {
        Row r;
#pragma unroll
        for (int i = 0; i < words; ++i) {
            if (pairs) {
                const unsigned int lo = MedianKey<T>::of(channel_of(v, 2 * i));
                const unsigned int hi = 2 * i + 1 < CC ? MedianKey<T>::of(channel_of(v, 2 * i + 1)) : 0u;
                r.w[i] = lo | (hi << 16);
            } else {
                r.w[i] = MedianKey<T>::of(channel_of(v, i));
            }
        }
        return r;
    }
    static __device__ __forceinline__ float4 median(const Row* w)
    {
        float4 out = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
        for (int i = 0; i < words; ++i) {
            if (pairs) {
                const unsigned int m = median9_pairs<U16Pairs>(w[0].w[i], w[1].w[i], w[2].w[i]);
                set_channel(out, 2 * i, MedianKey<T>::value(m & 0xffffu));
                if (2 * i + 1 < CC) set_channel(out, 2 * i + 1, MedianKey<T>::value(m >> 16));
            } else {
                const unsigned int m = median9_pairs<U32Keys>(w[0].w[i], w[1].w[i], w[2].w[i]);
                set_channel(out, i, MedianKey<T>::value(m));
            }
        }
        return out;
    }
};

template <typename T, int C>
__device__ __forceinline__ void median3_typed(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                              int width, int height)
{
    typedef Median3Keys<T, C> K;
    slide_window_strip<1, MEDIAN3_WARPS, MEDIAN3_SEGMENT, MEDIAN3_STEP, MEDIAN3_OUT, TypedStrip<T, C>>(
        src, dst, width, height, [](float4 v) { return K::row(v); },
        [](const typename K::Row* w, float) { return K::median(w); });
}

// R: 1 or 2 for the kernels built for that radius (median3_<format> where texels are
// wider than TYPED_STRIP_MAX_TEXEL_BYTES, median5_<format>), 0 for any radius
// (median_<format>): a kernel of its own each, so that the 5x5 window's registers do not
// cost the larger windows occupancy.
template <typename T, int C, int R>
__device__ __forceinline__ void median_typed(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                             int width, int height, int radius)
{
    extern __shared__ unsigned int keys[];
    const int CC = Colour<C>::count;
    const int side = MEDIAN_BLOCK + 2 * radius, area = side * side;
    const int x0 = blockIdx.x * MEDIAN_BLOCK - radius;
    const int y0 = blockIdx.y * MEDIAN_BLOCK - radius;
    const int tid = threadIdx.y * MEDIAN_BLOCK + threadIdx.x;
    for (int i = tid; i < area; i += MEDIAN_BLOCK * MEDIAN_BLOCK) {
        const float4 v = load_values<T, C>(src, x0 + i % side, y0 + i / side);
#pragma unroll
        for (int c = 0; c < CC; ++c) keys[c * area + i] = MedianKey<T>::of(channel_of(v, c));
    }
    __syncthreads();
    const int x = blockIdx.x * MEDIAN_BLOCK + threadIdx.x;
    const int y = blockIdx.y * MEDIAN_BLOCK + threadIdx.y;
    if (x >= width || y >= height) return;
    const int d = 2 * radius + 1;
    const unsigned int rank = (unsigned int)(d * d - 1) / 2;
    const float4 source = load_values<T, C>(src, x, y);
    float4 out = source;
    const int at = threadIdx.y * side + threadIdx.x;
    // Keys of at most 16 bits: the first two channels share the 5x5 network, one in each
    // half of a word (median5's U16Pairs).
    constexpr int FIRST = (R == 2 && MedianKey<T>::bits <= 16 && CC >= 2) ? 2 : 0;
    if constexpr (FIRST == 2) {
        const unsigned int *p0 = keys + at, *p1 = keys + area + at;
        const unsigned int two = median25_words<U16Pairs>(
            [&](int i, int j) { return p0[j * side + i] | (p1[j * side + i] << 16); });
        set_channel(out, 0, MedianKey<T>::value(two & 0xffffu));
        set_channel(out, 1, MedianKey<T>::value(two >> 16));
    }
#pragma unroll
    for (int c = FIRST; c < CC; ++c) {
        const unsigned int* plane = keys + c * area + at;
        unsigned int result;
        if (R == 1) {
            result = median9_keys(plane, side);
        } else if (R == 2) {
            result = median25_words<U32Keys>([&](int i, int j) { return plane[j * side + i]; });
        } else {
            result = radix_select_plane<MedianKey<T>::bits>(plane, side, d, rank);
        }
        set_channel(out, c, MedianKey<T>::value(result));
    }
    store_values<T, C>(dst, x, y, out, source);
}

#define MEDIAN_TYPED(suffix, T, C)                                                           \
    extern "C" __global__ void __launch_bounds__(MEDIAN_BLOCK * MEDIAN_BLOCK)                \
    median_##suffix(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height, \
                    int radius)                                                              \
    {                                                                                        \
        median_typed<T, C, 0>(src, dst, width, height, radius);                              \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(MEDIAN_BLOCK * MEDIAN_BLOCK)                \
    median3_##suffix(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height) \
    {                                                                                        \
        if constexpr (SlidesStrips<T, C>::value)                                             \
            median3_typed<T, C>(src, dst, width, height);                                    \
        else                                                                                 \
            median_typed<T, C, 1>(src, dst, width, height, 1);                               \
    }                                                                                        \
    extern "C" __global__ void __launch_bounds__(MEDIAN_BLOCK * MEDIAN_BLOCK)                \
    median5_##suffix(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width,            \
                     int height, int radius)                                                 \
    {                                                                                        \
        median_typed<T, C, 2>(src, dst, width, height, radius);                              \
    }
TYPED_FORMATS(MEDIAN_TYPED)
