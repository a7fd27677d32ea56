// box_filter.cu: exact box mean of the (2R+1)^2 window, one pass, running sums both ways.
//
// out = (sum + n/2) / n with n = (2R+1)^2 per RGB channel (integer sums, so exact; the
// division is a multiply-high, see Divider in common.cuh), alpha unchanged, clamp-to-edge
// borders from the texture addressing.
//
// A block owns a strip of `strip` output columns and slides down `segment` rows of it.
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

#define BOX_COLUMNS_PER_THREAD 4
#define BOX_MIN_SEGMENT 16

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
