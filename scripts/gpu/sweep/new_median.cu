// new_median.cu: the 5x5 median (kernels/filters/median.cu's median5_strip, two columns a lane) in
// other block and strip layouts. Earlier variants, measured in run 79 and dropped: one column
// a lane (the layout before, 1.35x slower at 8K), and half-float pairs (HMNMX2), which issue
// on the same ALU pipe as the 16-bit integer min/max.
#include <cstdio>
#include <cstdlib>
#include "sweep.h"
#include "../../../kernels/filters/median.cu"

template <int WARPS, int SEGMENT, int STEP>
__global__ void __launch_bounds__(32 * WARPS) median5_v(cudaTextureObject_t s, cudaSurfaceObject_t d, int w, int h)
{
    median5_strip<WARPS, SEGMENT, STEP, U16Pairs>(s, d, w, h);
}
template <int WARPS, int SEGMENT, int STEP>
void launch_median5(const Args& a, int)
{
    dim3 grid((a.w + MEDIAN5_OUT * WARPS - 1) / (MEDIAN5_OUT * WARPS), (a.h + SEGMENT - 1) / SEGMENT);
    median5_v<WARPS, SEGMENT, STEP><<<grid, dim3(32, WARPS), 0, a.stream>>>(a.src, a.dst, a.w, a.h);
}

// The first is the app's launch (the reference of the others).
std::vector<Variant> median_variants()
{
    return {
        {"w4 seg16 step4 (app)", launch_median5<4, 16, 4>, 0},
        {"w4 seg16 step2", launch_median5<4, 16, 2>, 0},
        {"w2 seg16 step2", launch_median5<2, 16, 2>, 0},
        {"w8 seg16 step4", launch_median5<8, 16, 4>, 0},
        {"w4 seg32 step8", launch_median5<4, 32, 8>, 0},
    };
}
