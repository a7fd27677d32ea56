"""Which 8-bit histogram kernel design beats NPP by 1.5x: the product kernel against variants.

Research tooling, outside the product: nothing in cudalens imports or builds this file.

cudalens's frame histogram (kernels/histogram.cu: R, G, B and luma bins, 4 x 256 u32,
channel-major, from an RGBA8 image read through a texture object) runs at 0.0259 ms at
3840x2160 on an H200 against NPP's 0.0288 ms (1.11x, docs/performance.md); the goal is 1.5x.
It is believed bound by its shared-memory atomics (four a pixel). This probe measures, in one
process, on the same images:
  baseline      the product kernel verbatim (per-warp 4 x 256 sub-histograms, items of 32
                columns x 8 rows, grid-stride, 4 blocks per SM as src/filters/histogram.rs);
  sweep         the same code with WARPS 4/8/16, ROWS 4/8/16 and 1/2/4/8 blocks per SM;
  per-block     one sub-histogram per block (or per pair of warps): fewer copies, more
                contention;
  spread        C interleaved copies per sub-histogram, word (bin * C + lane % C), so lanes
                that hit one bin hit C different words in C adjacent banks;
  packed16      two 16-bit counters a word (atomicAdd of 1 or 1 << 16): twice the copies in
                the same shared memory, flushed before a counter can wrap;
  lane-bytes    no atomics while counting: each lane owns byte counters (its own bank), plain
                read-add-write, folded into registers every 255 pixels a lane; CH channels a
                block (blockIdx.y picks which), so 4 / CH passes read the image;
  match-chan    warp-aggregated atomics: __match_any_sync per channel, one atomic per distinct
                bin per warp (expected to win on the photo image only);
  match-pixel   __match_any_sync on the whole RGB value, one leader counts its lanes' four bins;
  red           the baseline with red.shared.add (no-return reduction) written in PTX;
  cluster-K     the baseline counting, the merge through distributed shared memory: a cluster
                of K blocks sums its sub-histograms, K times fewer global atomics at the end;
  surface       the baseline's counting on pixels read through a surface object on the same
                array (surf2Dread of one 4-byte element: one register back instead of the four
                of a tex2D<uint4>); the product's output arrays allow surface loads;
  surface-wide  the same reading 2 or 4 pixels per surf2Dread (wider than an array element):
                these may fault, so they run in a last "risky" phase after everything else;
  linear        the baseline reading one packed word a pixel from linear memory, and linear16
                reading 4 pixels a lane with one 16-byte load (LINEAR READS: not the product's
                path; they show what the counting costs when the reads are cheap);
  diag-*        diagnostics, never "best", not checked: diag-reads (the reads and the luma, no
                counting: the floor of each read path: texture, surface, linear uint4),
                diag-atomics (the counting on hashed bins, no reads: the floor of the atomics)
                and diag-nomerge (counting without the global merge);
  NPP           nppiHistogramEven_8u_C4R_Ctx, 257 levels 0..256 a channel, on a pitched linear
                copy of the image, as tools/bench/src/npp/peers.rs calls it;
  copy          cudaMemcpyAsync device to device of the image's bytes: the "% copy" yardstick.
CUB's DeviceHistogram::MultiHistogramEven is not included: it is a host-side dispatch template
(needs nvcc host compilation), and CuPy only exposes a one-channel histogram.

Every variant reads through a texture object on an 8-bit RGBA CUDA array (element read mode,
point filtering, clamp addressing, unnormalised coordinates) with tex2D<uint4>(x + 0.5, y + 0.5)
like the product, except those marked SURFACE or LINEAR READS. Every result is checked
against a numpy reference (luma exactly as kernels/common.cuh computes it) on each image and
on a small odd-sized one; a variant that differs prints MISMATCH and is never "best". NPP is
checked on R, G and B only (its fourth channel counts alpha).

Timing: CUDA events, 5 warm-ups, median and min of --runs. Before each run a one-thread spin
kernel keeps the GPU busy while Python queues the run, so launch overhead never shows up
between the events. Two times a run:
  ms        the kernel alone (bins zeroed by a memset before the start event);
  +zero ms  cudaMemsetAsync of the bins + the kernel: what the product's bench times as its
            "histogram" stage (src/pipeline/frame/cuda_frame.rs: cuMemsetD32Async, launch,
            mark), and what 0.0259 ms is. NPP's call includes its own initialisation.
xNPP = NPP ms / ms, xNPP+z = NPP ms / (+zero ms), xbase = baseline ms / ms, and
% copy = (image bytes / ms) / (2 x image bytes / copy ms), tools/bench/src/peer_bench.rs's
fraction_of_copy with the histogram's bytes = the image's bytes (it only reads). Each case
ends with the fastest exact variant over texture reads (the product's path) and over texture
or surface reads, against the goal 1.5x NPP.

Needs CuPy (and NPP for its column). Usage, on the GPU machine, from the repository root:
    python3 tools/bench/probes/histogram_variants.py --sizes 3840x2160,7680x4320 --out $OUT/hist.txt
Options: --size WxH (default 3840x2160), --sizes WxH,WxH, --runs N (30), --image
random|photo|both (default both), --only FAMILY[,FAMILY] (e.g. baseline,lane-bytes), --out PATH.
"""
import argparse
import ctypes
import ctypes.util
import glob
import os
import statistics
import sys
import time
import traceback

import numpy as np

HIST_BINS = 256
PRODUCT_WARPS = 8  # src/kernel_constants.rs HIST_WARPS
PRODUCT_ROWS = 8  # HIST_ROWS
PRODUCT_BLOCKS_PER_SM = 4  # src/filters/histogram.rs HIST_BLOCKS_PER_SM
WARM_UP = 5
SPIN_US = 200  # the spin kernel before each timed run
EDGE_SIZE = (1037, 533)  # odd size, checked once for every variant (no timing)
BIN_BYTES = 4 * HIST_BINS * 4

# ---------------------------------------------------------------------------------------------
# CUDA sources (NVRTC through cupy.RawModule; no includes).

# Verbatim from kernels/common.cuh (luma_of, nonnegative_to_u8_bits, luma_bin, texel_at,
# div_up) and the constants of src/kernel_constants.rs, so the bins are the product's bit for
# bit; channel_bin is this probe's.
HELPERS = r"""
#define HIST_BINS 256
#define HIST_WARPS 8
#define HIST_ROWS 8

// Rec. 709 luma, evaluated exactly like the Rust reference ops::luma:
// (0.2126 r + 0.7152 g) + 0.0722 b, each product and sum rounded (no FMA contraction).
template <typename P>
__device__ __forceinline__ float luma_of(P p)
{
    float rg = __fadd_rn(__fmul_rn(0.2126f, (float)p.x), __fmul_rn(0.7152f, (float)p.y));
    return __fadd_rn(rg, __fmul_rn(0.0722f, (float)p.z));
}

// to_u8 for 0 <= v, as bits: the byte is the low 8 bits of the result, the rest is garbage.
__device__ __forceinline__ unsigned int nonnegative_to_u8_bits(float v)
{
    const float t = __fadd_rz(fminf(v, 255.0f), 0.5f);
    return __float_as_uint(__fadd_rz(t, 8388608.0f));
}

// The histogram bin of a pixel's luma: to_u8 of a luma, which is never negative.
template <typename P>
__device__ __forceinline__ unsigned int luma_bin(P p)
{
    return nonnegative_to_u8_bits(luma_of(p)) & 0xffu;
}

// Pixel (x, y) with each channel in a 32-bit lane, as the texture unit returns it.
__device__ __forceinline__ uint4 texel_at(cudaTextureObject_t image, int x, int y)
{
    return tex2D<uint4>(image, (float)x + 0.5f, (float)y + 0.5f);
}

__device__ __forceinline__ int div_up(int a, int b)
{
    return (a + b - 1) / b;
}

// Channel c's bin of a texel: 0 R, 1 G, 2 B, 3 luma.
__device__ __forceinline__ unsigned int channel_bin(uint4 p, int c)
{
    return c == 0 ? p.x : (c == 1 ? p.y : (c == 2 ? p.z : luma_bin(p)));
}
"""

DYNAMIC_SHARED = r"""
extern __shared__ __align__(16) unsigned int dyn_smem[];
"""

# kernels/histogram.cu, verbatim but for the #includes.
BASELINE_SRC = r"""
#define HIST_BLOCK (32 * HIST_WARPS)

__device__ __forceinline__ void count_pixel(unsigned int* hist, uint4 p)
{
    atomicAdd(&hist[p.x], 1u);
    atomicAdd(&hist[HIST_BINS + p.y], 1u);
    atomicAdd(&hist[2 * HIST_BINS + p.z], 1u);
    atomicAdd(&hist[3 * HIST_BINS + luma_bin(p)], 1u);
}

template <int WARPS, int ROWS>
__device__ __forceinline__ void histogram_items(cudaTextureObject_t src, int width, int height,
                                                unsigned int* bins)
{
    __shared__ unsigned int sub[WARPS][4 * HIST_BINS];
    unsigned int* flat = &sub[0][0];
    for (int i = threadIdx.x; i < WARPS * 4 * HIST_BINS; i += 32 * WARPS) flat[i] = 0u;
    __syncthreads();

    unsigned int* mine = sub[threadIdx.x / 32];
    const int lane = threadIdx.x & 31;
    const int columns = div_up(width, 32);
    // At most 2048 x 8192 items for a 65536^2 image: int arithmetic is enough.
    const int items = columns * div_up(height, ROWS);
    const int warps = gridDim.x * WARPS;
    for (int item = blockIdx.x * WARPS + threadIdx.x / 32; item < items; item += warps) {
        const int row = item / columns;
        const int x = (item - row * columns) * 32 + lane;
        const int y0 = row * ROWS;
        uint4 p[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) p[r] = texel_at(src, x, y0 + r);
        if (x < width) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
                if (y0 + r < height) count_pixel(mine, p[r]);
        }
    }
    __syncthreads();

    for (int b = threadIdx.x; b < 4 * HIST_BINS; b += 32 * WARPS) {
        unsigned int total = 0u;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) total += sub[w][b];
        if (total) atomicAdd(&bins[b], total);
    }
}

extern "C" __global__ void __launch_bounds__(HIST_BLOCK)
histogram(cudaTextureObject_t src, int width, int height, unsigned int* bins)
{
    histogram_items<HIST_WARPS, HIST_ROWS>(src, width, height, bins);
}
"""

# The sweep, per-block, spread, red and no-merge variants: one template.
GROUPS_SRC = r"""
#define MODE_ATOMIC 0   // atomicAdd, as the product
#define MODE_RED 1      // red.shared.add.u32 in PTX (no returned value)
#define MODE_NOMERGE 2  // diagnostic: atomicAdd, no merge into the global bins

template <int MODE>
__device__ __forceinline__ void add_one(unsigned int* p)
{
    if (MODE == MODE_RED) {
        const unsigned int a = (unsigned int)__cvta_generic_to_shared(p);
        asm volatile("red.shared.add.u32 [%0], %1;" : : "r"(a), "r"(1u) : "memory");
    } else {
        atomicAdd(p, 1u);
    }
}

// GROUPS sub-histograms a block (GROUPS == WARPS: one per warp, the product's layout; 1: one per
// block), each of C interleaved copies: word (chan * 256 + bin) * C + lane % C of the group.
// With GROUPS == WARPS and C == 1 this is the product kernel with dynamic shared memory.
// Dynamic shared memory: GROUPS * C * 4 KB.
template <int WARPS, int ROWS, int GROUPS, int C, int MODE>
__global__ void __launch_bounds__(32 * WARPS)
hist_groups(cudaTextureObject_t src, int width, int height, unsigned int* bins)
{
    static_assert(WARPS % GROUPS == 0, "warps share groups evenly");
    constexpr int GROUP_WORDS = 4 * HIST_BINS * C;
    unsigned int* sub = dyn_smem;
    for (int i = threadIdx.x; i < GROUPS * GROUP_WORDS; i += 32 * WARPS) sub[i] = 0u;
    __syncthreads();

    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    unsigned int* mine = sub + (warp / (WARPS / GROUPS)) * GROUP_WORDS + (lane % C);
    const int columns = div_up(width, 32);
    const int items = columns * div_up(height, ROWS);
    const int warps = gridDim.x * WARPS;
    for (int item = blockIdx.x * WARPS + warp; item < items; item += warps) {
        const int row = item / columns;
        const int x = (item - row * columns) * 32 + lane;
        const int y0 = row * ROWS;
        uint4 p[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) p[r] = texel_at(src, x, y0 + r);
        if (x < width) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
                if (y0 + r < height) {
                    add_one<MODE>(&mine[p[r].x * C]);
                    add_one<MODE>(&mine[(HIST_BINS + p[r].y) * C]);
                    add_one<MODE>(&mine[(2 * HIST_BINS + p[r].z) * C]);
                    add_one<MODE>(&mine[(3 * HIST_BINS + luma_bin(p[r])) * C]);
                }
        }
    }
    __syncthreads();

    if (MODE == MODE_NOMERGE) {
        // One data-dependent store keeps the counting alive; the bins are not the histogram.
        if (sub[threadIdx.x] == 0xffffffffu) bins[0] = 0u;
    } else {
        for (int b = threadIdx.x; b < 4 * HIST_BINS; b += 32 * WARPS) {
            unsigned int total = 0u;
#pragma unroll
            for (int g = 0; g < GROUPS; ++g)
#pragma unroll
                for (int c = 0; c < C; ++c) total += sub[g * GROUP_WORDS + b * C + c];
            if (total) atomicAdd(&bins[b], total);
        }
    }
}
"""

PACKED16_SRC = r"""
// Bin b (= chan * 256 + value) of a copy is the 16-bit half (b & 1) of word b >> 1.
__device__ __forceinline__ void count16(unsigned int* copy, unsigned int b)
{
    atomicAdd(&copy[b >> 1], 1u << ((b & 1u) << 4));
}

// Two 16-bit counters a word: CPW copies a warp (lane % CPW picks one), 2 KB each; dynamic
// shared memory WARPS * CPW * 2 KB. Overflow bound: in one item a lane counts at most ROWS
// pixels, and at most 32 lanes share a copy, so a counter gains at most 32 * ROWS per item;
// the warp flushes its counters into the global bins every FLUSH_ITEMS = 65535 / (32 * ROWS)
// items (255 for ROWS = 8), before any can reach 2^16 (a carry would corrupt its neighbour).
template <int WARPS, int ROWS, int CPW>
__global__ void __launch_bounds__(32 * WARPS)
hist_packed16(cudaTextureObject_t src, int width, int height, unsigned int* bins)
{
    constexpr int COPY_WORDS = 4 * HIST_BINS / 2;
    constexpr int WARP_WORDS = CPW * COPY_WORDS;
    constexpr int FLUSH_ITEMS = 65535 / (32 * ROWS);
    static_assert(FLUSH_ITEMS >= 1, "a flush per item at least");
    unsigned int* sub = dyn_smem;
    for (int i = threadIdx.x; i < WARPS * WARP_WORDS; i += 32 * WARPS) sub[i] = 0u;
    __syncthreads();

    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    unsigned int* own = sub + warp * WARP_WORDS;
    unsigned int* mine = own + (lane % CPW) * COPY_WORDS;
    const int columns = div_up(width, 32);
    const int items = columns * div_up(height, ROWS);
    const int warps = gridDim.x * WARPS;
    int since_flush = 0;  // warp-uniform: the item loop is
    for (int item = blockIdx.x * WARPS + warp; item < items; item += warps) {
        const int row = item / columns;
        const int x = (item - row * columns) * 32 + lane;
        const int y0 = row * ROWS;
        uint4 p[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) p[r] = texel_at(src, x, y0 + r);
        if (x < width) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
                if (y0 + r < height) {
                    count16(mine, p[r].x);
                    count16(mine, HIST_BINS + p[r].y);
                    count16(mine, 2 * HIST_BINS + p[r].z);
                    count16(mine, 3 * HIST_BINS + luma_bin(p[r]));
                }
        }
        if (++since_flush == FLUSH_ITEMS) {
            since_flush = 0;
            __syncwarp();
            for (int i = lane; i < WARP_WORDS; i += 32) {
                const unsigned int v = own[i];
                if (v) {
                    const int b = (i % COPY_WORDS) * 2;
                    if (v & 0xffffu) atomicAdd(&bins[b], v & 0xffffu);
                    if (v >> 16) atomicAdd(&bins[b + 1], v >> 16);
                    own[i] = 0u;
                }
            }
            __syncwarp();
        }
    }
    __syncthreads();

    for (int b = threadIdx.x; b < 4 * HIST_BINS; b += 32 * WARPS) {
        unsigned int total = 0u;
        const unsigned int shift = (b & 1) * 16;
#pragma unroll
        for (int k = 0; k < WARPS * CPW; ++k) total += (sub[k * COPY_WORDS + (b >> 1)] >> shift) & 0xffffu;
        if (total) atomicAdd(&bins[b], total);
    }
}
"""

LANE_BYTES_SRC = r"""
// Per warp and channel, 64 rows of 32 words: word (row * 32 + lane) holds lane's 8-bit counts
// of values 4 row .. 4 row + 3 (byte value & 3), so every lane reads and writes its own bank
// whatever the image, without atomics. CH_WORDS = 2048 words = 8 KB a channel and warp.
#define LB_ROWS (HIST_BINS / 4)
#define LB_CH_WORDS (LB_ROWS * 32)

// Folds the warp's byte counters into its lanes' registers and zeroes them: lane l sums rows
// l and l + 32 (values 4 l .. 4 l + 3 and 4 (l + 32) .. 4 (l + 32) + 3) over the 32 lanes'
// words, visiting column (j + l) & 31 at step j so the 32 lanes read 32 different banks. A
// byte holds at most 255, so the 16-bit sums of 32 of them (<= 8160) cannot carry.
template <int CH>
__device__ __forceinline__ void lane_bytes_fold(unsigned int* cnt, int lane, unsigned int (&tot)[CH][2][4])
{
    __syncwarp();
#pragma unroll
    for (int cl = 0; cl < CH; ++cl)
#pragma unroll
        for (int k = 0; k < 2; ++k) {
            unsigned int* row = cnt + cl * LB_CH_WORDS + (lane + 32 * k) * 32;
            unsigned int even = 0u, odd = 0u;
#pragma unroll 8
            for (int j = 0; j < 32; ++j) {
                const int col = (j + lane) & 31;
                const unsigned int w = row[col];
                row[col] = 0u;
                even += w & 0x00ff00ffu;
                odd += (w >> 8) & 0x00ff00ffu;
            }
            tot[cl][k][0] += even & 0xffffu;
            tot[cl][k][1] += odd & 0xffffu;
            tot[cl][k][2] += even >> 16;
            tot[cl][k][3] += odd >> 16;
        }
    __syncwarp();
}

// Lane-private byte counters, no atomics while counting: CH channels per block, starting at
// channel blockIdx.y * CH (gridDim.y = 4 / CH: the image is read 4 / CH times). Dynamic
// shared memory WARPS * CH * 8 KB. Overflow bound: a lane counts at most ROWS pixels an item,
// one per byte counter at most, so folding every FLUSH_ITEMS = 255 / ROWS items keeps every
// byte <= 255.
template <int WARPS, int ROWS, int CH>
__global__ void __launch_bounds__(32 * WARPS)
hist_lane_bytes(cudaTextureObject_t src, int width, int height, unsigned int* bins)
{
    constexpr int WARP_WORDS = CH * LB_CH_WORDS;
    constexpr int FLUSH_ITEMS = 255 / ROWS;
    static_assert(FLUSH_ITEMS >= 1, "ROWS <= 255");
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    const int c0 = blockIdx.y * CH;
    for (int i = threadIdx.x; i < WARPS * WARP_WORDS; i += 32 * WARPS) dyn_smem[i] = 0u;
    __syncthreads();

    unsigned int* cnt = dyn_smem + warp * WARP_WORDS;
    unsigned int tot[CH][2][4];
#pragma unroll
    for (int cl = 0; cl < CH; ++cl)
#pragma unroll
        for (int k = 0; k < 2; ++k)
#pragma unroll
            for (int i = 0; i < 4; ++i) tot[cl][k][i] = 0u;

    const int columns = div_up(width, 32);
    const int items = columns * div_up(height, ROWS);
    const int warps = gridDim.x * WARPS;
    int since_flush = 0;  // warp-uniform
    for (int item = blockIdx.x * WARPS + warp; item < items; item += warps) {
        const int row = item / columns;
        const int x = (item - row * columns) * 32 + lane;
        const int y0 = row * ROWS;
        uint4 p[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) p[r] = texel_at(src, x, y0 + r);
        if (x < width) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
                if (y0 + r < height) {
#pragma unroll
                    for (int cl = 0; cl < CH; ++cl) {
                        const unsigned int v = channel_bin(p[r], c0 + cl);
                        cnt[cl * LB_CH_WORDS + (v >> 2) * 32 + lane] += 1u << ((v & 3u) << 3);
                    }
                }
        }
        if (++since_flush == FLUSH_ITEMS) {
            since_flush = 0;
            lane_bytes_fold<CH>(cnt, lane, tot);
        }
    }
    lane_bytes_fold<CH>(cnt, lane, tot);
    __syncthreads();  // every warp's counts are in its registers: the shared memory is free

    unsigned int* block_tot = dyn_smem;  // CH * 256 words
    for (int i = threadIdx.x; i < CH * HIST_BINS; i += 32 * WARPS) block_tot[i] = 0u;
    __syncthreads();
#pragma unroll
    for (int cl = 0; cl < CH; ++cl)
#pragma unroll
        for (int k = 0; k < 2; ++k)
#pragma unroll
            for (int i = 0; i < 4; ++i)
                if (tot[cl][k][i]) atomicAdd(&block_tot[cl * HIST_BINS + 4 * (lane + 32 * k) + i], tot[cl][k][i]);
    __syncthreads();
    for (int i = threadIdx.x; i < CH * HIST_BINS; i += 32 * WARPS) {
        const unsigned int v = block_tot[i];
        if (v) atomicAdd(&bins[c0 * HIST_BINS + i], v);
    }
}
"""

MATCH_SRC = r"""
// Per-warp sub-histograms as the product, but lanes with equal keys add once: PIXEL false, one
// __match_any_sync per channel and row (one atomic per distinct bin); PIXEL true, one per row
// on the RGB value (a leader adds its group's count to the four bins). Lanes outside the image
// take a key no pixel has. Every lane reaches every match: the item loop is warp-uniform.
// Dynamic shared memory WARPS * 4 KB.
template <int WARPS, int ROWS, bool PIXEL>
__global__ void __launch_bounds__(32 * WARPS)
hist_match(cudaTextureObject_t src, int width, int height, unsigned int* bins)
{
    unsigned int* sub = dyn_smem;
    for (int i = threadIdx.x; i < WARPS * 4 * HIST_BINS; i += 32 * WARPS) sub[i] = 0u;
    __syncthreads();

    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    unsigned int* mine = sub + warp * 4 * HIST_BINS;
    const int columns = div_up(width, 32);
    const int items = columns * div_up(height, ROWS);
    const int warps = gridDim.x * WARPS;
    for (int item = blockIdx.x * WARPS + warp; item < items; item += warps) {
        const int row = item / columns;
        const int x = (item - row * columns) * 32 + lane;
        const int y0 = row * ROWS;
        uint4 p[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) p[r] = texel_at(src, x, y0 + r);
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const bool valid = x < width && y0 + r < height;
            if (PIXEL) {
                const unsigned int key = valid ? (p[r].x | (p[r].y << 8) | (p[r].z << 16)) : 0xffffffffu;
                const unsigned int peers = __match_any_sync(0xffffffffu, key);
                if (valid && lane == __ffs(peers) - 1) {
                    const unsigned int n = __popc(peers);
                    atomicAdd(&mine[p[r].x], n);
                    atomicAdd(&mine[HIST_BINS + p[r].y], n);
                    atomicAdd(&mine[2 * HIST_BINS + p[r].z], n);
                    atomicAdd(&mine[3 * HIST_BINS + luma_bin(p[r])], n);
                }
            } else {
#pragma unroll
                for (int c = 0; c < 4; ++c) {
                    const unsigned int v = channel_bin(p[r], c);
                    const unsigned int peers = __match_any_sync(0xffffffffu, valid ? v : 0xffffffffu);
                    if (valid && lane == __ffs(peers) - 1) atomicAdd(&mine[c * HIST_BINS + v], __popc(peers));
                }
            }
        }
    }
    __syncthreads();

    for (int b = threadIdx.x; b < 4 * HIST_BINS; b += 32 * WARPS) {
        unsigned int total = 0u;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) total += sub[w * 4 * HIST_BINS + b];
        if (total) atomicAdd(&bins[b], total);
    }
}
"""

CLUSTER_SRC = r"""
__device__ __forceinline__ void cluster_barrier()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" : : : "memory");
}

__device__ __forceinline__ unsigned int cluster_rank()
{
    unsigned int r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

// The word at p (shared memory of this block) in the shared memory of cluster block `rank`.
__device__ __forceinline__ unsigned int load_from_block(const unsigned int* p, unsigned int rank)
{
    const unsigned int local = (unsigned int)__cvta_generic_to_shared(p);
    unsigned int remote, v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory");
    return v;
}

// The product's counting (per-warp sub-histograms), then a cluster of K blocks merges: each
// block folds its warps into its first sub-histogram, and block `rank` of the cluster sums
// bins [rank * 1024 / K, (rank + 1) * 1024 / K) over the K blocks through distributed shared
// memory before one atomicAdd a non-zero bin: K times fewer global atomics than the product.
// gridDim.x must be a multiple of K. Dynamic shared memory WARPS * 4 KB.
template <int WARPS, int ROWS, int K>
__global__ void __cluster_dims__(K, 1, 1) __launch_bounds__(32 * WARPS)
hist_cluster(cudaTextureObject_t src, int width, int height, unsigned int* bins)
{
    static_assert((4 * HIST_BINS) % K == 0, "K divides the bins");
    unsigned int* sub = dyn_smem;
    for (int i = threadIdx.x; i < WARPS * 4 * HIST_BINS; i += 32 * WARPS) sub[i] = 0u;
    __syncthreads();

    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    unsigned int* mine = sub + warp * 4 * HIST_BINS;
    const int columns = div_up(width, 32);
    const int items = columns * div_up(height, ROWS);
    const int warps = gridDim.x * WARPS;
    for (int item = blockIdx.x * WARPS + warp; item < items; item += warps) {
        const int row = item / columns;
        const int x = (item - row * columns) * 32 + lane;
        const int y0 = row * ROWS;
        uint4 p[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) p[r] = texel_at(src, x, y0 + r);
        if (x < width) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
                if (y0 + r < height) {
                    atomicAdd(&mine[p[r].x], 1u);
                    atomicAdd(&mine[HIST_BINS + p[r].y], 1u);
                    atomicAdd(&mine[2 * HIST_BINS + p[r].z], 1u);
                    atomicAdd(&mine[3 * HIST_BINS + luma_bin(p[r])], 1u);
                }
        }
    }
    __syncthreads();

    // Bin b of the block's warps into sub[b] (only this thread touches bin b of any warp).
    for (int b = threadIdx.x; b < 4 * HIST_BINS; b += 32 * WARPS) {
        unsigned int total = 0u;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) total += sub[w * 4 * HIST_BINS + b];
        sub[b] = total;
    }
    cluster_barrier();  // every block of the cluster has folded
    constexpr int SHARE = 4 * HIST_BINS / K;
    const int first = (int)cluster_rank() * SHARE;
    for (int b = first + threadIdx.x; b < first + SHARE; b += 32 * WARPS) {
        unsigned int total = 0u;
#pragma unroll
        for (int q = 0; q < K; ++q) total += load_from_block(&sub[b], (unsigned int)q);
        if (total) atomicAdd(&bins[b], total);
    }
    cluster_barrier();  // no block leaves while another still reads its shared memory
}
"""

LINEAR_SRC = r"""
// LINEAR READS: the baseline's counting, pixels read as packed words (R in the low byte) from
// a linear image of width * height words, not through the texture path.
template <int WARPS, int ROWS>
__global__ void __launch_bounds__(32 * WARPS)
hist_linear(const unsigned int* __restrict__ src, int width, int height, unsigned int* bins)
{
    unsigned int* sub = dyn_smem;
    for (int i = threadIdx.x; i < WARPS * 4 * HIST_BINS; i += 32 * WARPS) sub[i] = 0u;
    __syncthreads();

    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    unsigned int* mine = sub + warp * 4 * HIST_BINS;
    const int columns = div_up(width, 32);
    const int items = columns * div_up(height, ROWS);
    const int warps = gridDim.x * WARPS;
    for (int item = blockIdx.x * WARPS + warp; item < items; item += warps) {
        const int row = item / columns;
        const int x = (item - row * columns) * 32 + lane;
        const int y0 = row * ROWS;
        unsigned int w[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
            w[r] = (x < width && y0 + r < height) ? __ldg(&src[(size_t)(y0 + r) * width + x]) : 0u;
        if (x < width) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
                if (y0 + r < height) {
                    const uint4 p = make_uint4(w[r] & 0xffu, (w[r] >> 8) & 0xffu, (w[r] >> 16) & 0xffu, w[r] >> 24);
                    atomicAdd(&mine[p.x], 1u);
                    atomicAdd(&mine[HIST_BINS + p.y], 1u);
                    atomicAdd(&mine[2 * HIST_BINS + p.z], 1u);
                    atomicAdd(&mine[3 * HIST_BINS + luma_bin(p)], 1u);
                }
        }
    }
    __syncthreads();

    for (int b = threadIdx.x; b < 4 * HIST_BINS; b += 32 * WARPS) {
        unsigned int total = 0u;
#pragma unroll
        for (int k = 0; k < WARPS; ++k) total += sub[k * 4 * HIST_BINS + b];
        if (total) atomicAdd(&bins[b], total);
    }
}

__device__ __forceinline__ unsigned int word_of(uint4 v, int i)
{
    return i == 0 ? v.x : (i == 1 ? v.y : (i == 2 ? v.z : v.w));
}

// LINEAR READS: the baseline's counting on 4 pixels a lane and row read with one 16-byte load
// (rows of width words; per-pixel loads where width is not a multiple of 4, or past the right
// edge). Items of 128 columns x ROWS rows. What the counting costs when the reads are cheap.
template <int WARPS, int ROWS>
__global__ void __launch_bounds__(32 * WARPS)
hist_linear16(const unsigned int* __restrict__ src, int width, int height, unsigned int* bins)
{
    unsigned int* sub = dyn_smem;
    for (int i = threadIdx.x; i < WARPS * 4 * HIST_BINS; i += 32 * WARPS) sub[i] = 0u;
    __syncthreads();

    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    unsigned int* mine = sub + warp * 4 * HIST_BINS;
    const bool vec = (width & 3) == 0;
    const int columns = div_up(width, 128);
    const int items = columns * div_up(height, ROWS);
    const int warps = gridDim.x * WARPS;
    for (int item = blockIdx.x * WARPS + warp; item < items; item += warps) {
        const int row = item / columns;
        const int x = (item - row * columns) * 128 + lane * 4;
        const int y0 = row * ROWS;
        uint4 v[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const int y = y0 + r;
            const unsigned int* at = src + (size_t)(y < height ? y : 0) * width;
            if (vec && x < width && y < height) {
                v[r] = __ldg(reinterpret_cast<const uint4*>(at + x));
            } else {
                v[r].x = (x < width && y < height) ? __ldg(at + x) : 0u;
                v[r].y = (x + 1 < width && y < height) ? __ldg(at + x + 1) : 0u;
                v[r].z = (x + 2 < width && y < height) ? __ldg(at + x + 2) : 0u;
                v[r].w = (x + 3 < width && y < height) ? __ldg(at + x + 3) : 0u;
            }
        }
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
#pragma unroll
            for (int i = 0; i < 4; ++i)
                if (x + i < width && y0 + r < height) {
                    const unsigned int w = word_of(v[r], i);
                    const uint4 p = make_uint4(w & 0xffu, (w >> 8) & 0xffu, (w >> 16) & 0xffu, w >> 24);
                    atomicAdd(&mine[p.x], 1u);
                    atomicAdd(&mine[HIST_BINS + p.y], 1u);
                    atomicAdd(&mine[2 * HIST_BINS + p.z], 1u);
                    atomicAdd(&mine[3 * HIST_BINS + luma_bin(p)], 1u);
                }
    }
    __syncthreads();

    for (int b = threadIdx.x; b < 4 * HIST_BINS; b += 32 * WARPS) {
        unsigned int total = 0u;
#pragma unroll
        for (int k = 0; k < WARPS; ++k) total += sub[k * 4 * HIST_BINS + b];
        if (total) atomicAdd(&bins[b], total);
    }
}
"""

SURFACE_SRC = r"""
// PIX raw pixel words (R in the low byte) at (x, y) .. (x + PIX - 1, y) through a surface object on
// the same array: one read of 4 * PIX bytes where the run lies inside the image (PIX 2 and 4 read
// wider than an array element), else one element-sized read per pixel. Boundary mode zero: a
// read outside the surface returns 0 (those pixels are never counted) instead of trapping.
template <int PIX>
__device__ __forceinline__ void surface_words(cudaSurfaceObject_t s, int x, int y, int width, unsigned int (&out)[PIX])
{
    if constexpr (PIX == 4) {
        if (x + 4 <= width) {
            const uint4 v = surf2Dread<uint4>(s, x * 4, y, cudaBoundaryModeZero);
            out[0] = v.x;
            out[1] = v.y;
            out[2] = v.z;
            out[3] = v.w;
            return;
        }
    } else if constexpr (PIX == 2) {
        if (x + 2 <= width) {
            const uint2 v = surf2Dread<uint2>(s, x * 4, y, cudaBoundaryModeZero);
            out[0] = v.x;
            out[1] = v.y;
            return;
        }
    }
#pragma unroll
    for (int i = 0; i < PIX; ++i) out[i] = surf2Dread<unsigned int>(s, (x + i) * 4, y, cudaBoundaryModeZero);
}

__device__ __forceinline__ uint4 unpack_word(unsigned int w)
{
    return make_uint4(w & 0xffu, (w >> 8) & 0xffu, (w >> 16) & 0xffu, w >> 24);
}

// SURFACE READS: the baseline's per-warp counting on pixels read through a surface object, PIX
// pixels a lane and row; items of 32 * PIX columns x ROWS rows. COUNT false: diagnostic, the
// reads and the luma only. Dynamic shared memory WARPS * 4 KB (COUNT) or none.
template <int WARPS, int ROWS, int PIX, bool COUNT>
__global__ void __launch_bounds__(32 * WARPS)
hist_surface(cudaSurfaceObject_t src, int width, int height, unsigned int* bins)
{
    unsigned int* sub = dyn_smem;
    if (COUNT) {
        for (int i = threadIdx.x; i < WARPS * 4 * HIST_BINS; i += 32 * WARPS) sub[i] = 0u;
        __syncthreads();
    }
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    unsigned int* mine = sub + warp * 4 * HIST_BINS;
    const int columns = div_up(width, 32 * PIX);
    const int items = columns * div_up(height, ROWS);
    const int warps = gridDim.x * WARPS;
    unsigned int acc = 0u;
    for (int item = blockIdx.x * WARPS + warp; item < items; item += warps) {
        const int row = item / columns;
        const int x = (item - row * columns) * 32 * PIX + lane * PIX;
        const int y0 = row * ROWS;
        unsigned int w[ROWS][PIX];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) surface_words<PIX>(src, x, y0 + r, width, w[r]);
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
#pragma unroll
            for (int i = 0; i < PIX; ++i)
                if (x + i < width && y0 + r < height) {
                    const uint4 p = unpack_word(w[r][i]);
                    if (COUNT) {
                        atomicAdd(&mine[p.x], 1u);
                        atomicAdd(&mine[HIST_BINS + p.y], 1u);
                        atomicAdd(&mine[2 * HIST_BINS + p.z], 1u);
                        atomicAdd(&mine[3 * HIST_BINS + luma_bin(p)], 1u);
                    } else {
                        acc += w[r][i] ^ (luma_bin(p) << 24);
                    }
                }
    }
    if (!COUNT) {
        if (acc == 0x9e3779b9u) bins[0] = acc;
        return;
    }
    __syncthreads();

    for (int b = threadIdx.x; b < 4 * HIST_BINS; b += 32 * WARPS) {
        unsigned int total = 0u;
#pragma unroll
        for (int k = 0; k < WARPS; ++k) total += sub[k * 4 * HIST_BINS + b];
        if (total) atomicAdd(&bins[b], total);
    }
}
"""

DIAG_SRC = r"""
// Diagnostic: the product's reads and luma arithmetic, no counting; one data-dependent store
// keeps them alive (the bins are not a histogram).
template <int WARPS, int ROWS>
__global__ void __launch_bounds__(32 * WARPS)
diag_reads(cudaTextureObject_t src, int width, int height, unsigned int* bins)
{
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    const int columns = div_up(width, 32);
    const int items = columns * div_up(height, ROWS);
    const int warps = gridDim.x * WARPS;
    unsigned int acc = 0u;
    for (int item = blockIdx.x * WARPS + warp; item < items; item += warps) {
        const int row = item / columns;
        const int x = (item - row * columns) * 32 + lane;
        const int y0 = row * ROWS;
        uint4 p[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) p[r] = texel_at(src, x, y0 + r);
        if (x < width) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
                if (y0 + r < height) acc += p[r].x ^ (p[r].y << 8) ^ (p[r].z << 16) ^ (luma_bin(p[r]) << 24);
        }
    }
    if (acc == 0x9e3779b9u) bins[0] = acc;
}

// Diagnostic, LINEAR READS: 16 bytes (4 pixels) a lane and row from a linear image, the floor
// of plain vector loads; no counting, no luma. Reads nothing unless width is a multiple of 4.
template <int WARPS, int ROWS>
__global__ void __launch_bounds__(32 * WARPS)
diag_linear16(const uint4* __restrict__ src, int width, int height, unsigned int* bins)
{
    if (width & 3) return;
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    const int quads = width / 4;
    const int columns = div_up(quads, 32);
    const int items = columns * div_up(height, ROWS);
    const int warps = gridDim.x * WARPS;
    unsigned int acc = 0u;
    for (int item = blockIdx.x * WARPS + warp; item < items; item += warps) {
        const int row = item / columns;
        const int q = (item - row * columns) * 32 + lane;
        const int y0 = row * ROWS;
        uint4 v[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r)
            v[r] = (q < quads && y0 + r < height) ? __ldg(&src[(size_t)(y0 + r) * quads + q]) : make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
        for (int r = 0; r < ROWS; ++r) acc += v[r].x ^ v[r].y ^ v[r].z ^ v[r].w;
    }
    if (acc == 0x9e3779b9u) bins[0] = acc;
}

// Diagnostic: the product's counting (per-warp sub-histograms, four atomics and the luma a
// pixel, the merge) on pseudo-random bins hashed from (x, y): no image reads at all, the
// floor of the counting alone. Dynamic shared memory WARPS * 4 KB. The bins are not checked.
template <int WARPS, int ROWS>
__global__ void __launch_bounds__(32 * WARPS)
diag_atomics(cudaTextureObject_t src, int width, int height, unsigned int* bins)
{
    unsigned int* sub = dyn_smem;
    for (int i = threadIdx.x; i < WARPS * 4 * HIST_BINS; i += 32 * WARPS) sub[i] = 0u;
    __syncthreads();

    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    unsigned int* mine = sub + warp * 4 * HIST_BINS;
    const int columns = div_up(width, 32);
    const int items = columns * div_up(height, ROWS);
    const int warps = gridDim.x * WARPS;
    for (int item = blockIdx.x * WARPS + warp; item < items; item += warps) {
        const int row = item / columns;
        const int x = (item - row * columns) * 32 + lane;
        const int y0 = row * ROWS;
        if (x < width) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
                if (y0 + r < height) {
                    unsigned int h = (unsigned int)x * 0x9e3779b1u ^ (unsigned int)(y0 + r) * 0x85ebca77u;
                    h ^= h >> 15;
                    h *= 0x2c1b3c6du;
                    h ^= h >> 12;
                    const uint4 p = make_uint4(h & 0xffu, (h >> 8) & 0xffu, (h >> 16) & 0xffu, 255u);
                    atomicAdd(&mine[p.x], 1u);
                    atomicAdd(&mine[HIST_BINS + p.y], 1u);
                    atomicAdd(&mine[2 * HIST_BINS + p.z], 1u);
                    atomicAdd(&mine[3 * HIST_BINS + luma_bin(p)], 1u);
                }
        }
    }
    __syncthreads();

    for (int b = threadIdx.x; b < 4 * HIST_BINS; b += 32 * WARPS) {
        unsigned int total = 0u;
#pragma unroll
        for (int k = 0; k < WARPS; ++k) total += sub[k * 4 * HIST_BINS + b];
        if (total) atomicAdd(&bins[b], total);
    }
}
"""

SPIN_SRC = r"""
// Keeps the GPU busy (one thread) while the host queues the next timed run.
extern "C" __global__ void spin(long long cycles)
{
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}
"""

# module key -> body (after HELPERS); dynamic shared memory declared where used.
MODULE_BODIES = {
    "baseline": BASELINE_SRC,
    "groups": DYNAMIC_SHARED + GROUPS_SRC,
    "packed16": DYNAMIC_SHARED + PACKED16_SRC,
    "lane_bytes": DYNAMIC_SHARED + LANE_BYTES_SRC,
    "match": DYNAMIC_SHARED + MATCH_SRC,
    "cluster": DYNAMIC_SHARED + CLUSTER_SRC,
    "linear": DYNAMIC_SHARED + LINEAR_SRC,
    "surface": DYNAMIC_SHARED + SURFACE_SRC,
    "surface_wide": DYNAMIC_SHARED + SURFACE_SRC,  # the same source: PIX 2 and 4, run last
    "diag": DYNAMIC_SHARED + DIAG_SRC,
}
COMPILE_OPTIONS = ("-std=c++17",)


def module_source(key):
    return HELPERS + MODULE_BODIES[key]


# ---------------------------------------------------------------------------------------------
# Variants.


def div_up(a, b):
    return (a + b - 1) // b


class Variant:
    """One kernel and launch configuration. bps: blocks per SM (None: what the occupancy
    calculator allows). groups_y: gridDim.y. cluster: blocks a cluster (grid rounded up).
    source: what the kernel reads, "texture" (the product's path), "surface" (a surface object
    on the same array), "linear" (u32 words) or "linear16" (uint4). item_cols: image columns a
    warp's item covers. risky: may fault (reads wider than an array element), so it runs after
    everything else has been measured."""

    def __init__(self, family, config, module, expr, warps, rows, dyn_bytes, bps,
                 groups_y=1, cluster=1, diagnostic=False, linear=False, source="texture",
                 item_cols=32, risky=False):
        self.family = family
        self.config = config
        self.module = module
        self.expr = expr
        self.warps = warps
        self.rows = rows
        self.dyn_bytes = dyn_bytes
        self.bps = bps
        self.groups_y = groups_y
        self.cluster = cluster
        self.diagnostic = diagnostic
        self.linear = linear
        self.source = source
        self.item_cols = item_cols
        self.risky = risky
        self.kernel = None
        self.error = None
        self.regs = None
        self.static_smem = None
        self.local_bytes = None
        self.occupancy = None  # blocks per SM

    @property
    def label(self):
        return f"{self.family} {self.config}"

    def grid(self, w, h, sm_count):
        items = div_up(w, self.item_cols) * div_up(h, self.rows)
        bps = self.bps if self.bps is not None else max(1, self.occupancy or 1)
        gx = max(1, min(div_up(items, self.warps), sm_count * bps))
        if self.cluster > 1:
            gx = div_up(gx, self.cluster) * self.cluster
        return gx, self.groups_y

    def smem_bytes(self):
        return (self.static_smem or 0) + self.dyn_bytes


def make_variants():
    v = []
    kb4 = 4 * HIST_BINS * 4  # one 4 x 256 u32 sub-histogram
    v.append(Variant("baseline", f"product W{PRODUCT_WARPS} R{PRODUCT_ROWS} bps{PRODUCT_BLOCKS_PER_SM}",
                     "baseline", "histogram", PRODUCT_WARPS, PRODUCT_ROWS, 0, PRODUCT_BLOCKS_PER_SM))
    for w in (4, 8, 16):
        for r in (4, 8, 16):
            for bps in (1, 2, 4, 8):
                v.append(Variant("sweep", f"W{w} R{r} bps{bps}", "groups",
                                 f"hist_groups<{w}, {r}, {w}, 1, 0>", w, r, w * kb4, bps))
    # per-block and shared-by-pairs sub-histograms
    for w, g, bps in ((8, 1, 4), (8, 1, 8), (16, 1, 4), (8, 4, 4), (16, 8, 4)):
        v.append(Variant("per-block", f"W{w} R8 groups{g} bps{bps}", "groups",
                         f"hist_groups<{w}, 8, {g}, 1, 0>", w, 8, g * kb4, bps))
    # interleaved copies (bank spread)
    # (C = 32: lane l always in bank l, no bank conflicts whatever the bins; 128 KB, one block an SM)
    for w, g, c, bps in ((8, 8, 2, 3), (4, 4, 2, 4), (4, 4, 4, 3), (8, 2, 4, 4), (8, 1, 4, 4), (8, 1, 8, 4),
                         (16, 1, 16, 2), (16, 1, 32, 1), (32, 1, 32, 1)):
        v.append(Variant("spread", f"W{w} R8 groups{g} C{c} bps{bps}", "groups",
                         f"hist_groups<{w}, 8, {g}, {c}, 0>", w, 8, g * c * kb4, bps))
    v.append(Variant("red", "W8 R8 bps4", "groups", "hist_groups<8, 8, 8, 1, 1>", 8, 8, 8 * kb4, 4))
    for w, cpw, bps in ((8, 1, 4), (8, 1, 8), (8, 2, 4), (16, 1, 4), (16, 2, 3), (8, 4, 3)):
        v.append(Variant("packed16", f"W{w} R8 copies/warp{cpw} bps{bps}", "packed16",
                         f"hist_packed16<{w}, 8, {cpw}>", w, 8, w * cpw * kb4 // 2, bps))
    for w, ch in ((1, 4), (2, 4), (2, 2), (4, 2), (4, 1), (8, 1)):
        v.append(Variant("lane-bytes", f"W{w} R8 CH{ch} (x{4 // ch} reads) bps=occ", "lane_bytes",
                         f"hist_lane_bytes<{w}, 8, {ch}>", w, 8, w * ch * 8192, None,
                         groups_y=4 // ch))
    v.append(Variant("match-chan", "W8 R8 bps4", "match", "hist_match<8, 8, false>", 8, 8, 8 * kb4, 4))
    v.append(Variant("match-pixel", "W8 R8 bps4", "match", "hist_match<8, 8, true>", 8, 8, 8 * kb4, 4))
    for k in (2, 4, 8):
        v.append(Variant(f"cluster-{k}", f"W8 R8 bps4 K{k}", "cluster", f"hist_cluster<8, 8, {k}>",
                         8, 8, 8 * kb4, 4, cluster=k))
    v.append(Variant("linear", "W8 R8 bps4 LINEAR READS", "linear", "hist_linear<8, 8>", 8, 8, 8 * kb4, 4,
                     linear=True, source="linear"))
    for w, r, bps in ((8, 8, 4), (8, 4, 4), (16, 4, 2)):
        v.append(Variant("linear16", f"W{w} R{r} bps{bps} LINEAR uint4 READS", "linear", f"hist_linear16<{w}, {r}>",
                         w, r, w * kb4, bps, linear=True, source="linear", item_cols=128))
    # surface reads of one element (4 bytes) a pixel: a surface load returns one register, a
    # tex2D<uint4> four
    for w, r, bps in ((8, 8, 4), (16, 8, 2), (8, 16, 2)):
        v.append(Variant("surface", f"W{w} R{r} PIX1 bps{bps} SURFACE READS", "surface",
                         f"hist_surface<{w}, {r}, 1, true>", w, r, w * kb4, bps, source="surface"))
    # surface reads of 2 or 4 pixels at once (wider than an element: may fault, run last)
    for w, r, pix, bps in ((8, 8, 2, 4), (8, 8, 4, 4), (8, 4, 4, 4), (16, 4, 4, 2), (16, 8, 2, 2)):
        v.append(Variant("surface-wide", f"W{w} R{r} PIX{pix} bps{bps} SURFACE READS", "surface_wide",
                         f"hist_surface<{w}, {r}, {pix}, true>", w, r, w * kb4, bps, source="surface",
                         item_cols=32 * pix, risky=True))
    # diagnostics: the floor of each read path (no counting)
    for w, r, bps in ((8, 8, 4), (8, 16, 4), (16, 16, 2)):
        v.append(Variant("diag-reads", f"W{w} R{r} bps{bps} (texture, no counting)", "diag",
                         f"diag_reads<{w}, {r}>", w, r, 0, bps, diagnostic=True))
    v.append(Variant("diag-reads", "W8 R8 bps4 (surface PIX1, no counting)", "surface",
                     "hist_surface<8, 8, 1, false>", 8, 8, 0, 4, diagnostic=True, source="surface"))
    for pix in (2, 4):
        v.append(Variant("diag-reads", f"W8 R8 bps4 (surface PIX{pix}, no counting)", "surface_wide",
                         f"hist_surface<8, 8, {pix}, false>", 8, 8, 0, 4, diagnostic=True, source="surface",
                         item_cols=32 * pix, risky=True))
    v.append(Variant("diag-reads", "W8 R8 bps4 (LINEAR uint4, no counting)", "diag", "diag_linear16<8, 8>",
                     8, 8, 0, 4, diagnostic=True, linear=True, source="linear16", item_cols=128))
    v.append(Variant("diag-nomerge", "W8 R8 bps4 (no global merge)", "groups",
                     "hist_groups<8, 8, 8, 1, 2>", 8, 8, 8 * kb4, 4, diagnostic=True))
    for w, r, bps in ((8, 8, 4), (16, 8, 2)):
        v.append(Variant("diag-atomics", f"W{w} R{r} bps{bps} (hashed bins, no reads)", "diag",
                         f"diag_atomics<{w}, {r}>", w, r, w * kb4, bps, diagnostic=True))
    return v


# ---------------------------------------------------------------------------------------------
# Output.


class Report:
    def __init__(self, path):
        self.file = None
        if path:
            d = os.path.dirname(os.path.abspath(path))
            os.makedirs(d, exist_ok=True)
            self.file = open(path, "w")

    def __call__(self, line=""):
        print(line, flush=True)
        if self.file:
            self.file.write(line + "\n")
            self.file.flush()

    def close(self):
        if self.file:
            self.file.close()


def one_line(e):
    s = f"{type(e).__name__}: {e}".replace("\n", " | ")
    return s if len(s) < 600 else s[:600] + "..."


# ---------------------------------------------------------------------------------------------
# Images and the reference.


def make_image(kind, w, h, seed=20261130):
    rng = np.random.default_rng(seed)
    if kind == "random":
        return rng.integers(0, 256, size=(h, w, 4), dtype=np.uint8)
    # "photo": smooth gradients plus a little noise, so the 32 lanes of a warp (32 adjacent
    # columns) fall into a few bins of each channel; alpha opaque.
    x = np.linspace(0.0, 1.0, w, dtype=np.float32)[None, :]
    y = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None]
    r = 30.0 + 190.0 * x + 0.0 * y
    g = 40.0 + 150.0 * y + 20.0 * np.sin(6.0 * x)
    b = 128.0 + 90.0 * np.sin(3.0 * x + 2.0 * y) * np.cos(2.0 * y)
    img = np.empty((h, w, 4), np.uint8)
    for c, plane in enumerate((r, g, b)):
        noisy = np.broadcast_to(plane, (h, w)) + rng.normal(0.0, 1.5, size=(h, w)).astype(np.float32)
        img[:, :, c] = np.clip(np.rint(noisy), 0, 255).astype(np.uint8)
    img[:, :, 3] = 255
    return img


def reference(img):
    """4 x 256 int64: R, G, B counts and luma as kernels/common.cuh computes it (f32 products
    and sums in the same order, each rounded; round half away from zero, clamp to 255)."""
    flat = img.reshape(-1, 4)
    out = np.zeros((4, HIST_BINS), np.int64)
    for c in range(3):
        out[c] = np.bincount(flat[:, c], minlength=HIST_BINS)[:HIST_BINS]
    n = flat.shape[0]
    step = 1 << 22
    for s in range(0, n, step):
        part = flat[s:s + step]
        r = part[:, 0].astype(np.float32)
        g = part[:, 1].astype(np.float32)
        b = part[:, 2].astype(np.float32)
        rg = (np.float32(0.2126) * r).astype(np.float32) + (np.float32(0.7152) * g).astype(np.float32)
        luma = rg.astype(np.float32) + (np.float32(0.0722) * b).astype(np.float32)
        luma = luma.astype(np.float32)
        # floor(v + 0.5) in f64 is exact for an f32 v < 256: round half away from zero for v >= 0.
        bins = np.clip(np.floor(luma.astype(np.float64) + 0.5), 0, 255).astype(np.int64)
        out[3] += np.bincount(bins, minlength=HIST_BINS)[:HIST_BINS]
    return out


def compare(got, want, channels):
    """None when equal on `channels`, else a short description."""
    got = np.asarray(got, np.int64).reshape(4, HIST_BINS)
    bad = []
    for c in channels:
        idx = np.nonzero(got[c] != want[c])[0]
        if idx.size:
            name = "RGBL"[c]
            show = ", ".join(f"{i}: {got[c][i]} vs {want[c][i]}" for i in idx[:3])
            bad.append(f"{name} {idx.size} bins differ ({show})")
    return "; ".join(bad) if bad else None


# ---------------------------------------------------------------------------------------------
# NPP through ctypes (CUDA 13's NPP has only the _Ctx forms; the context is filled by hand as
# tools/bench/src/npp/context.rs does).


class NppiSize(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int)]


class NppStreamContext(ctypes.Structure):
    _fields_ = [
        ("hStream", ctypes.c_void_p),
        ("nCudaDeviceId", ctypes.c_int),
        ("nMultiProcessorCount", ctypes.c_int),
        ("nMaxThreadsPerMultiProcessor", ctypes.c_int),
        ("nMaxThreadsPerBlock", ctypes.c_int),
        ("nSharedMemPerBlock", ctypes.c_size_t),
        ("nCudaDevAttrComputeCapabilityMajor", ctypes.c_int),
        ("nCudaDevAttrComputeCapabilityMinor", ctypes.c_int),
        ("nStreamFlags", ctypes.c_uint),
        ("nReserved0", ctypes.c_int),
    ]


class NppLibraryVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("build", ctypes.c_int)]


def npp_dirs():
    dirs = []
    for var in ("CUDA_PATH", "CUDA_HOME"):
        root = os.environ.get(var)
        if root:
            dirs += [os.path.join(root, "lib64"), os.path.join(root, "targets/x86_64-linux/lib")]
    dirs += ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"]
    dirs += sorted(glob.glob("/usr/local/cuda-13*/targets/x86_64-linux/lib"), reverse=True)
    dirs += sorted(glob.glob("/usr/local/cuda-13*/lib64"), reverse=True)
    dirs += [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
    try:
        import nvidia.npp  # noqa: F401 - CUDA 12 style wheel layout
        for p in getattr(nvidia.npp, "__path__", []):
            dirs.append(os.path.join(p, "lib"))
    except Exception:  # noqa: BLE001 - optional
        pass
    for entry in sys.path:
        if entry and os.path.isdir(os.path.join(entry, "nvidia")):
            dirs += sorted(glob.glob(os.path.join(entry, "nvidia", "*", "lib")))
            dirs += sorted(glob.glob(os.path.join(entry, "nvidia", "*", "*", "lib")))
    seen, out = set(), []
    for d in dirs:
        if d not in seen and os.path.isdir(d):
            seen.add(d)
            out.append(d)
    return out


def open_npp_library(stem):
    tried = []
    names = [f"lib{stem}.so.13", f"lib{stem}.so"]
    candidates = list(names)
    for d in npp_dirs():
        candidates += [os.path.join(d, n) for n in names]
    found = ctypes.util.find_library(stem)
    if found:
        candidates.append(found)
    for c in candidates:
        if os.sep in c and not os.path.exists(c):
            continue
        try:
            return ctypes.CDLL(c, mode=ctypes.RTLD_GLOBAL), c
        except OSError as e:
            tried.append(f"{c}: {e}")
    raise OSError(f"lib{stem} not found ({'; '.join(tried[-4:]) or 'no candidate file'})")


class Npp:
    def __init__(self, cp, stream, device_id, attrs):
        self.nppc, self.nppc_path = open_npp_library("nppc")
        self.nppist, self.nppist_path = open_npp_library("nppist")
        self.version = "unknown"
        try:
            f = self.nppc.nppGetLibVersion
            f.restype = ctypes.POINTER(NppLibraryVersion)
            f.argtypes = []
            v = f()
            if v:
                self.version = f"{v.contents.major}.{v.contents.minor}.{v.contents.build}"
        except Exception:  # noqa: BLE001 - the version is decoration
            pass
        self.size_fn = self.nppist.nppiHistogramEvenGetBufferSize_8u_C4R_Ctx
        self.size_fn.restype = ctypes.c_int
        self.size_fn.argtypes = [NppiSize, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_size_t),
                                 NppStreamContext]
        self.hist_fn = self.nppist.nppiHistogramEven_8u_C4R_Ctx
        self.hist_fn.restype = ctypes.c_int
        self.hist_fn.argtypes = [ctypes.c_void_p, ctypes.c_int, NppiSize, ctypes.POINTER(ctypes.c_void_p),
                                 ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int),
                                 ctypes.POINTER(ctypes.c_int), ctypes.c_void_p, NppStreamContext]
        assert ctypes.sizeof(NppStreamContext) == 48, "NppStreamContext is 48 bytes"
        ctx = NppStreamContext()
        ctx.hStream = stream.ptr
        ctx.nCudaDeviceId = device_id
        ctx.nMultiProcessorCount = attrs["sm_count"]
        ctx.nMaxThreadsPerMultiProcessor = attrs["max_threads_per_sm"]
        ctx.nMaxThreadsPerBlock = attrs["max_threads_per_block"]
        ctx.nSharedMemPerBlock = attrs["smem_per_block"]
        ctx.nCudaDevAttrComputeCapabilityMajor = attrs["cc_major"]
        ctx.nCudaDevAttrComputeCapabilityMinor = attrs["cc_minor"]
        ctx.nStreamFlags = 1  # cudaStreamNonBlocking: the stream below is created so
        ctx.nReserved0 = 0
        self.ctx = ctx
        self.cp = cp

    def prepare(self, w, h, image_linear):
        """Sizes the scratch for w x h; image_linear: (h, 4 w) uint8 cupy array (pitch 4 w)."""
        cp = self.cp
        self.w, self.h = w, h
        self.src = image_linear
        self.levels = (ctypes.c_int * 4)(*([HIST_BINS + 1] * 4))
        self.lower = (ctypes.c_int * 4)(*([0] * 4))
        self.upper = (ctypes.c_int * 4)(*([HIST_BINS] * 4))
        size = ctypes.c_size_t(0)
        status = self.size_fn(NppiSize(w, h), self.levels, ctypes.byref(size), self.ctx)
        if status < 0:
            raise RuntimeError(f"nppiHistogramEvenGetBufferSize_8u_C4R_Ctx returned {status}")
        self.scratch = cp.empty(max(int(size.value), 16), dtype=cp.uint8)
        self.hist = cp.zeros(4 * HIST_BINS, dtype=cp.int32)
        base = self.hist.data.ptr
        self.planes = (ctypes.c_void_p * 4)(*[base + c * HIST_BINS * 4 for c in range(4)])
        self.warned = False
        return int(size.value)

    def run(self):
        status = self.hist_fn(ctypes.c_void_p(self.src.data.ptr), 4 * self.w, NppiSize(self.w, self.h),
                              self.planes, self.levels, self.lower, self.upper,
                              ctypes.c_void_p(self.scratch.data.ptr), self.ctx)
        if status < 0:
            raise RuntimeError(f"nppiHistogramEven_8u_C4R_Ctx returned {status}")
        if status > 0 and not self.warned:
            self.warned = True
            print(f"nppiHistogramEven_8u_C4R_Ctx warning {status}")


# ---------------------------------------------------------------------------------------------
# The device.


def device_attributes(cp, dev):
    rt = cp.cuda.runtime

    def attr(code, default=-1):
        try:
            return int(rt.deviceGetAttribute(code, dev))
        except Exception:  # noqa: BLE001 - an attribute a toolkit lacks
            return default

    a = {
        "max_threads_per_block": attr(1, 1024),
        "smem_per_block": attr(8, 49152),
        "clock_khz": attr(13, 1980000),
        "sm_count": attr(16, 132),
        "l2_bytes": attr(38),
        "max_threads_per_sm": attr(39, 2048),
        "cc_major": attr(75, 9),
        "cc_minor": attr(76, 0),
        "smem_per_sm": attr(81),
        "regs_per_sm": attr(82),
        "smem_per_block_optin": attr(97),
    }
    name = "unknown GPU"
    try:
        n = rt.getDeviceProperties(dev)["name"]
        name = n.decode() if isinstance(n, bytes) else str(n)
    except Exception:  # noqa: BLE001
        pass
    a["name"] = name
    return a


class Timer:
    """CUDA-event timing on one stream: before each run a spin kernel (GPU busy while the host
    queues), then e0, [zero], e1, launch, e2. Returns the kernel's (e1..e2) and the
    zero + kernel's (e0..e2) median and min over the runs after WARM_UP warm-ups."""

    def __init__(self, cp, stream, spin_kernel, spin_cycles, runs):
        self.cp = cp
        self.stream = stream
        self.spin = spin_kernel
        self.spin_cycles = np.int64(spin_cycles)
        self.runs = runs
        self.events = [(cp.cuda.Event(), cp.cuda.Event(), cp.cuda.Event()) for _ in range(WARM_UP + runs)]

    def time(self, launch, zero=None):
        cp = self.cp
        with self.stream:
            for e0, e1, e2 in self.events:
                self.spin((1,), (1,), (self.spin_cycles,))
                e0.record(self.stream)
                if zero is not None:
                    zero()
                e1.record(self.stream)
                launch()
                e2.record(self.stream)
        self.stream.synchronize()
        k, z = [], []
        for e0, e1, e2 in self.events[WARM_UP:]:
            k.append(cp.cuda.get_elapsed_time(e1, e2))
            z.append(cp.cuda.get_elapsed_time(e0, e2))
        return statistics.median(k), min(k), statistics.median(z), min(z)


# ---------------------------------------------------------------------------------------------


def parse_size(s):
    w, h = s.lower().strip().split("x")
    w, h = int(w), int(h)
    if w < 1 or h < 1:
        raise ValueError(s)
    return w, h


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default=None, help="WxH (default 3840x2160)")
    ap.add_argument("--sizes", default=None, help="WxH,WxH,...")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--image", default="both", help="random|photo|both (or a comma list)")
    ap.add_argument("--only", default=None, help="families to run, comma-separated (baseline always runs)")
    ap.add_argument("--out", default=None, help="also write the report here")
    a = ap.parse_args(argv)
    sizes = []
    for s in ([a.size] if a.size else []) + (a.sizes.split(",") if a.sizes else []):
        if s.strip() and parse_size(s) not in sizes:
            sizes.append(parse_size(s))
    a.size_list = sizes or [(3840, 2160)]
    kinds = ["random", "photo"] if a.image == "both" else [k.strip() for k in a.image.split(",") if k.strip()]
    for k in kinds:
        if k not in ("random", "photo"):
            ap.error(f"--image: {k} is not random, photo or both")
    a.kinds = kinds
    a.runs = max(1, a.runs)
    return a


class Probe:
    def __init__(self, cp, args, out):
        self.cp = cp
        self.args = args
        self.out = out
        self.dev = cp.cuda.runtime.getDevice()
        self.attrs = device_attributes(cp, self.dev)
        self.sm = self.attrs["sm_count"]
        self.stream = cp.cuda.Stream(non_blocking=True)
        self.modules = {}
        self.module_errors = {}

    # -- setup ---------------------------------------------------------------------------------

    def header(self):
        cp, a, out = self.cp, self.attrs, self.out
        rt = cp.cuda.runtime
        versions = []
        for label, f in (("runtime", getattr(rt, "runtimeGetVersion", None)),
                         ("driver", getattr(rt, "driverGetVersion", None))):
            try:
                versions.append(f"{label} {f()}")
            except Exception:  # noqa: BLE001
                pass
        out(f"histogram_variants.py  {time.strftime('%Y-%m-%d %H:%M:%S')}")
        out(f"device {self.dev}: {a['name']}, sm_{a['cc_major']}{a['cc_minor']}, {a['sm_count']} SMs, "
            f"clock {a['clock_khz'] / 1e6:.2f} GHz, L2 {a['l2_bytes'] / 2**20:.0f} MiB; CuPy {cp.__version__}, "
            f"numpy {np.__version__}, CUDA {', '.join(versions)}")
        out(f"shared memory: {a['smem_per_block']} B per block by default, {a['smem_per_block_optin']} B "
            f"opt-in, {a['smem_per_sm']} B per SM; {a['regs_per_sm']} registers and "
            f"{a['max_threads_per_sm']} threads per SM")
        out("times: ms = the kernel alone (bins zeroed before the start event); +zero = memset of the bins "
            "+ kernel, the product's 'histogram' stage (0.0259 ms at 4K in docs/performance.md); "
            "NPP's call includes its own initialisation.")

    def compile_all(self, variants):
        cp = self.cp
        spin_mod = cp.RawModule(code=SPIN_SRC, options=COMPILE_OPTIONS)
        self.spin = spin_mod.get_function("spin")
        self.spin_cycles = int(self.attrs["clock_khz"] * SPIN_US / 1000)
        by_module = {}
        for v in variants:
            by_module.setdefault(v.module, [])
            if v.expr not in by_module[v.module]:
                by_module[v.module].append(v.expr)
        for key, exprs in by_module.items():
            t0 = time.perf_counter()
            try:
                if key == "baseline":
                    mod = cp.RawModule(code=module_source(key), options=COMPILE_OPTIONS)
                else:
                    mod = cp.RawModule(code=module_source(key), options=COMPILE_OPTIONS, name_expressions=exprs)
                mod.get_function(exprs[0])  # compiles the module
                self.modules[key] = mod
                self.out(f"compiled {key}: {len(exprs)} kernel(s) in {time.perf_counter() - t0:.1f} s")
            except Exception as e:  # noqa: BLE001 - one module failing costs its variants only
                self.module_errors[key] = one_line(e)
                self.out(f"COMPILE ERROR {key}: {one_line(e)}")
        for v in variants:
            if v.module in self.module_errors:
                v.error = f"compile: {self.module_errors[v.module]}"
                continue
            try:
                k = self.modules[v.module].get_function(v.expr)
                if v.dyn_bytes > 48 * 1024:
                    k.max_dynamic_shared_size_bytes = v.dyn_bytes
                v.kernel = k
                v.regs = k.num_regs
                v.static_smem = k.shared_size_bytes
                v.local_bytes = k.local_size_bytes
                try:
                    from cupy.cuda import driver
                    v.occupancy = driver.occupancyMaxActiveBlocksPerMultiprocessor(
                        k.kernel.ptr, 32 * v.warps, v.dyn_bytes)
                except Exception:  # noqa: BLE001 - occupancy is information only
                    v.occupancy = None
            except Exception as e:  # noqa: BLE001
                v.error = f"prepare: {one_line(e)}"

    def variant_table(self, variants):
        out = self.out
        out("")
        out("kernels: shared memory a block (static + dynamic), registers, local (spill) bytes, resident "
            "blocks per SM (occupancy calculator)")
        for v in variants:
            if v.error:
                out(f"  {v.label:<52} ERROR {v.error}")
                continue
            occ = "?" if v.occupancy is None else str(v.occupancy)
            out(f"  {v.label:<52} smem {v.smem_bytes() / 1024:5.1f} KB  regs {v.regs:3d}  local {v.local_bytes:3d}"
                f"  blocks/SM {occ:>2}  threads {32 * v.warps}")

    # -- one image -----------------------------------------------------------------------------

    def upload(self, img):
        """The image as the product has it (an RGBA8 CUDA array, surface load/store allowed like
        the product's output arrays), its texture and surface objects, and a linear copy."""
        cp = self.cp
        from cupy.cuda import texture
        h, w, _ = img.shape
        rt = cp.cuda.runtime
        desc = texture.ChannelFormatDescriptor(8, 8, 8, 8, rt.cudaChannelFormatKindUnsigned)
        arr = texture.CUDAarray(desc, w, h, 0, getattr(rt, "cudaArraySurfaceLoadStore", 2))
        host = np.ascontiguousarray(img.reshape(h, 4 * w))  # alive until the copy is done
        arr.copy_from(host, self.stream)
        res = texture.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)
        tex_desc = texture.TextureDescriptor(
            (rt.cudaAddressModeClamp, rt.cudaAddressModeClamp), rt.cudaFilterModePoint,
            rt.cudaReadModeElementType, normalizedCoords=0)
        src = {"array": arr, "texture": texture.TextureObject(res, tex_desc)}
        try:
            src["surface"] = texture.SurfaceObject(res)
        except Exception as e:  # noqa: BLE001 - costs the surface variants only
            src["surface_error"] = one_line(e)
        with self.stream:
            linear = cp.asarray(host)
        self.stream.synchronize()
        src["linear16"] = linear  # (h, 4 w) bytes; the kernel takes it as uint4 rows
        src["linear"] = linear.view(cp.uint32).reshape(h, w)
        return src, linear

    def launcher(self, v, w, h, src, bins):
        grid = v.grid(w, h, self.sm)
        if v.source == "texture":
            arg = np.uint64(src["texture"].ptr)
        elif v.source == "surface":
            if "surface" not in src:
                raise RuntimeError(f"no surface object: {src.get('surface_error')}")
            arg = np.uint64(src["surface"].ptr)
        else:
            arg = src[v.source]
        args = (arg, np.int32(w), np.int32(h), bins)
        block = (32 * v.warps,)
        k = v.kernel
        if v.dyn_bytes:
            return lambda: k(grid, block, args, shared_mem=v.dyn_bytes)
        return lambda: k(grid, block, args)

    def check(self, v, launch, bins, want):
        rt = self.cp.cuda.runtime
        with self.stream:
            rt.memsetAsync(bins.data.ptr, 0, BIN_BYTES, self.stream.ptr)
            launch()
        self.stream.synchronize()
        return compare(bins.get(), want, range(4))

    def context_alive(self):
        try:
            self.stream.synchronize()
            return True
        except Exception:  # noqa: BLE001 - a sticky error: nothing more will run
            self.broken = True
            self.out("the CUDA context is broken (sticky error): stopping")
            return False

    def edge_check(self, variants):
        """Every variant once on an odd-sized random image (partial warps and items)."""
        cp = self.cp
        w, h = EDGE_SIZE
        img = make_image("random", w, h, seed=7)
        want = reference(img)
        src, _ = self.upload(img)
        bins = cp.zeros(4 * HIST_BINS, dtype=cp.uint32)
        bad, checked = [], 0
        for v in variants:
            if v.error or v.diagnostic:
                continue
            try:
                diff = self.check(v, self.launcher(v, w, h, src, bins), bins, want)
                checked += 1
            except Exception as e:  # noqa: BLE001
                diff = f"launch failed: {one_line(e)}"
                v.error = f"edge launch: {one_line(e)}"
                if not self.context_alive():
                    return
            if diff:
                v.edge_mismatch = diff
                bad.append(v)
                self.out(f"MISMATCH (edge {w}x{h}) {v.label}: {diff}")
        self.out(f"edge check {w}x{h} random: {checked} variant(s) run, "
                 f"{'every one exact' if not bad else f'{len(bad)} differ or failed'}")

    def run_case(self, variants, npp, w, h, kind, timer, known=None):
        """Times `variants` on one image; `known`: the case's copy, NPP and baseline times from
        an earlier phase (not measured again). Returns them."""
        cp, out = self.cp, self.out
        rt = cp.cuda.runtime
        t0 = time.perf_counter()
        img = make_image(kind, w, h)
        want = reference(img)
        src, linear = self.upload(img)
        bins = cp.zeros(4 * HIST_BINS, dtype=cp.uint32)
        nbytes = 4 * w * h
        out("")
        out(f"=== {w}x{h} {kind} ({nbytes / 1e6:.1f} MB; image + reference in {time.perf_counter() - t0:.1f} s)")
        known = dict(known or {})

        if "copy_ms" not in known:  # the copy yardstick
            copy_dst = cp.empty_like(linear)
            kind_d2d = getattr(rt, "memcpyDeviceToDevice", 3)
            known["copy_ms"] = timer.time(lambda: rt.memcpyAsync(copy_dst.data.ptr, linear.data.ptr, nbytes,
                                                                 kind_d2d, self.stream.ptr))[0]
            del copy_dst
        copy_ms = known["copy_ms"]

        def pct_copy(ms):
            return 100.0 * (nbytes / ms) / (2.0 * nbytes / copy_ms)

        if "npp_ms" not in known:
            known["npp_ms"] = None
            npp_line = "NPP: not loaded"
            if npp is not None:
                try:
                    scratch = npp.prepare(w, h, linear)
                    with self.stream:
                        rt.memsetAsync(npp.hist.data.ptr, 0xAB, BIN_BYTES, self.stream.ptr)
                        npp.run()
                    self.stream.synchronize()
                    diff = compare(npp.hist.get(), want, range(3))
                    ms, mn, _, _ = timer.time(npp.run)
                    known["npp_ms"] = ms
                    npp_line = (f"NPP {npp.version} nppiHistogramEven_8u_C4R_Ctx: {ms:.4f} ms (min {mn:.4f}), "
                                f"{pct_copy(ms):.0f} % copy, scratch {scratch} B, R,G,B "
                                f"{'exact' if diff is None else 'MISMATCH ' + diff}")
                    if diff is not None:
                        out(f"MISMATCH NPP: {diff}")
                except Exception as e:  # noqa: BLE001
                    npp_line = f"NPP failed: {one_line(e)}"
            out(f"copy (cudaMemcpyAsync D2D of {nbytes / 1e6:.1f} MB): {copy_ms:.4f} ms; {npp_line}")
        else:
            npp_ms = known["npp_ms"]
            out(f"copy {copy_ms:.4f} ms, NPP {'-' if npp_ms is None else f'{npp_ms:.4f}'} ms, baseline "
                f"{'-' if known.get('base_ms') is None else '%.4f' % known['base_ms']} ms: measured earlier")
        npp_ms = known["npp_ms"]
        base_ms = known.get("base_ms")

        head = (f"{'variant':<13} {'config':<38} {'smem':>6} {'regs':>4} {'b/SM':>4} {'grid':>8} "
                f"{'ms':>8} {'min':>8} {'+zero':>8} {'xNPP':>6} {'xNPP+z':>6} {'xbase':>6} {'%copy':>6}  check")
        out(head)
        out("-" * len(head))
        results = self.results.setdefault((w, h, kind), [])
        zero = lambda: rt.memsetAsync(bins.data.ptr, 0, BIN_BYTES, self.stream.ptr)  # noqa: E731
        fmt = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
        for v in variants:
            if v.error:
                out(f"{v.family:<13} {v.config:<38} ERROR {v.error}")
                continue
            try:
                launch = self.launcher(v, w, h, src, bins)
                if v.diagnostic:
                    status = "diagnostic (not checked)"
                    diff = None
                else:
                    diff = self.check(v, launch, bins, want)
                    edge = getattr(v, "edge_mismatch", None)
                    status = "exact" if diff is None else f"MISMATCH {diff}"
                    if diff is None and edge:
                        status = "exact here, MISMATCH at the edge size"
                if diff is not None:
                    out(f"MISMATCH {v.label} ({w}x{h} {kind}): {diff}")
                ms, mn, zms, _ = timer.time(launch, zero)
            except Exception as e:  # noqa: BLE001 - a failing launch costs this variant only
                out(f"{v.family:<13} {v.config:<38} LAUNCH ERROR {one_line(e)}")
                if not self.context_alive():
                    break
                continue
            if v.family == "baseline":
                base_ms = known["base_ms"] = ms
            gx, gy = v.grid(w, h, self.sm)
            occ = "?" if v.occupancy is None else str(v.occupancy)
            out(f"{v.family:<13} {v.config:<38} {v.smem_bytes() / 1024:5.0f}K {v.regs:>4} {occ:>4} "
                f"{f'{gx}x{gy}':>8} {ms:8.4f} {mn:8.4f} {zms:8.4f} "
                f"{fmt(npp_ms / ms if npp_ms else None):>6} {fmt(npp_ms / zms if npp_ms else None):>6} "
                f"{fmt(base_ms / ms if base_ms else None):>6} {pct_copy(ms):5.0f}%  {status}")
            ok = (not v.diagnostic and diff is None and not getattr(v, "edge_mismatch", None))
            results.append((v, ms, zms, ok))
        self.known[(w, h, kind)] = known
        self.best_lines(w, h, kind)
        return known

    def best_lines(self, w, h, kind, prefix=""):
        """The fastest exact variants of a case so far: over the texture path (the product's)
        and over texture or surface reads (both work on the product's arrays)."""
        known = self.known.get((w, h, kind), {})
        npp_ms, base_ms = known.get("npp_ms"), known.get("base_ms")
        results = self.results.get((w, h, kind), [])
        lines = []
        for title, sources in (("texture reads", ("texture",)), ("texture or surface reads", ("texture", "surface"))):
            c = [r for r in results if r[3] and r[0].source in sources]
            if not c:
                continue
            best = min(c, key=lambda r: r[1])
            best_z = min(c, key=lambda r: r[2])
            line = (f"best ({title}, exact): {best[0].label} {best[1]:.4f} ms"
                    + (f" = {npp_ms / best[1]:.2f}x NPP" if npp_ms else "")
                    + f"; with the memset: {best_z[0].label} {best_z[2]:.4f} ms"
                    + (f" = {npp_ms / best_z[2]:.2f}x NPP" if npp_ms else ""))
            if base_ms:
                line += f"; baseline {base_ms:.4f} ms"
            if npp_ms:
                goal = npp_ms / 1.5
                line += (f"; goal 1.5x NPP = {goal:.4f} ms: "
                         + ("MET" if best_z[2] <= goal else "not met") + " with the memset, "
                         + ("MET" if best[1] <= goal else "not met") + " kernel alone")
            lines.append(line)
            self.out(prefix + line)
        return lines

    def run(self):
        cp, out, args = self.cp, self.out, self.args
        self.results, self.known, self.broken = {}, {}, False
        self.header()
        variants = make_variants()
        if args.only:
            keep = {f.strip() for f in args.only.split(",") if f.strip()}
            variants = [v for v in variants if v.family == "baseline" or v.family in keep]
        self.compile_all(variants)
        self.variant_table(variants)
        npp = None
        try:
            npp = Npp(cp, self.stream, self.dev, self.attrs)
            out(f"NPP {npp.version}: {npp.nppc_path}, {npp.nppist_path}")
        except Exception as e:  # noqa: BLE001 - the NPP column is optional
            out(f"NPP not available, its column stays empty: {one_line(e)}")
        timer = Timer(cp, self.stream, self.spin, self.spin_cycles, args.runs)
        phases = [("", [v for v in variants if not v.risky]),
                  ("risky phase: reads wider than an array element (a fault here stops only this phase)",
                   [v for v in variants if v.risky])]
        for title, group in phases:
            if not group or self.broken:
                continue
            if title:
                out("")
                out("=" * 20 + " " + title)
            out("")
            self.edge_check(group)
            for w, h in args.size_list:
                for kind in args.kinds:
                    if self.broken:
                        break
                    try:
                        self.run_case(group, npp, w, h, kind, timer, self.known.get((w, h, kind)))
                    except Exception as e:  # noqa: BLE001
                        out(f"case {w}x{h} {kind} failed: {one_line(e)}")
                        out(traceback.format_exc())
                        if not self.context_alive():
                            break
                    cp.get_default_memory_pool().free_all_blocks()
        out("")
        out("summary (every phase)")
        for w, h in args.size_list:
            for kind in args.kinds:
                self.best_lines(w, h, kind, prefix=f"  {w}x{h} {kind}: ")


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    out = Report(args.out)
    t0 = time.perf_counter()
    try:
        import cupy as cp
    except Exception as e:  # noqa: BLE001
        out(f"CuPy is needed: {one_line(e)}")
        out.close()
        return 2
    try:
        Probe(cp, args, out).run()
    except Exception as e:  # noqa: BLE001
        out(f"probe failed: {one_line(e)}")
        out(traceback.format_exc())
        out.close()
        return 1
    out(f"total {time.perf_counter() - t0:.1f} s")
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
