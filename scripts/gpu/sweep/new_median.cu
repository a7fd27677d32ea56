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
    };
}
