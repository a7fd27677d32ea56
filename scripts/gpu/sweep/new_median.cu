// new_median.cu: the 5x5 median (kernels/median.cu's median5_strip) in other layouts and
// with other comparisons: 16-bit integer pairs (VIMNMX, the app's), half-float pairs
// (HMNMX2), or one word of each, to see which pipe the network should load.
#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#include "../../../kernels/median.cu"

// Channel pairs as half floats 1024 + v (bits 0x6400 | v: exact, in order, the low byte still v),
// compared by HMNMX2.
struct HalfPairs {
    static __device__ __forceinline__ unsigned int encode(unsigned int w) { return w | 0x64006400u; }
    static __device__ __forceinline__ unsigned int min(unsigned int a, unsigned int b)
    {
        unsigned int m;
        asm("min.f16x2 %0, %1, %2;" : "=r"(m) : "r"(a), "r"(b));
        return m;
    }
    static __device__ __forceinline__ unsigned int max(unsigned int a, unsigned int b)
    {
        unsigned int m;
        asm("max.f16x2 %0, %1, %2;" : "=r"(m) : "r"(a), "r"(b));
        return m;
    }
};

template <int WARPS, int SEGMENT, int STEP, typename Rb, typename Ga>
__global__ void __launch_bounds__(32 * WARPS) median5_v(cudaTextureObject_t s, cudaSurfaceObject_t d, int w, int h)
{
    median5_strip<WARPS, SEGMENT, STEP, Rb, Ga>(s, d, w, h);
}
template <int WARPS, int SEGMENT, int STEP, typename Rb, typename Ga>
void launch_median5(const Args& a, int)
{
    dim3 grid((a.w + MEDIAN5_OUT * WARPS - 1) / (MEDIAN5_OUT * WARPS), (a.h + SEGMENT - 1) / SEGMENT);
    median5_v<WARPS, SEGMENT, STEP, Rb, Ga><<<grid, dim3(32, WARPS), 0, a.stream>>>(a.src, a.dst, a.w, a.h);
}

// Trial layout: each lane owns two adjacent columns (xb = x0 - 2 + 2 lane and xb + 1), and
// a 16-bit pair holds one channel of both: word R = R(xb) | R(xb + 1) << 16, and G, B alike
// (no wasted alpha half: 3 words for two pixels instead of 4). The low halves run the
// window centred on xb, the high halves the one centred on xb + 1; the same network, with
// its columns routed so: own sorted word (xb | xb + 1), right = (xb + 1 | xb + 2) by a byte
// permute of the own and lane + 1's words, pair = merge(own, right), left pair = lane - 1's
// pair, far = lane + 1's sorted word. Lanes 0 and 31 are the apron; a warp writes 60 columns.
constexpr int PACKED_OUT = 60;

struct PackedRow {
    unsigned int r, g, b, alpha;  // alpha: both pixels' (16 bits each)
};

__device__ __forceinline__ PackedRow packed_row(uint4 lo, uint4 hi)
{
    return PackedRow{lo.x | (hi.x << 16), lo.y | (hi.y << 16), lo.z | (hi.z << 16), lo.w | (hi.w << 16)};
}

template <typename Pairs>
__device__ __forceinline__ unsigned int median25_packed(unsigned int (&c)[5])
{
    const unsigned int m = 0xffffffffu;
    sort5<Pairs>(c);
    unsigned int next[5], right[5], pair[10], left_pair[10];
#pragma unroll
    for (int i = 0; i < 5; ++i) {
        next[i] = __shfl_down_sync(m, c[i], 1);
        right[i] = __byte_perm(c[i], next[i], 0x5432);
    }
    merge_sorted<Pairs, 5, 1, 5, 1>(c, right, pair);
#pragma unroll
    for (int i = 0; i < 10; ++i) left_pair[i] = __shfl_up_sync(m, pair[i], 1);
    return median_of_pairs_and_column<Pairs>(left_pair, pair, next);
}

template <int WARPS, int SEGMENT, int STEP, typename Pairs>
__global__ void __launch_bounds__(32 * WARPS) median5_packed(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width, int height)
{
    const int lane = threadIdx.x;
    const int x0 = (blockIdx.x * WARPS + threadIdx.y) * PACKED_OUT;
    if (x0 >= width) return;
    const int xb = x0 - 2 + 2 * lane;
    const int x_out = lane >= 1 && lane <= 30 ? xb : -2;
    const int y0 = blockIdx.y * SEGMENT;
    const int y1 = min(y0 + SEGMENT, height);
    PackedRow win[STEP + 4];
#pragma unroll
    for (int r = 0; r < 4; ++r) win[r] = packed_row(texel_at(src, xb, y0 - 2 + r), texel_at(src, xb + 1, y0 - 2 + r));
    for (int y = y0; y < y1; y += STEP) {
        uint4 lo[STEP], hi[STEP];
#pragma unroll
        for (int r = 0; r < STEP; ++r) {
            lo[r] = texel_at(src, xb, y + 2 + r);
            hi[r] = texel_at(src, xb + 1, y + 2 + r);
        }
#pragma unroll
        for (int r = 0; r < STEP; ++r) win[4 + r] = packed_row(lo[r], hi[r]);
#pragma unroll
        for (int r = 0; r < STEP; ++r) {
            unsigned int rw[5], gw[5], bw[5];
#pragma unroll
            for (int k = 0; k < 5; ++k) {
                rw[k] = Pairs::encode(win[r + k].r);
                gw[k] = Pairs::encode(win[r + k].g);
                bw[k] = Pairs::encode(win[r + k].b);
            }
            const unsigned int mr = median25_packed<Pairs>(rw);
            const unsigned int mg = median25_packed<Pairs>(gw);
            const unsigned int mb = median25_packed<Pairs>(bw);
            const unsigned int a = win[r + 2].alpha;
            // Pixel xb from the low bytes, pixel xb + 1 from bytes 2.
            const unsigned int rg = __byte_perm(mr, mg, 0x6240);  // R0 G0 R1 G1
            const unsigned int ba = __byte_perm(mb, a, 0x6240);   // B0 A0 B1 A1
            store_word_clipped(dst, x_out, y + r, __byte_perm(rg, ba, 0x5410));
            store_word_clipped(dst, x_out + 1, y + r, __byte_perm(rg, ba, 0x7632));
        }
#pragma unroll
        for (int r = 0; r < 4; ++r) win[r] = win[STEP + r];
    }
}
template <int WARPS, int SEGMENT, int STEP, typename Pairs>
void launch_median5_packed(const Args& a, int)
{
    dim3 grid((a.w + PACKED_OUT * WARPS - 1) / (PACKED_OUT * WARPS), (a.h + SEGMENT - 1) / SEGMENT);
    median5_packed<WARPS, SEGMENT, STEP, Pairs><<<grid, dim3(32, WARPS), 0, a.stream>>>(a.src, a.dst, a.w, a.h);
}

// The first is the app's launch (the reference of the others).
std::vector<Variant> median_variants()
{
    return {
        {"u16 w4 seg16 step4 (app)", launch_median5<4, 16, 4, U16Pairs, U16Pairs>, 0},
        {"half w4 seg16 step4", launch_median5<4, 16, 4, HalfPairs, HalfPairs>, 0},
        {"u16+half w4 seg16 step4", launch_median5<4, 16, 4, U16Pairs, HalfPairs>, 0},
        {"u16 w4 seg16 step2", launch_median5<4, 16, 2, U16Pairs, U16Pairs>, 0},
        {"u16 w4 seg32 step8", launch_median5<4, 32, 8, U16Pairs, U16Pairs>, 0},
        {"u16 w8 seg16 step4", launch_median5<8, 16, 4, U16Pairs, U16Pairs>, 0},
        {"u16 w2 seg32 step4", launch_median5<2, 32, 4, U16Pairs, U16Pairs>, 0},
        {"u16+half w4 seg16 step2", launch_median5<4, 16, 2, U16Pairs, HalfPairs>, 0},
        {"half w4 seg16 step2", launch_median5<4, 16, 2, HalfPairs, HalfPairs>, 0},
        {"packed u16 w4 seg16 step2", launch_median5_packed<4, 16, 2, U16Pairs>, 0},
        {"packed u16 w4 seg16 step4", launch_median5_packed<4, 16, 4, U16Pairs>, 0},
        {"packed u16 w2 seg16 step2", launch_median5_packed<2, 16, 2, U16Pairs>, 0},
        {"packed half w4 seg16 step2", launch_median5_packed<4, 16, 2, HalfPairs>, 0},
    };
}
