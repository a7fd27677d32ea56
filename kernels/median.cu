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
// VIMNMX.U16x2 compares two at once. The layout is Sobel's (slide_3x3_strip, common.cuh):
// each warp slides down a strip of MEDIAN3_OUT = 30 output columns and MEDIAN3_SEGMENT rows,
// lane l reading column x0 - 1 + l (lanes 0 and 31 are the apron); a lane sorts its own
// column, the neighbours' sorted columns come by shuffle, and the three rows stay in
// registers as the warp moves down, MEDIAN3_STEP rows read ahead.
// block = (32, MEDIAN3_WARPS), grid = (ceil(W / (MEDIAN3_OUT * MEDIAN3_WARPS)),
// ceil(H / MEDIAN3_SEGMENT)).
#include "common.cuh"

#define MEDIAN_BLOCK 16
#define MEDIAN_MAX_RADIUS 7
#define MEDIAN3_WARPS 4
#define MEDIAN3_SEGMENT 16
#define MEDIAN3_STEP 4
#define MEDIAN3_OUT 30

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

// Compare-exchange of both 16-bit lanes of two words: a gets the smaller, b the larger.
__device__ __forceinline__ void order_pairs(unsigned int& a, unsigned int& b)
{
    const unsigned int lo = __vminu2(a, b);
    b = __vmaxu2(a, b);
    a = lo;
}

__device__ __forceinline__ unsigned int median3_pairs(unsigned int a, unsigned int b, unsigned int c)
{
    return __vmaxu2(__vminu2(a, b), __vminu2(__vmaxu2(a, b), c));
}

// One word of a column of three, sorted: lo <= mid <= hi in each 16-bit lane.
struct SortedColumn {
    unsigned int lo, mid, hi;
};

__device__ __forceinline__ SortedColumn sorted_column(unsigned int a, unsigned int b, unsigned int c)
{
    order_pairs(a, b);
    order_pairs(b, c);
    order_pairs(a, b);
    return SortedColumn{a, b, c};
}

// The median of the 3x3 window of one word (two channels) around this lane's column, from
// the rows above, at and below.
__device__ __forceinline__ unsigned int median9_pairs(unsigned int up, unsigned int at, unsigned int down)
{
    const SortedColumn c = sorted_column(up, at, down);
    const unsigned int m = 0xffffffffu;
    const SortedColumn l{__shfl_up_sync(m, c.lo, 1), __shfl_up_sync(m, c.mid, 1), __shfl_up_sync(m, c.hi, 1)};
    const SortedColumn r{__shfl_down_sync(m, c.lo, 1), __shfl_down_sync(m, c.mid, 1),
                         __shfl_down_sync(m, c.hi, 1)};
    const unsigned int lows = __vmaxu2(__vmaxu2(l.lo, c.lo), r.lo);
    const unsigned int highs = __vminu2(__vminu2(l.hi, c.hi), r.hi);
    return median3_pairs(lows, median3_pairs(l.mid, c.mid, r.mid), highs);
}

// Bytes R (rb 0), G (ga 0), B (rb 2) of the window's medians, then the centre's alpha.
__device__ __forceinline__ unsigned int median9_pixel(ChannelPairs a, ChannelPairs b, ChannelPairs c,
                                                      unsigned int alpha)
{
    const unsigned int rb = median9_pairs(a.rb, b.rb, c.rb);
    const unsigned int ga = median9_pairs(a.ga, b.ga, c.ga);
    return __byte_perm(__byte_perm(rb, ga, 0x0240), alpha, 0x4210);
}

template <int WARPS, int SEGMENT, int STEP>
__device__ __forceinline__ void median3_strip(cudaTextureObject_t src, cudaSurfaceObject_t dst,
                                              int width, int height)
{
    slide_3x3_strip<WARPS, SEGMENT, STEP, MEDIAN3_OUT>(
        src, dst, width, height, [](uint4 p) { return channel_pairs(p); },
        [](ChannelPairs a, ChannelPairs b, ChannelPairs c, unsigned int alpha) { return median9_pixel(a, b, c, alpha); });
}

extern "C" __global__ void __launch_bounds__(32 * MEDIAN3_WARPS)
median3(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height)
{
    median3_strip<MEDIAN3_WARPS, MEDIAN3_SEGMENT, MEDIAN3_STEP>(src, dst, width, height);
}
